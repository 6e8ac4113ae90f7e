//===- GpuBackward.cpp - flash-run's GPU mode, backward entries -----------===//
//
// One case of a backward entry (ABI "kind": "backward", compiled from
// flash.attention_backward), run through flashrt_attention_backward: fresh
// standard normal Q, K, V and dO rounded to the kernel's dtype, O and LSE
// from the double forward reference on them (O rounded to the dtype, as a
// training step saves it), dQ, dK and dV poisoned with NaN, then compared
// with the double backward reference. Each gradient passes when its max
// error is at most twice that of the same backward computed in the
// kernel's dtype (P and dS rounded to it before their products, D taken
// from the rounded O, the gradients rounded at the end: FA2's rule for the
// backward) plus kGradFloor;
// --tol replaces the bound. Captures (ALiBi, score_mod / mask_mod operands)
// are drawn and evaluated as the forward cases do; a score_mod's derivative
// is a central difference of its region, as in flash-run's JIT mode.
//
//===----------------------------------------------------------------------===//

#include "GpuCase.h"
#include "SizeGuard.h"

namespace ref = flash::ref;
using namespace flash::run;
using namespace flash::run::gpu;

namespace {

/// Added to twice the same-dtype error: covers the kernel's f32 sums where
/// the emulation's are exact.
constexpr double kGradFloor = 1e-4;

/// Q, K, V, dO (inputs) and dQ, dK, dV (outputs) of one case, and O.
enum Tensor { TQ, TK, TV, TDO, TO, TDQ, TDK, TDV, kNumTensors };

/// The max error of the same-dtype emulation of each gradient of one
/// (batch, KV head) slice against the exact reference.
struct SliceErr {
  double dq = 0, dk = 0, dv = 0;
};

/// The references on one (batch, KV head) slice, which is self-contained
/// (its K/V head's gradients sum over its group of query heads): O and LSE
/// by the forward, the exact gradients, and the error of the same backward
/// in the kernel's dtype against them. `views` are the whole case's, each
/// moved to the slice here.
SliceErr referenceSlice(const Kernel &k, const Case &c,
                        const CaseCaptures &caps, int64_t b, int64_t hk,
                        const ref::View4 *in, ref::MutView4 o, float *lse,
                        ref::MutView4 dq, ref::MutView4 dk, ref::MutView4 dv) {
  int64_t group = c.hq / c.hkv, d = k.abi.headDim, dvDim = k.abi.headDimV;
  int64_t h0 = hk * group;
  auto at = [](auto view, int64_t b, int64_t h) {
    view.data += b * view.strides[0] + h * view.strides[1];
    return view;
  };
  ref::AttentionParams p;
  p.batch = 1;
  p.headsQ = group;
  p.headsKV = 1;
  p.seqQ = c.sq;
  p.seqK = c.sk;
  p.headDim = d;
  p.headDimV = dvDim;
  p.scale = k.scale;
  p.causal = k.causal;
  p.windowLeft = k.windowLeft;
  p.windowRight = k.windowRight;
  p.softcap = k.softcap;
  if (const float *slopes = caps.slopes())
    p.alibiSlopes = slopes + (caps.alibiRank == 2 ? b * c.hq : 0) + h0;
  if (const auto &mod = caps.regions.scoreMod) {
    p.scoreMod = [&mod, b, h0](double s, int64_t, int64_t h, int64_t i,
                               int64_t j) { return mod(s, b, h0 + h, i, j); };
    // The region's derivative by central differences, as the JIT mode
    // takes it (the user's IR, not the lowering's derivative, is the
    // oracle).
    p.scoreModGrad = [f = p.scoreMod](double s, int64_t b, int64_t h, int64_t i,
                                      int64_t j) {
      double step = 1e-4 * std::max(1.0, std::fabs(s));
      return (f(s + step, b, h, i, j) - f(s - step, b, h, i, j)) / (2 * step);
    };
  }
  if (const auto &mod = caps.regions.maskMod)
    p.maskMod = [&mod, b, h0](int64_t, int64_t h, int64_t i, int64_t j) {
      return mod(b, h0 + h, i, j);
    };
  ref::View4 q = at(in[TQ], b, h0), kk = at(in[TK], b, hk),
             v = at(in[TV], b, hk), dout = at(in[TDO], b, h0);
  ref::MutView4 os = at(o, b, h0), dqs = at(dq, b, h0), dks = at(dk, b, hk),
                dvs = at(dv, b, hk);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  if (!ref::attention(p, q, kk, v, os, lse + (b * c.hq + h0) * c.sq).empty() ||
      !ref::attentionBackward(p, q, kk, v, dout, dqs, dks, dvs).empty())
    return {nan, nan, nan};

  // The same backward in the kernel's dtype, into slice-sized buffers.
  ref::Shape4 qShape = {1, group, c.sq, d}, kShape = {1, 1, c.sk, d},
              vShape = {1, 1, c.sk, dvDim};
  std::vector<float> eq(numel(qShape)), ek(numel(kShape)), ev(numel(vShape));
  ref::MutView4 eqv = {eq.data(), ref::contiguousStrides(qShape)},
                ekv = {ek.data(), ref::contiguousStrides(kShape)},
                evv = {ev.data(), ref::contiguousStrides(vShape)};
  auto round = [&k](double x) { return double(k.dtype.round(x)); };
  p.roundWeight = round;
  p.roundScoreGrad = round;
  p.roundOutput = round;
  if (!ref::attentionBackward(p, q, kk, v, dout, eqv, ekv, evv).empty())
    return {nan, nan, nan};
  for (std::vector<float> *e : {&eq, &ek, &ev})
    for (float &x : *e)
      x = k.dtype.round(x);
  return {ref::compare(eqv, dqs, qShape).maxErr,
          ref::compare(ekv, dks, kShape).maxErr,
          ref::compare(evv, dvs, vShape).maxErr};
}

} // namespace

std::string gpu::checkBackwardCaseSize(const Kernel &k, const Case &c) {
  int64_t d = k.abi.headDim, dv = k.abi.headDimV;
  std::optional<int64_t> q = checkedProduct({c.b, c.hq, c.sq, d});
  std::optional<int64_t> o = checkedProduct({c.b, c.hq, c.sq, dv});
  std::optional<int64_t> kk = checkedProduct({c.b, c.hkv, c.sk, d});
  std::optional<int64_t> v = checkedProduct({c.b, c.hkv, c.sk, dv});
  std::optional<int64_t> lse = checkedProduct({c.b, c.hq, c.sq});
  for (std::optional<int64_t> n : {q, o, kk, v}) {
    std::string err = checkTensorElements(n);
    if (!err.empty())
      return err;
  }
  // Host copies: inputs and O as float and 16-bit bits (6 bytes); each
  // gradient as bits, float, reference and emulation (14 bytes); LSE.
  std::optional<int64_t> bytes = checkedProduct({*lse, 4});
  for (auto [n, per] :
       {std::pair{q, 6 + 14}, {o, 6 + 6}, {kk, 6 + 14}, {v, 6 + 14}})
    bytes = checkedSum(bytes, checkedProduct({*n, per}));
  return checkHostBytes(bytes);
}

int gpu::runBackwardCase(const Kernel &k, const Case &c, const Options &o,
                         const EntryCaptures &entryCaps, std::mt19937 &rng) {
  int64_t d = k.abi.headDim, dv = k.abi.headDimV;
  bool bshd = o.layout == "bshd";
  ref::Shape4 qShape = {c.b, c.hq, c.sq, d}, kShape = {c.b, c.hkv, c.sk, d},
              vShape = {c.b, c.hkv, c.sk, dv}, oShape = {c.b, c.hq, c.sq, dv};
  const ref::Shape4 shapes[kNumTensors] = {qShape, kShape, vShape, oShape,
                                           oShape, qShape, kShape, vShape};
  ref::Strides4 strides[kNumTensors];
  for (int i = 0; i < kNumTensors; ++i)
    strides[i] =
        bshd ? ref::bshdStrides(shapes[i]) : ref::contiguousStrides(shapes[i]);
  int64_t lseCount = c.b * c.hq * c.sq;

  // Q, K, V and dO: standard normal, rounded to the kernel's dtype (the
  // reference reads the rounded values), dense in either layout.
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> host[kNumTensors];
  std::vector<uint16_t> bits[kNumTensors];
  for (int i = 0; i < kNumTensors; ++i) {
    host[i].resize(numel(shapes[i]));
    bits[i].resize(numel(shapes[i]));
  }
  for (int i : {TQ, TK, TV, TDO})
    for (size_t j = 0; j < bits[i].size(); ++j) {
      bits[i][j] = k.dtype.encode(normal(rng));
      host[i][j] = k.dtype.decode(bits[i][j]);
    }
  CaseCaptures caps = drawCaseCaptures(entryCaps, c, rng);

  // The references, one (batch, KV head) slice per task: O and LSE (the
  // kernel's inputs) and the exact gradients in the case's layout.
  std::vector<float> lse(lseCount);
  std::vector<SliceErr> errs(c.b * c.hkv);
  ref::View4 in[kNumTensors];
  for (int i = 0; i < kNumTensors; ++i)
    in[i] = {host[i].data(), strides[i]};
  auto mut = [&](int i) { return ref::MutView4{host[i].data(), strides[i]}; };
  parallelFor(c.b * c.hkv, [&](int64_t i) {
    errs[i] = referenceSlice(k, c, caps, i / c.hkv, i % c.hkv, in, mut(TO),
                             lse.data(), mut(TDQ), mut(TDK), mut(TDV));
  });
  if (!caps.error->empty())
    return fail(*caps.error);
  SliceErr same;
  for (const SliceErr &e : errs) {
    if (std::isnan(e.dq) || std::isnan(e.dk) || std::isnan(e.dv))
      return fail("the reference rejects the case");
    same.dq = std::max(same.dq, e.dq);
    same.dk = std::max(same.dk, e.dk);
    same.dv = std::max(same.dv, e.dv);
  }
  // O as a training step saved it, in the dtype.
  for (size_t j = 0; j < bits[TO].size(); ++j)
    bits[TO][j] = k.dtype.encode(host[TO][j]);

  DeviceBuffer dev[kNumTensors], lseDev;
  for (int i = 0; i < kNumTensors; ++i)
    if (flashrt_malloc(&dev[i].ptr, bits[i].size() * 2))
      return runtimeFail("allocating device memory");
  if (flashrt_malloc(&lseDev.ptr, size_t(lseCount) * 4) ||
      flashrt_memcpy_htod(lseDev.ptr, lse.data(), size_t(lseCount) * 4))
    return runtimeFail("copying LSE to the device");
  for (int i : {TQ, TK, TV, TDO, TO})
    if (flashrt_memcpy_htod(dev[i].ptr, bits[i].data(), bits[i].size() * 2))
      return runtimeFail("copying inputs to the device");
  // NaN poison (0xFFFF is a NaN in bf16 and f16).
  for (int i : {TDQ, TDK, TDV})
    if (flashrt_memset(dev[i].ptr, 0xff, bits[i].size() * 2))
      return runtimeFail("poisoning the gradients");
  std::vector<DeviceBuffer> capDev(caps.tensors.size());
  std::vector<flashrt_tensor> capT(caps.tensors.size());
  for (size_t n = 0; n < caps.tensors.size(); ++n) {
    const HostCapture &h = caps.tensors[n];
    if (flashrt_malloc(&capDev[n].ptr, h.bytes()) ||
        flashrt_memcpy_htod(capDev[n].ptr, h.data(), h.bytes()))
      return runtimeFail("copying capture " + std::to_string(n) +
                         " to the device");
    flashrt_tensor &t = capT[n];
    t.data = capDev[n].ptr;
    t.rank = int32_t(h.sizes.size());
    t.dtype = h.isFloat() ? FLASHRT_DTYPE_F32 : FLASHRT_DTYPE_I32;
    std::copy(h.sizes.begin(), h.sizes.end(), t.sizes);
    std::copy(h.strides.begin(), h.strides.end(), t.strides);
  }

  flashrt_tensor t[kNumTensors] = {};
  for (int i = 0; i < kNumTensors; ++i) {
    t[i].data = dev[i].ptr;
    t[i].rank = 4;
    t[i].dtype = k.dtype.bf16 ? FLASHRT_DTYPE_BF16 : FLASHRT_DTYPE_F16;
    std::copy(shapes[i].begin(), shapes[i].end(), t[i].sizes);
    std::copy(strides[i].begin(), strides[i].end(), t[i].strides);
  }
  flashrt_tensor lseT = {lseDev.ptr,
                         {c.b, c.hq, c.sq},
                         {c.hq * c.sq, c.sq, 1},
                         3,
                         FLASHRT_DTYPE_F32};
  const flashrt_tensor *capArg = capT.empty() ? nullptr : capT.data();
  if (flashrt_attention_backward(k.handle, &t[TQ], &t[TK], &t[TV], &t[TO],
                                 &lseT, &t[TDO], capArg, int(capT.size()),
                                 &t[TDQ], &t[TDK], &t[TDV], nullptr))
    return runtimeFail("running @" + o.func);

  // The gradients back, compared in the case's layout.
  struct Grad {
    const char *name;
    int tensor;
    double same;
    ref::Diff diff;
    double tol;
  } grads[] = {{"dQ", TDQ, same.dq, {}, 0},
               {"dK", TDK, same.dk, {}, 0},
               {"dV", TDV, same.dv, {}, 0}};
  bool ok = true;
  for (Grad &g : grads) {
    std::vector<uint16_t> got(bits[g.tensor].size());
    if (flashrt_memcpy_dtoh(got.data(), dev[g.tensor].ptr, got.size() * 2))
      return runtimeFail("copying results back");
    std::vector<float> gotF(got.size());
    for (size_t j = 0; j < got.size(); ++j)
      gotF[j] = k.dtype.decode(got[j]);
    g.diff = ref::compare({gotF.data(), strides[g.tensor]}, in[g.tensor],
                          shapes[g.tensor]);
    g.tol = o.tol ? *o.tol : 2.0 * g.same + kGradFloor;
    ok &= g.diff.nans == 0 && g.diff.maxErr <= g.tol;
  }

  float ms = 0.0f;
  int warmup = o.repeat > 1 ? 3 : 0;
  if (flashrt_time_backward_ms(k.handle, &t[TQ], &t[TK], &t[TV], &t[TO], &lseT,
                               &t[TDO], capArg, int(capT.size()), &t[TDQ],
                               &t[TDK], &t[TDV], nullptr, warmup, int(o.repeat),
                               &ms))
    return runtimeFail("timing @" + o.func);

  std::string line =
      "B=" + std::to_string(c.b) + " Hq=" + std::to_string(c.hq) +
      " Hkv=" + std::to_string(c.hkv) + " Sq=" + std::to_string(c.sq) +
      " Sk=" + std::to_string(c.sk) + " D=" + std::to_string(d) +
      " Dv=" + std::to_string(dv) + " layout=" + o.layout + " backward";
  if (caps.alibiRank)
    line += " alibi";
  size_t regionCaps =
      caps.tensors.size() - (caps.alibiRank != 0) - (caps.hintIndex >= 0);
  if (regionCaps)
    line += " captures=" + std::to_string(regionCaps);
  if (caps.hintIndex >= 0)
    line += " block_mask=" + std::to_string(entryCaps.hintRows) + ":" +
            entryCaps.hintMode;
  line += ":";
  for (const Grad &g : grads)
    line += std::string(" max|d") + g.name +
            "|=" + format("%.1e", g.diff.maxErr) + " (tol " +
            format("%.1e", g.tol) + (o.tol ? " from --tol" : "") +
            ", same-dtype ref err " + format("%.1e", g.same) + ")";
  line += " time=" + format("%.3g", ms) + " ms";
  if (grads[0].diff.nans || grads[1].diff.nans || grads[2].diff.nans)
    line += " NaN/unwritten: dQ=" + std::to_string(grads[0].diff.nans) +
            " dK=" + std::to_string(grads[1].diff.nans) +
            " dV=" + std::to_string(grads[2].diff.nans);
  std::printf("%s  %s\n", line.c_str(), ok ? "PASS" : "FAIL");
  std::fflush(stdout);
  return ok ? 0 : 1;
}
