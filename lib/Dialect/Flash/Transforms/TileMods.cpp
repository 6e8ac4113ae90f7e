//===- TileMods.cpp - flash-tile's handling of score/mask mods ------------===//
//
// The score_mod / mask_mod part of flash-tile (see TileMods.h): the user's
// isolated regions are cloned into each flash.tile_update with an IRMapping
// (s, i, j to the update's block arguments, b and h to the grid's, captures
// to the bufferized operands), and ALiBi, an attribute-like serving operand
// of flash.attention, becomes IR in front of them:
//   s - slope[h] * |i + (Sk - Sq) - j|     (slope [Hq] or [B, Hq]).
// The backward's flash.tile_grad takes softcap into its region too
// (cap * tanh(s / cap), first), so its derivative comes from the same
// chain rule as the others'.
//
//===----------------------------------------------------------------------===//

#include "TileMods.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::flash;

Value mlir::flash::readOnlyBuffer(OpBuilder &b, Location loc, Value tensor) {
  if (!tensor)
    return tensor;
  auto type = cast<RankedTensorType>(tensor.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), tensor,
      /*read_only=*/b.getUnitAttr());
}

SmallVector<Value> mlir::flash::allocResults(OpBuilder &b, Operation *op,
                                             ArrayRef<Value> sizesFrom) {
  SmallVector<Value> outs;
  for (auto [result, like] : llvm::zip_equal(op->getResults(), sizesFrom)) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynSizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dynSizes.push_back(memref::DimOp::create(b, op->getLoc(), like, i));
    outs.push_back(memref::AllocOp::create(
        b, op->getLoc(),
        MemRefType::get(type.getShape(), type.getElementType()), dynSizes));
  }
  return outs;
}

void mlir::flash::replaceByBuffers(RewriterBase &rewriter, Operation *op,
                                   ValueRange outs) {
  SmallVector<Value> results;
  for (auto [result, buffer] : llvm::zip_equal(op->getResults(), outs))
    results.push_back(bufferization::ToTensorOp::create(
        rewriter, op->getLoc(), result.getType(), buffer, /*restrict=*/true,
        /*writable=*/true));
  rewriter.replaceOp(op, results);
}

template <typename OpTy>
LogicalResult mlir::flash::moveModsToBuffers(RewriterBase &rewriter, OpTy from,
                                             OpTy to) {
  OpBuilder::InsertionGuard guard(rewriter);
  // The capture arguments trail the positions (and, in score_mod, s).
  for (auto [region, lead] :
       {std::pair(&from.getScoreMod(), 5u), {&from.getMaskMod(), 4u}}) {
    if (region->empty())
      continue;
    Block &block = region->front();
    for (auto [n, capture] : llvm::enumerate(to.getCaptures())) {
      BlockArgument arg = block.getArgument(lead + n);
      arg.setType(capture.getType());
      for (Operation *user : llvm::make_early_inc_range(arg.getUsers())) {
        rewriter.setInsertionPoint(user);
        if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
          rewriter.replaceOpWithNewOp<memref::LoadOp>(extract, arg,
                                                      extract.getIndices());
        } else if (auto dim = dyn_cast<tensor::DimOp>(user)) {
          rewriter.replaceOpWithNewOp<memref::DimOp>(dim, arg, dim.getIndex());
        } else {
          return from.emitOpError()
                 << "flash-tile reads tensor captures only through "
                    "tensor.extract and tensor.dim, but capture #"
                 << n << " is used by '" << user->getName() << "'";
        }
      }
    }
  }
  to.getScoreMod().takeBody(from.getScoreMod());
  to.getMaskMod().takeBody(from.getMaskMod());
  return success();
}
template LogicalResult mlir::flash::moveModsToBuffers(RewriterBase &,
                                                      AttentionOp, AttentionOp);
template LogicalResult mlir::flash::moveModsToBuffers(RewriterBase &,
                                                      AttentionBackwardOp,
                                                      AttentionBackwardOp);

bool mlir::flash::needsLogits(AttentionOp op) {
  return !op.getSoftcap() &&
         (op.getAlibiSlopes() || !op.getScoreMod().empty());
}

Value mlir::flash::inlineModRegion(OpBuilder &b, Region &region,
                                   ValueRange args) {
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  for (Operation &op : block.without_terminator())
    b.clone(op, map);
  return map.lookupOrDefault(block.getTerminator()->getOperand(0));
}

void mlir::flash::buildModRegions(RewriterBase &rewriter, const ModSources &src,
                                  Region &scoreModOut, Region &maskModOut,
                                  Location loc, const ModContext &ctx,
                                  bool withMaskMod) {
  OpBuilder::InsertionGuard guard(rewriter);
  Type index = rewriter.getIndexType(), f32 = rewriter.getF32Type();
  auto userArgs = [&](ValueRange lead) {
    SmallVector<Value> args = {ctx.batch, ctx.head};
    llvm::append_range(args, lead);
    llvm::append_range(args, src.captures);
    return args;
  };
  Value slopes = src.slopes;
  bool hasScoreMod = !src.scoreMod->empty();
  if (slopes || hasScoreMod || src.softcap) {
    Block *block = rewriter.createBlock(&scoreModOut, {}, {f32, index, index},
                                        {loc, loc, loc});
    Value s = block->getArgument(0), i = block->getArgument(1),
          j = block->getArgument(2);
    if (src.softcap) {
      // cap * tanh(s / cap), the forward's softcap on the scaled logit.
      Value cap = arith::ConstantOp::create(
          rewriter, loc, rewriter.getF32FloatAttr(float(*src.softcap)));
      Value t = math::TanhOp::create(
          rewriter, loc, arith::DivFOp::create(rewriter, loc, s, cap));
      s = arith::MulFOp::create(rewriter, loc, t, cap);
    }
    if (slopes) {
      // s - slope * |i + (Sk - Sq) - j|: the distance to query i's
      // bottom-right diagonal, exact in index arithmetic, then one sitofp.
      IndexBuilder ib{rewriter, loc};
      SmallVector<Value> at = {ctx.head};
      if (cast<MemRefType>(slopes.getType()).getRank() == 2)
        at.insert(at.begin(), ctx.batch);
      Value slope = memref::LoadOp::create(rewriter, loc, slopes, at);
      Value d = ib.sub(diagonal(ib, i, ib.sub(ctx.seqK, ctx.seqQ)), j);
      Value dist = ib.max(d, ib.sub(ib.c(0), d));
      Value distF = arith::SIToFPOp::create(
          rewriter, loc, f32,
          arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(),
                                     dist));
      s = arith::SubFOp::create(
          rewriter, loc, s, arith::MulFOp::create(rewriter, loc, slope, distF));
    }
    if (hasScoreMod) {
      SmallVector<Value> args = {s};
      llvm::append_range(args, userArgs({i, j}));
      s = inlineModRegion(rewriter, *src.scoreMod, args);
    }
    YieldOp::create(rewriter, loc, ValueRange{s});
  }
  if (withMaskMod && !src.maskMod->empty()) {
    Block *block =
        rewriter.createBlock(&maskModOut, {}, {index, index}, {loc, loc});
    Value visible = inlineModRegion(rewriter, *src.maskMod,
                                    userArgs(block->getArguments()));
    YieldOp::create(rewriter, loc, ValueRange{visible});
  }
}

void mlir::flash::buildTileMods(RewriterBase &rewriter, AttentionOp op,
                                TileUpdateOp update, const ModContext &ctx,
                                bool withMaskMod) {
  ModSources src{&op.getScoreMod(), &op.getMaskMod(), op.getAlibiSlopes(),
                 op.getCaptures(), std::nullopt};
  buildModRegions(rewriter, src, update.getScoreMod(), update.getMaskMod(),
                  update.getLoc(), ctx, withMaskMod);
}
