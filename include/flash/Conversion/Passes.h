//===- Passes.h - flash conversion passes -----------------------*- C++ -*-===//
//
// Declarations of the conversions out of the flash dialect's tile level
// (flash-tile-to-scf for the CPU, flash-to-gpu for NVIDIA GPUs; generated
// from Passes.td) and their pattern sets, for embedders that
// compose them into their own conversions.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_PASSES_H
#define FLASH_CONVERSION_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/CompilationInterfaces.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Pass/Pass.h"

namespace mlir {
class RewritePatternSet;
namespace flash {

#define GEN_PASS_DECL
#include "flash/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "flash/Conversion/Passes.h.inc"

/// flash.grid, flash.kv_loop, flash.tile_load and flash.tile_store to
/// scf/memref/tensor (flash-tile-to-scf).
void populateFlashTileToSCFPatterns(RewritePatternSet &patterns);

/// The PTX that `target` makes of a copy of `module` (an LLVM-dialect
/// gpu.module): what gpu-module-to-binary hands ptxas. Used by
/// flash-occupancy and by flash-compile's --ptx; none if serialization fails.
std::optional<SmallVector<char, 0>>
serializeToPTX(gpu::GPUModuleOp module, gpu::TargetAttrInterface target);

} // namespace flash
} // namespace mlir

#endif // FLASH_CONVERSION_PASSES_H
