//===- CpuCase.cpp - One case of flash-run's JIT mode ---------------------===//
//
// Lays out a case's arguments, draws its inputs (uniform, or large logits
// with outliers and late row maxima; NaN in every K/V row that holds no live
// key), computes the reference, runs the kernel through its packed C
// interface and compares O and LSE, or, for a backward kernel, dQ, dK and
// dV; see CpuCase.h.
//
//===----------------------------------------------------------------------===//

#include "CpuCase.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <tuple>

using namespace mlir;
using namespace ::flash::run;
using namespace ::flash::run::cpu;
namespace cpu = ::flash::run::cpu;
namespace ref = ::flash::ref;

CaseLayout::CaseLayout(const Case &c, int64_t d, int64_t dv, int64_t pageSize,
                       bool bshd, unsigned alibiRank)
    : pageSize(pageSize), alibiRank(alibiRank) {
  int64_t kvOuter = c.b, kvRows = c.sk;
  if (pageSize) {
    pagesPerSeq = c.sk / pageSize;
    // Spare pages that no table entry names: a kernel indexing the pool
    // by batch instead of through the table reads their NaNs.
    numPages = c.b * pagesPerSeq + 3;
    kvOuter = numPages, kvRows = pageSize;
  }
  shapes[Q] = {c.b, c.hq, c.sq, d};
  shapes[K] = {kvOuter, c.hkv, kvRows, d};
  shapes[V] = {kvOuter, c.hkv, kvRows, dv};
  shapes[O] = {c.b, c.hq, c.sq, dv};
  shapes[Lse] = {1, c.b, c.hq, c.sq};
  shapes[KvLens] = {1, 1, 1, c.b};
  shapes[Table] = {1, 1, c.b, pagesPerSeq};
  shapes[Alibi] = {1, 1, alibiRank == 2 ? c.b : 1, c.hq};
  // The backward's: dO like O, the gradients like what they differentiate.
  shapes[DO] = shapes[O];
  shapes[DQ] = shapes[Q];
  shapes[DK] = shapes[K];
  shapes[DV] = shapes[V];
  shapes[Capture] = {1, 1, 1, 1}; // Unused: CpuMods.h sizes captures.
  shapes[Hint] = {1, 1, 1, 4};    // Set by setHint.
  // bshd on the page pool gives [num_pages, page_size, Hkv, D] storage.
  for (unsigned i = 0; i < NumRoles; ++i)
    strides[i] = bshd && roleRank(ArgRole(i)) == 4 && i != Hint
                     ? ref::bshdStrides(shapes[i])
                     : ref::contiguousStrides(shapes[i]);
}

namespace {

/// A memref descriptor of `data` with the given sizes and strides.
template <typename T, int Rank>
StridedMemRefType<T, Rank> descriptor(T *data, ArrayRef<int64_t> sizes,
                                      ArrayRef<int64_t> strides) {
  StridedMemRefType<T, Rank> d;
  d.basePtr = d.data = data;
  d.offset = 0;
  llvm::copy(sizes, d.sizes);
  llvm::copy(strides, d.strides);
  return d;
}

/// A float tensor with a 64-byte aligned start, as a vectorised kernel likes.
struct Tensor {
  std::vector<float> storage;
  float *data = nullptr;
  int64_t size;
  ref::Strides4 strides;
  explicit Tensor(const ref::Shape4 &shape, const ref::Strides4 &strides)
      : storage(shape[0] * shape[1] * shape[2] * shape[3] + 16),
        size(shape[0] * shape[1] * shape[2] * shape[3]), strides(strides) {
    auto addr = reinterpret_cast<uintptr_t>(storage.data());
    data = storage.data() + ((64 - addr % 64) % 64) / sizeof(float);
  }
  ref::View4 view() const { return {data, strides}; }
  ref::MutView4 mutView() { return {data, strides}; }
};

/// Q, K and V drawn uniform in [-1, 1]; with `large`, large logits where
/// the online softmax can go wrong: outliers, and the row maxima in late KV
/// blocks so that the running max changes and the rescale of earlier blocks
/// matters (an unshifted exp overflows).
void drawInputs(Tensor &q, Tensor &k, Tensor &v, const CaseLayout &layout,
                std::mt19937 &rng, bool large) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Tensor *t : {&q, &k, &v})
    for (float &x : MutableArrayRef<float>(t->data, t->size))
      x = dist(rng);
  if (!large)
    return;
  std::uniform_int_distribution<int> outlier(0, 31);
  for (Tensor *t : {&q, &k})
    for (float &x : MutableArrayRef<float>(t->data, t->size))
      if (outlier(rng) == 0)
        x *= 8.0f;
  const ref::Shape4 &ks = layout.shapes[K];
  for (int64_t x = 0; x < ks[0]; ++x)
    for (int64_t h = 0; h < ks[1]; ++h)
      for (int64_t r = 0; r < ks[2]; ++r)
        for (int64_t d = 0; d < ks[3]; ++d)
          k.mutView().at(x, h, r, d) *= 1.0f + 2.0f * float(r) / float(ks[2]);
}

/// The reference's parameters of case `c`: the kernel's semantics, and the
/// ALiBi slopes and captures drawn per case (their buffers, which the
/// kernel reads too, in `slopes` and `captures`); score_mod / mask_mod
/// evaluate the op's regions (CpuMods.h), failures reported in `modError`.
llvm::Error drawParams(const Kernel &kernel, const Case &c, std::mt19937 &rng,
                       const CaseOptions &opts, ArgBuffer &slopes,
                       std::vector<ArgBuffer> &captures,
                       ref::AttentionParams &params,
                       std::shared_ptr<std::string> modError) {
  if (kernel.sem.alibiRank)
    slopes = ArgBuffer(drawSlopes(kernel.sem.alibiRank, c, rng));
  for (auto [rule, type] :
       llvm::zip_equal(opts.captures, kernel.captureTypes())) {
    llvm::Expected<SmallVector<int64_t, 4>> sizes = captureSizes(rule, type, c);
    if (!sizes)
      return sizes.takeError();
    captures.push_back(ArgBuffer(
        drawCapture(rule, type.getElementType().isF32(),
                    std::vector<int64_t>(sizes->begin(), sizes->end()), rng)));
  }
  params.batch = c.b, params.headsQ = c.hq, params.headsKV = c.hkv;
  params.seqQ = c.sq, params.seqK = c.sk;
  params.headDim = kernel.headDim(), params.headDimV = kernel.headDimV();
  params.scale =
      kernel.sem.scale.value_or(1.0 / std::sqrt(double(kernel.headDim())));
  params.causal = kernel.sem.causal;
  params.windowLeft = kernel.sem.windowLeft;
  params.windowRight = kernel.sem.windowRight;
  params.softcap = kernel.sem.softcap;
  if (kernel.sem.alibiRank) {
    params.alibiSlopes = slopes.f.data();
    params.alibiPerBatch = kernel.sem.alibiRank == 2;
  }
  setModCallbacks(kernel.scoreMod, kernel.maskMod,
                  std::vector<HostCapture>(captures.begin(), captures.end()),
                  params, modError);
  return llvm::Error::success();
}

/// Calls `fn` with the arguments of `roles` (the descriptor of each role
/// in `descPtrs`, the captures' in order) `repeat` times, the outputs
/// poisoned with NaN before each run (an element the kernel forgets to
/// write cannot pass); returns the median time in ms.
double runTimed(void (*fn)(void **), ArrayRef<ArgRole> roles,
                void *(&descPtrs)[NumRoles], std::vector<ArgBuffer> &captures,
                ArrayRef<Tensor *> outputs, unsigned repeat) {
  // The packed ABI wants, per argument, a pointer to the value the C wrapper
  // takes, and that value is itself a pointer to the descriptor.
  SmallVector<void *> captureDescs;
  for (ArgBuffer &capture : captures)
    captureDescs.push_back(capture.desc.data());
  SmallVector<void *, 12> args;
  unsigned nextCapture = 0;
  for (ArgRole role : roles)
    args.push_back(role == Capture ? &captureDescs[nextCapture++]
                                   : &descPtrs[role]);
  std::vector<double> times;
  for (unsigned r = 0; r < repeat; ++r) {
    for (Tensor *t : outputs)
      llvm::fill(t->storage, std::numeric_limits<float>::quiet_NaN());
    auto start = std::chrono::steady_clock::now();
    fn(args.data());
    auto stop = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
  }
  llvm::sort(times);
  size_t mid = times.size() / 2;
  return times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);
}

using ref::compare;
using ref::Diff;

} // namespace

llvm::Error cpu::checkArg(ArgRole role, MemRefType type,
                          ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides,
                          StringRef layout) {
  for (auto [dim, size] : llvm::enumerate(sizes))
    if (!type.isDynamicDim(dim) && type.getDimSize(dim) != size)
      return makeError(Twine("dim ") + Twine(dim) + " of " + kArgNames[role] +
                       " is " + Twine(type.getDimSize(dim)) +
                       " in the IR, but the case needs " + Twine(size));
  auto [typeStrides, typeOffset] = type.getStridesAndOffset();
  bool ok = ShapedType::isDynamic(typeOffset) || typeOffset == 0;
  // The stride of a unit dim is never used, so it need not match.
  for (auto [size, s, t] : llvm::zip_equal(sizes, strides, typeStrides))
    ok &= ShapedType::isDynamic(t) || t == s || size == 1;
  if (ok)
    return llvm::Error::success();
  return makeError(
      Twine("the static layout of ") + kArgNames[role] + " (" +
      typeString(type) + ") does not fit --layout=" + layout +
      (roleRank(role, 1) == 4 && role != Hint
           ? "; declare it strided<[?, ?, ?, 1], offset: ?>"
           : Twine("; ") + kArgNames[role] + " is passed contiguous"));
}

llvm::Expected<bool> cpu::runCase(const Kernel &kernel, void (*fn)(void **),
                                  const Case &c, const CaseLayout &layout,
                                  std::mt19937 &rng, const CaseOptions &opts) {
  Tensor q(layout.shapes[Q], layout.strides[Q]);
  Tensor k(layout.shapes[K], layout.strides[K]);
  Tensor v(layout.shapes[V], layout.strides[V]);
  Tensor o(layout.shapes[O], layout.strides[O]);
  Tensor lse(layout.shapes[Lse], layout.strides[Lse]);
  Tensor refO(layout.shapes[O], ref::contiguousStrides(layout.shapes[O]));
  Tensor refLse(layout.shapes[Lse], layout.strides[Lse]);

  drawInputs(q, k, v, layout, rng, opts.largeInputs);

  const bool paged = kernel.sem.paged, hasLens = kernel.sem.kvLens;
  std::vector<int32_t> lens, table;
  if (hasLens)
    lens = ref::drawKvLens(rng, c.b, c.sk);
  if (paged)
    table = ref::drawPageTable(rng, layout.numPages, c.b * layout.pagesPerSeq);
  // NaN in every K/V row that holds no live key (past kv_lens[b], inside a
  // partly used page, in a spare page): a kernel that reads one, even to
  // weight it by 0, produces NaN.
  if (paged || hasLens) {
    const int64_t outer = layout.shapes[K][0], rows = layout.shapes[K][2];
    std::vector<bool> live(outer * rows, false);
    for (int64_t b = 0; b < c.b; ++b)
      for (int64_t j = 0, e = hasLens ? lens[b] : c.sk; j < e; ++j)
        live[paged ? table[b * layout.pagesPerSeq + j / layout.pageSize] *
                             layout.pageSize +
                         j % layout.pageSize
                   : b * rows + j] = true;
    for (auto [t, shape] :
         {std::pair(&k, layout.shapes[K]), std::pair(&v, layout.shapes[V])})
      for (int64_t x = 0; x < outer; ++x)
        for (int64_t h = 0; h < shape[1]; ++h)
          for (int64_t r = 0; r < rows; ++r)
            for (int64_t d = 0; !live[x * rows + r] && d < shape[3]; ++d)
              t->mutView().at(x, h, r, d) =
                  std::numeric_limits<float>::quiet_NaN();
  }

  ArgBuffer slopes;
  std::vector<ArgBuffer> captures;
  ref::AttentionParams params;
  auto modError = std::make_shared<std::string>();
  if (llvm::Error err =
          drawParams(kernel, c, rng, opts, slopes, captures, params, modError))
    return std::move(err);
  if (hasLens)
    params.kvLens = lens.data();
  // The block-mask hint, derived from the mask_mod the reference evaluates
  // (the reference itself never sees it).
  std::vector<int32_t> hint;
  if (kernel.sem.blockMaskRows) {
    hint = drawBlockMask(params, layout.shapes[Hint], c,
                         kernel.sem.blockMaskRows, opts.blockMask);
    if (!modError->empty())
      return makeError(*modError);
  }
  if (paged) {
    params.blockTable = table.data();
    params.pageSize = layout.pageSize;
    params.pagesPerSeq = layout.pagesPerSeq;
    params.numPages = layout.numPages;
  }
  std::string refErr =
      ref::attention(params, q.view(), k.view(), v.view(), refO.mutView(),
                     kernel.hasLse() ? refLse.data : nullptr);
  if (!refErr.empty())
    return makeError("the reference rejects the case: " + refErr);
  if (!modError->empty())
    return makeError(*modError);

  auto desc4 = [&](Tensor &t, ArgRole role) {
    return descriptor<float, 4>(t.data, layout.argSizes(role),
                                layout.argStrides(role));
  };
  StridedMemRefType<float, 4> qDesc = desc4(q, Q), kDesc = desc4(k, K),
                              vDesc = desc4(v, V), oDesc = desc4(o, O);
  auto lseDesc = descriptor<float, 3>(lse.data, layout.argSizes(Lse),
                                      layout.argStrides(Lse));
  auto lensDesc = descriptor<int32_t, 1>(lens.data(), layout.argSizes(KvLens),
                                         layout.argStrides(KvLens));
  auto tableDesc = descriptor<int32_t, 2>(table.data(), layout.argSizes(Table),
                                          layout.argStrides(Table));
  auto hintDesc = descriptor<int32_t, 4>(hint.data(), layout.argSizes(Hint),
                                         layout.argStrides(Hint));
  slopes.describe();
  for (ArgBuffer &capture : captures)
    capture.describe();
  void *descPtrs[NumRoles] = {&qDesc,     &kDesc,         &vDesc,
                              slopes.desc.data(), &lensDesc, &tableDesc,
                              &hintDesc, nullptr,   &oDesc,         &lseDesc};
  double median =
      runTimed(fn, kernel.roles, descPtrs, captures, {&o, &lse}, opts.repeat);

  Diff dO = compare(o.view(), refO.view(), layout.shapes[O]);
  Diff dLse;
  // LSE passes where |got - want| <= tol + lse-rtol * |want|; `lseExcess` is
  // the worst |got - want| - lse-rtol * |want| (equal infinities: 0).
  double lseExcess = 0.0;
  if (kernel.hasLse()) {
    dLse = compare(lse.view(), refLse.view(), layout.shapes[Lse]);
    const ref::Shape4 &ls = layout.shapes[Lse];
    ref::View4 got = lse.view(), want = refLse.view();
    for (int64_t b = 0; b < ls[1]; ++b)
      for (int64_t h = 0; h < ls[2]; ++h)
        for (int64_t i = 0; i < ls[3]; ++i) {
          float g = got.at(0, b, h, i), w = want.at(0, b, h, i);
          double err = g == w ? 0.0 : std::fabs(double(g) - double(w));
          if (std::isnan(err))
            err = std::numeric_limits<double>::infinity();
          else if (err > 0.0)
            err -= opts.lseRtol * std::fabs(double(w));
          lseExcess = std::max(lseExcess, err);
        }
  }
  bool ok = dO.maxErr <= opts.tol && lseExcess <= opts.tol && dO.nans == 0 &&
            dLse.nans == 0;

  llvm::raw_ostream &os = llvm::outs();
  os << "B=" << c.b << " Hq=" << c.hq << " Hkv=" << c.hkv << " Sq=" << c.sq
     << " Sk=" << c.sk << " D=" << kernel.headDim()
     << " Dv=" << kernel.headDimV();
  if (paged)
    os << " pages=" << layout.numPages << "x" << layout.pageSize;
  if (hasLens) {
    // Enough to replay a failure by hand; long batches are cut.
    os << " kv_lens=";
    for (auto [b, len] : llvm::enumerate(lens))
      if (b < 8)
        os << (b ? "," : "") << len;
    if (lens.size() > 8)
      os << ",...";
  }
  os << " layout=" << opts.layout
     << ": max|dO|=" << llvm::format("%.1e", dO.maxErr) << " max|dLSE|=";
  if (kernel.hasLse())
    os << llvm::format("%.1e", dLse.maxErr);
  else
    os << "n/a";
  os << " time=" << llvm::format("%.3g", median) << " ms";
  if (dO.nans || dLse.nans)
    os << " NaN/unwritten: O=" << dO.nans << " LSE=" << dLse.nans;
  os << (ok ? "  PASS\n" : "  FAIL\n");
  return ok;
}

llvm::Expected<bool> cpu::runBackwardCase(const Kernel &kernel,
                                          void (*fn)(void **), const Case &c,
                                          const CaseLayout &layout,
                                          std::mt19937 &rng,
                                          const CaseOptions &opts) {
  auto tensor = [&](ArgRole role) {
    return Tensor(layout.shapes[role], layout.strides[role]);
  };
  auto contiguous = [&](ArgRole role) {
    return Tensor(layout.shapes[role],
                  ref::contiguousStrides(layout.shapes[role]));
  };
  Tensor q = tensor(Q), k = tensor(K), v = tensor(V), o = tensor(O),
         lse = tensor(Lse), dO = tensor(DO), dq = tensor(DQ), dk = tensor(DK),
         dv = tensor(DV);
  Tensor refDq = contiguous(DQ), refDk = contiguous(DK), refDv = contiguous(DV);
  drawInputs(q, k, v, layout, rng, opts.largeInputs);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &x : MutableArrayRef<float>(dO.data, dO.size))
    x = dist(rng);

  ArgBuffer slopes;
  std::vector<ArgBuffer> captures;
  ref::AttentionParams params;
  auto modError = std::make_shared<std::string>();
  if (llvm::Error err =
          drawParams(kernel, c, rng, opts, slopes, captures, params, modError))
    return std::move(err);
  // score_mod': a central difference of the region evaluated in double (the
  // user's IR, not the derivative the lowering writes, is the oracle).
  if (params.scoreMod)
    params.scoreModGrad = [f = params.scoreMod](double s, int64_t b, int64_t h,
                                                int64_t i, int64_t j) {
      double step = 1e-4 * std::max(1.0, std::fabs(s));
      return (f(s + step, b, h, i, j) - f(s - step, b, h, i, j)) / (2 * step);
    };
  // The kernel's O and LSE are the forward reference's, as a training step
  // would have saved them.
  std::string refErr = ref::attention(params, q.view(), k.view(), v.view(),
                                      o.mutView(), lse.data);
  if (refErr.empty())
    refErr = ref::attentionBackward(params, q.view(), k.view(), v.view(),
                                    dO.view(), refDq.mutView(), refDk.mutView(),
                                    refDv.mutView());
  if (!refErr.empty())
    return makeError("the reference rejects the case: " + refErr);
  if (!modError->empty())
    return makeError(*modError);

  auto desc4 = [&](Tensor &t, ArgRole role) {
    return descriptor<float, 4>(t.data, layout.argSizes(role),
                                layout.argStrides(role));
  };
  StridedMemRefType<float, 4> descs[] = {
      desc4(q, Q),   desc4(k, K),   desc4(v, V),   desc4(o, O),
      desc4(dO, DO), desc4(dq, DQ), desc4(dk, DK), desc4(dv, DV)};
  auto lseDesc = descriptor<float, 3>(lse.data, layout.argSizes(Lse),
                                      layout.argStrides(Lse));
  slopes.describe();
  for (ArgBuffer &capture : captures)
    capture.describe();
  void *descPtrs[NumRoles] = {};
  const ArgRole descRoles[] = {Q, K, V, O, DO, DQ, DK, DV};
  for (auto [role, desc] : llvm::zip_equal(descRoles, descs))
    descPtrs[role] = &desc;
  descPtrs[Lse] = &lseDesc;
  descPtrs[Alibi] = slopes.desc.data();
  double median = runTimed(fn, kernel.roles, descPtrs, captures,
                           {&dq, &dk, &dv}, opts.repeat);

  // A gradient passes where max |got - want| <= tol * (1 + max |want|): the
  // gradients are sums over whole sequences, so their f32 rounding grows
  // with their size, as the relative part allows.
  llvm::raw_ostream &os = llvm::outs();
  os << "B=" << c.b << " Hq=" << c.hq << " Hkv=" << c.hkv << " Sq=" << c.sq
     << " Sk=" << c.sk << " D=" << kernel.headDim()
     << " Dv=" << kernel.headDimV() << " layout=" << opts.layout << ":";
  bool ok = true;
  for (auto [name, got, want, role] :
       {std::tuple("dQ", &dq, &refDq, DQ), std::tuple("dK", &dk, &refDk, DK),
        std::tuple("dV", &dv, &refDv, DV)}) {
    const ref::Shape4 &shape = layout.shapes[role];
    Diff diff = compare(got->view(), want->view(), shape);
    double scale = 0.0;
    ref::View4 w = want->view();
    for (int64_t b = 0; b < shape[0]; ++b)
      for (int64_t h = 0; h < shape[1]; ++h)
        for (int64_t s = 0; s < shape[2]; ++s)
          for (int64_t d = 0; d < shape[3]; ++d)
            scale = std::max(scale, double(std::fabs(w.at(b, h, s, d))));
    ok &= diff.nans == 0 && diff.maxErr <= opts.tol * (1.0 + scale);
    os << " max|" << name << "|=" << llvm::format("%.1e", diff.maxErr)
       << " (of " << llvm::format("%.1e", scale) << ")";
    if (diff.nans)
      os << " NaN/unwritten=" << diff.nans;
  }
  os << " time=" << llvm::format("%.3g", median) << " ms";
  os << (ok ? "  PASS\n" : "  FAIL\n");
  return ok;
}
