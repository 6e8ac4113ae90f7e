//===- FlashTileToSCF.cpp - Tile-level flash ops -> scf/memref/tensor -----===//
//
// flash-tile-to-scf: lowers the structure of a tiled attention for targets
// that run it as loops (the CPU): flash.grid becomes an scf.parallel,
// flash.kv_loop an scf.for over its block range (descending when reversed),
// flash.tile_load a subview read zero-padded past the sequence end (or a
// gather through the block table; a [rows] vector for LSE and D),
// flash.tile_store a slice materialised into the output's subview,
// flash.tile_accumulate an addition into its destination's subview. One
// pattern per op; the tile math inside the loops (flash-online-softmax's
// and flash-backward-recompute's output) is not touched.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHTILETOSCF
#include "flash/Conversion/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// Reads rows [start, start + min(rows, limit - start)) of the [seq, dim]
/// plane (b, h) of `src` as a static [rows, dim] tensor, zero-padded past
/// the sequence end (tails are padded on chip, not by the caller).
Value readBlock(IndexBuilder &ib, Value src, Value batch, Value head,
                Value start, Value limit, int64_t rows) {
  auto srcType = cast<MemRefType>(src.getType());
  int64_t dim = srcType.getDimSize(kDimPos);
  Value count = ib.min(ib.c(rows), ib.sub(limit, start));
  SmallVector<OpFoldResult> offsets = {batch, head, start,
                                       ib.b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {ib.b.getIndexAttr(1), ib.b.getIndexAttr(1),
                                     count, ib.b.getIndexAttr(dim)};
  SmallVector<OpFoldResult> strides(4, ib.b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {ShapedType::kDynamic, dim}, srcType, offsets, sizes, strides);
  Value view = memref::SubViewOp::create(ib.b, ib.loc, viewType, src, offsets,
                                         sizes, strides);
  auto dynType = RankedTensorType::get({ShapedType::kDynamic, dim},
                                       srcType.getElementType());
  Value tile = bufferization::ToTensorOp::create(ib.b, ib.loc, dynType, view,
                                                 /*restrict=*/true);
  auto staticType =
      RankedTensorType::get({rows, dim}, srcType.getElementType());
  Value zero = arith::ConstantOp::create(
      ib.b, ib.loc, ib.b.getZeroAttr(srcType.getElementType()));
  return tensor::createPadHighOp(staticType, tile, zero, /*nofold=*/false,
                                 ib.loc, ib.b);
}

/// Reads rows [start, start + min(rows, limit - start)) of the [seq] row
/// vector (b, h) of the f32 `src` ([B, H, S]: LSE, D) as a static [rows]
/// tensor, zero-padded past the sequence end.
Value readRows(IndexBuilder &ib, Value src, Value batch, Value head,
               Value start, Value limit, int64_t rows) {
  auto srcType = cast<MemRefType>(src.getType());
  Value count = ib.min(ib.c(rows), ib.sub(limit, start));
  SmallVector<OpFoldResult> offsets = {batch, head, start};
  SmallVector<OpFoldResult> sizes = {ib.b.getIndexAttr(1), ib.b.getIndexAttr(1),
                                     count};
  SmallVector<OpFoldResult> strides(3, ib.b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      {ShapedType::kDynamic}, srcType, offsets, sizes, strides);
  Value view = memref::SubViewOp::create(ib.b, ib.loc, viewType, src, offsets,
                                         sizes, strides);
  auto dynType =
      RankedTensorType::get({ShapedType::kDynamic}, srcType.getElementType());
  Value tile = bufferization::ToTensorOp::create(ib.b, ib.loc, dynType, view,
                                                 /*restrict=*/true);
  auto staticType = RankedTensorType::get({rows}, srcType.getElementType());
  Value zero = arith::ConstantOp::create(
      ib.b, ib.loc, ib.b.getZeroAttr(srcType.getElementType()));
  return tensor::createPadHighOp(staticType, tile, zero, /*nofold=*/false,
                                 ib.loc, ib.b);
}

/// Paged K/V ([pages, Hkv, page_size, D]): the same [rows, dim] block,
/// gathered through the block table. Key j = start + r of sequence `batch`
/// is slot j % page_size of page table[batch, j / page_size]; rows at or
/// past `limit` read key 0's slot (always mapped) and are zeroed.
Value readPagedBlock(IndexBuilder &ib, Value src, Value table, Value batch,
                     Value head, Value start, Value limit, int64_t rows) {
  auto srcType = cast<MemRefType>(src.getType());
  int64_t dim = srcType.getDimSize(kDimPos);
  Type elt = srcType.getElementType();
  Value pageSize = ib.dim(src, kSeqPos);
  auto type = RankedTensorType::get({rows, dim}, elt);
  return tensor::GenerateOp::create(
      ib.b, ib.loc, type, ValueRange{},
      [&](OpBuilder &nb, Location nloc, ValueRange idx) {
        IndexBuilder lib{nb, nloc};
        Value j = lib.add(start, idx[0]);
        Value valid = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::slt,
                                            j, limit);
        Value jc = arith::SelectOp::create(nb, nloc, valid, j, lib.c(0));
        Value entry = memref::LoadOp::create(
            nb, nloc, table, ValueRange{batch, lib.divui(jc, pageSize)});
        Value page = arith::IndexCastOp::create(nb, nloc, nb.getIndexType(),
                                                entry);
        Value slot = arith::RemUIOp::create(nb, nloc, jc, pageSize);
        Value x = memref::LoadOp::create(nb, nloc, src,
                                         ValueRange{page, head, slot, idx[1]});
        Value zero = arith::ConstantOp::create(nb, nloc, nb.getZeroAttr(elt));
        tensor::YieldOp::create(
            nb, nloc, arith::SelectOp::create(nb, nloc, valid, x, zero));
      });
}

/// Writes the first `count` rows of the [rows, ...] tile `value` into the
/// (b, h) plane of `dst` at row `start`.
void writeBlock(IndexBuilder &ib, Value value, Value dst, Value batch,
                Value head, Value start, Value count, Value split = {}) {
  auto dstType = cast<MemRefType>(dst.getType());
  auto tileType = cast<RankedTensorType>(value.getType());
  bool hasDim = tileType.getRank() == 2;
  SmallVector<OpFoldResult> offsets = {batch, head, start};
  SmallVector<OpFoldResult> sizes = {ib.b.getIndexAttr(1), ib.b.getIndexAttr(1),
                                     count};
  // The partial outputs of split-KV lead with the split index.
  if (split) {
    offsets.insert(offsets.begin(), split);
    sizes.insert(sizes.begin(), ib.b.getIndexAttr(1));
  }
  SmallVector<int64_t> sliceShape = {ShapedType::kDynamic};
  if (hasDim) {
    offsets.push_back(ib.b.getIndexAttr(0));
    sizes.push_back(ib.b.getIndexAttr(tileType.getDimSize(1)));
    sliceShape.push_back(tileType.getDimSize(1));
  }
  SmallVector<OpFoldResult> strides(offsets.size(), ib.b.getIndexAttr(1));
  auto viewType = memref::SubViewOp::inferRankReducedResultType(
      sliceShape, dstType, offsets, sizes, strides);
  Value view = memref::SubViewOp::create(ib.b, ib.loc, viewType, dst, offsets,
                                         sizes, strides);
  SmallVector<OpFoldResult> sliceOffsets(tileType.getRank(),
                                         ib.b.getIndexAttr(0));
  SmallVector<OpFoldResult> sliceSizes = {count};
  if (hasDim)
    sliceSizes.push_back(ib.b.getIndexAttr(tileType.getDimSize(1)));
  SmallVector<OpFoldResult> sliceStrides(tileType.getRank(),
                                         ib.b.getIndexAttr(1));
  Value slice = tensor::ExtractSliceOp::create(
      ib.b, ib.loc,
      RankedTensorType::get(sliceShape, tileType.getElementType()), value,
      sliceOffsets, sliceSizes, sliceStrides);
  bufferization::MaterializeInDestinationOp::create(
      ib.b, ib.loc, Type(), slice, view, /*restrict=*/true, /*writable=*/true);
}

/// flash.grid -> scf.parallel over [0, ub) with unit steps.
struct GridOpLowering : OpRewritePattern<GridOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GridOp grid,
                                PatternRewriter &rewriter) const override {
    IndexBuilder ib{rewriter, grid.getLoc()};
    SmallVector<Value> zeros(grid.getUpperBounds().size(), ib.c(0)),
        ones(grid.getUpperBounds().size(), ib.c(1));
    auto par = scf::ParallelOp::create(rewriter, grid.getLoc(), zeros,
                                       grid.getUpperBounds(), ones);
    Block &body = grid.getBody().front();
    rewriter.eraseOp(body.getTerminator());
    rewriter.inlineBlockBefore(&body, par.getBody()->getTerminator(),
                               par.getInductionVars());
    rewriter.eraseOp(grid);
    return success();
  }
};

/// flash.kv_loop -> scf.for iv in [0, ub - lb), block = ub - 1 - iv when
/// reversed, else lb + iv.
struct KVLoopOpLowering : OpRewritePattern<KVLoopOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(KVLoopOp loop,
                                PatternRewriter &rewriter) const override {
    Location loc = loop.getLoc();
    IndexBuilder ib{rewriter, loc};
    Value lb = loop.getLower(), ub = loop.getUpper();
    auto forOp = scf::ForOp::create(
        rewriter, loc, ib.c(0), ib.sub(ub, lb), ib.c(1), loop.getInits(),
        [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
          IndexBuilder lib{nb, nloc};
          Value block = loop.getReversed() ? lib.sub(lib.sub(ub, lib.c(1)), iv)
                                           : lib.add(lb, iv);
          SmallVector<Value> blockArgs = {block};
          llvm::append_range(blockArgs, args);
          Block *dest = nb.getInsertionBlock();
          rewriter.inlineBlockBefore(&loop.getBody().front(), dest,
                                     dest->end(), blockArgs);
          auto yield = cast<YieldOp>(dest->back());
          rewriter.setInsertionPoint(yield);
          rewriter.replaceOpWithNewOp<scf::YieldOp>(yield, yield.getValues());
        });
    rewriter.replaceOp(loop, forOp.getResults());
    return success();
  }
};

struct TileLoadOpLowering : OpRewritePattern<TileLoadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileLoadOp load,
                                PatternRewriter &rewriter) const override {
    IndexBuilder ib{rewriter, load.getLoc()};
    int64_t rows = load.getResult().getType().getDimSize(0);
    if (load.getResult().getType().getRank() == 1) {
      rewriter.replaceOp(load, readRows(ib, load.getSource(), load.getBatch(),
                                        load.getHead(), load.getStart(),
                                        load.getLimit(), rows));
      return success();
    }
    Value tile =
        load.getBlockTable()
            ? readPagedBlock(ib, load.getSource(), load.getBlockTable(),
                             load.getBatch(), load.getHead(), load.getStart(),
                             load.getLimit(), rows)
            : readBlock(ib, load.getSource(), load.getBatch(), load.getHead(),
                        load.getStart(), load.getLimit(), rows);
    rewriter.replaceOp(load, tile);
    return success();
  }
};

struct TileStoreOpLowering : OpRewritePattern<TileStoreOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileStoreOp store,
                                PatternRewriter &rewriter) const override {
    IndexBuilder ib{rewriter, store.getLoc()};
    ValueRange idx = store.getIndices();
    bool split = idx.size() == 4;
    writeBlock(ib, store.getTile(), store.getDest(), idx[split ? 1 : 0],
               idx[split ? 2 : 1], idx.back(), store.getCount(),
               split ? idx[0] : Value());
    rewriter.eraseOp(store);
    return success();
  }
};

/// The first `count` rows of the tile added into the plane's rows, on
/// buffers: the CPU runs the grid's programs one after another, so the
/// additions need no atomics.
struct TileAccumulateOpLowering : OpRewritePattern<TileAccumulateOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TileAccumulateOp op,
                                PatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    IndexBuilder ib{rewriter, loc};
    auto tileType = op.getTile().getType();
    auto destType = cast<MemRefType>(op.getDest().getType());
    int64_t dim = tileType.getDimSize(1);
    OpFoldResult one = rewriter.getIndexAttr(1),
                 zero = rewriter.getIndexAttr(0);
    SmallVector<OpFoldResult> offsets = {op.getBatch(), op.getHead(),
                                         op.getStart(), zero};
    SmallVector<OpFoldResult> sizes = {one, one, op.getCount(),
                                       rewriter.getIndexAttr(dim)};
    SmallVector<OpFoldResult> strides(4, one);
    auto viewType = memref::SubViewOp::inferRankReducedResultType(
        {ShapedType::kDynamic, dim}, destType, offsets, sizes, strides);
    Value view = memref::SubViewOp::create(
        rewriter, loc, viewType, op.getDest(), offsets, sizes, strides);
    auto sliceType = RankedTensorType::get({ShapedType::kDynamic, dim},
                                           rewriter.getF32Type());
    Value slice = tensor::ExtractSliceOp::create(
        rewriter, loc, sliceType, op.getTile(),
        ArrayRef<OpFoldResult>{zero, zero},
        ArrayRef<OpFoldResult>{op.getCount(), rewriter.getIndexAttr(dim)},
        ArrayRef<OpFoldResult>{one, one});
    Value sliceBuf = bufferization::ToBufferOp::create(
        rewriter, loc,
        MemRefType::get(sliceType.getShape(), rewriter.getF32Type()), slice,
        /*read_only=*/rewriter.getUnitAttr());
    auto map = rewriter.getMultiDimIdentityMap(2);
    linalg::GenericOp::create(
        rewriter, loc, TypeRange{}, ValueRange{sliceBuf}, ValueRange{view},
        ArrayRef<AffineMap>{map, map},
        {utils::IteratorType::parallel, utils::IteratorType::parallel},
        [&](OpBuilder &b, Location l, ValueRange a) {
          linalg::YieldOp::create(
              b, l, ValueRange{arith::AddFOp::create(b, l, a[1], a[0])});
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// A workspace is plain host memory on the CPU (zero-filled when
/// `zeroed`); the bufferization deallocation pipeline frees it.
struct WorkspaceOpLowering : OpRewritePattern<WorkspaceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WorkspaceOp op,
                                PatternRewriter &rewriter) const override {
    Value alloc = memref::AllocOp::create(
        rewriter, op.getLoc(), cast<MemRefType>(op.getMemref().getType()),
        op.getDynamicSizes());
    if (op.getZeroed()) {
      Value zero = arith::ConstantOp::create(rewriter, op.getLoc(),
                                             rewriter.getF32FloatAttr(0.0f));
      linalg::FillOp::create(rewriter, op.getLoc(), ValueRange{zero},
                             ValueRange{alloc});
    }
    rewriter.replaceOp(op, alloc);
    return success();
  }
};

struct FlashTileToSCFPass
    : flash::impl::FlashTileToSCFBase<FlashTileToSCFPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFlashTileToSCFPatterns(patterns);
    // Lower only: no folding, so the output is exactly the patterns' IR.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     config)))
      return signalPassFailure();
  }
};

} // namespace

void mlir::flash::populateFlashTileToSCFPatterns(RewritePatternSet &patterns) {
  patterns
      .add<GridOpLowering, KVLoopOpLowering, TileLoadOpLowering,
           TileStoreOpLowering, TileAccumulateOpLowering, WorkspaceOpLowering>(
          patterns.getContext());
}
