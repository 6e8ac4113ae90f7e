//===- TileBackward.h - flash-tile for the backward -------------*- C++ -*-===//
//
// flash-tile's entry for flash.attention_backward (FlashTileBackward.cpp):
// the op becomes FlashAttention-2's three backward grids.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_TILEBACKWARD_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_TILEBACKWARD_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

namespace mlir::flash {

/// Replaces `op` (either form) by the delta, kv and dq grids of
/// FlashAttention-2's backward; fails with a diagnostic at `op` on what the
/// tiling does not take yet (cu_seqlens, a block_mask hint) or a missing
/// config.
LogicalResult tileBackward(AttentionBackwardOp op);

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_TILEBACKWARD_H
