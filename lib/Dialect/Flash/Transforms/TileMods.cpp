//===- TileMods.cpp - flash-tile's handling of score/mask mods ------------===//
//
// The score_mod / mask_mod part of flash-tile (see TileMods.h): the user's
// isolated regions are cloned into each flash.tile_update with an IRMapping
// (s, i, j to the update's block arguments, b and h to the grid's, captures
// to the bufferized operands), and ALiBi, an attribute-like serving operand
// of flash.attention, becomes IR in front of them:
//   s - slope[h] * |i + (Sk - Sq) - j|     (slope [Hq] or [B, Hq]).
//
//===----------------------------------------------------------------------===//

#include "TileMods.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::flash;

LogicalResult mlir::flash::moveModsToBuffers(RewriterBase &rewriter,
                                             AttentionOp from,
                                             AttentionOp to) {
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

void mlir::flash::buildTileMods(RewriterBase &rewriter, AttentionOp op,
                                TileUpdateOp update, const ModContext &ctx,
                                bool withMaskMod) {
  OpBuilder::InsertionGuard guard(rewriter);
  Location loc = update.getLoc();
  Type index = rewriter.getIndexType(), f32 = rewriter.getF32Type();
  auto userArgs = [&](ValueRange lead) {
    SmallVector<Value> args = {ctx.batch, ctx.head};
    llvm::append_range(args, lead);
    llvm::append_range(args, op.getCaptures());
    return args;
  };
  Value slopes = op.getAlibiSlopes();
  if (slopes || !op.getScoreMod().empty()) {
    Block *block = rewriter.createBlock(&update.getScoreMod(), {},
                                        {f32, index, index}, {loc, loc, loc});
    Value s = block->getArgument(0), i = block->getArgument(1),
          j = block->getArgument(2);
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
    if (!op.getScoreMod().empty()) {
      SmallVector<Value> args = {s};
      llvm::append_range(args, userArgs({i, j}));
      s = inlineModRegion(rewriter, op.getScoreMod(), args);
    }
    YieldOp::create(rewriter, loc, ValueRange{s});
  }
  if (withMaskMod && !op.getMaskMod().empty()) {
    Block *block = rewriter.createBlock(&update.getMaskMod(), {},
                                        {index, index}, {loc, loc});
    Value visible = inlineModRegion(rewriter, op.getMaskMod(),
                                 userArgs(block->getArguments()));
    YieldOp::create(rewriter, loc, ValueRange{visible});
  }
}
