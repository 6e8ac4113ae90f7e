//===- CpuMods.cpp - Captures and mods in flash-run's JIT mode ------------===//
//
// The --capture rules, the capture and slope buffers, and the reference's
// score_mod / mask_mod callbacks; see CpuMods.h. The callbacks run the
// region IR of the op as written (a copy taken before lowering) through
// ScalarEval's interpreter in double, reading the same capture buffers the
// kernel gets, so the oracle shares nothing with the lowering.
//
//===----------------------------------------------------------------------===//

#include "CpuMods.h"

#include "ScalarEval.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <limits>

using namespace mlir;
using namespace ::flash::run;
using namespace ::flash::run::cpu;
namespace cpu = ::flash::run::cpu;
namespace ref = ::flash::ref;

llvm::Expected<CaptureRule> cpu::parseCaptureRule(StringRef text) {
  CaptureRule rule;
  rule.text = text.str();
  auto bad = [&](const Twine &why) {
    return makeError("bad --capture rule '" + text + "': " + why +
                     " (expected KIND[:ARGS]@DIMS, KIND uniform:LO,HI, "
                     "randint:LO,HI, docs:N or const:X, DIMS e.g. BxSq)");
  };
  auto [spec, dims] = text.split('@');
  if (dims.empty())
    return bad("no @DIMS");
  auto [kind, args] = spec.split(':');
  SmallVector<StringRef> values;
  if (!args.empty())
    args.split(values, ',');
  unsigned want;
  if (kind == "uniform")
    rule.kind = CaptureRule::Uniform, want = 2;
  else if (kind == "randint")
    rule.kind = CaptureRule::RandInt, want = 2;
  else if (kind == "docs")
    rule.kind = CaptureRule::Docs, want = 1;
  else if (kind == "const")
    rule.kind = CaptureRule::Const, want = 1;
  else
    return bad("unknown kind '" + kind + "'");
  if (values.size() != want)
    return bad(Twine(want) + " argument(s) needed");
  double *out[] = {&rule.a, &rule.b};
  for (auto [n, v] : llvm::enumerate(values))
    if (v.trim().getAsDouble(*out[n]))
      return bad("'" + v + "' is not a number");
  if ((rule.kind == CaptureRule::Uniform || rule.kind == CaptureRule::RandInt) &&
      !(rule.a <= rule.b))
    return bad("LO must be <= HI");
  if (rule.kind == CaptureRule::Docs && !(rule.a >= 1 && rule.a < 1e9))
    return bad("docs needs N >= 1");
  SmallVector<StringRef> parts;
  dims.split(parts, 'x');
  for (StringRef d : parts) {
    int64_t n;
    if (!llvm::is_contained({"B", "Hq", "Hkv", "Sq", "Sk"}, d) &&
        (d.getAsInteger(10, n) || n < 1))
      return bad("dim '" + d + "' is not B, Hq, Hkv, Sq, Sk or a size >= 1");
    rule.dims.push_back(d.str());
  }
  return rule;
}

llvm::Error cpu::checkCaptureRules(const Kernel &kernel,
                                   ArrayRef<CaptureRule> rules) {
  SmallVector<MemRefType> types = kernel.captureTypes();
  if (rules.size() != types.size())
    return makeError("@" + func::FuncOp(kernel.func).getSymName() + " takes " +
                     Twine(types.size()) + " capture(s); give one --capture "
                     "rule for each, got " + Twine(rules.size()));
  for (auto [n, rule, type] : llvm::enumerate(rules, types)) {
    bool isFloat = type.getElementType().isF32();
    bool intRule =
        rule.kind == CaptureRule::RandInt || rule.kind == CaptureRule::Docs;
    if ((isFloat && intRule) || (!isFloat && rule.kind == CaptureRule::Uniform))
      return makeError("--capture rule '" + rule.text + "' does not fit " +
                       "capture #" + Twine(n) + " (" + typeString(type) +
                       "): uniform is for f32, randint and docs for i32");
    if (rule.dims.size() != size_t(type.getRank()))
      return makeError("--capture rule '" + rule.text + "' gives " +
                       Twine(rule.dims.size()) + " dim(s) for capture #" +
                       Twine(n) + " of rank " + Twine(type.getRank()));
  }
  return llvm::Error::success();
}

llvm::Expected<SmallVector<int64_t, 4>>
cpu::captureSizes(const CaptureRule &rule, MemRefType type, const Case &c) {
  SmallVector<int64_t, 4> sizes;
  for (auto [n, d] : llvm::enumerate(rule.dims)) {
    int64_t size = d == "B"     ? c.b
                   : d == "Hq"  ? c.hq
                   : d == "Hkv" ? c.hkv
                   : d == "Sq"  ? c.sq
                   : d == "Sk"  ? c.sk
                                : std::stoll(d);
    if (!type.isDynamicDim(n) && type.getDimSize(n) != size)
      return makeError("dim " + Twine(n) + " of capture " + typeString(type) +
                       " is static, but --capture '" + rule.text +
                       "' gives it " + Twine(size));
    sizes.push_back(size);
  }
  return sizes;
}

/// Contiguous strides of `sizes`.
static SmallVector<int64_t, 4> contiguous(ArrayRef<int64_t> sizes) {
  SmallVector<int64_t, 4> strides(sizes.size(), 1);
  for (int64_t d = int64_t(sizes.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * sizes[d + 1];
  return strides;
}

void ArgBuffer::describe() {
  void *data = f.empty() ? static_cast<void *>(i.data()) : f.data();
  auto ptr = int64_t(reinterpret_cast<uintptr_t>(data));
  desc = {ptr, ptr, 0};
  llvm::append_range(desc, sizes);
  llvm::append_range(desc, strides);
}

std::optional<double> ArgBuffer::at(ArrayRef<int64_t> idx) const {
  if (idx.size() != sizes.size())
    return std::nullopt;
  int64_t flat = 0;
  for (auto [x, size, stride] : llvm::zip_equal(idx, sizes, strides)) {
    if (x < 0 || x >= size)
      return std::nullopt;
    flat += x * stride;
  }
  return f.empty() ? double(i[flat]) : double(f[flat]);
}

ArgBuffer cpu::drawCapture(const CaptureRule &rule, MemRefType type,
                           ArrayRef<int64_t> sizes, std::mt19937 &rng) {
  ArgBuffer buf;
  buf.sizes.assign(sizes.begin(), sizes.end());
  buf.strides = contiguous(sizes);
  int64_t n = 1;
  for (int64_t s : sizes)
    n *= s;
  // Never empty, so that data() is a valid pointer even for a 0-size dim.
  if (type.getElementType().isF32()) {
    buf.f.assign(std::max<int64_t>(n, 1), float(rule.a));
    std::uniform_real_distribution<float> dist(rule.a, rule.b);
    if (rule.kind == CaptureRule::Uniform)
      for (float &x : buf.f)
        x = dist(rng);
    return buf;
  }
  buf.i.assign(std::max<int64_t>(n, 1), int32_t(rule.a));
  if (rule.kind == CaptureRule::RandInt || rule.kind == CaptureRule::Docs) {
    std::uniform_int_distribution<int32_t> dist(
        rule.kind == CaptureRule::Docs ? 0 : int32_t(rule.a),
        rule.kind == CaptureRule::Docs ? int32_t(rule.a) - 1 : int32_t(rule.b));
    for (int32_t &x : buf.i)
      x = dist(rng);
  }
  // Documents are contiguous runs along the last dim.
  int64_t last = sizes.empty() ? 1 : sizes.back();
  if (rule.kind == CaptureRule::Docs && last > 0)
    for (int64_t r = 0; r + last <= n; r += last)
      std::sort(buf.i.begin() + r, buf.i.begin() + r + last);
  return buf;
}

ArgBuffer cpu::drawSlopes(unsigned rank, const Case &c, std::mt19937 &rng) {
  ArgBuffer buf;
  buf.sizes = rank == 2 ? SmallVector<int64_t, 4>{c.b, c.hq}
                        : SmallVector<int64_t, 4>{c.hq};
  std::uniform_real_distribution<float> dist(1.0f / 256.0f, 0.25f);
  buf.f.resize(rank == 2 ? c.b * c.hq : c.hq);
  buf.strides = contiguous(buf.sizes);
  for (float &x : buf.f)
    x = dist(rng);
  return buf;
}

void cpu::setModCallbacks(const Kernel &kernel, ArrayRef<ArgBuffer> captures,
                          ref::AttentionParams &params, std::string &error) {
  using mlir::flash::EvalValue;
  // Evaluates `region` on `lead` (the scalar arguments) and the captures,
  // which trail them; records the first failure in `error`.
  auto eval = [&error, captures](Region *region, SmallVector<EvalValue, 5> lead,
                                 const char *name) -> std::optional<EvalValue> {
    unsigned first = lead.size();
    lead.resize(first + captures.size());
    auto load = [&](unsigned arg,
                    ArrayRef<int64_t> idx) -> FailureOr<EvalValue> {
      if (arg < first)
        return failure();
      std::optional<double> v = captures[arg - first].at(idx);
      if (!v)
        return failure();
      EvalValue r;
      r.isFloat = !captures[arg - first].f.empty();
      r.f = *v;
      r.i = int64_t(*v);
      return r;
    };
    FailureOr<EvalValue> r = mlir::flash::evalRegion(*region, lead, load);
    if (succeeded(r))
      return *r;
    if (error.empty()) {
      llvm::raw_string_ostream os(error);
      os << "the reference cannot evaluate the " << name << " region at (b, h, "
         << "i, j) = (" << lead[first - 4].i << ", " << lead[first - 3].i
         << ", " << lead[first - 2].i << ", " << lead[first - 1].i
         << "): an op it does not know, or a capture read out of bounds";
    }
    return std::nullopt;
  };
  auto idx = [](int64_t v) {
    EvalValue e;
    e.i = v;
    return e;
  };
  if (Region *region = kernel.scoreMod)
    params.scoreMod = [=](double s, int64_t b, int64_t h, int64_t i,
                          int64_t j) {
      EvalValue sv;
      sv.f = s;
      sv.isFloat = true;
      std::optional<EvalValue> r =
          eval(region, {sv, idx(b), idx(h), idx(i), idx(j)}, "score_mod");
      return r ? r->f : std::numeric_limits<double>::quiet_NaN();
    };
  if (Region *region = kernel.maskMod)
    params.maskMod = [=](int64_t b, int64_t h, int64_t i, int64_t j) {
      std::optional<EvalValue> r =
          eval(region, {idx(b), idx(h), idx(i), idx(j)}, "mask_mod");
      return r && r->i != 0;
    };
}
