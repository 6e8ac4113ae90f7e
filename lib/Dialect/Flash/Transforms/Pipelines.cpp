//===- Pipelines.cpp - Named flash pipelines ------------------------------===//
//
// Registers the flash passes and the named pipelines built from them, so a
// user (or flash-run) runs a whole lowering with one flag.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::flash::buildFlashLowerToCPUPipeline(OpPassManager &pm) {
  // The flash stages.
  pm.addPass(createFlashPlan());
  pm.addPass(createFlashTile());
  pm.addPass(createFlashOnlineSoftmax());
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

void mlir::flash::registerFlashPassesAndPipelines() {
  registerFlashPasses();
  PassPipelineRegistration<>(
      "flash-lower-to-cpu",
      "Lower flash.attention to the LLVM dialect for the host CPU "
      "(flash-plan, flash-tile, flash-online-softmax, bufferization, loops)",
      buildFlashLowerToCPUPipeline);
}
