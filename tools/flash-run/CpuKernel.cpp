//===- CpuKernel.cpp - flash-run's function under test --------------------===//
//
// Chooses the function to check, reads its semantics from the op's attribute
// dictionary (not through the accessors the lowering uses, so that a bug in
// those cannot hide itself) or from --reference-attrs, checks its signature,
// then lowers it to the LLVM dialect and JIT-compiles it; see CpuKernel.h.
//
//===----------------------------------------------------------------------===//

#include "CpuKernel.h"

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm/Support/TargetSelect.h"

#include <cmath>

using namespace mlir;
using namespace ::flash::run::cpu;
namespace cpu = ::flash::run::cpu;

llvm::Error cpu::makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string cpu::typeString(Type type) {
  std::string str;
  llvm::raw_string_ostream(str) << type;
  return str;
}

namespace {

llvm::Error parseReferenceAttrs(StringRef text, Semantics &sem) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, value] = item.trim().split('=');
    key = key.trim();
    value = value.trim();
    bool bad = false;
    if (key == "causal" || key == "kv_lens" || key == "block_table") {
      bad = value != "0" && value != "1";
      bool &flag = key == "causal"    ? sem.causal
                   : key == "kv_lens" ? sem.kvLens
                                      : sem.paged;
      flag = value == "1";
    } else if (key == "window") {
      auto [l, r] = value.split(':');
      bad = l.getAsInteger(10, sem.windowLeft) ||
            r.getAsInteger(10, sem.windowRight);
    } else if (key == "softcap" || key == "scale") {
      double x;
      bad = value.getAsDouble(x);
      if (key == "softcap")
        sem.softcap = x;
      else
        sem.scale = x;
    } else {
      bad = true;
    }
    if (bad)
      return makeError("bad --reference-attrs item '" + item.trim() +
                       "' (expected causal=0|1, window=L:R, softcap=X, "
                       "scale=X, kv_lens=0|1, block_table=0|1)");
  }
  // The same bounds as the op's verifier, so the reference never rejects.
  if (sem.scale && !(*sem.scale > 0.0 && std::isfinite(*sem.scale)))
    return makeError("--reference-attrs: scale must be finite and > 0");
  if (!(sem.softcap >= 0.0 && std::isfinite(sem.softcap)))
    return makeError("--reference-attrs: softcap must be finite and >= 0");
  if (sem.windowLeft < -1 || sem.windowRight < -1)
    return makeError("--reference-attrs: window bounds must be >= -1");
  return llvm::Error::success();
}

/// The argument roles of a function computing `sem`, with LSE if `lse`;
/// the backward's with `backward`.
SmallVector<ArgRole, 7> argRoles(const Semantics &sem, bool lse,
                                 bool backward = false) {
  if (backward) {
    SmallVector<ArgRole, 7> roles = {Q, K, V, O, Lse, DO};
    if (sem.alibiRank)
      roles.push_back(Alibi);
    roles.append(sem.numCaptures, Capture);
    roles.append({DQ, DK, DV});
    return roles;
  }
  SmallVector<ArgRole, 7> roles = {Q, K, V};
  if (sem.alibiRank)
    roles.push_back(Alibi);
  if (sem.kvLens)
    roles.push_back(KvLens);
  if (sem.paged)
    roles.push_back(Table);
  if (sem.blockMaskRows)
    roles.push_back(Hint);
  roles.append(sem.numCaptures, Capture);
  roles.push_back(O);
  if (lse)
    roles.push_back(Lse);
  return roles;
}

/// Checks the Q, K, V, [alibi], [kv_lens], [block_table], [block_mask],
/// [captures...],
/// O[, LSE] signature and
/// returns the argument roles and types.
llvm::Error checkSignature(func::FuncOp func, const Semantics &sem,
                           bool backward, SmallVector<ArgRole, 7> &roles,
                           SmallVector<MemRefType, 7> &types) {
  FunctionType type = func.getFunctionType();
  unsigned n = type.getNumInputs();
  roles = argRoles(sem, /*lse=*/false, backward);
  if (!backward && n == roles.size() + 1)
    roles = argRoles(sem, /*lse=*/true);
  if (n != roles.size() || type.getNumResults() != 0) {
    std::string list;
    for (ArgRole r : argRoles(sem, false, backward))
      list += (list.empty() ? "" : ", ") + std::string(kArgNames[r]);
    return makeError("@" + func.getSymName() + " must take (" + list +
                     (backward ? "" : "[, LSE]") +
                     ") memrefs and return nothing");
  }
  for (auto [i, role] : llvm::enumerate(roles)) {
    auto t = dyn_cast<MemRefType>(type.getInput(i));
    if (role == Capture) {
      Type element = t ? t.getElementType() : Type();
      if (!t || !t.isStrided() || !(element.isF32() || element.isInteger(32)))
        return makeError("argument " + Twine(i) + " (a capture) of @" +
                         func.getSymName() +
                         " must be a strided f32 or i32 memref (flash-run "
                         "supports those)");
      types.push_back(t);
      continue;
    }
    bool isIndex = role == KvLens || role == Table || role == Hint;
    unsigned rank = roleRank(role, sem.alibiRank);
    Type element = t ? t.getElementType() : Type();
    if (!t || t.getRank() != rank || !t.isStrided() ||
        !(isIndex ? element.isInteger(32) : element.isF32()))
      return makeError("argument " + Twine(i) + " (" + kArgNames[role] +
                       ") of @" + func.getSymName() + " must be a strided " +
                       "rank-" + Twine(rank) +
                       (isIndex ? " i32 memref"
                                : " f32 memref (flash-run supports f32 only)"));
    if (rank == 4 && role != Hint && t.isDynamicDim(3))
      return makeError(Twine("the head dim of ") + kArgNames[role] +
                       " must be static");
    types.push_back(t);
  }
  auto dim = [&](ArgRole role) {
    return types[llvm::find(roles, role) - roles.begin()].getDimSize(3);
  };
  if (dim(K) != dim(Q) || dim(O) != dim(V))
    return makeError("head dims disagree: Q has D=" + Twine(dim(Q)) + ", K " +
                     Twine(dim(K)) + ", V has Dv=" + Twine(dim(V)) + ", O " +
                     Twine(dim(O)));
  return llvm::Error::success();
}

/// The arguments the one op of `func` must use, in order.
SmallVector<Value> expectedArgs(mlir::flash::AttentionOp op) {
  SmallVector<Value> expected = {op.getQuery(), op.getKey(), op.getValue()};
  for (Value serving : {op.getAlibiSlopes(), op.getKvLens(), op.getBlockTable(),
                        op.getBlockMask()})
    if (serving)
      expected.push_back(serving);
  llvm::append_range(expected, op.getCaptures());
  llvm::append_range(expected, op.getOuts());
  return expected;
}
SmallVector<Value> expectedArgs(mlir::flash::AttentionBackwardOp op) {
  SmallVector<Value> expected = {op.getQuery(), op.getKey(), op.getValue(),
                                 op.getOut(),   op.getLse(), op.getGradOut()};
  if (op.getAlibiSlopes())
    expected.push_back(op.getAlibiSlopes());
  llvm::append_range(expected, op.getCaptures());
  llvm::append_range(expected, op.getOuts());
  return expected;
}

/// Reads the semantics from the one flash.attention (or
/// flash.attention_backward) in `func`.
template <typename OpTy>
llvm::Error readOp(OpTy op, func::FuncOp func, Semantics &sem) {
  std::string name = op->getName().getStringRef().str();
  if (!op.hasPureBufferSemantics())
    return makeError(name + " must be in memref form (outs(...))");
  if (op.getCuSeqlensQ())
    return makeError(name + " with cu_seqlens is not supported by "
                            "flash-run yet");
  Type elementType = cast<ShapedType>(op.getQuery().getType()).getElementType();
  if (!elementType.isF32())
    return makeError(name + " on " + typeString(elementType) +
                     " is not supported by flash-run yet (f32 only)");
  if (!llvm::equal(expectedArgs(op), func.getArguments()))
    return makeError(
        name + " must use the arguments of @" + func.getSymName() +
        (std::is_same_v<OpTy, mlir::flash::AttentionOp>
             ? " directly, as Q, K, V, [alibi], [kv_lens], [block_table], "
               "[block_mask], [captures...], O[, LSE]"
             : " directly, as Q, K, V, O, LSE, dO, [alibi], [captures...], "
               "dQ, dK, dV"));
  // The semantics come from the attribute dictionary itself, not from the
  // accessors the lowering uses (getEffectiveScale, getWindowLeft, ...): a
  // bug shared by checker and lowering would be invisible. An absent scale
  // stays unset here and becomes 1/sqrt(D) of the types in runCase.
  DictionaryAttr attrs = op->getAttrDictionary();
  if (auto scale = dyn_cast_or_null<FloatAttr>(attrs.get("scale")))
    sem.scale = scale.getValueAsDouble();
  sem.causal = bool(attrs.get("causal"));
  if (auto window = dyn_cast_or_null<DenseI64ArrayAttr>(attrs.get("window"))) {
    if (window.size() != 2)
      return makeError(name + "'s window must have two bounds");
    sem.windowLeft = window[0];
    sem.windowRight = window[1];
  }
  if (auto cap = dyn_cast_or_null<FloatAttr>(attrs.get("softcap")))
    sem.softcap = cap.getValueAsDouble();
  sem.kvLens = bool(op.getKvLens());
  sem.paged = bool(op.getBlockTable());
  if (Value slopes = op.getAlibiSlopes())
    sem.alibiRank = cast<MemRefType>(slopes.getType()).getRank();
  sem.numCaptures = op.getCaptures().size();
  if (auto rows = dyn_cast_or_null<IntegerAttr>(attrs.get("block_mask_rows")))
    sem.blockMaskRows = rows.getInt();
  if (bool(op.getBlockMask()) != (sem.blockMaskRows > 0))
    return makeError(name + "'s block_mask needs block_mask_rows");
  return llvm::Error::success();
}

} // namespace

llvm::Expected<Kernel> cpu::selectKernel(ModuleOp module,
                                         const KernelOptions &opts) {
  auto holdsOp = [](func::FuncOp f) {
    return f
        .walk([](Operation *op) {
          return isa<mlir::flash::AttentionOp,
                     mlir::flash::AttentionBackwardOp>(op)
                     ? WalkResult::interrupt()
                     : WalkResult::advance();
        })
        .wasInterrupted();
  };
  Kernel kernel;
  if (!opts.funcName.empty()) {
    kernel.func = module.lookupSymbol<func::FuncOp>(opts.funcName);
    if (!kernel.func || kernel.func.isExternal())
      return makeError("no func.func @" + opts.funcName + " with a body in '" +
                       opts.inputFile + "'");
  } else {
    SmallVector<func::FuncOp> funcs, withOp;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (f.isExternal())
        continue;
      funcs.push_back(f);
      if (holdsOp(f))
        withOp.push_back(f);
    }
    if (funcs.size() != 1 && withOp.size() != 1)
      return makeError("'" + opts.inputFile + "' has " + Twine(funcs.size()) +
                       " functions; name the one to run with --func");
    kernel.func = funcs.size() == 1 ? funcs.front() : withOp.front();
  }
  StringRef name = kernel.func.getSymName();

  SmallVector<Operation *> ops;
  kernel.func.walk([&](Operation *op) {
    if (isa<mlir::flash::AttentionOp, mlir::flash::AttentionBackwardOp>(op))
      ops.push_back(op);
  });
  if (ops.size() > 1)
    return makeError("@" + name + " holds " + Twine(ops.size()) +
                     " flash.attention ops; flash-run needs exactly one");
  if (ops.size() == 1) {
    if (opts.referenceAttrs)
      return makeError("--reference-attrs is only for functions without "
                       "flash.attention; the op's attributes are used");
    auto backward = dyn_cast<mlir::flash::AttentionBackwardOp>(ops.front());
    kernel.backward = bool(backward);
    bool hasMods = false;
    if (backward) {
      if (llvm::Error err = readOp(backward, kernel.func, kernel.sem))
        return std::move(err);
      hasMods = backward.hasMods();
    } else {
      auto forward = cast<mlir::flash::AttentionOp>(ops.front());
      if (llvm::Error err = readOp(forward, kernel.func, kernel.sem))
        return std::move(err);
      hasMods = forward.hasMods();
    }
    // The regions, from a copy the lowering will not touch.
    if (hasMods) {
      kernel.oracle = std::make_shared<OwningOpRef<ModuleOp>>(module.clone());
      auto copy = (*kernel.oracle)->lookupSymbol<func::FuncOp>(name);
      copy.walk([&](Operation *op) {
        if (!isa<mlir::flash::AttentionOp, mlir::flash::AttentionBackwardOp>(
                op))
          return;
        Region &scoreMod = op->getRegion(0), &maskMod = op->getRegion(1);
        if (!scoreMod.empty())
          kernel.scoreMod = &scoreMod;
        if (!maskMod.empty())
          kernel.maskMod = &maskMod;
      });
    }
  } else {
    if (!opts.referenceAttrs)
      return makeError("@" + name + " holds no flash.attention; pass " +
                       "--reference-attrs to check a hand-written kernel");
    if (llvm::Error err = parseReferenceAttrs(*opts.referenceAttrs, kernel.sem))
      return std::move(err);
  }

  if (llvm::Error err = checkSignature(kernel.func, kernel.sem, kernel.backward,
                                       kernel.roles, kernel.argTypes))
    return std::move(err);

  // The page size is the pool's dim 2: static in K's type, or --page-size.
  bool pageSizeGiven = opts.pageSize.has_value();
  if (!kernel.sem.paged) {
    if (pageSizeGiven)
      return makeError("--page-size is only for paged functions "
                       "(flash.attention with block_table)");
    return kernel;
  }
  if (pageSizeGiven && *opts.pageSize <= 0)
    return makeError("--page-size must be positive, got " +
                     Twine(int64_t(*opts.pageSize)));
  MemRefType kType = kernel.type(K);
  if (!kType.isDynamicDim(2)) {
    kernel.pageSize = kType.getDimSize(2);
    if (pageSizeGiven && *opts.pageSize != kernel.pageSize)
      return makeError("--page-size=" + Twine(int64_t(*opts.pageSize)) +
                       " disagrees with the page size " +
                       Twine(kernel.pageSize) + " of K (" + typeString(kType) +
                       ")");
  } else if (pageSizeGiven) {
    kernel.pageSize = *opts.pageSize;
  } else {
    return makeError("the page size of @" + name + " is dynamic (K is " +
                     typeString(kType) + "); give it with --page-size=N");
  }
  return kernel;
}

llvm::Error cpu::lowerToLLVM(ModuleOp module, StringRef pipeline,
                             StringRef inputFile, bool printIR) {
  if (!pipeline.empty()) {
    FailureOr<OpPassManager> parsed = parsePassPipeline(pipeline);
    if (failed(parsed))
      return makeError("could not parse --pipeline='" + pipeline + "'");
    PassManager pm(module.getContext(), parsed->getOpAnchorName());
    static_cast<OpPassManager &>(pm) = std::move(*parsed);
    if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(module)))
      return makeError("pipeline '" + pipeline + "' failed on '" + inputFile +
                       "'");
  }
  if (printIR)
    module.print(llvm::outs());

  // Name an op the pipeline left behind (preferably not a cast, which only
  // hints at the culprit) rather than let the translation to LLVM IR fail
  // with the whole function printed.
  module.getContext()->printOpOnDiagnostic(false);
  Operation *leftover = nullptr;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    bool isCast = isa<UnrealizedConversionCastOp>(op);
    if (op == module.getOperation() ||
        (!isCast && dialect &&
         dialect->getRegisteredInterface<LLVMTranslationDialectInterface>()))
      return WalkResult::advance();
    if (!leftover || isa<UnrealizedConversionCastOp>(leftover))
      leftover = op;
    return isCast ? WalkResult::advance() : WalkResult::interrupt();
  });
  if (!leftover)
    return llvm::Error::success();
  leftover->emitError() << "'" << leftover->getName()
                        << "' is left after the pipeline";
  return makeError("pipeline '" + pipeline + "' must lower '" + inputFile +
                   "' to the LLVM dialect");
}

llvm::Expected<void (*)(void **)>
cpu::compile(ModuleOp module, StringRef name,
             std::unique_ptr<ExecutionEngine> &engine) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto transformer = makeOptimizingTransformer(2, /*sizeLevel=*/0, nullptr);
  ExecutionEngineOptions options;
  options.transformer = transformer;
  options.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Default;
  auto engineOrErr = ExecutionEngine::create(module, options);
  if (!engineOrErr)
    return makeError("JIT compilation failed: " +
                     llvm::toString(engineOrErr.takeError()));
  engine = std::move(*engineOrErr);
  // Lowered memref.copy of non-contiguous views calls this runtime helper.
  engine->registerSymbols([](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap map;
    map[interner("memrefCopy")] = {
        llvm::orc::ExecutorAddr::fromPtr(&memrefCopy),
        llvm::JITSymbolFlags::Exported};
    return map;
  });
  // What invokePacked("_mlir_ciface_" + name, args) looks up on every call;
  // looked up once here to keep the lookup out of the timed region.
  auto fnOrErr = engine->lookupPacked(("_mlir_ciface_" + name).str());
  if (!fnOrErr)
    return makeError("JIT: no _mlir_ciface_" + name +
                     " (did the pipeline drop llvm.emit_c_interface?): " +
                     llvm::toString(fnOrErr.takeError()));
  return *fnOrErr;
}
