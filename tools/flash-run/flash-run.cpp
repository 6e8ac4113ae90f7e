//===- flash-run.cpp - JIT a flash.attention kernel and check it ----------===//
//
// Compiles a function holding one memref-form `flash.attention` for the host
// CPU, JIT-runs it on random inputs and compares every output element with
// the C++ reference (flash/Reference/Reference.h). It is the end-to-end check
// of the CPU lowering: whatever the pipeline does, the numbers must agree.
//
//   flash-run FILE.mlir [--func=NAME] --shapes="B,Hq,Hkv,Sq,Sk[,D[,Dv]];..."
//             [--layout=bhsd|bshd] [--seed=N] [--tol=1e-5] [--lse-rtol=R]
//             [--inputs=uniform|large] [--repeat=N]
//             [--page-size=N] [--pipeline=PIPELINE] [--print-ir]
//             [--reference-attrs=...]
//
// The function takes the op's operands in its order: Q, K, V, [kv_lens],
// [block_table], O, [LSE]. Q/K/V/O are rank-4 f32 memrefs in logical
// [batch, heads, seq, dim] order with static head dims (e.g.
// `memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>`, so that
// --layout=bshd can pass FA2's [B, S, H, D] storage as strides), LSE a
// rank-3 `memref<?x?x?xf32>`, kv_lens `memref<?xi32>` and block_table
// `memref<?x?xi32>`. The attention semantics (scale, or 1/sqrt(D) of the
// types; causal, window, softcap, serving operands) are read from the op's
// attributes and operands before lowering, not through the accessors the
// lowering uses, so that a bug in those cannot hide itself. For
// hand-written kernels without the op, --reference-attrs gives them instead.
//
// KV cache: with kv_lens, sequence b uses only its first kv_lens[b] keys,
// drawn per case: Sk for b = 0, 0 for b = 1 if B > 2, 1 for b = 2 if B > 3,
// else uniform in [0, Sk]. With block_table, K
// and V are a page pool [num_pages, Hkv, page_size, D] (--layout=bshd:
// stored [num_pages, page_size, Hkv, D], as vLLM/FA2), Sk in --shapes is the
// capacity pages_per_seq * page_size, the pool holds B * pages_per_seq + 3
// pages and the table is a fresh random permutation. page_size is K's dim 2,
// or --page-size where that is dynamic. Every K/V element that holds no live
// key (past kv_lens, spare pages) is NaN, so reading one fails the case.
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
#include "SizeGuard.h"
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
#include <numeric>
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
cl::opt<double> lseRtolOpt(
    "lse-rtol", cl::init(0.0), cl::cat(runCat),
    cl::desc("LSE may also be off by this much relative to |LSE| (large "
             "logits give large LSE, whose f32 rounding exceeds --tol)"));
cl::opt<std::string> inputsOpt(
    "inputs", cl::init("uniform"), cl::cat(runCat),
    cl::desc("Q/K/V values: uniform (U(-1, 1), default) or large (outliers "
             "8x in 1/32 of Q and K, keys growing 1x..3x along the sequence "
             "so a row's largest logits sit in its last KV blocks)"));
cl::opt<std::string>
    pipelineOpt("pipeline", cl::init("builtin.module(flash-lower-to-cpu)"),
                cl::cat(runCat),
                cl::desc("Pass pipeline lowering the module to the LLVM "
                         "dialect (default builtin.module(flash-lower-to-cpu)"
                         "; empty: none)"));
cl::opt<unsigned> repeatOpt("repeat", cl::init(1), cl::cat(runCat),
                            cl::desc("Runs per case; the median time is "
                                     "reported (default 1)"));
cl::opt<int64_t> pageSizeOpt(
    "page-size", cl::cat(runCat),
    cl::desc("Page size of a paged (block_table) function whose K type "
             "leaves it dynamic"));
cl::opt<bool> printIR("print-ir", cl::cat(runCat),
                      cl::desc("Print the lowered module to stdout"));
cl::opt<std::string> refAttrsOpt(
    "reference-attrs", cl::cat(runCat),
    cl::desc("\"causal=0,window=-1:-1,softcap=0,scale=X,kv_lens=0,"
             "block_table=0\": semantics for checking a hand-written kernel "
             "(file without flash.attention) against the reference; scale "
             "defaults to 1/sqrt(D); kv_lens/block_table=1 add those "
             "arguments as the op would"));

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
  bool kvLens = false; // The op has kv_lens.
  bool paged = false;  // The op has block_table.
};

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

/// What each function argument is; the values index per-role arrays.
enum ArgRole : unsigned { Q, K, V, KvLens, Table, O, Lse, NumRoles };
const char *const kArgNames[] = {"Q",           "K", "V",  "kv_lens",
                                 "block_table", "O", "LSE"};

unsigned roleRank(ArgRole role) {
  return role == Lse ? 3 : role == KvLens ? 1 : role == Table ? 2 : 4;
}

/// The argument roles of a function computing `sem`, with LSE if `lse`.
SmallVector<ArgRole, 7> argRoles(const Semantics &sem, bool lse) {
  SmallVector<ArgRole, 7> roles = {Q, K, V};
  if (sem.kvLens)
    roles.push_back(KvLens);
  if (sem.paged)
    roles.push_back(Table);
  roles.push_back(O);
  if (lse)
    roles.push_back(Lse);
  return roles;
}

/// Checks the Q, K, V, [kv_lens], [block_table], O[, LSE] signature and
/// returns the argument roles and types.
llvm::Error checkSignature(func::FuncOp func, const Semantics &sem,
                           SmallVector<ArgRole, 7> &roles,
                           SmallVector<MemRefType, 7> &types) {
  FunctionType type = func.getFunctionType();
  unsigned n = type.getNumInputs();
  roles = argRoles(sem, /*lse=*/false);
  if (n == roles.size() + 1)
    roles = argRoles(sem, /*lse=*/true);
  if (n != roles.size() || type.getNumResults() != 0) {
    std::string list;
    for (ArgRole r : argRoles(sem, false))
      list += (list.empty() ? "" : ", ") + std::string(kArgNames[r]);
    return makeError("@" + func.getSymName() + " must take (" + list +
                     "[, LSE]) memrefs and return nothing");
  }
  for (auto [i, role] : llvm::enumerate(roles)) {
    auto t = dyn_cast<MemRefType>(type.getInput(i));
    bool isIndex = role == KvLens || role == Table;
    unsigned rank = roleRank(role);
    Type element = t ? t.getElementType() : Type();
    if (!t || t.getRank() != rank || !t.isStrided() ||
        !(isIndex ? element.isInteger(32) : element.isF32()))
      return makeError("argument " + Twine(i) + " (" + kArgNames[role] +
                       ") of @" + func.getSymName() + " must be a strided " +
                       "rank-" + Twine(rank) +
                       (isIndex ? " i32 memref"
                                : " f32 memref (flash-run supports f32 only)"));
    if (rank == 4 && t.isDynamicDim(3))
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

/// Reads the semantics from the one flash.attention in `func`.
llvm::Error readOp(mlir::flash::AttentionOp op, func::FuncOp func,
                   Semantics &sem) {
  if (!op.hasPureBufferSemantics())
    return makeError("flash.attention must be in memref form (outs(...))");
  if (op.getAlibiSlopes() || op.getCuSeqlensQ())
    return makeError("flash.attention with alibi/cu_seqlens is not supported "
                     "by flash-run yet");
  Type elementType = cast<ShapedType>(op.getQuery().getType()).getElementType();
  if (!elementType.isF32())
    return makeError("flash.attention on " + typeString(elementType) +
                     " is not supported by flash-run yet (f32 only)");
  SmallVector<Value> expected = {op.getQuery(), op.getKey(), op.getValue()};
  for (Value serving : {op.getKvLens(), op.getBlockTable()})
    if (serving)
      expected.push_back(serving);
  llvm::append_range(expected, op.getOuts());
  if (!llvm::equal(expected, func.getArguments()))
    return makeError("flash.attention must use the arguments of @" +
                     func.getSymName() +
                     " directly, as Q, K, V, [kv_lens], [block_table], O[, "
                     "LSE]");
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
      return makeError("flash.attention's window must have two bounds");
    sem.windowLeft = window[0];
    sem.windowRight = window[1];
  }
  if (auto cap = dyn_cast_or_null<FloatAttr>(attrs.get("softcap")))
    sem.softcap = cap.getValueAsDouble();
  sem.kvLens = bool(op.getKvLens());
  sem.paged = bool(op.getBlockTable());
  return llvm::Error::success();
}

/// Sizes and element strides of every argument for one case, indexed by
/// role. Q, K, V and O are logical [B, H, S, D] views; paged K and V are the
/// page pool [num_pages, Hkv, page_size, D]. LSE ([B, Hq, Sq]), kv_lens
/// ([B]) and block_table ([B, pages_per_seq]) are contiguous and padded with
/// leading 1s to rank 4.
struct CaseLayout {
  ref::Shape4 shapes[NumRoles];
  ref::Strides4 strides[NumRoles];
  int64_t pageSize = 0, pagesPerSeq = 0, numPages = 0; // 0 unless paged.

  /// `pageSize` is 0 for non-paged K/V, else it must divide `c.sk`.
  CaseLayout(const Case &c, int64_t d, int64_t dv, int64_t pageSize, bool bshd)
      : pageSize(pageSize) {
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
    // bshd on the page pool gives [num_pages, page_size, Hkv, D] storage.
    for (unsigned i = 0; i < NumRoles; ++i)
      strides[i] = bshd && roleRank(ArgRole(i)) == 4
                       ? ref::bshdStrides(shapes[i])
                       : ref::contiguousStrides(shapes[i]);
  }
  /// Sizes and strides as the function argument sees them.
  ArrayRef<int64_t> argSizes(ArgRole role) const {
    return ArrayRef<int64_t>(shapes[role]).take_back(roleRank(role));
  }
  ArrayRef<int64_t> argStrides(ArgRole role) const {
    return ArrayRef<int64_t>(strides[role]).take_back(roleRank(role));
  }
};

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

/// Rejects sizes or strides the argument's type fixes to other values.
llvm::Error checkArg(ArgRole role, MemRefType type, ArrayRef<int64_t> sizes,
                     ArrayRef<int64_t> strides) {
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
      typeString(type) + ") does not fit --layout=" + layoutOpt +
      (roleRank(role) == 4
           ? "; declare it strided<[?, ?, ?, 1], offset: ?>"
           : Twine("; ") + kArgNames[role] + " is passed contiguous"));
}

using ref::compare;
using ref::Diff;

/// The function under test and what it computes.
struct Kernel {
  func::FuncOp func;
  Semantics sem;
  SmallVector<ArgRole, 7> roles;       // Of each argument, in order.
  SmallVector<MemRefType, 7> argTypes; // Of each argument, in order.
  int64_t pageSize = 0;                // 0 unless paged.
  bool has(ArgRole role) const { return llvm::is_contained(roles, role); }
  MemRefType type(ArgRole role) const {
    return argTypes[llvm::find(roles, role) - roles.begin()];
  }
  bool hasLse() const { return has(Lse); }
  int64_t headDim() const { return type(Q).getDimSize(3); }
  int64_t headDimV() const { return type(V).getDimSize(3); }
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

  if (llvm::Error err = checkSignature(kernel.func, kernel.sem, kernel.roles,
                                       kernel.argTypes))
    return std::move(err);

  // The page size is the pool's dim 2: static in K's type, or --page-size.
  bool pageSizeGiven = pageSizeOpt.getNumOccurrences();
  if (!kernel.sem.paged) {
    if (pageSizeGiven)
      return makeError("--page-size is only for paged functions "
                       "(flash.attention with block_table)");
    return kernel;
  }
  if (pageSizeGiven && pageSizeOpt <= 0)
    return makeError("--page-size must be positive, got " +
                     Twine(int64_t(pageSizeOpt)));
  MemRefType kType = kernel.type(K);
  if (!kType.isDynamicDim(2)) {
    kernel.pageSize = kType.getDimSize(2);
    if (pageSizeGiven && pageSizeOpt != kernel.pageSize)
      return makeError("--page-size=" + Twine(int64_t(pageSizeOpt)) +
                       " disagrees with the page size " +
                       Twine(kernel.pageSize) + " of K (" + typeString(kType) +
                       ")");
  } else if (pageSizeGiven) {
    kernel.pageSize = pageSizeOpt;
  } else {
    return makeError("the page size of @" + name + " is dynamic (K is " +
                     typeString(kType) + "); give it with --page-size=N");
  }
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
  Tensor q(layout.shapes[Q], layout.strides[Q]);
  Tensor k(layout.shapes[K], layout.strides[K]);
  Tensor v(layout.shapes[V], layout.strides[V]);
  Tensor o(layout.shapes[O], layout.strides[O]);
  Tensor lse(layout.shapes[Lse], layout.strides[Lse]);
  Tensor refO(layout.shapes[O], ref::contiguousStrides(layout.shapes[O]));
  Tensor refLse(layout.shapes[Lse], layout.strides[Lse]);

  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (Tensor *t : {&q, &k, &v})
    for (float &x : MutableArrayRef<float>(t->data, t->size))
      x = dist(rng);
  if (inputsOpt == "large") {
    // Large logits where the online softmax can go wrong: outliers, and the
    // row maxima in late KV blocks so that the running max changes and the
    // rescale of earlier blocks matters (an unshifted exp overflows).
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
  if (hasLens)
    params.kvLens = lens.data();
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
  // The packed ABI wants, per argument, a pointer to the value the C wrapper
  // takes, and that value is itself a pointer to the descriptor.
  void *descPtrs[NumRoles] = {&qDesc,     &kDesc, &vDesc,  &lensDesc,
                              &tableDesc, &oDesc, &lseDesc};
  SmallVector<void *, 7> args;
  for (ArgRole role : kernel.roles)
    args.push_back(&descPtrs[role]);

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
            err -= lseRtolOpt * std::fabs(double(w));
          lseExcess = std::max(lseExcess, err);
        }
  }
  bool ok = dO.maxErr <= tolOpt && lseExcess <= tolOpt && dO.nans == 0 &&
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
  os << " layout=" << layoutOpt
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
          "The function takes (Q, K, V, [kv_lens], [block_table], O[, LSE]) "
          "in the op's order: rank-4 f32 memrefs [batch, heads, seq, dim] "
          "with static head dims, e.g.\n"
          "memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, a "
          "memref<?x?x?xf32> LSE, memref<?xi32> kv_lens and memref<?x?xi32> "
          "block_table. Paged K/V are [num_pages, Hkv, page_size, D] "
          "(bshd: [num_pages, page_size, Hkv, D] storage); Sk in --shapes is "
          "then the capacity, a multiple of the page size (K's dim 2 or "
          "--page-size). Exit code: 0 all cases pass, 1 a case "
          "fails, 2 error. MLIR debugging options such as "
          "--mlir-print-ir-after-all are accepted.\n",
          &llvm::errs()))
    return 2;

  bool bshd = layoutOpt == "bshd";
  if (!bshd && layoutOpt != "bhsd")
    return fail("--layout must be bhsd or bshd, got '" + layoutOpt + "'");
  if (!(tolOpt >= 0.0))
    return fail("--tol must be >= 0");
  if (!(lseRtolOpt >= 0.0))
    return fail("--lse-rtol must be >= 0");
  if (inputsOpt != "uniform" && inputsOpt != "large")
    return fail("--inputs must be uniform or large, got '" + inputsOpt + "'");
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
    int64_t pageSize = kernel->pageSize;
    if (pageSize && c.sk % pageSize != 0)
      return fail(what + "Sk=" + Twine(c.sk) +
                  " (the paged cache's capacity) is not a multiple of the " +
                  "page size " + Twine(pageSize));
    // kv_lens and the page ids are i32.
    std::optional<int64_t> keys = ::flash::run::checkedProduct({c.b, c.sk});
    if ((kernel->sem.kvLens || pageSize) &&
        (!keys || *keys + 3 > std::numeric_limits<int32_t>::max()))
      return fail(what + "too large for i32 kv_lens/block_table");
    // Keeps a typo in --shapes from allocating the machine away (checked
    // before CaseLayout multiplies the sizes).
    std::optional<int64_t> caseBytes = 0;
    for (int64_t dim : {kernel->headDim(), kernel->headDimV()})
      for (std::optional<int64_t> n :
           {::flash::run::checkedProduct({c.b, c.hq, c.sq, dim}),
            ::flash::run::checkedProduct({c.b, c.hkv, c.sk, dim})}) {
        std::string err = ::flash::run::checkTensorElements(n);
        if (!err.empty())
          return fail(what + err);
        // Inputs, outputs and reference copies: 3 floats per element.
        caseBytes = ::flash::run::checkedSum(caseBytes, *n * 12);
      }
    if (std::string err = ::flash::run::checkHostBytes(caseBytes); !err.empty())
      return fail(what + err);
    const CaseLayout &layout = layouts.emplace_back(
        c, kernel->headDim(), kernel->headDimV(), pageSize, bshd);
    for (auto [role, type] : llvm::zip_equal(kernel->roles, kernel->argTypes))
      if (llvm::Error err = checkArg(role, type, layout.argSizes(role),
                                     layout.argStrides(role)))
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
