//===- Passes.h - flash dialect passes --------------------------*- C++ -*-===//
//
// Declarations of the flash passes (generated from Passes.td) and of the
// named pipelines built from them.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H

#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassOptions.h"

namespace mlir::flash {

#define GEN_PASS_DECL
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

/// flash-plan, flash-tile, flash-online-softmax, bufferization and the
/// standard lowering to the LLVM dialect for the host CPU.
void buildFlashLowerToCPUPipeline(OpPassManager &pm);

/// Options of the `flash-lower-to-gpu` pipeline.
struct FlashGpuPipelineOptions
    : public PassPipelineOptions<FlashGpuPipelineOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("Target SM: sm_80 or sm_90"),
                           llvm::cl::init("sm_90")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin (cubin), "
                     "fatbin"),
      llvm::cl::init("bin")};
  Option<double> splitMinEfficiency{
      *this, "split-min-efficiency",
      llvm::cl::desc("flash-split-kv's min-efficiency (FA2: 0.85)"),
      llvm::cl::init(0.85)};
};

/// flash-plan, flash-tile, flash-to-gpu, the NVVM lowering of the kernels,
/// gpu-module-to-binary and the host lowering to the LLVM dialect.
void buildFlashLowerToGPUPipeline(OpPassManager &pm,
                                  const FlashGpuPipelineOptions &options);

/// Registers the passes and the named pipelines (`flash-lower-to-cpu`).
void registerFlashPassesAndPipelines();

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H
