//===- GpuRun.cpp - flash-run's GPU mode ----------------------------------===//
//
// Runs one entry point of a compiled artifact on the GPU through libflashrt,
// on fresh random inputs per case, and checks O and LSE against the C++
// reference (flash/Reference/Reference.h) computed in double on the very
// bf16/f16 values the kernel read:
//
//   flash-run-gpu --artifact=libX.so --func=NAME
//                 --shapes="B,Hq,Hkv,Sq,Sk[,D[,Dv]];..." [--layout=bhsd|bshd]
//                 [--seed=N] [--repeat=N] [--tol=X] [--lse-tol=X] [--device=N]
//                 [--page-size=N] [--source=FILE.mlir] [--alibi]
//                 [--capture=RULE]...
//
// The semantics (causal, window, softcap, scale, kv_lens, paged) come from
// the artifact's ABI record. KV-cache entries (ABI "kv_lens" / "paged") run
// through flashrt_attention_kv, as flash-run's CPU mode runs them: Sk in
// --shapes is the cache capacity; kv_lens[b] is Sk for b = 0, 0 for b = 1 if
// B > 2, 1 for b = 2 if B > 3, else uniform in [0, Sk]; paged K/V are a pool
// of B * ceil(Sk / page_size) + 3 pages ([pages, page_size, Hkv, D] storage
// with --layout=bshd) in a fresh random order (the page size is the ABI's
// kv_shape[2], or --page-size where it is dynamic); every K/V row that holds
// no live key (past kv_lens, spare pages) is NaN. O and LSE are poisoned with
// NaN before the run, so anything the kernel does not write fails. O passes
// when max|dO| <= 2 * err_ref (floor 1e-3), err_ref being the error of the same
// reference computed "in the kernel's dtype": P rounded to bf16/f16 before the
// PV product and O rounded at the end, FA2's tolerance rule; --tol replaces
// that bound. LSE passes within --lse-tol (default 2e-3). With --repeat=N the
// time is the median of N CUDA-event timed runs.
//
// Entries whose ABI lists "captures" (ALiBi's slopes, a score_mod /
// mask_mod's operands) run through flashrt_attention_captures
// (GpuCaptures.h): the slopes are drawn as flash-run's JIT mode draws them,
// every other capture by its --capture rule (Cases.h, the JIT mode's
// syntax); the reference applies ALiBi and evaluates the regions from the
// MLIR the artifact was compiled from, --source, which only flash-run (with
// MLIR) reads; flash-run-gpu checks ALiBi-only entries with --alibi.
//
// Backward entries (ABI "kind": "backward") run through
// flashrt_attention_backward (GpuBackward.cpp): fresh Q, K, V and dO, O and
// LSE from the forward reference, dQ, dK and dV poisoned and each checked
// against the backward reference within twice the error of the same
// backward in the kernel's dtype (P and dS rounded) plus 1e-4.
//
// Exit code: 0 all cases pass, 1 a case fails, 2 usage or runtime error
// (flashrt's message is printed). Plain C++: flash-run links it for
// `flash-run --artifact=...`, and flash-run-gpu is this alone, for the GPU
// machine, which has no MLIR.
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"
#include "Cases.h"
#include "GpuCaptures.h"
#include "GpuCase.h"
#include "SizeGuard.h"

#include "flashrt/Abi.h"
#include "flash/Reference/Reference.h"
#include "flashrt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ref = flash::ref;
using namespace flash::run;
using namespace flash::run::gpu;

namespace {

const char kUsage[] =
    "usage: flash-run-gpu --artifact=libX.so --func=NAME\n"
    "           --shapes=\"B,Hq,Hkv,Sq,Sk[,D[,Dv]];...\" [--layout=bhsd|bshd]\n"
    "           [--seed=N] [--repeat=N] [--tol=X] [--lse-tol=X] "
    "[--device=N]\n"
    "           [--page-size=N] [--source=FILE.mlir] [--alibi] "
    "[--capture=RULE]...\n"
    "           [--block-mask=tight|loose|unsound-full]\n\n"
    "Runs the artifact's entry point NAME (compiled by FlashMLIR, loaded by\n"
    "libflashrt) on random bf16/f16 inputs and checks O and LSE against the\n"
    "double-precision reference. Default O bound: 2x the error of the same\n"
    "reference computed in the kernel's dtype (at least 1e-3); --tol\n"
    "replaces it. LSE bound: --lse-tol (default 2e-3). --repeat=N reports\n"
    "the median of N CUDA-event timed runs. KV-cache entries (kv_lens,\n"
    "paged) get random lengths (full, 0, 1, random) and a random page table\n"
    "over a pool with spare pages, NaN in every dead K/V row; Sk is the\n"
    "capacity. Entries with captures (ABI \"captures\"): ALiBi's slopes\n"
    "are drawn in [1/256, 1/4], the others by one --capture rule each\n"
    "(KIND[:ARGS]@DIMS: uniform:LO,HI, randint:LO,HI, docs:N or const:X;\n"
    "DIMS e.g. BxSk); --source=FILE.mlir (flash-run only: it needs MLIR)\n"
    "gives the regions the reference evaluates, --alibi says an entry's\n"
    "only capture is ALiBi's slopes. An entry with a block_mask hint (ABI\n"
    "\"block_mask\") gets one per case derived from the source's mask_mod:\n"
    "--block-mask=tight (default), loose (sound, nothing full) or\n"
    "unsound-full (every key full: shows the kernel uses it). Backward\n"
    "entries (ABI \"kind\": \"backward\") get fresh Q, K, V and dO, O and\n"
    "LSE from the reference forward, and each of dQ, dK, dV passes within\n"
    "2x the error of the same backward in the kernel's dtype (P and dS\n"
    "rounded) plus 1e-4; --tol replaces it. Exit code: 0 all cases pass,\n"
    "1 a case fails, 2 usage or runtime error.\n";

/// Parses argv by hand (no llvm::cl: flash-run-gpu must not need libLLVM).
/// Accepts --name=value and --name value. Returns "" or an error.
std::string parseArgs(int argc, char **argv, Options &o) {
  static const char *const known[] = {
      "artifact", "func",   "shapes",    "layout", "seed",   "repeat",
      "tol",      "lse-tol", "device", "page-size", "source", "capture",
      "block-mask"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "-h" || arg == "-help" || arg == "--help") {
      o.help = true;
      continue;
    }
    if (arg == "--alibi" || arg == "-alibi") {
      o.captures.alibi = true;
      continue;
    }
    if (arg.size() < 2 || arg[0] != '-')
      return "unexpected argument '" + arg +
             "': the GPU mode runs the compiled --artifact, it takes no "
             "input file";
    std::string name = arg.substr(arg[1] == '-' ? 2 : 1), value;
    size_t eq = name.find('=');
    bool hasValue = eq != std::string::npos;
    if (hasValue) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (std::find(std::begin(known), std::end(known), name) == std::end(known))
      return "unknown option '" + arg + "' (see --help)";
    if (!hasValue) {
      if (i + 1 >= argc)
        return "--" + name + " needs a value";
      value = argv[++i];
    }
    int64_t n;
    double x;
    if (name == "artifact") {
      o.artifact = value;
    } else if (name == "func") {
      o.func = value;
    } else if (name == "shapes") {
      o.shapes = value;
    } else if (name == "source") {
      o.captures.source = value;
    } else if (name == "capture") {
      o.captures.rules.push_back(value);
    } else if (name == "block-mask") {
      o.captures.blockMask = value;
    } else if (name == "layout") {
      o.layout = value;
    } else if (name == "seed") {
      if (!parseInt(value, n) || n < 0)
        return "--seed must be a non-negative integer, got '" + value + "'";
      o.seed = uint64_t(n);
    } else if (name == "repeat") {
      if (!parseInt(value, n) || n < 1 || n > 100000)
        return "--repeat must be >= 1, got '" + value + "'";
      o.repeat = unsigned(n);
    } else if (name == "tol" || name == "lse-tol") {
      if (!parseDouble(value, x) || !(x >= 0.0))
        return "--" + name + " must be >= 0, got '" + value + "'";
      if (name == "tol")
        o.tol = x;
      else
        o.lseTol = x;
    } else if (name == "device") {
      if (!parseInt(value, n) || n < 0 || n > 1024)
        return "--device must be a device number, got '" + value + "'";
      o.device = int(n);
    } else if (name == "page-size") {
      if (!parseInt(value, n) || n < 1 || n > (1 << 20))
        return "--page-size must be positive, got '" + value + "'";
      o.pageSize = n;
    }
  }
  if (o.help)
    return "";
  if (o.artifact.empty())
    return "--artifact names no file";
  if (o.func.empty())
    return "--func=NAME is required with --artifact (the entry point)";
  if (o.shapes.empty())
    return "--shapes is required";
  if (o.layout != "bhsd" && o.layout != "bshd")
    return "--layout must be bhsd or bshd, got '" + o.layout + "'";
  return "";
}

//===----------------------------------------------------------------------===//
// Checking
//===----------------------------------------------------------------------===//

/// One case's KV cache: lengths and page table (empty when the entry has
/// none), and the pool's geometry.
struct KvCache {
  std::vector<int32_t> lens, table;
  int64_t pageSize = 0, pagesPerSeq = 0, numPages = 0;
  bool paged() const { return pageSize > 0; }
  /// Used keys of sequence b (capacity `sk` without lengths).
  int64_t len(int64_t b, int64_t sk) const {
    return lens.empty() ? sk : lens[b];
  }
};

/// The reference on one (batch, KV head) slice: O and LSE in double, and
/// the error of the same computation in the kernel's dtype (P rounded
/// before PV, O rounded at the end) against it. `caps`: ALiBi's slopes and
/// the regions over the whole batch, which the slice sees at its own batch
/// and heads.
double referenceSlice(const Kernel &k, const Case &c, const KvCache &cache,
                      const CaseCaptures &caps, int64_t b, int64_t hk,
                      ref::View4 q, ref::View4 kk, ref::View4 v,
                      ref::MutView4 o, float *lse) {
  int64_t group = c.hq / c.hkv, d = k.abi.headDim, dv = k.abi.headDimV;
  auto shift = [](auto view, int64_t b, int64_t h) {
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
  p.headDimV = dv;
  p.scale = k.scale;
  p.causal = k.causal;
  p.windowLeft = k.windowLeft;
  p.windowRight = k.windowRight;
  p.softcap = k.softcap;
  // Paged K/V are the whole pool: only the head moves.
  int64_t kvBatch = cache.paged() ? 0 : b;
  ref::View4 qs = shift(q, b, hk * group), ks = shift(kk, kvBatch, hk),
             vs = shift(v, kvBatch, hk);
  if (!cache.lens.empty())
    p.kvLens = &cache.lens[b];
  if (cache.paged()) {
    p.blockTable = &cache.table[b * cache.pagesPerSeq];
    p.pageSize = cache.pageSize;
    p.pagesPerSeq = cache.pagesPerSeq;
    p.numPages = cache.numPages;
  }
  // The slice's heads h are the batch's hk * group + h.
  int64_t h0 = hk * group;
  if (const float *slopes = caps.slopes())
    p.alibiSlopes = slopes + (caps.alibiRank == 2 ? b * c.hq : 0) + h0;
  if (const auto &mod = caps.regions.scoreMod)
    p.scoreMod = [&mod, b, h0](double s, int64_t, int64_t h, int64_t i,
                               int64_t j) { return mod(s, b, h0 + h, i, j); };
  if (const auto &mod = caps.regions.maskMod)
    p.maskMod = [&mod, b, h0](int64_t, int64_t h, int64_t i, int64_t j) {
      return mod(b, h0 + h, i, j);
    };
  ref::MutView4 os = shift(o, b, h0);
  float *lses = lse ? lse + (b * c.hq + h0) * c.sq : nullptr;
  if (!ref::attention(p, qs, ks, vs, os, lses).empty())
    return std::numeric_limits<double>::quiet_NaN();

  // The same in the kernel's dtype.
  ref::Shape4 shape = {1, group, c.sq, dv};
  ref::Strides4 strides = ref::contiguousStrides(shape);
  std::vector<float> emulated(group * c.sq * dv);
  p.roundWeight = [&k](double w) { return double(k.dtype.round(w)); };
  if (!ref::attention(p, qs, ks, vs, {emulated.data(), strides}, nullptr)
           .empty())
    return std::numeric_limits<double>::quiet_NaN();
  for (float &x : emulated)
    x = k.dtype.round(x);
  return ref::compare({emulated.data(), strides}, os, shape).maxErr;
}

using ref::compare;
using ref::Diff;

/// "" when runCase's buffers for `c` fit (every size overflow-checked), else
/// why not.
std::string checkCaseSize(const Kernel &k, const Case &c) {
  int64_t d = k.abi.headDim, dv = k.abi.headDimV;
  std::optional<int64_t> kvOuter = c.b, kvRows = c.sk;
  if (k.abi.paged) {
    int64_t pagesPerSeq = c.sk / k.pageSize + (c.sk % k.pageSize != 0);
    kvOuter = checkedSum(checkedProduct({c.b, pagesPerSeq}), 3);
    kvRows = k.pageSize;
  }
  std::optional<int64_t> q = checkedProduct({c.b, c.hq, c.sq, d});
  std::optional<int64_t> o = checkedProduct({c.b, c.hq, c.sq, dv});
  std::optional<int64_t> lse = checkedProduct({c.b, c.hq, c.sq});
  std::optional<int64_t> kv, kvv;
  if (kvOuter && kvRows) {
    kv = checkedProduct({*kvOuter, c.hkv, *kvRows, d});
    kvv = checkedProduct({*kvOuter, c.hkv, *kvRows, dv});
  }
  for (std::optional<int64_t> n : {q, o, kv, kvv}) {
    std::string err = checkTensorElements(n);
    if (!err.empty())
      return err;
  }
  // Host copies: inputs as float + 16-bit bits (6 bytes), O as bits, float
  // and reference (10 bytes), LSE as float, reference and error (12 bytes).
  std::optional<int64_t> bytes = checkedProduct({*q, 6});
  for (auto [n, per] : {std::pair{kv, 6}, {kvv, 6}, {o, 10}, {lse, 12}})
    bytes = checkedSum(bytes, n ? checkedProduct({*n, per}) : std::nullopt);
  return checkHostBytes(bytes);
}

/// Runs one case: 0 pass, 1 fail, 2 runtime error (printed).
int runCase(const Kernel &k, const Case &c, const Options &o,
            const EntryCaptures &entryCaps, std::mt19937 &rng) {
  int64_t d = k.abi.headDim, dv = k.abi.headDimV;
  bool bshd = o.layout == "bshd";
  KvCache cache;
  int64_t kvOuter = c.b, kvRows = c.sk;
  if (k.abi.paged) {
    cache.pageSize = k.pageSize;
    cache.pagesPerSeq = (c.sk + k.pageSize - 1) / k.pageSize;
    // Spare pages no table entry names: a kernel indexing the pool by
    // batch instead of through the table reads their NaNs.
    cache.numPages = c.b * cache.pagesPerSeq + 3;
    kvOuter = cache.numPages;
    kvRows = k.pageSize;
  }
  // bshd on the page pool gives [num_pages, page_size, Hkv, D] storage.
  ref::Shape4 shapes[4] = {{c.b, c.hq, c.sq, d},
                           {kvOuter, c.hkv, kvRows, d},
                           {kvOuter, c.hkv, kvRows, dv},
                           {c.b, c.hq, c.sq, dv}};
  ref::Strides4 strides[4];
  for (int i = 0; i < 4; ++i)
    strides[i] =
        bshd ? ref::bshdStrides(shapes[i]) : ref::contiguousStrides(shapes[i]);
  int64_t lseCount = c.b * c.hq * c.sq;

  // Inputs: standard normal, rounded to the kernel's dtype; the reference
  // reads the rounded values. Buffers are dense in either layout.
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> host[3];
  std::vector<uint16_t> bits[3];
  for (int i = 0; i < 3; ++i) {
    host[i].resize(numel(shapes[i]));
    bits[i].resize(numel(shapes[i]));
    for (int64_t j = 0; j < numel(shapes[i]); ++j) {
      bits[i][j] = k.dtype.encode(normal(rng));
      host[i][j] = k.dtype.decode(bits[i][j]);
    }
  }

  if (k.abi.kvLens)
    cache.lens = ref::drawKvLens(rng, c.b, c.sk);
  if (cache.paged())
    cache.table =
        ref::drawPageTable(rng, cache.numPages, c.b * cache.pagesPerSeq);
  // NaN in every K/V row that holds no live key (past kv_lens[b], in a
  // partly used or spare page): a kernel that reads one, even to weight it
  // by 0, produces NaN.
  if (cache.paged() || !cache.lens.empty()) {
    std::vector<bool> live(kvOuter * kvRows, false);
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t j = 0, e = cache.len(b, c.sk); j < e; ++j)
        live[cache.paged()
                 ? cache.table[b * cache.pagesPerSeq + j / cache.pageSize] *
                           cache.pageSize +
                       j % cache.pageSize
                 : b * kvRows + j] = true;
    uint16_t nanBits = k.dtype.encode(std::numeric_limits<float>::quiet_NaN());
    for (int i = 1; i < 3; ++i)
      for (int64_t x = 0; x < kvOuter; ++x)
        for (int64_t h = 0; h < c.hkv; ++h)
          for (int64_t r = 0; r < kvRows; ++r)
            for (int64_t e = 0; !live[x * kvRows + r] && e < shapes[i][3];
                 ++e) {
              int64_t at = x * strides[i][0] + h * strides[i][1] +
                           r * strides[i][2] + e * strides[i][3];
              bits[i][at] = nanBits;
              host[i][at] = std::numeric_limits<float>::quiet_NaN();
            }
  }

  DeviceBuffer dev[5];
  size_t bytes[5];
  for (int i = 0; i < 4; ++i)
    bytes[i] = size_t(numel(shapes[i])) * 2;
  bytes[4] = size_t(lseCount) * 4;
  for (int i = 0; i < 5; ++i)
    if (flashrt_malloc(&dev[i].ptr, bytes[i]))
      return runtimeFail("allocating device memory");
  for (int i = 0; i < 3; ++i)
    if (flashrt_memcpy_htod(dev[i].ptr, bits[i].data(), bytes[i]))
      return runtimeFail("copying inputs to the device");
  // NaN poison (0xFFFF is a NaN in bf16 and f16, 0xFFFFFFFF in f32).
  for (int i = 3; i < 5; ++i)
    if (flashrt_memset(dev[i].ptr, 0xff, bytes[i]))
      return runtimeFail("poisoning the outputs");
  // kv_lens [B] and block_table [B, pages_per_seq], i32.
  DeviceBuffer lensDev, tableDev;
  flashrt_tensor lensT = {}, tableT = {};
  if (!cache.lens.empty()) {
    size_t n = cache.lens.size() * 4;
    if (flashrt_malloc(&lensDev.ptr, n) ||
        flashrt_memcpy_htod(lensDev.ptr, cache.lens.data(), n))
      return runtimeFail("copying kv_lens to the device");
    lensT = {lensDev.ptr, {c.b}, {1}, 1, FLASHRT_DTYPE_I32};
  }
  if (cache.paged()) {
    size_t n = cache.table.size() * 4;
    if (flashrt_malloc(&tableDev.ptr, n) ||
        flashrt_memcpy_htod(tableDev.ptr, cache.table.data(), n))
      return runtimeFail("copying the block table to the device");
    tableT = {tableDev.ptr,
              {c.b, cache.pagesPerSeq},
              {cache.pagesPerSeq, 1},
              2,
              FLASHRT_DTYPE_I32};
  }
  const flashrt_tensor *lensArg = cache.lens.empty() ? nullptr : &lensT;
  const flashrt_tensor *tableArg = cache.paged() ? &tableT : nullptr;
  // The captures (ALiBi's slopes first), drawn and copied to the device.
  CaseCaptures caps = drawCaseCaptures(entryCaps, c, rng);
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

  flashrt_tensor t[5] = {};
  for (int i = 0; i < 4; ++i) {
    t[i].data = dev[i].ptr;
    t[i].rank = 4;
    t[i].dtype = k.dtype.bf16 ? FLASHRT_DTYPE_BF16 : FLASHRT_DTYPE_F16;
    std::copy(shapes[i].begin(), shapes[i].end(), t[i].sizes);
    std::copy(strides[i].begin(), strides[i].end(), t[i].strides);
  }
  t[4] = {dev[4].ptr,
          {c.b, c.hq, c.sq},
          {c.hq * c.sq, c.sq, 1},
          3,
          FLASHRT_DTYPE_F32};
  const flashrt_tensor *lseArg = k.abi.lse ? &t[4] : nullptr;
  // Entries without captures keep the call they always had.
  int rc = capT.empty()
               ? flashrt_attention_kv(k.handle, &t[0], &t[1], &t[2], lensArg,
                                      tableArg, &t[3], lseArg, nullptr)
               : flashrt_attention_captures(
                     k.handle, &t[0], &t[1], &t[2], lensArg, tableArg,
                     capT.data(), int(capT.size()), &t[3], lseArg, nullptr);
  if (rc)
    return runtimeFail("running @" + o.func);

  std::vector<uint16_t> outBits(numel(shapes[3]));
  std::vector<float> out(outBits.size()), lse(lseCount);
  if (flashrt_memcpy_dtoh(outBits.data(), dev[3].ptr, bytes[3]) ||
      flashrt_memcpy_dtoh(lse.data(), dev[4].ptr, bytes[4]))
    return runtimeFail("copying results back");
  for (size_t i = 0; i < out.size(); ++i)
    out[i] = k.dtype.decode(outBits[i]);

  // The reference, one (batch, KV head) slice per task.
  ref::Strides4 refStrides = ref::contiguousStrides(shapes[3]);
  std::vector<float> refO(out.size()), refLse(lseCount);
  std::vector<double> errRef(c.b * c.hkv);
  parallelFor(c.b * c.hkv, [&](int64_t i) {
    errRef[i] = referenceSlice(
        k, c, cache, caps, i / c.hkv, i % c.hkv, {host[0].data(), strides[0]},
        {host[1].data(), strides[1]}, {host[2].data(), strides[2]},
        {refO.data(), refStrides}, k.abi.lse ? refLse.data() : nullptr);
  });
  if (!caps.error->empty())
    return fail(*caps.error);
  double sameDtypeErr = 0.0;
  for (double e : errRef) {
    if (std::isnan(e))
      return fail("the reference rejects the case");
    sameDtypeErr = std::max(sameDtypeErr, e);
  }

  Diff dO =
      compare({out.data(), strides[3]}, {refO.data(), refStrides}, shapes[3]);
  Diff dLse;
  ref::Shape4 lseShape = {1, c.b, c.hq, c.sq};
  ref::Strides4 lseStrides = ref::contiguousStrides(lseShape);
  if (k.abi.lse)
    dLse = compare({lse.data(), lseStrides}, {refLse.data(), lseStrides},
                   lseShape);
  double oTol = o.tol ? *o.tol : std::max(2.0 * sameDtypeErr, 1e-3);
  bool ok = dO.nans == 0 && dO.maxErr <= oTol &&
            (!k.abi.lse || (dLse.nans == 0 && dLse.maxErr <= o.lseTol));

  float ms = 0.0f;
  int warmup = o.repeat > 1 ? 3 : 0;
  rc = capT.empty()
           ? flashrt_time_kv_ms(k.handle, &t[0], &t[1], &t[2], lensArg,
                                tableArg, &t[3], lseArg, nullptr, warmup,
                                int(o.repeat), &ms)
           : flashrt_time_captures_ms(k.handle, &t[0], &t[1], &t[2], lensArg,
                                      tableArg, capT.data(), int(capT.size()),
                                      &t[3], lseArg, nullptr, warmup,
                                      int(o.repeat), &ms);
  if (rc)
    return runtimeFail("timing @" + o.func);

  std::string line =
      "B=" + std::to_string(c.b) + " Hq=" + std::to_string(c.hq) +
      " Hkv=" + std::to_string(c.hkv) + " Sq=" + std::to_string(c.sq) +
      " Sk=" + std::to_string(c.sk) + " D=" + std::to_string(d) +
      " Dv=" + std::to_string(dv) + " layout=" + o.layout;
  if (cache.paged())
    line += " pages=" + std::to_string(cache.numPages) + "x" +
            std::to_string(cache.pageSize);
  if (caps.alibiRank)
    line += " alibi";
  size_t regionCaps =
      caps.tensors.size() - (caps.alibiRank != 0) - (caps.hintIndex >= 0);
  if (regionCaps)
    line += " captures=" + std::to_string(regionCaps);
  if (caps.hintIndex >= 0)
    line += " block_mask=" + std::to_string(entryCaps.hintRows) + ":" +
            entryCaps.hintMode;
  if (!cache.lens.empty()) {
    line += " kv_lens=";
    for (size_t b = 0; b < cache.lens.size() && b < 4; ++b)
      line += (b ? "," : "") + std::to_string(cache.lens[b]);
    if (cache.lens.size() > 4)
      line += ",...";
  }
  line += std::string(": max|dO|=") + format("%.1e", dO.maxErr) + " (tol " +
      format("%.1e", oTol) + (o.tol ? " from --tol" : "") +
      ", same-dtype ref err " + format("%.1e", sameDtypeErr) + ") max|dLSE|=" +
      (k.abi.lse ? format("%.1e", dLse.maxErr) : std::string("n/a")) +
      " time=" + format("%.3g", ms) + " ms";
  if (dO.nans || dLse.nans)
    line += " NaN/unwritten: O=" + std::to_string(dO.nans) +
            " LSE=" + std::to_string(dLse.nans);
  std::printf("%s  %s\n", line.c_str(), ok ? "PASS" : "FAIL");
  std::fflush(stdout);
  return ok ? 0 : 1;
}

} // namespace

bool flash::run::wantsGpuMode(int argc, char **argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strncmp(argv[i], "--artifact", 10) == 0 ||
        std::strncmp(argv[i], "-artifact", 9) == 0)
      return true;
  return false;
}

int flash::run::gpuMain(int argc, char **argv, const GpuModsLoader &loader) {
  Options o;
  std::string err = parseArgs(argc, argv, o);
  if (o.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!err.empty())
    return fail(err);
  std::vector<Case> cases;
  err = parseShapes(o.shapes, cases);
  if (!err.empty())
    return fail(err);
  if (o.device)
    setenv("FLASHRT_DEVICE", std::to_string(*o.device).c_str(), 1);

  Kernel k;
  if (flashrt_open(o.artifact.c_str(), o.func.c_str(), &k.handle))
    return fail(flashrt_last_error());
  struct Closer {
    flashrt_kernel *h;
    ~Closer() { flashrt_close(h); }
  } closer{k.handle};
  std::string json = flashrt_abi(k.handle);
  err = flashrt::parseAbi(json, k.abi);
  if (!err.empty())
    return fail("@" + o.func + ": " + err);
  if (k.abi.dtype != FLASHRT_DTYPE_BF16 && k.abi.dtype != FLASHRT_DTYPE_F16)
    return fail("@" + o.func + " is " + k.abi.dtypeName +
                "; the GPU mode runs bf16 and f16 kernels");
  k.dtype.bf16 = k.abi.dtype == FLASHRT_DTYPE_BF16;
  k.causal = flashrt::abiBool(json, "causal").value_or(false);
  std::vector<double> window =
      flashrt::abiNumbers(json, "window").value_or(std::vector<double>{-1, -1});
  if (window.size() != 2)
    return fail("@" + o.func + ": \"window\" is not [left, right]");
  k.windowLeft = window[0] < 0 ? -1 : int64_t(window[0]);
  k.windowRight = window[1] < 0 ? -1 : int64_t(window[1]);
  k.softcap = flashrt::abiNumber(json, "softcap").value_or(0.0);
  k.scale = flashrt::abiNumber(json, "scale").value_or(0.0);
  if (!(k.scale > 0.0))
    k.scale = 1.0 / std::sqrt(double(k.abi.headDim));
  // Paged entries: the page size is K's static dim 2, else --page-size.
  if (k.abi.paged) {
    int64_t fixed = k.abi.kvShape.size() == 4 ? k.abi.kvShape[2] : -1;
    if (fixed > 0 && o.pageSize && *o.pageSize != fixed)
      return fail("--page-size=" + std::to_string(*o.pageSize) +
                  " disagrees with @" + o.func + "'s page size " +
                  std::to_string(fixed));
    k.pageSize = fixed > 0 ? fixed : o.pageSize.value_or(0);
    if (k.pageSize <= 0)
      return fail("the page size of @" + o.func +
                  " is dynamic; give it with --page-size=N");
  } else if (o.pageSize) {
    return fail("--page-size is only for paged entries (ABI \"paged\": "
                "true); @" + o.func + " is not paged");
  }
  EntryCaptures entryCaps;
  err = resolveCaptures(k.abi, o.func, o.captures, loader, entryCaps);
  if (!err.empty())
    return fail(err);

  for (size_t i = 0; i < cases.size(); ++i) {
    const Case &c = cases[i];
    std::string what = "case " + std::to_string(i + 1) + " (" +
                       std::to_string(c.b) + "," + std::to_string(c.hq) + "," +
                       std::to_string(c.hkv) + "," + std::to_string(c.sq) +
                       "," + std::to_string(c.sk) + "): ";
    if (c.d != -1 && c.d != k.abi.headDim)
      return fail(what + "--shapes gives D=" + std::to_string(c.d) + " but @" +
                  o.func + " has D=" + std::to_string(k.abi.headDim));
    if (c.dv != -1 && c.dv != k.abi.headDimV)
      return fail(what + "--shapes gives Dv=" + std::to_string(c.dv) +
                  " but @" + o.func +
                  " has Dv=" + std::to_string(k.abi.headDimV));
    // Keeps a typo in --shapes from allocating the machine away.
    std::string tooLarge =
        k.abi.backward ? checkBackwardCaseSize(k, c) : checkCaseSize(k, c);
    if (tooLarge.empty())
      tooLarge = checkCaptureCase(k.abi, entryCaps, c);
    if (!tooLarge.empty())
      return fail(what + tooLarge);
  }

  uint64_t seed = o.seed ? *o.seed : std::random_device{}();
  std::mt19937 rng(seed);
  int major = 0, minor = 0, sms = 0;
  flashrt_device_info(&major, &minor, &sms);
  std::printf("flash-run: @%s seed=%llu (replay with --seed=%llu)\n",
              o.func.c_str(), (unsigned long long)seed,
              (unsigned long long)seed);
  std::printf("flash-run: %s on sm_%d%d (%d SMs): %s\n", o.artifact.c_str(),
              major, minor, sms, json.c_str());
  unsigned passed = 0;
  for (const Case &c : cases) {
    int rc;
    try {
      rc = k.abi.backward ? runBackwardCase(k, c, o, entryCaps, rng)
                          : runCase(k, c, o, entryCaps, rng);
    } catch (const std::exception &e) { // std::bad_alloc: the guard's estimate
      return fail(std::string("out of host memory: ") + e.what());
    }
    if (rc == 2)
      return 2;
    passed += rc == 0;
  }
  std::printf("flash-run: %u/%zu cases passed\n", passed, cases.size());
  return passed == cases.size() ? 0 : 1;
}
