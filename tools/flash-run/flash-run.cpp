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
//             [--reference-attrs=...] [--capture=RULE]...
//
// ALiBi slopes are drawn per case in [1/256, 1/4]; captures (flash.attention's
// captures(...)) are sized and filled by one --capture rule each (see
// CpuMods.h), and the reference evaluates score_mod / mask_mod from the
// op's own region IR, in double.
//
// The function takes the op's operands in its order: Q, K, V, [alibi],
// [kv_lens], [block_table], [block_mask], [captures...], O, [LSE]. A
// block_mask hint is derived per case from the mask_mod (--block-mask, see
// BlockMaskHint.h's drawBlockMask). Q/K/V/O are rank-4 f32 memrefs in logical
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
// A function holding flash.attention_backward takes (Q, K, V, O, LSE, dO,
// [alibi], [captures...], dQ, dK, dV): O and LSE are the forward
// reference's, dQ, dK and dV are compared with the backward reference.
//
// Output: one line per shape with the max abs errors of O and LSE (or of
// dQ, dK, dV) and the median time, then `flash-run: N/M cases passed`. Exit
// code 0 if all cases pass, 1 if any fails, 2 on any usage, IR, pipeline or JIT
// error.
//
// With --artifact=libX.so it runs a compiled GPU artifact instead, through
// libflashrt (GpuRun.cpp, also built alone as flash-run-gpu); for entries
// with captures, --source=FILE.mlir names the MLIR it was compiled from,
// whose regions the reference evaluates as here (loadGpuMods).
//
// This file holds the options and main; the function under test, its
// lowering and JIT are CpuKernel.cpp, a case (inputs, reference, run,
// comparison) is CpuCase.cpp, and --shapes, shared with the GPU mode, is
// Cases.cpp.
//
//===----------------------------------------------------------------------===//

#include "Cases.h"
#include "CpuCase.h"
#include "CpuKernel.h"
#include "CpuMods.h"
#include "GpuRun.h"
#include "SizeGuard.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/InitAllFlash.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

#include <limits>
#include <random>

using namespace mlir;
using namespace ::flash::run::cpu;
namespace cl = llvm::cl;

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
                       cl::desc("Max abs error allowed in O and LSE; in a "
                                "backward's dQ, dK and dV, relative to 1 + "
                                "the gradient's max |value| (default 1e-5)"));
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
cl::list<std::string> captureOpt(
    "capture", cl::cat(runCat),
    cl::desc("How to size and fill each capture argument, in order: "
             "KIND[:ARGS]@DIMS with KIND uniform:LO,HI (f32), randint:LO,HI "
             "(i32), docs:N (i32 document ids in [0, N), sorted along the last "
             "dim, so documents are contiguous) or const:X, and DIMS "
             "x-separated sizes B, Hq, Hkv, Sq, Sk or numbers, e.g. "
             "--capture=uniform:-1,1@Hq --capture=docs:4@BxSq"));
cl::opt<std::string> blockMaskOpt(
    "block-mask", cl::init("tight"), cl::cat(runCat),
    cl::desc("tight|loose|unsound-full: the block_mask hint passed to a "
             "function whose flash.attention has one, derived from its "
             "mask_mod (the reference ignores it); unsound-full claims every "
             "key visible, to show that the kernel uses the hint"));
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

} // namespace

/// The GPU mode's GpuModsLoader: ALiBi, the capture types and the regions
/// of @func's one flash.attention in `source` (GpuRun.h), the regions
/// evaluated as the JIT mode's reference does (CpuMods.h). The parsed module
/// lives as long as mods.setCallbacks.
static std::string loadGpuMods(const std::string &source,
                               const std::string &func,
                               ::flash::run::GpuMods &mods) {
  struct Parsed {
    DialectRegistry registry;
    std::unique_ptr<MLIRContext> context;
    OwningOpRef<ModuleOp> module;
  };
  auto parsed = std::make_shared<Parsed>();
  registerAllDialects(parsed->registry);
  mlir::flash::registerAllFlashDialects(parsed->registry);
  parsed->context = std::make_unique<MLIRContext>(parsed->registry);
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> file =
      openInputFile(source, &errorMessage);
  if (!file)
    return "--source: " + errorMessage;
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  {
    SourceMgrDiagnosticHandler diagHandler(sourceMgr, parsed->context.get());
    parsed->module =
        parseSourceFile<ModuleOp>(sourceMgr, parsed->context.get());
  }
  if (!parsed->module)
    return "could not parse --source '" + source + "'";
  auto f = parsed->module->lookupSymbol<func::FuncOp>(func);
  if (!f)
    return "--source '" + source + "' has no function @" + func;
  SmallVector<mlir::flash::AttentionOp> ops;
  f.walk([&](mlir::flash::AttentionOp op) { ops.push_back(op); });
  if (ops.size() != 1)
    return "@" + func + " in '" + source + "' holds " +
           std::to_string(ops.size()) +
           " flash.attention ops; flash-run needs exactly one";
  mlir::flash::AttentionOp op = ops.front();
  if (Value slopes = op.getAlibiSlopes())
    mods.alibiRank = cast<ShapedType>(slopes.getType()).getRank();
  for (Value capture : op.getCaptures()) {
    auto type = cast<ShapedType>(capture.getType());
    Type element = type.getElementType();
    if (!element.isF32() && !element.isInteger(32))
      return "a capture of @" + func + " is " + typeString(type) +
             "; flash-run fills f32 and i32 captures";
    mods.captures.push_back(
        {element.isF32(), type.getRank(), typeString(type)});
  }
  Region *scoreMod = op.getScoreMod().empty() ? nullptr : &op.getScoreMod();
  Region *maskMod = op.getMaskMod().empty() ? nullptr : &op.getMaskMod();
  mods.maskMod = maskMod != nullptr;
  mods.setCallbacks = [parsed, scoreMod, maskMod](
                          std::vector<::flash::run::HostCapture> captures,
                          ::flash::ref::AttentionParams &params,
                          std::shared_ptr<std::string> error) {
    setModCallbacks(scoreMod, maskMod, std::move(captures), params,
                         std::move(error));
  };
  return "";
}

int main(int argc, char **argv) {
  // --artifact: run a compiled GPU artifact instead (GpuRun.cpp), with the
  // regions of --source read here.
  if (::flash::run::wantsGpuMode(argc, argv))
    return ::flash::run::gpuMain(argc, argv, loadGpuMods);
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
          "The function takes (Q, K, V, [alibi], [kv_lens], [block_table], "
          "[captures...], O[, LSE]) in the op's order: rank-4 f32 memrefs [batch, heads, seq, dim] "
          "with static head dims, e.g.\n"
          "memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, a "
          "memref<?x?x?xf32> LSE, memref<?xi32> kv_lens and memref<?x?xi32> "
          "block_table. Paged K/V are [num_pages, Hkv, page_size, D] "
          "(bshd: [num_pages, page_size, Hkv, D] storage); Sk in --shapes is "
          "then the capacity, a multiple of the page size (K's dim 2 or "
          "--page-size). ALiBi slopes ([Hq] or [B, Hq] f32) are drawn in "
          "[1/256, 1/4]; each capture by its --capture rule; score_mod and "
          "mask_mod regions are evaluated by the reference in double from "
          "the op's IR. Exit code: 0 all cases pass, 1 a case "
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
  if (blockMaskOpt != "tight" && blockMaskOpt != "loose" &&
      blockMaskOpt != "unsound-full")
    return fail("--block-mask must be tight, loose or unsound-full, got '" +
                blockMaskOpt + "'");
  std::vector<::flash::run::Case> cases;
  if (std::string err = ::flash::run::parseShapes(shapesOpt, cases);
      !err.empty())
    return fail(err);

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

  KernelOptions kernelOpts{inputFile, funcName, std::nullopt, std::nullopt};
  if (refAttrsOpt.getNumOccurrences())
    kernelOpts.referenceAttrs = refAttrsOpt;
  if (pageSizeOpt.getNumOccurrences())
    kernelOpts.pageSize = pageSizeOpt;
  llvm::Expected<Kernel> kernel = selectKernel(*module, kernelOpts);
  if (!kernel)
    return fail(llvm::toString(kernel.takeError()));
  std::vector<::flash::run::CaptureRule> captureRules;
  for (const std::string &text : captureOpt) {
    ::flash::run::CaptureRule rule;
    if (std::string err = ::flash::run::parseCaptureRule(text, rule);
        !err.empty())
      return fail(err);
    captureRules.push_back(rule);
  }
  if (llvm::Error err = checkCaptureRules(*kernel, captureRules))
    return fail(llvm::toString(std::move(err)));

  // Reject every bad case before spending time on lowering and JIT.
  std::vector<CaseLayout> layouts;
  for (const ::flash::run::Case &c : cases) {
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
    CaseLayout &layout = layouts.emplace_back(
        c, kernel->headDim(), kernel->headDimV(), pageSize, bshd,
        std::max(1u, kernel->sem.alibiRank));
    if (kernel->sem.blockMaskRows)
      layout.setHint(blockMaskShape(kernel->type(Hint), c,
                                    kernel->sem.blockMaskRows));
    for (auto [role, type] : llvm::zip_equal(kernel->roles, kernel->argTypes))
      if (role != Capture)
        if (llvm::Error err = checkArg(role, type, layout.argSizes(role),
                                       layout.argStrides(role), layoutOpt))
          return fail(what + llvm::toString(std::move(err)));
    for (auto [rule, type] :
         llvm::zip_equal(captureRules, kernel->captureTypes())) {
      llvm::Expected<SmallVector<int64_t, 4>> sizes =
          captureSizes(rule, type, c);
      if (!sizes)
        return fail(what + llvm::toString(sizes.takeError()));
      std::optional<int64_t> n = 1;
      for (int64_t size : *sizes)
        n = n ? ::flash::run::checkedProduct({*n, size}) : std::nullopt;
      if (std::string err = ::flash::run::checkTensorElements(n); !err.empty())
        return fail(what + err);
    }
  }

  // The C wrapper takes descriptors by pointer, which is what we can build.
  std::string name = kernel->func.getSymName().str();
  kernel->func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(&context));
  if (llvm::Error err = lowerToLLVM(*module, pipelineOpt, inputFile, printIR))
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
  CaseOptions caseOpts{inputsOpt == "large", repeatOpt, tolOpt, lseRtolOpt,
                       layoutOpt, captureRules, blockMaskOpt};
  unsigned passed = 0;
  for (const auto &[c, layout] : llvm::zip_equal(cases, layouts)) {
    llvm::Expected<bool> ok =
        kernel->backward
            ? runBackwardCase(*kernel, *fn, c, layout, rng, caseOpts)
            : runCase(*kernel, *fn, c, layout, rng, caseOpts);
    if (!ok)
      return fail(llvm::toString(ok.takeError()));
    passed += *ok;
  }
  llvm::outs() << "flash-run: " << passed << "/" << cases.size()
               << " cases passed\n";
  return passed == cases.size() ? 0 : 1;
}
