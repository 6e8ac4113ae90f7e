//===- Pipelines.cpp - Named flash pipelines ------------------------------===//
//
// Registers the flash passes and the named pipelines built from them, so a
// user (or flash-run) runs a whole lowering with one flag.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Conversion/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/Support/FormatVariadic.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::flash::buildFlashLowerToCPUPipeline(OpPassManager &pm) {
  // The flash stages.
  pm.addPass(createFlashFoldGQA());
  pm.addPass(createFlashPlan());
  pm.addPass(createFlashSplitKV());
  pm.addPass(createFlashTile());
  pm.addPass(createFlashOnlineSoftmax());
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
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void mlir::flash::buildFlashLowerToGPUPipeline(
    OpPassManager &pm, const FlashGpuPipelineOptions &options) {
  std::string chip = options.chip;
  int sm = 90;
  if (StringRef(chip).starts_with("sm_"))
    StringRef(chip).drop_front(3).take_while(llvm::isDigit).getAsInteger(10,
                                                                         sm);
  int smemKB = sm >= 90 ? 227 : sm >= 80 ? 163 : 99;
  // sm_90a (arch-specific features) is what wgmma needs.
  bool wgmma = chip == "sm_90a";
  // The flash stages, then the NVVM lowering of the kernels (order from the
  // cookbook: nvgpu before gpu-to-nvvm, vector-to-llvm after it), the
  // binary, and the host side (gpu.launch_func -> mgpu* runtime calls).
  std::string text = llvm::formatv(
      "flash-fold-gqa,flash-plan{{sm={0} smem-kb={1} wgmma={5}},"
      "flash-split-kv{{smem-kb={1} min-efficiency={4}},flash-tile,"
      "flash-to-gpu{{chip={2} smem-kb={1}},canonicalize,cse,"
      "gpu.module(convert-scf-to-cf,convert-nvgpu-to-nvvm,convert-gpu-to-nvvm{{"
      "index-bitwidth=32},"
      "convert-vector-to-llvm,convert-ub-to-llvm,convert-nvvm-to-llvm,"
      "canonicalize,cse),reconcile-unrealized-casts,"
      "gpu-module-to-binary{{format={3}},"
      "convert-scf-to-cf,expand-strided-metadata,lower-affine,"
      "finalize-memref-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,"
      "convert-cf-to-llvm,convert-func-to-llvm,gpu-to-llvm,"
      "reconcile-unrealized-casts",
      sm, smemKB, chip, std::string(options.format),
      double(options.splitMinEfficiency), wgmma ? "true" : "false");
  if (failed(parsePassPipeline(text, pm, llvm::errs())))
    llvm::report_fatal_error("flash-lower-to-gpu: bad pipeline text");
}

void mlir::flash::registerFlashPassesAndPipelines() {
  registerFlashPasses();
  registerFlashConversionPasses();
  PassPipelineRegistration<>(
      "flash-lower-to-cpu",
      "Lower flash.attention to the LLVM dialect for the host CPU "
      "(flash-fold-gqa, flash-plan, flash-split-kv, flash-tile, "
      "flash-online-softmax, bufferization, loops)",
      buildFlashLowerToCPUPipeline);
  PassPipelineRegistration<FlashGpuPipelineOptions>(
      "flash-lower-to-gpu",
      "Compile flash.attention (bf16/f16 memrefs) for NVIDIA GPUs: "
      "flash-fold-gqa, flash-plan, flash-split-kv, flash-tile, flash-to-gpu, "
      "NVVM, gpu-module-to-binary and "
      "the host lowering (mgpu* runtime calls)",
      buildFlashLowerToGPUPipeline);
}
