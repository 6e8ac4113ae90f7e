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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir::flash {

#define GEN_PASS_DECL
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"

/// flash-plan, flash-tile, flash-online-softmax, bufferization and the
/// standard lowering to the LLVM dialect for the host CPU.
void buildFlashLowerToCPUPipeline(OpPassManager &pm);

/// Registers the passes and the named pipelines (`flash-lower-to-cpu`).
void registerFlashPassesAndPipelines();

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_H
