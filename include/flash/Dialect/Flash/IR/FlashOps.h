//===- FlashOps.h - flash dialect operations --------------------*- C++ -*-===//
//
// Declares `flash.attention` and AttentionShape, the one place that knows
// which operand dimension plays which role, so passes never index shapes
// with magic numbers.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHOPS_H
#define FLASH_DIALECT_FLASH_IR_FLASHOPS_H

#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::flash {

/// log2(e): the online softmax computes exp(x) as exp2(x * log2(e)).
constexpr double kLog2e = 1.4426950408889634;

/// Positions of the dimension roles in Q, K, V and O: [batch, heads, seq, dim].
enum AttentionDim : unsigned {
  kBatchPos = 0,
  kHeadsPos = 1,
  kSeqPos = 2,
  kDimPos = 3
};

/// Sizes of one attention by role; ShapedType::kDynamic where dynamic.
struct AttentionShape {
  int64_t batch, headsQ, headsKV, seqQ, seqK, headDim, headDimV;
  /// Paged KV (block_table): K/V are [numPages, Hkv, pageSize, D].
  bool paged = false;
  int64_t numPages = ShapedType::kDynamic, pageSize = ShapedType::kDynamic;
  /// Query heads per KV head (Hq / Hkv), or kDynamic.
  int64_t groupSize() const {
    return ShapedType::isDynamic(headsQ) || ShapedType::isDynamic(headsKV)
               ? ShapedType::kDynamic
               : headsQ / headsKV;
  }
};

/// A window bound at least this large is no bound: no sequence is that long
/// (2^62 keys would not fit in memory even at one byte each), and below it
/// the mask arithmetic `i + Sk - Sq +/- bound` cannot overflow int64.
constexpr int64_t kUnboundedWindow = int64_t(1) << 62;

/// The [left, right] bounds of a `window` attribute as the lowerings use
/// them: -1 where the side is unbounded (absent attribute, -1, or a value
/// of at least kUnboundedWindow, e.g. INT64_MAX).
std::pair<int64_t, int64_t>
getWindowBounds(std::optional<ArrayRef<int64_t>> window);

/// True for the K/V pipeline ops (flash.pipeline_*, FlashPipelineOps.td).
bool isPipelineOp(Operation *op);

} // namespace mlir::flash

#define GET_OP_CLASSES
#include "flash/Dialect/Flash/IR/FlashOps.h.inc"

#endif // FLASH_DIALECT_FLASH_IR_FLASHOPS_H
