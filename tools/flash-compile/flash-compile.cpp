//===- flash-compile.cpp - Compile flash.attention into a loadable artifact ===//
//
// The compiler driver for the GPU: parses a .mlir file of flash.attention
// functions, runs flash-lower-to-gpu in process (the C++ pipeline of
// Pipelines.cpp with format=bin: the kernels become an embedded cubin),
// translates the host module to LLVM IR, emits a PIC object with the host's
// TargetMachine (codegen level O2, as llc -O2) and links it with
// `cc -shared`. The artifact is byte for byte what the old chain (flash-opt,
// mlir-translate, llc, cc) built, which ran no IR pipeline on the host code
// either (a launcher; the kernels are optimised by the NVVM target and
// ptxas): `_mlir_ciface_<func>` entry points calling the mgpu* ABI that
// libflashrt implements (loaded first, RTLD_GLOBAL) and `<func>_flash_abi`
// strings. --ptx also writes the kernels' PTX, --timing the wall time of
// each stage. Bad options or input: a diagnostic and exit 1.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/InitAllFlash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllDialects.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace {
enum class EmitKind { LLVM, Object, SharedObject };
} // namespace

static llvm::cl::OptionCategory category("flash-compile options");
static llvm::cl::list<std::string>
    positional(llvm::cl::Positional, llvm::cl::desc("IN.mlir [OUT]"),
               llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    outputName("o", llvm::cl::desc("The artifact to write"),
               llvm::cl::value_desc("OUT"), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    chip("chip", llvm::cl::desc("Target chip (sm_80, sm_86, sm_89, sm_90, "
                                "sm_90a); see Targets.h"),
         llvm::cl::init("sm_90"), llvm::cl::cat(category));
static llvm::cl::opt<double> splitMinEfficiency(
    "split-min-efficiency",
    llvm::cl::desc("flash-split-kv's min-efficiency, in (0, 1]"),
    llvm::cl::init(0.85), llvm::cl::cat(category));
static llvm::cl::opt<bool> occupancy(
    "occupancy",
    llvm::cl::desc("Run flash-occupancy: more programs an SM where ptxas "
                   "then spills nothing (default: on for sm_90a, "
                   "where the kernels it changes were measured faster)"),
    llvm::cl::init(false), llvm::cl::cat(category));
static llvm::cl::opt<int64_t> producerRegs(
    "producer-regs",
    llvm::cl::desc("setmaxnreg of the producer warpgroup beside 8 consumer "
                   "warps, a multiple of 8 in [24, 168]"),
    llvm::cl::init(64), llvm::cl::cat(category));
static llvm::cl::opt<bool> keyBounds(
    "key-bounds",
    llvm::cl::desc("Skip and keep whole the KV blocks that a mask_mod's own "
                   "key tests rule out or keep (default on; off measures the "
                   "element-wise mask on every block)"),
    llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<bool> uniformBlocks(
    "uniform-blocks",
    llvm::cl::desc("Decide per KV block, in the program, whether a "
                   "mask_mod conjunct F(i) == G(j) (a document mask) skips "
                   "it, keeps it whole or is evaluated element-wise "
                   "(default on; off: element-wise on every block)"),
    llvm::cl::init(true), llvm::cl::cat(category));
static llvm::cl::opt<int64_t> longCausalRows(
    "long-causal-rows",
    llvm::cl::desc("Query rows from which a causal head-dim-128 op without "
                   "mods runs the producer config (sm_90a; a dynamic Sq "
                   "gets both kernels behind a branch), >= 0, 0 never"),
    llvm::cl::init(2048), llvm::cl::cat(category));
static llvm::cl::opt<std::string>
    ptxName("ptx", llvm::cl::desc("Also write the kernels' PTX to FILE"),
            llvm::cl::value_desc("FILE"), llvm::cl::cat(category));
static llvm::cl::opt<bool>
    timing("timing", llvm::cl::desc("Print the wall time of each stage"),
           llvm::cl::cat(category));
static llvm::cl::opt<EmitKind> emit(
    "emit", llvm::cl::desc("What to write"),
    llvm::cl::values(
        clEnumValN(EmitKind::LLVM, "llvm", "the optimised host LLVM IR"),
        clEnumValN(EmitKind::Object, "obj", "the host object file"),
        clEnumValN(EmitKind::SharedObject, "so",
                   "the loadable shared object (default)")),
    llvm::cl::init(EmitKind::SharedObject), llvm::cl::cat(category));

/// Errors outside the IR (options, files, tools) are reported like the
/// pipeline's option errors: one line on stderr, then exit 1.
static int fail(const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "flash-compile") << message << "\n";
  return 1;
}

namespace {
/// Keeps the kernels' PTX for --ptx: just before gpu-module-to-binary turns
/// each gpu.module into a cubin, serializes a copy of it with format=isa.
/// The pipeline's own serialization (and so the artifact) is untouched.
class PtxDump : public PassInstrumentation {
public:
  void runBeforePass(Pass *pass, Operation *op) override {
    if (pass->getArgument() != "gpu-module-to-binary")
      return;
    for (Region &region : op->getRegions())
      for (auto module : region.getOps<gpu::GPUModuleOp>()) {
        for (Attribute attr : module.getTargetsAttr()) {
          auto target = dyn_cast<gpu::TargetAttrInterface>(attr);
          std::optional<SmallVector<char, 0>> isa =
              target ? flash::serializeToPTX(module, target) : std::nullopt;
          if (!isa) {
            failed = true;
            continue;
          }
          ptx.append(isa->begin(), isa->end());
          ++count;
        }
      }
  }

  std::string ptx;
  unsigned count = 0;
  bool failed = false;
};
} // namespace

/// The host's TargetMachine as `llc -O2 -relocation-model=pic` makes it: no
/// -mcpu (the artifact runs on any x86-64), position-independent.
static std::unique_ptr<llvm::TargetMachine> createHostTargetMachine() {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) {
    fail("no target for " + triple.str() + ": " + error);
    return nullptr;
  }
  return std::unique_ptr<llvm::TargetMachine>(target->createTargetMachine(
      triple, "", "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Default));
}

/// Prints what the serialization recorded on each cubin (the NVPTX backend
/// and ptxas), which the pass timer lumps into gpu-module-to-binary.
static void printSerializationTimes(ModuleOp module) {
  module.walk([](gpu::BinaryOp binary) {
    for (auto object : binary.getObjects().getAsRange<gpu::ObjectAttr>()) {
      DictionaryAttr props = object.getProperties();
      auto get = [&](StringRef name) -> int64_t {
        auto value = props ? props.getAs<IntegerAttr>(name) : IntegerAttr();
        return value ? value.getInt() : -1;
      };
      llvm::errs() << "  gpu-module-to-binary of '" << binary.getName()
                   << "': LLVM IR -> PTX " << get("LLVMIRToISATimeInMs")
                   << " ms, ptxas " << get("ISAToBinaryTimeInMs") << " ms\n";
    }
  });
}

/// Runs `argv` and reports a failure or a nonzero exit.
static LogicalResult runTool(ArrayRef<StringRef> argv) {
  llvm::ErrorOr<std::string> program = llvm::sys::findProgramByName(argv[0]);
  if (!program) {
    fail("cannot find '" + argv[0] + "' on PATH");
    return failure();
  }
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(*program, argv, /*Env=*/std::nullopt,
                                     /*Redirects=*/{}, /*SecondsToWait=*/0,
                                     /*MemoryLimit=*/0, &message);
  if (rc == 0)
    return success();
  fail("'" + argv[0] + "' failed" +
       (message.empty() ? " (exit " + llvm::Twine(rc) + ")"
                        : ": " + llvm::Twine(message)));
  return failure();
}

static int compile(StringRef inputName, StringRef outName,
                   TimingScope &root) {
  // Check the pipeline options first: nothing is read for bad ones.
  flash::FlashGpuPipelineOptions options;
  options.chip = chip;
  options.format = "bin";
  options.splitMinEfficiency = splitMinEfficiency;
  options.producerRegs = producerRegs;
  options.keyBounds = keyBounds;
  options.uniformBlocks = uniformBlocks;
  options.longCausalRows = longCausalRows;
  options.occupancy = occupancy.getNumOccurrences()
                          ? occupancy
                          : StringRef(chip) == "sm_90a";
  std::string optionError;
  llvm::raw_string_ostream optionStream(optionError);
  if (failed(flash::verifyFlashGpuPipelineOptions(options, optionStream)))
    return fail(optionError);

  DialectRegistry registry;
  registerAllDialects(registry);
  flash::registerFlashPipelineExtensions(registry);
  // The host translation embeds the cubin through gpu.binary's offloading
  // handler (#gpu.select_object), an external model.
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
  MLIRContext context(registry);
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sourceMgr;
  SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);

  // Parse.
  TimingScope parseTimer = root.nest("Parse");
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input = openInputFile(inputName, &error);
  if (!input)
    return fail(error);
  sourceMgr.AddNewSourceBuffer(std::move(input), llvm::SMLoc());
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  if (!module)
    return 1;
  parseTimer.stop();
  // An input with nothing to compile would give an empty artifact.
  if (llvm::none_of(module->getOps<func::FuncOp>(),
                    [](func::FuncOp f) { return !f.isExternal(); }))
    return fail("'" + inputName + "' has no function to compile");

  // flash-lower-to-gpu: kernels -> cubin, host -> LLVM dialect.
  TimingScope pipelineTimer = root.nest("flash-lower-to-gpu");
  PassManager pm(&context, ModuleOp::getOperationName());
  if (failed(flash::buildFlashLowerToGPUPipeline(pm, options, optionStream)))
    return fail(optionError);
  PtxDump *ptxDump = nullptr;
  if (!ptxName.empty()) {
    auto dump = std::make_unique<PtxDump>();
    ptxDump = dump.get();
    pm.addInstrumentation(std::move(dump));
  }
  if (timing)
    pm.enableTiming(pipelineTimer);
  if (failed(pm.run(*module)))
    return 1;
  pipelineTimer.stop();
  if (timing)
    printSerializationTimes(*module);
  if (ptxDump) {
    if (ptxDump->failed || ptxDump->count != 1)
      return fail(ptxDump->failed ? "serializing the kernels to PTX failed"
                                  : "--ptx expects one gpu.module, got " +
                                        llvm::Twine(ptxDump->count));
    std::unique_ptr<llvm::ToolOutputFile> ptxFile =
        openOutputFile(ptxName, &error);
    if (!ptxFile)
      return fail(error);
    ptxFile->os() << ptxDump->ptx;
    ptxFile->keep();
  }

  // Host module -> LLVM IR, optimised at O2.
  TimingScope translateTimer = root.nest("Translate to LLVM IR");
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule)
    return 1;
  translateTimer.stop();
  std::unique_ptr<llvm::TargetMachine> machine = createHostTargetMachine();
  if (!machine)
    return 1;
  llvmModule->setTargetTriple(machine->getTargetTriple());
  llvmModule->setDataLayout(machine->createDataLayout());

  if (emit == EmitKind::LLVM) {
    std::unique_ptr<llvm::ToolOutputFile> out = openOutputFile(outName, &error);
    if (!out)
      return fail(error);
    llvmModule->print(out->os(), nullptr);
    out->keep();
    return 0;
  }

  // The object: the output itself, or a temporary file that cc links.
  TimingScope objTimer = root.nest("Emit object (codegen O2)");
  SmallString<128> objName(outName);
  std::optional<llvm::FileRemover> removeObj;
  if (emit == EmitKind::SharedObject) {
    if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
            "flash-compile", "o", objName))
      return fail("cannot create a temporary file: " + ec.message());
    removeObj.emplace(objName);
  }
  {
    std::unique_ptr<llvm::ToolOutputFile> obj =
        openOutputFile(objName, &error);
    if (!obj)
      return fail(error);
    llvm::legacy::PassManager codegen;
    if (machine->addPassesToEmitFile(codegen, obj->os(), nullptr,
                                     llvm::CodeGenFileType::ObjectFile))
      return fail("the host target cannot emit object files");
    codegen.run(*llvmModule);
    obj->keep();
  }
  objTimer.stop();
  if (emit == EmitKind::Object)
    return 0;

  TimingScope linkTimer = root.nest("Link (cc -shared)");
  if (failed(runTool({"cc", "-shared", "-o", outName, objName})))
    return 1;
  return 0;
}

int main(int argc, char **argv) {
  llvm::InitLLVM initLLVM(argc, argv);
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "flash-compile: flash.attention (.mlir) -> loadable GPU artifact\n\n"
      "  flash-compile IN.mlir -o OUT.so [--chip=sm_90a] [--ptx=OUT.ptx]\n"
      "  flash-compile IN.mlir OUT.so ...   (the form of "
      "scripts/flash-compile.sh)\n");
  if (positional.empty() || positional.size() > 2)
    return fail("expected IN.mlir and an output (-o OUT or a second "
                "argument); see --help");
  if (positional.size() == 2 && !outputName.empty())
    return fail("the output is given twice ('" + positional[1] + "' and -o " +
                outputName + ")");
  std::string outName =
      positional.size() == 2 ? positional[1] : std::string(outputName);
  if (outName.empty())
    return fail("no output: give -o OUT");
  if (emit == EmitKind::SharedObject && outName == "-")
    return fail("a shared object cannot be written to stdout");
  // Never write over the input (a swapped or repeated argument).
  for (StringRef out : {StringRef(outName), StringRef(ptxName)}) {
    bool same = false;
    if (!out.empty() && out != "-" &&
        (out == positional[0] ||
         (!llvm::sys::fs::equivalent(positional[0], out, same) && same)))
      return fail("the output '" + out + "' is the input");
  }

  DefaultTimingManager timingManager;
  timingManager.setEnabled(timing);
  TimingScope root = timingManager.getRootScope();
  return compile(positional[0], outName, root);
}
