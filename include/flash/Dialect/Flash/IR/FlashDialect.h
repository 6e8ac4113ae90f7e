//===- FlashDialect.h - The flash dialect -----------------------*- C++ -*-===//
//
// Declares the `flash` dialect and its attributes (`#flash.config`, the
// `#flash.frag` tile layouts).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H
#define FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"

#include "flash/Dialect/Flash/IR/FlashOpsDialect.h.inc"

#include "flash/Dialect/Flash/IR/FlashEnums.h.inc"

namespace mlir::flash {

/// The GPU kernel's dynamic shared memory, as byte offsets from its base
/// (1024-byte aligned on wgmma kernels): the Q block, then `stages` K
/// blocks, then `stages` V blocks, each row `pitch` elements
/// (ConfigAttr::getRowPitch), then with a producer warpgroup the mbarrier
/// ring, full[stages] then empty[stages], 8 bytes each. The one statement of
/// the layout: the size check and every lowering that addresses a tile or a
/// barrier read it here.
struct SmemMap {
  int64_t blockM, blockN, stages, pitch, elementBytes;
  bool producer, wgmma;

  int64_t rowBytes() const { return pitch * elementBytes; }
  /// One K or V block.
  int64_t kvTileBytes() const { return blockN * rowBytes(); }
  int64_t qOffset() const { return 0; }
  int64_t kOffset() const { return blockM * rowBytes(); }
  int64_t vOffset() const { return kOffset() + stages * kvTileBytes(); }
  /// The mbarriers (producer kernels only); empty[s] follows full[].
  int64_t barrierOffset(bool full) const {
    return vOffset() + stages * kvTileBytes() + (full ? 0 : stages * 8);
  }
  static constexpr int64_t kBarrierBytes = 8;
  /// What the kernel asks for: the tiles, the barriers and, on wgmma
  /// kernels, 1 KiB to align the base to 1024 bytes; saturates at
  /// INT64_MAX when the sizes overflow (a hand-written config), which no
  /// target allows.
  int64_t totalBytes() const;
};

} // namespace mlir::flash

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.h.inc"

#endif // FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H
