//===- CpuMods.cpp - Captures and mods in flash-run (MLIR side) -----------===//
//
// The --capture rules checked against the function, the capture buffers'
// descriptors, and the reference's score_mod / mask_mod callbacks; see
// CpuMods.h. The callbacks run the region IR of the op as written (a copy
// taken before lowering) through ScalarEval's interpreter in double, reading
// the same capture values the kernel gets, so the oracle shares nothing
// with the lowering.
//
//===----------------------------------------------------------------------===//

#include "CpuMods.h"

#include "flash/Dialect/Flash/Utils/ScalarEval.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <array>
#include <limits>
#include <mutex>

using namespace mlir;
using namespace ::flash::run;
using namespace ::flash::run::cpu;
namespace cpu = ::flash::run::cpu;
namespace ref = ::flash::ref;

llvm::Error cpu::checkCaptureRules(const Kernel &kernel,
                                   ArrayRef<CaptureRule> rules) {
  SmallVector<MemRefType> types = kernel.captureTypes();
  if (rules.size() != types.size())
    return makeError("@" + func::FuncOp(kernel.func).getSymName() + " takes " +
                     Twine(types.size()) + " capture(s); give one --capture "
                     "rule for each, got " + Twine(rules.size()));
  for (auto [n, rule, type] : llvm::enumerate(rules, types))
    if (std::string err =
            checkCaptureRule(rule, n, type.getElementType().isF32(),
                             type.getRank(), typeString(type));
        !err.empty())
      return makeError(err);
  return llvm::Error::success();
}

llvm::Expected<SmallVector<int64_t, 4>>
cpu::captureSizes(const CaptureRule &rule, MemRefType type, const Case &c) {
  SmallVector<int64_t, 4> sizes;
  for (auto [n, size] : llvm::enumerate(captureRuleSizes(rule, c))) {
    if (!type.isDynamicDim(n) && type.getDimSize(n) != size)
      return makeError("dim " + Twine(n) + " of capture " + typeString(type) +
                       " is static, but --capture '" + rule.text +
                       "' gives it " + Twine(size));
    sizes.push_back(size);
  }
  return sizes;
}

void ArgBuffer::describe() {
  auto ptr = int64_t(reinterpret_cast<uintptr_t>(data()));
  desc = {ptr, ptr, 0};
  llvm::append_range(desc, sizes);
  llvm::append_range(desc, strides);
}

void cpu::setModCallbacks(Region *scoreMod, Region *maskMod,
                          std::vector<HostCapture> captures,
                          ref::AttentionParams &params,
                          std::shared_ptr<std::string> error) {
  using mlir::flash::EvalValue;
  // Shared by the callbacks (copies of params may outlive this call) and by
  // the threads that run them: the captures are read-only, the error is
  // set once under the lock.
  struct State {
    std::vector<HostCapture> captures;
    std::shared_ptr<std::string> error;
    std::mutex lock;
  };
  auto state = std::make_shared<State>();
  state->captures = std::move(captures);
  state->error = std::move(error);
  // Evaluates `region` on `lead` (the scalar arguments) and the captures,
  // which trail them; records the first failure.
  auto eval = [state](Region *region, SmallVector<EvalValue, 5> lead,
                      const char *name) -> std::optional<EvalValue> {
    unsigned first = lead.size();
    lead.resize(first + state->captures.size());
    auto load = [&](unsigned arg,
                    ArrayRef<int64_t> idx) -> FailureOr<EvalValue> {
      if (arg < first)
        return failure();
      const HostCapture &capture = state->captures[arg - first];
      std::optional<double> v = capture.at(idx.data(), idx.size());
      if (!v)
        return failure();
      EvalValue r;
      r.isFloat = capture.isFloat();
      r.f = *v;
      r.i = int64_t(*v);
      return r;
    };
    FailureOr<EvalValue> r = mlir::flash::evalRegion(*region, lead, load);
    if (succeeded(r))
      return *r;
    std::lock_guard<std::mutex> guard(state->lock);
    if (state->error->empty()) {
      llvm::raw_string_ostream os(*state->error);
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
  if (scoreMod)
    params.scoreMod = [=](double s, int64_t b, int64_t h, int64_t i,
                          int64_t j) {
      EvalValue sv;
      sv.f = s;
      sv.isFloat = true;
      std::optional<EvalValue> r =
          eval(scoreMod, {sv, idx(b), idx(h), idx(i), idx(j)}, "score_mod");
      return r ? r->f : std::numeric_limits<double>::quiet_NaN();
    };
  if (maskMod)
    params.maskMod = [=](int64_t b, int64_t h, int64_t i, int64_t j) {
      std::optional<EvalValue> r =
          eval(maskMod, {idx(b), idx(h), idx(i), idx(j)}, "mask_mod");
      return r && r->i != 0;
    };
}

ref::Shape4 cpu::blockMaskShape(MemRefType type, const Case &c, int64_t rows) {
  auto size = [&](int64_t dim, int64_t full) {
    return type.isDynamicDim(dim) ? full : type.getDimSize(dim);
  };
  return {size(0, c.b) == 1 ? 1 : c.b, size(1, c.hq) == 1 ? 1 : c.hq,
          size(2, (c.sq + rows - 1) / rows), 4};
}

