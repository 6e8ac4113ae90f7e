//===- Pipelines.cpp - Named flash pipelines ------------------------------===//
//
// Builds the two named pipelines, flash-lower-to-cpu and flash-lower-to-gpu,
// pass by pass with OpPassManager (no pipeline text, so nothing depends on
// what the host registered), and registers them. Options are checked against
// the chip table (Targets.h) and their ranges before a pass is added, and a
// pipeline nested where it cannot run (func.func, gpu.module) is refused:
// both are reported through the pipeline parser's error handler (flash-opt
// and flash-run exit 1), never by aborting.
//
//===----------------------------------------------------------------------===//

#include "flash/Pipelines/Pipelines.h"
#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Target/Targets.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

/// Both pipelines rewrite functions and add module-level symbols (the
/// gpu.module, the ABI strings, malloc/free), so they run on a module.
static LogicalResult checkAnchor(OpPassManager &pm, StringRef pipeline,
                                 raw_ostream &errorStream) {
  if (pm.getOpAnchorName() == ModuleOp::getOperationName())
    return success();
  errorStream << "'" << pipeline << "' lowers whole modules and cannot run on '"
              << pm.getOpAnchorName()
              << "'; nest it directly in builtin.module, e.g. "
                 "--pass-pipeline='builtin.module("
              << pipeline << ")'";
  return failure();
}

/// The lowering of the host code (and of the bufferized tile code on the
/// CPU) from scf/memref/arith/func to the LLVM dialect.
static void addHostToLLVMPasses(OpPassManager &pm) {
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
}

LogicalResult
mlir::flash::buildFlashLowerToCPUPipeline(OpPassManager &pm,
                                          raw_ostream &errorStream) {
  if (failed(checkAnchor(pm, "flash-lower-to-cpu", errorStream)))
    return failure();
  // The flash stages.
  pm.addPass(createFlashSimplifyMods());
  pm.addPass(createFlashFoldGQA());
  FlashPlanOptions cpuPlan;
  cpuPlan.uniformBlocks = true; // UniformBlocks.h, through the config
  pm.addPass(createFlashPlan(cpuPlan));
  pm.addPass(createFlashSplitKV());
  pm.addPass(createFlashTile());
  pm.addPass(createFlashOnlineSoftmax());
  pm.addPass(createFlashBackwardRecompute());
  pm.addPass(createFlashTileToSCF());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Tiles on tensors -> buffers; then loops, then the LLVM dialect.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // m and l are read after their in-place update (alpha needs the old m),
  // so the loop-carried buffers are fresh allocations each iteration.
  bufferize.allowReturnAllocsFromLoops = true;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(createCanonicalizerPass());
  // Free the per-iteration tile buffers (one-shot bufferize only allocates).
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  addHostToLLVMPasses(pm);
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createFlashCheckLowered());
  return success();
}

LogicalResult mlir::flash::verifyFlashGpuPipelineOptions(
    const FlashGpuPipelineOptions &options, raw_ostream &errorStream) {
  if (!lookupChip(options.chip)) {
    errorStream << "flash-lower-to-gpu: unsupported chip '" << options.chip
                << "'; supported: " << getSupportedChipNames();
    return failure();
  }
  StringRef format = options.format;
  if (format != "isa" && format != "bin" && format != "fatbin") {
    errorStream << "flash-lower-to-gpu: unknown format '" << format
                << "'; expected isa (PTX), bin (cubin) or fatbin";
    return failure();
  }
  double efficiency = options.splitMinEfficiency;
  // Written so that NaN fails too.
  if (!(efficiency > 0.0 && efficiency <= 1.0)) {
    errorStream << "flash-lower-to-gpu: split-min-efficiency must be in "
                   "(0, 1], not "
                << efficiency;
    return failure();
  }
  if (options.longCausalRows < 0) {
    errorStream << "flash-lower-to-gpu: long-causal-rows must be >= 0 (0: "
                   "never), not "
                << options.longCausalRows;
    return failure();
  }
  if (options.numSMs < 1 || options.numSMs > 1024) {
    errorStream << "flash-lower-to-gpu: num-sms must be in [1, 1024], not "
                << options.numSMs;
    return failure();
  }
  int64_t regs = options.producerRegs;
  if (getRegisterSplit(regs).error != RegisterSplit::Error::None) {
    errorStream << "flash-lower-to-gpu: producer-regs must be a multiple of "
                   "8 in ["
                << RegisterSplit::kMinProducerRegs << ", "
                << RegisterSplit::kMaxProducerRegs << "], not " << regs;
    return failure();
  }
  return success();
}

LogicalResult mlir::flash::buildFlashLowerToGPUPipeline(
    OpPassManager &pm, const FlashGpuPipelineOptions &options,
    raw_ostream &errorStream) {
  if (failed(verifyFlashGpuPipelineOptions(options, errorStream)) ||
      failed(checkAnchor(pm, "flash-lower-to-gpu", errorStream)))
    return failure();
  const ChipInfo &chip = *lookupChip(options.chip);

  // The flash stages. Warpgroup MMA needs sm_90a's arch-specific features.
  pm.addPass(createFlashSimplifyMods());
  pm.addPass(createFlashFoldGQA());
  FlashPlanOptions plan;
  plan.smVersion = chip.sm;
  plan.numSMs = options.numSMs;
  plan.smemPerBlockKB = chip.smemKB;
  plan.wgmma = chip.archSpecific && chip.sm == 90;
  plan.keyBounds = options.keyBounds;
  plan.uniformBlocks = options.uniformBlocks;
  plan.longCausalRows = options.longCausalRows;
  pm.addPass(createFlashPlan(plan));
  FlashSplitKVOptions split;
  split.numSMs = options.numSMs;
  split.smemPerBlockKB = chip.smemKB;
  split.minEfficiency = options.splitMinEfficiency;
  pm.addPass(createFlashSplitKV(split));
  // flash-tile's mask analyses are the config's (flash-plan's options).
  pm.addPass(createFlashTile());
  // The one statement of the online softmax, as on the CPU; then where each
  // of its tiles lives in the kernel (#flash.frag), which flash-to-gpu reads
  // when it lowers the ops onto registers.
  pm.addPass(createFlashOnlineSoftmax());
  // The backward's step (flash.tile_grad) expanded the same way: its
  // recomputed P, dP and dS as the tile ops the CPU runs too.
  pm.addPass(createFlashBackwardRecompute());
  pm.addPass(createFlashAssignLayouts());
  // The K/V copy schedule (cp.async prefetch or the producer's ring) as
  // ops, which flash-to-gpu lowers instead of deciding.
  pm.addPass(createFlashPipelineKV());
  // FA3's ping-pong turns of the consumer warpgroups (pingpong configs).
  pm.addPass(createFlashPingpong());
  // The tensor form: flash-tile put each op on buffers (to_buffer of the
  // inputs, allocated outputs, to_tensor of the results). Bufferizing only
  // the function boundary (the tile code inside the grids stays as
  // flash-to-gpu reads it) makes the arguments identity-layout memrefs; the
  // results then become out-parameters the output allocations are replaced
  // by. So a tensor function `(Q, K, V) -> (O[, LSE])` compiles to the
  // memref form's calling convention `(Q, K, V, O[, LSE])`: the caller
  // allocates the outputs on the device (destination passing, the order of
  // the results), and the ABI record and the runtime serve both forms alike.
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  bufferize.dialectFilter = {"func"};
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.hoistStaticAllocs = true;
  outParams.hoistDynamicAllocs = true;
  outParams.modifyPublicFunctions = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  FlashToGpuOptions toGpu;
  toGpu.chip = chip.name.str();
  toGpu.features = chip.ptxFeatures.str();
  toGpu.smemLimitKB = chip.smemKB;
  toGpu.producerRegs = options.producerRegs;
  pm.addPass(createFlashToGpu(toGpu));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());

  // The kernels to NVVM (order from the cookbook: nvgpu before gpu-to-nvvm,
  // vector-to-llvm after it), 32-bit indices inside the kernels.
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  kernels.addPass(createSCFToControlFlowPass());
  kernels.addPass(createConvertNVGPUToNVVMPass());
  ConvertGpuOpsToNVVMOpsOptions nvvm;
  nvvm.indexBitwidth = 32;
  kernels.addPass(createConvertGpuOpsToNVVMOps(nvvm));
  kernels.addPass(createConvertVectorToLLVMPass());
  kernels.addPass(createUBToLLVMConversionPass());
  kernels.addPass(createConvertNVVMToLLVMPass());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  pm.addPass(createReconcileUnrealizedCastsPass());

  // Programs an SM from ptxas's registers (opt-in: it runs ptxas twice).
  if (options.occupancy)
    pm.addPass(createFlashOccupancy());
  // The binary, then the host side (gpu.launch_func -> mgpu* runtime calls).
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.format;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  addHostToLLVMPasses(pm);
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createFlashCheckLowered());
  return success();
}

/// Runs `build` and hands what it reports to the pipeline parser, which
/// prefixes the position in the pipeline text and fails.
static LogicalResult
reportTo(function_ref<LogicalResult(const Twine &)> errorHandler,
         function_ref<LogicalResult(raw_ostream &)> build) {
  std::string message;
  llvm::raw_string_ostream os(message);
  if (succeeded(build(os)))
    return success();
  return errorHandler(message);
}

void mlir::flash::registerFlashPipelines() {
  registerPassPipeline(
      "flash-lower-to-cpu",
      "Lower flash.attention to the LLVM dialect for the host CPU "
      "(flash-fold-gqa, flash-plan, flash-split-kv, flash-tile, "
      "flash-online-softmax, bufferization, loops)",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        if (!optionsText.empty())
          return errorHandler("flash-lower-to-cpu takes no options");
        return reportTo(errorHandler, [&](raw_ostream &os) {
          return buildFlashLowerToCPUPipeline(pm, os);
        });
      },
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
  registerPassPipeline(
      "flash-lower-to-gpu",
      "Compile flash.attention (bf16/f16, memref or tensor form) for NVIDIA "
      "GPUs: flash-fold-gqa, flash-plan, flash-split-kv, flash-tile, "
      "flash-online-softmax, flash-assign-layouts, flash-pipeline-kv, "
      "flash-to-gpu, NVVM, "
      "gpu-module-to-binary and the host lowering "
      "(mgpu* runtime calls)",
      [](OpPassManager &pm, StringRef optionsText,
         function_ref<LogicalResult(const Twine &)> errorHandler) {
        FlashGpuPipelineOptions options;
        if (failed(options.parseFromString(optionsText)))
          return failure();
        return reportTo(errorHandler, [&](raw_ostream &os) {
          return buildFlashLowerToGPUPipeline(pm, options, os);
        });
      },
      [](function_ref<void(const mlir::detail::PassOptions &)> optHandler) {
        optHandler(FlashGpuPipelineOptions());
      });
}
