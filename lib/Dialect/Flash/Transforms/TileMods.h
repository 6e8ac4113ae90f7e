//===- TileMods.h - flash-tile's handling of score/mask mods ----*- C++ -*-===//
//
// What flash-tile does with flash.attention's score_mod / mask_mod regions,
// captures and ALiBi: moves tensor captures onto buffers with the rest of
// the op, and builds the non-isolated regions of each flash.tile_update
// (ALiBi expanded into the score_mod, the user's regions cloned with b, h
// from the grid and the captures from above).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_TILEMODS_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_TILEMODS_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::flash {

/// Moves the score_mod / mask_mod regions of the tensor-form `from` into the
/// memref-form `to`, whose captures are the bufferized ones: the capture
/// block arguments become memrefs, tensor.extract on them memref.load and
/// tensor.dim memref.dim. Fails (with a diagnostic at `from`) on any other
/// use of a capture.
/// The tensor form moved onto buffers, for flash.attention and
/// flash.attention_backward alike: a read-only buffer of `tensor` (null for
/// null), an allocation per result of `op` whose dynamic dims are read from
/// the buffer `sizesFrom[i]`, and `op`'s results replaced by tensors of
/// those allocations (once the buffer-form op writes them).
Value readOnlyBuffer(OpBuilder &b, Location loc, Value tensor);
SmallVector<Value> allocResults(OpBuilder &b, Operation *op,
                                ArrayRef<Value> sizesFrom);
void replaceByBuffers(RewriterBase &rewriter, Operation *op, ValueRange outs);

/// For flash.attention and flash.attention_backward alike.
template <typename OpTy>
LogicalResult moveModsToBuffers(RewriterBase &rewriter, OpTy from, OpTy to);

/// True when the scores of `op` must be kept in logit units in the tile ops
/// (c = 1): a score modification other than softcap (ALiBi or a score_mod)
/// is applied to the logit. Under softcap they already are.
bool needsLogits(AttentionOp op);

/// Clones the body of the single-block `region` at the insertion point of
/// `b` with its arguments mapped to `args`; returns the value it yields.
Value inlineModRegion(OpBuilder &b, Region &region, ValueRange args);

/// The positions and data a tile_update's regions read from above.
struct ModContext {
  Value batch, head;  // The grid's program coordinates.
  Value seqQ, seqK;   // This sequence's lengths (seqK after kv_lens).
};

/// Where a tile op's mod regions come from: an attention op's regions,
/// ALiBi slopes and captures (bufferized), and, for the backward, softcap.
struct ModSources {
  Region *scoreMod, *maskMod;
  Value slopes;
  ValueRange captures;
  std::optional<double> softcap;
};

/// Builds a tile op's score_mod (softcap, then ALiBi, then the user's
/// score_mod) into `scoreModOut` when any is present, and (if
/// `withMaskMod`) the mask_mod into `maskModOut`, cloned with b and h from
/// `ctx` and the captures from above.
void buildModRegions(RewriterBase &rewriter, const ModSources &src,
                     Region &scoreModOut, Region &maskModOut, Location loc,
                     const ModContext &ctx, bool withMaskMod = true);

/// Builds the score_mod (ALiBi, then the user's score_mod) and, if
/// `withMaskMod`, the mask_mod regions of `update` from the memref-form
/// `op` (flash-tile leaves the mask_mod out of the blocks a block mask says
/// it keeps whole).
void buildTileMods(RewriterBase &rewriter, AttentionOp op,
                   TileUpdateOp update, const ModContext &ctx,
                   bool withMaskMod = true);

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_TILEMODS_H
