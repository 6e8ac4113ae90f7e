//===- flash-run.cpp - JIT a flash.attention kernel and check it ----------===//
//
// Compiles a function holding one memref-form `flash.attention` for the host
// CPU, JIT-runs it on random inputs and compares every output element with
// the C++ reference (flash/Reference/Reference.h). It is the end-to-end check
// of the CPU lowering: whatever the pipeline does, the numbers must agree.
//
//   flash-run FILE.mlir [--func=NAME] --shapes="B,Hq,Hkv,Sq,Sk[,D[,Dv]];..."
//             [--layout=bhsd|bshd] [--seed=N] [--tol=1e-5] [--repeat=N]
//             [--pipeline=PIPELINE] [--print-ir] [--reference-attrs=...]
//
// The function takes Q, K, V, O and optionally LSE, in that order: rank-4 f32
// memrefs in logical [batch, heads, seq, dim] order with static head dims
// (e.g. `memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>`, so that
// --layout=bshd can pass FA2's [B, S, H, D] storage as strides) and a rank-3
// `memref<?x?x?xf32>` LSE. The attention semantics (scale, causal, window,
// softcap) are read from the op before lowering. For hand-written kernels
// without the op, --reference-attrs gives them instead.
//
// Output: one line per shape with the max abs errors of O and LSE and the
// median time, then `flash-run: N/M cases passed`. Exit code 0 if all cases
// pass, 1 if any fails, 2 on any usage, IR, pipeline or JIT error.
//
// With --artifact=libX.so it runs a compiled GPU artifact instead, through
// libflashrt (GpuRun.cpp, also built alone as flash-run-gpu).
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/InitAllFlash.h"
#include "flash/Reference/Reference.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>

using namespace mlir;
namespace cl = llvm::cl;
namespace ref = ::flash::ref;

namespace {

cl::OptionCategory runCat("flash-run options");

cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input .mlir>"),
                               cl::Required, cl::cat(runCat));
cl::opt<std::string> funcName("func",
                              cl::desc("Function to run (default: "
                                       "the only one, or the only one "
                                       "holding flash.attention)"),
                              cl::cat(runCat));
cl::opt<std::string>
    shapesOpt("shapes", cl::Required, cl::cat(runCat),
              cl::desc("Cases \"B,Hq,Hkv,Sq,Sk[,D[,Dv]];...\"; D and Dv, "
                       "if given, must match the IR"));
cl::opt<std::string> layoutOpt("layout", cl::init("bhsd"), cl::cat(runCat),
                               cl::desc("Storage of Q/K/V/O: bhsd (default) or "
                                        "bshd"));
cl::opt<uint64_t> seedOpt("seed", cl::cat(runCat),
                          cl::desc("Random seed (default: random_device)"));
cl::opt<double> tolOpt("tol", cl::init(1e-5), cl::cat(runCat),
                       cl::desc("Max abs error allowed in O and LSE "
                                "(default 1e-5)"));
cl::opt<std::string>
    pipelineOpt("pipeline", cl::init("builtin.module(flash-lower-to-cpu)"),
                cl::cat(runCat),
                cl::desc("Pass pipeline lowering the module to the LLVM "
                         "dialect (default builtin.module(flash-lower-to-cpu)"
                         "; empty: none)"));
cl::opt<unsigned> repeatOpt("repeat", cl::init(1), cl::cat(runCat),
                            cl::desc("Runs per case; the median time is "
                                     "reported (default 1)"));
cl::opt<bool> printIR("print-ir", cl::cat(runCat),
                      cl::desc("Print the lowered module to stdout"));
cl::opt<std::string> refAttrsOpt(
    "reference-attrs", cl::cat(runCat),
    cl::desc("\"causal=0,window=-1:-1,softcap=0,scale=X\": semantics for "
             "checking a hand-written kernel (file without flash.attention) "
             "against the reference; scale defaults to 1/sqrt(D)"));

/// Prints an error and yields exit code 2 (anything that is not a numeric
/// mismatch).
int fail(const llvm::Twine &msg) {
  llvm::errs() << "flash-run: error: " << msg << "\n";
  return 2;
}

llvm::Error makeError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::string typeString(Type type) {
  std::string str;
  llvm::raw_string_ostream(str) << type;
  return str;
}

struct Case {
  int64_t b, hq, hkv, sq, sk;
  int64_t d = -1, dv = -1; // -1: take them from the IR.
};

llvm::Expected<std::vector<Case>> parseShapes(StringRef text) {
  std::vector<Case> cases;
  SmallVector<StringRef> items;
  text.split(items, ';', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    if (item.trim().empty())
      continue;
    SmallVector<StringRef> fields;
    item.split(fields, ',');
    SmallVector<int64_t, 7> v;
    for (StringRef f : fields) {
      int64_t x;
      if (f.trim().getAsInteger(10, x) || x <= 0)
        return makeError(
            "bad --shapes entry '" + item.trim() +
            "': expected positive integers B,Hq,Hkv,Sq,Sk[,D[,Dv]]");
      v.push_back(x);
    }
    if (v.size() < 5 || v.size() > 7)
      return makeError("bad --shapes entry '" + item.trim() +
                       "': expected 5 to 7 fields B,Hq,Hkv,Sq,Sk[,D[,Dv]]");
    Case c{v[0], v[1], v[2], v[3], v[4]};
    if (v.size() > 5)
      c.d = v[5];
    if (v.size() > 6)
      c.dv = v[6];
    if (c.hq % c.hkv != 0)
      return makeError("bad --shapes entry '" + item.trim() + "': Hq (" +
                       Twine(c.hq) + ") is not a multiple of Hkv (" +
                       Twine(c.hkv) + ")");
    cases.push_back(c);
  }
  if (cases.empty())
    return makeError("--shapes lists no case");
  return cases;
}

/// Attention semantics the reference is configured with.
struct Semantics {
  std::optional<double> scale; // None: 1/sqrt(D).
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0;
};

llvm::Error parseReferenceAttrs(StringRef text, Semantics &sem) {
  SmallVector<StringRef> items;
  text.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, value] = item.trim().split('=');
    key = key.trim();
    value = value.trim();
    bool bad = false;
    if (key == "causal") {
      bad = value != "0" && value != "1";
      sem.causal = value == "1";
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
                       "scale=X)");
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

const char *const kArgNames[] = {"Q", "K", "V", "O", "LSE"};

/// Checks the Q, K, V, O[, LSE] signature and returns the argument types.
llvm::Expected<SmallVector<MemRefType, 5>> checkSignature(func::FuncOp func) {
  FunctionType type = func.getFunctionType();
  unsigned n = type.getNumInputs();
  if ((n != 4 && n != 5) || type.getNumResults() != 0)
    return makeError("@" + func.getSymName() +
                     " must take (Q, K, V, O[, LSE]) memrefs and return "
                     "nothing");
  SmallVector<MemRefType, 5> types;
  for (unsigned i = 0; i < n; ++i) {
    auto t = dyn_cast<MemRefType>(type.getInput(i));
    unsigned rank = i < 4 ? 4 : 3;
    if (!t || t.getRank() != rank || !t.getElementType().isF32() ||
        !t.isStrided())
      return makeError("argument " + Twine(i) + " (" + kArgNames[i] + ") of @" +
                       func.getSymName() + " must be a strided " + "rank-" +
                       Twine(rank) +
                       " f32 memref (flash-run supports f32 only)");
    if (i < 4 && t.isDynamicDim(3))
      return makeError(Twine("the head dim of ") + kArgNames[i] +
                       " must be static");
    types.push_back(t);
  }
  if (types[1].getDimSize(3) != types[0].getDimSize(3) ||
      types[3].getDimSize(3) != types[2].getDimSize(3))
    return makeError(
        "head dims disagree: Q has D=" + Twine(types[0].getDimSize(3)) +
        ", K " + Twine(types[1].getDimSize(3)) + ", V has Dv=" +
        Twine(types[2].getDimSize(3)) + ", O " + Twine(types[3].getDimSize(3)));
  return types;
}

/// Reads the semantics from the one flash.attention in `func`.
llvm::Error readOp(mlir::flash::AttentionOp op, func::FuncOp func,
                   Semantics &sem) {
  if (!op.hasPureBufferSemantics())
    return makeError("flash.attention must be in memref form (outs(...))");
  if (op.getAlibiSlopes() || op.getKvLens() || op.getBlockTable() ||
      op.getCuSeqlensQ())
    return makeError("flash.attention with alibi/kv_lens/block_table/"
                     "cu_seqlens is not supported by flash-run yet");
  Type elementType = cast<ShapedType>(op.getQuery().getType()).getElementType();
  if (!elementType.isF32())
    return makeError("flash.attention on " + typeString(elementType) +
                     " is not supported by flash-run yet (f32 only)");
  SmallVector<Value> expected = {op.getQuery(), op.getKey(), op.getValue()};
  llvm::append_range(expected, op.getOuts());
  if (!llvm::equal(expected, func.getArguments()))
    return makeError("flash.attention must use the arguments of @" +
                     func.getSymName() + " directly, as Q, K, V, O[, LSE]");
  sem.scale = op.getEffectiveScale();
  sem.causal = op.getCausal();
  sem.windowLeft = op.getWindowLeft();
  sem.windowRight = op.getWindowRight();
  if (std::optional<APFloat> cap = op.getSoftcap())
    sem.softcap = cap->convertToDouble();
  return llvm::Error::success();
}

/// Logical [B, H, S, D] sizes and element strides of Q, K, V, O and LSE for
/// one case; LSE is always contiguous [B, Hq, Sq], held as [1, B, Hq, Sq].
struct CaseLayout {
  ref::Shape4 shapes[5];
  ref::Strides4 strides[5];
  CaseLayout(const Case &c, int64_t d, int64_t dv, bool bshd)
      : shapes{{c.b, c.hq, c.sq, d},
               {c.b, c.hkv, c.sk, d},
               {c.b, c.hkv, c.sk, dv},
               {c.b, c.hq, c.sq, dv},
               {1, c.b, c.hq, c.sq}} {
    for (unsigned i = 0; i < 5; ++i)
      strides[i] = bshd && i < 4 ? ref::bshdStrides(shapes[i])
                                 : ref::contiguousStrides(shapes[i]);
  }
  /// Sizes and strides as the function argument sees them.
  ArrayRef<int64_t> argSizes(unsigned i) const {
    return ArrayRef<int64_t>(shapes[i]).drop_front(i == 4);
  }
  ArrayRef<int64_t> argStrides(unsigned i) const {
    return ArrayRef<int64_t>(strides[i]).drop_front(i == 4);
  }
};

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
  template <int Rank>
  StridedMemRefType<float, Rank> descriptor(ArrayRef<int64_t> sizes,
                                            ArrayRef<int64_t> argStrides) {
    StridedMemRefType<float, Rank> d;
    d.basePtr = d.data = data;
    d.offset = 0;
    llvm::copy(sizes, d.sizes);
    llvm::copy(argStrides, d.strides);
    return d;
  }
};

/// Rejects sizes or strides the argument's type fixes to other values.
llvm::Error checkArg(unsigned i, MemRefType type, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
  for (auto [dim, size] : llvm::enumerate(sizes))
    if (!type.isDynamicDim(dim) && type.getDimSize(dim) != size)
      return makeError(Twine("dim ") + Twine(dim) + " of " + kArgNames[i] +
                       " is " + Twine(type.getDimSize(dim)) +
                       " in the IR, but the case needs " + Twine(size));
  auto [typeStrides, typeOffset] = type.getStridesAndOffset();
  bool ok = ShapedType::isDynamic(typeOffset) || typeOffset == 0;
  // The stride of a unit dim is never used, so it need not match.
  for (auto [size, s, t] : llvm::zip_equal(sizes, strides, typeStrides))
    ok &= ShapedType::isDynamic(t) || t == s || size == 1;
  if (ok)
    return llvm::Error::success();
  return makeError(Twine("the static layout of ") + kArgNames[i] + " (" +
                   typeString(type) + ") does not fit --layout=" + layoutOpt +
                   (i == 4 ? "; LSE is passed contiguous"
                           : "; declare it strided<[?, ?, ?, 1], offset: ?>"));
}

/// Max abs error of `got` against `want` over `shape`; NaNs in `got` (e.g.
/// the poison of unwritten elements) are counted and make the error inf.
struct Diff {
  double maxErr = 0.0;
  int64_t nans = 0;
};
Diff compare(ref::View4 got, ref::View4 want, const ref::Shape4 &shape) {
  Diff d;
  for (int64_t b = 0; b < shape[0]; ++b)
    for (int64_t h = 0; h < shape[1]; ++h)
      for (int64_t s = 0; s < shape[2]; ++s)
        for (int64_t x = 0; x < shape[3]; ++x) {
          float g = got.at(b, h, s, x), w = want.at(b, h, s, x);
          // Equal infinities (LSE of a row that sees no key) are no error.
          double err = g == w ? 0.0 : std::fabs(double(g) - double(w));
          d.nans += std::isnan(g);
          if (std::isnan(err))
            err = std::numeric_limits<double>::infinity();
          d.maxErr = std::max(d.maxErr, err);
        }
  return d;
}

/// The function under test and what it computes.
struct Kernel {
  func::FuncOp func;
  Semantics sem;
  SmallVector<MemRefType, 5> argTypes; // Q, K, V, O[, LSE].
  bool hasLse() const { return argTypes.size() == 5; }
  int64_t headDim() const { return argTypes[0].getDimSize(3); }
  int64_t headDimV() const { return argTypes[2].getDimSize(3); }
};

/// Picks the function (--func, else the only one, else the only one holding
/// flash.attention) and reads its semantics and signature.
llvm::Expected<Kernel> selectKernel(ModuleOp module) {
  auto holdsOp = [](func::FuncOp f) {
    return f
        .walk([](mlir::flash::AttentionOp) { return WalkResult::interrupt(); })
        .wasInterrupted();
  };
  Kernel kernel;
  if (!funcName.empty()) {
    kernel.func = module.lookupSymbol<func::FuncOp>(funcName);
    if (!kernel.func || kernel.func.isExternal())
      return makeError("no func.func @" + funcName + " with a body in '" +
                       inputFile + "'");
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
      return makeError("'" + inputFile + "' has " + Twine(funcs.size()) +
                       " functions; name the one to run with --func");
    kernel.func = funcs.size() == 1 ? funcs.front() : withOp.front();
  }
  StringRef name = kernel.func.getSymName();

  SmallVector<mlir::flash::AttentionOp> ops;
  kernel.func.walk([&](mlir::flash::AttentionOp op) { ops.push_back(op); });
  if (ops.size() > 1)
    return makeError("@" + name + " holds " + Twine(ops.size()) +
                     " flash.attention ops; flash-run needs exactly one");
  if (ops.size() == 1) {
    if (refAttrsOpt.getNumOccurrences())
      return makeError("--reference-attrs is only for functions without "
                       "flash.attention; the op's attributes are used");
    if (llvm::Error err = readOp(ops.front(), kernel.func, kernel.sem))
      return std::move(err);
  } else {
    if (!refAttrsOpt.getNumOccurrences())
      return makeError("@" + name + " holds no flash.attention; pass " +
                       "--reference-attrs to check a hand-written kernel");
    if (llvm::Error err = parseReferenceAttrs(refAttrsOpt, kernel.sem))
      return std::move(err);
  }

  llvm::Expected<SmallVector<MemRefType, 5>> types =
      checkSignature(kernel.func);
  if (!types)
    return types.takeError();
  kernel.argTypes = std::move(*types);
  return kernel;
}

/// Runs --pipeline and checks that only LLVM-translatable ops are left.
llvm::Error lowerToLLVM(ModuleOp module) {
  if (!pipelineOpt.empty()) {
    FailureOr<OpPassManager> parsed = parsePassPipeline(pipelineOpt);
    if (failed(parsed))
      return makeError("could not parse --pipeline='" + pipelineOpt + "'");
    PassManager pm(module.getContext(), parsed->getOpAnchorName());
    static_cast<OpPassManager &>(pm) = std::move(*parsed);
    if (failed(applyPassManagerCLOptions(pm)) || failed(pm.run(module)))
      return makeError("pipeline '" + pipelineOpt + "' failed on '" +
                       inputFile + "'");
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
  return makeError("pipeline '" + pipelineOpt + "' must lower '" + inputFile +
                   "' to the LLVM dialect");
}

/// JIT-compiles the lowered module at -O2 and returns the packed wrapper of
/// `_mlir_ciface_<name>`: `void (void **args)`, one pointer per argument.
llvm::Expected<void (*)(void **)>
compile(ModuleOp module, StringRef name,
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

/// Runs one case on fresh random inputs, prints its line, returns whether it
/// passed.
llvm::Expected<bool> runCase(const Kernel &kernel, void (*fn)(void **),
                             const Case &c, const CaseLayout &layout,
                             std::mt19937 &rng) {
  Tensor q(layout.shapes[0], layout.strides[0]);
  Tensor k(layout.shapes[1], layout.strides[1]);
  Tensor v(layout.shapes[2], layout.strides[2]);
  Tensor o(layout.shapes[3], layout.strides[3]);
  Tensor lse(layout.shapes[4], layout.strides[4]);
  Tensor refO(layout.shapes[3], ref::contiguousStrides(layout.shapes[3]));
  Tensor refLse(layout.shapes[4], layout.strides[4]);

  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Tensor *t : {&q, &k, &v})
    for (float &x : MutableArrayRef<float>(t->data, t->size))
      x = dist(rng);

  ref::AttentionParams params;
  params.batch = c.b, params.headsQ = c.hq, params.headsKV = c.hkv;
  params.seqQ = c.sq, params.seqK = c.sk;
  params.headDim = kernel.headDim(), params.headDimV = kernel.headDimV();
  params.scale =
      kernel.sem.scale.value_or(1.0 / std::sqrt(double(kernel.headDim())));
  params.causal = kernel.sem.causal;
  params.windowLeft = kernel.sem.windowLeft;
  params.windowRight = kernel.sem.windowRight;
  params.softcap = kernel.sem.softcap;
  std::string refErr =
      ref::attention(params, q.view(), k.view(), v.view(), refO.mutView(),
                     kernel.hasLse() ? refLse.data : nullptr);
  if (!refErr.empty())
    return makeError("the reference rejects the case: " + refErr);

  StridedMemRefType<float, 4> descs[4];
  Tensor *qkvo[] = {&q, &k, &v, &o};
  for (unsigned i = 0; i < 4; ++i)
    descs[i] = qkvo[i]->descriptor<4>(layout.argSizes(i), layout.argStrides(i));
  StridedMemRefType<float, 3> lseDesc =
      lse.descriptor<3>(layout.argSizes(4), layout.argStrides(4));
  // The packed ABI wants, per argument, a pointer to the value the C wrapper
  // takes, and that value is itself a pointer to the descriptor.
  void *descPtrs[5] = {&descs[0], &descs[1], &descs[2], &descs[3], &lseDesc};
  SmallVector<void *, 5> args;
  for (unsigned i = 0; i < kernel.argTypes.size(); ++i)
    args.push_back(&descPtrs[i]);

  std::vector<double> times;
  for (unsigned r = 0; r < repeatOpt; ++r) {
    // NaN poison: an element the kernel forgets to write cannot pass.
    for (Tensor *t : {&o, &lse})
      llvm::fill(t->storage, std::numeric_limits<float>::quiet_NaN());
    auto start = std::chrono::steady_clock::now();
    fn(args.data());
    auto stop = std::chrono::steady_clock::now();
    times.push_back(
        std::chrono::duration<double, std::milli>(stop - start).count());
  }
  llvm::sort(times);
  size_t mid = times.size() / 2;
  double median =
      times.size() % 2 ? times[mid] : 0.5 * (times[mid - 1] + times[mid]);

  Diff dO = compare(o.view(), refO.view(), layout.shapes[3]);
  Diff dLse;
  if (kernel.hasLse())
    dLse = compare(lse.view(), refLse.view(), layout.shapes[4]);
  bool ok = dO.maxErr <= tolOpt && dLse.maxErr <= tolOpt && dO.nans == 0 &&
            dLse.nans == 0;

  llvm::raw_ostream &os = llvm::outs();
  os << "B=" << c.b << " Hq=" << c.hq << " Hkv=" << c.hkv << " Sq=" << c.sq
     << " Sk=" << c.sk << " D=" << kernel.headDim()
     << " Dv=" << kernel.headDimV() << " layout=" << layoutOpt
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

} // namespace

int main(int argc, char **argv) {
  // --artifact: run a compiled GPU artifact instead (GpuRun.cpp).
  if (::flash::run::wantsGpuMode(argc, argv))
    return ::flash::run::gpuMain(argc, argv);
  llvm::InitLLVM initLLVM(argc, argv);
  registerAllPasses();
  mlir::flash::registerAllFlashPasses();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  // libLLVM's hundreds of backend options would bury ours in --help; the
  // MLIR ones (--mlir-print-ir-after-all, ...) stay usable, just unlisted.
  cl::HideUnrelatedOptions(runCat);
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "JIT-compile a function holding one memref flash.attention for the "
          "host CPU, run it on random inputs and check O and LSE against the "
          "reference attention.\n\n"
          "  flash-run FILE.mlir --shapes=\"B,Hq,Hkv,Sq,Sk;...\" "
          "[--layout=bshd] [--seed=N]\n\n"
          "The function takes (Q, K, V, O[, LSE]): rank-4 f32 memrefs "
          "[batch, heads, seq, dim] with static head dims, e.g.\n"
          "memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, and a "
          "memref<?x?x?xf32> LSE. Exit code: 0 all cases pass, 1 a case "
          "fails, 2 error. MLIR debugging options such as "
          "--mlir-print-ir-after-all are accepted.\n",
          &llvm::errs()))
    return 2;

  bool bshd = layoutOpt == "bshd";
  if (!bshd && layoutOpt != "bhsd")
    return fail("--layout must be bhsd or bshd, got '" + layoutOpt + "'");
  if (!(tolOpt >= 0.0))
    return fail("--tol must be >= 0");
  if (repeatOpt == 0)
    return fail("--repeat must be >= 1");
  llvm::Expected<std::vector<Case>> cases = parseShapes(shapesOpt);
  if (!cases)
    return fail(llvm::toString(cases.takeError()));

  DialectRegistry registry;
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  mlir::flash::registerAllFlashDialects(registry);
  MLIRContext context(registry);

  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(inputFile, &errorMessage);
  if (!file)
    return fail(errorMessage);
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler diagHandler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, &context);
  if (!module)
    return fail("could not parse '" + inputFile + "'");

  llvm::Expected<Kernel> kernel = selectKernel(*module);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));

  // Reject every bad case before spending time on lowering and JIT.
  std::vector<CaseLayout> layouts;
  for (const Case &c : *cases) {
    std::string what = "case " + std::to_string(layouts.size() + 1) + " (" +
                       std::to_string(c.b) + "," + std::to_string(c.hq) + "," +
                       std::to_string(c.hkv) + "," + std::to_string(c.sq) +
                       "," + std::to_string(c.sk) + "): ";
    if (c.d != -1 && c.d != kernel->headDim())
      return fail(what + "--shapes gives D=" + Twine(c.d) +
                  " but the IR has D=" + Twine(kernel->headDim()));
    if (c.dv != -1 && c.dv != kernel->headDimV())
      return fail(what + "--shapes gives Dv=" + Twine(c.dv) +
                  " but the IR has Dv=" + Twine(kernel->headDimV()));
    const CaseLayout &layout =
        layouts.emplace_back(c, kernel->headDim(), kernel->headDimV(), bshd);
    for (const ref::Shape4 &s : layout.shapes)
      // Keeps a typo in --shapes from allocating the machine away.
      if (double(s[0]) * s[1] * s[2] * s[3] > double(1ll << 32))
        return fail(what + "too large (over 2^32 elements in one tensor)");
    for (auto [i, type] : llvm::enumerate(kernel->argTypes))
      if (llvm::Error err =
              checkArg(i, type, layout.argSizes(i), layout.argStrides(i)))
        return fail(what + llvm::toString(std::move(err)));
  }

  // The C wrapper takes descriptors by pointer, which is what we can build.
  std::string name = kernel->func.getSymName().str();
  kernel->func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(&context));
  if (llvm::Error err = lowerToLLVM(*module))
    return fail(llvm::toString(std::move(err)));
  std::unique_ptr<ExecutionEngine> engine;
  llvm::Expected<void (*)(void **)> fn = compile(*module, name, engine);
  if (!fn)
    return fail(llvm::toString(fn.takeError()));

  uint64_t seed =
      seedOpt.getNumOccurrences() ? uint64_t(seedOpt) : std::random_device{}();
  std::mt19937 rng(seed);
  llvm::outs() << "flash-run: @" << name << " seed=" << seed
               << " (replay with --seed=" << seed << ")\n";
  unsigned passed = 0;
  for (const auto &[c, layout] : llvm::zip_equal(*cases, layouts)) {
    llvm::Expected<bool> ok = runCase(*kernel, *fn, c, layout, rng);
    if (!ok)
      return fail(llvm::toString(ok.takeError()));
    passed += *ok;
  }
  llvm::outs() << "flash-run: " << passed << "/" << cases->size()
               << " cases passed\n";
  return passed == cases->size() ? 0 : 1;
}
