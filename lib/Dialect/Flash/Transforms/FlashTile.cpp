//===- FlashTile.cpp - The FlashAttention-2 grid and KV loop --------------===//
//
// flash-tile: rewrites flash.attention into FA2's structure. One program per
// (Q row block, query head, batch) in an scf.parallel grid; per program the
// Q block is read once and K/V blocks stream through a loop whose bounds are
// clipped to the blocks the causal/window mask can reach. The blocks that
// need an element mask (the diagonal band, the ragged last block, the left
// window edge) are peeled into loops of their own so that the main loop's
// updates carry no mask (FA2 flash_fwd_kernel.h: n_masking_steps).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHTILE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// The mask of one attention as the tiling sees it: causal is a right window
/// of 0, and each side is either bounded (>= 0) or not.
struct MaskBounds {
  int64_t left = -1, right = -1;
  bool leftBounded() const { return left >= 0; }
  bool rightBounded() const { return right >= 0; }

  static MaskBounds get(AttentionOp op) {
    MaskBounds m{op.getWindowLeft(), op.getWindowRight()};
    if (op.getCausal())
      m.right = m.right >= 0 ? std::min<int64_t>(m.right, 0) : 0;
    return m;
  }
};

/// Number of blocks in a band that may need a mask on a bounded side: the
/// BlockM rows of a program span BlockM diagonals, which touch at most
/// ceil(BlockM / BlockN) + 1 blocks of BlockN columns.
int64_t bandBlocks(int64_t blockM, int64_t blockN) {
  return (blockM + blockN - 1) / blockN + 1;
}

/// Index arithmetic on plain integers (for the static iteration counts).
struct IntArith {
  using V = int64_t;
  V c(int64_t v) { return v; }
  V add(V x, V y) { return x + y; }
  V sub(V x, V y) { return x - y; }
  V min(V x, V y) { return std::min(x, y); }
  V max(V x, V y) { return std::max(x, y); }
  V floorDiv(V x, V y) { return x >= 0 ? x / y : -((-x + y - 1) / y); }
  V ceilDiv(V x, V y) { return -floorDiv(-x, y); }
  /// 1 if x % y != 0, else 0.
  V ragged(V x, V y) { return x % y != 0 ? 1 : 0; }
};

/// The same arithmetic emitted as IR, keeping the emitted bounds readable.
struct IndexBuilder {
  using V = Value;
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivSIOp::create(b, loc, x, y);
  }
  Value floorDiv(Value x, Value y) {
    return arith::FloorDivSIOp::create(b, loc, x, y);
  }
  Value ragged(Value x, Value y) {
    Value ne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              arith::RemSIOp::create(b, loc, x, y), c(0));
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::ExtUIOp::create(b, loc, b.getI64Type(), ne));
  }
  Value divui(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value dim(Value shaped, int64_t i) {
    return memref::DimOp::create(b, loc, shaped, i);
  }
};

/// KV block ranges of one program: [nMin, lEnd) masked left edge,
/// [lEnd, rStart) unmasked main loop, [rStart, nMax) masked right band.
template <typename V> struct KVRanges { V nMin, lEnd, rStart, nMax; };

/// The block bounds of the program whose first query row is `row0`, written
/// once for both IntArith (static counts) and IndexBuilder (emitted IR).
template <typename Arith>
KVRanges<typename Arith::V> kvRanges(Arith &a, MaskBounds mask, int64_t blockM,
                                     int64_t blockN, typename Arith::V row0,
                                     typename Arith::V seqQ,
                                     typename Arith::V seqK) {
  auto off = a.sub(seqK, seqQ);
  auto bn = a.c(blockN);
  // Exclusive column bound of the last row: j <= row0 + BM - 1 + off + right.
  auto hi = seqK;
  if (mask.rightBounded())
    hi = a.min(seqK, a.add(a.add(row0, off), a.c(blockM + mask.right)));
  auto nMax = a.max(a.ceilDiv(hi, bn), a.c(0));
  // First visible column of the first row: j >= row0 + off - left.
  auto lo = a.c(0);
  if (mask.leftBounded())
    lo = a.max(a.c(0), a.sub(a.add(row0, off), a.c(mask.left)));
  auto nMin = a.min(a.floorDiv(lo, bn), nMax);
  // Right side: the diagonal band when bounded, else only a ragged last
  // block (seq_k % BN != 0) needs a mask.
  auto nRight = mask.rightBounded() ? a.c(bandBlocks(blockM, blockN))
                                    : a.ragged(seqK, bn);
  auto rStart = a.max(nMin, a.sub(nMax, nRight));
  auto lEnd = nMin;
  if (mask.leftBounded())
    lEnd = a.min(a.add(nMin, a.c(bandBlocks(blockM, blockN))), rStart);
  return {nMin, lEnd, rStart, nMax};
}

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

struct FlashTilePass : flash::impl::FlashTileBase<FlashTilePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops)
      if (failed(tile(op)))
        return signalPassFailure();
    SmallVector<CombineOp> combines;
    getOperation()->walk([&](CombineOp op) { combines.push_back(op); });
    for (CombineOp op : combines)
      tileCombine(op);
  }

  LogicalResult tile(AttentionOp op);
  /// flash.combine as its own grid: one program per (row, head, batch), the
  /// head-dim loop inside it a nested scf.parallel (threads on the GPU).
  void tileCombine(CombineOp op);
  /// Moves the tensor form onto buffers (to_buffer / alloc / to_tensor) so
  /// that tiling has one form to handle.
  AttentionOp toBufferForm(IRRewriter &rewriter, AttentionOp op);
  /// Masked and unmasked KV iterations over the whole grid, when the shape
  /// is static.
  std::optional<std::pair<int64_t, int64_t>>
  countStaticIterations(AttentionOp op, ConfigAttr config);
};

AttentionOp FlashTilePass::toBufferForm(IRRewriter &rewriter, AttentionOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto toBuffer = [&](Value tensor) -> Value {
    auto type = cast<RankedTensorType>(tensor.getType());
    return bufferization::ToBufferOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        tensor, /*read_only=*/rewriter.getUnitAttr());
  };
  Value q = toBuffer(op.getQuery()), k = toBuffer(op.getKey()),
        v = toBuffer(op.getValue());
  Value lens = op.getKvLens() ? toBuffer(op.getKvLens()) : Value();
  Value table = op.getBlockTable() ? toBuffer(op.getBlockTable()) : Value();
  // Output buffers, sized from the dims of Q (batch, heads, seq).
  SmallVector<Value> outs;
  for (Value result : op.getResults()) {
    auto type = cast<RankedTensorType>(result.getType());
    SmallVector<Value> dynSizes;
    for (int64_t i = 0; i < type.getRank(); ++i)
      if (type.isDynamicDim(i))
        dynSizes.push_back(memref::DimOp::create(rewriter, loc, q, i));
    outs.push_back(memref::AllocOp::create(
        rewriter, loc, MemRefType::get(type.getShape(), type.getElementType()),
        dynSizes));
  }
  auto bufferOp = AttentionOp::create(
      rewriter, loc, TypeRange(), q, k, v, /*alibi_slopes=*/Value(), lens,
      table, /*cu_seqlens_q=*/Value(),
      /*cu_seqlens_k=*/Value(), outs, op.getScaleAttr(), op.getCausalAttr(),
      op.getWindowAttr(), op.getSoftcapAttr(), op.getConfigAttr());
  SmallVector<Value> results;
  for (auto [result, buffer] : llvm::zip(op.getResults(), outs))
    results.push_back(bufferization::ToTensorOp::create(
        rewriter, loc, result.getType(), buffer, /*restrict=*/true,
        /*writable=*/true));
  rewriter.replaceOp(op, results);
  return bufferOp;
}

std::optional<std::pair<int64_t, int64_t>>
FlashTilePass::countStaticIterations(AttentionOp op, ConfigAttr config) {
  AttentionShape s = op.getShape();
  if (op.getKvLens() || op.isPartial() || ShapedType::isDynamic(s.batch) || ShapedType::isDynamic(s.headsQ) ||
      ShapedType::isDynamic(s.seqQ) || ShapedType::isDynamic(s.seqK))
    return std::nullopt;
  MaskBounds mask = MaskBounds::get(op);
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  // The count loops over the query blocks: beyond 2^20 of them (a static
  // Sq of 2^40 would take hours) the counts are left out, and products that
  // would overflow int64 too.
  if (llvm::divideCeil(s.seqQ, bm) > (int64_t(1) << 20))
    return std::nullopt;
  int64_t masked = 0, unmasked = 0;
  for (int64_t row0 = 0; row0 < s.seqQ; row0 += bm) {
    IntArith ints;
    KVRanges<int64_t> r = kvRanges(ints, mask, bm, bn, row0, s.seqQ, s.seqK);
    masked += (r.lEnd - r.nMin) + (r.nMax - r.rStart);
    unmasked += r.rStart - r.lEnd;
  }
  std::optional<int64_t> programs = llvm::checkedMul(s.batch, s.headsQ);
  std::optional<int64_t> m = programs ? llvm::checkedMul(masked, *programs)
                                      : std::nullopt;
  std::optional<int64_t> u = programs ? llvm::checkedMul(unmasked, *programs)
                                      : std::nullopt;
  if (!m || !u)
    return std::nullopt;
  masked = *m;
  unmasked = *u;
  numMaskedIterations += masked;
  numUnmaskedIterations += unmasked;
  return std::make_pair(masked, unmasked);
}

LogicalResult FlashTilePass::tile(AttentionOp op) {
  for (auto [operand, name] : {std::pair{op.getAlibiSlopes(), "alibi"},
                               {op.getCuSeqlensQ(), "cu_seqlens"}})
    if (operand)
      return op.emitOpError()
             << "flash-tile does not lower '" << name << "' yet";
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError("has no #flash.config: run flash-plan first or "
                          "write one by hand");
  if (config.getNumSplits() != 1 && !op.isPartial())
    return op.emitOpError("has splits = ")
           << config.getNumSplits()
           << " in its #flash.config: run flash-split-kv before flash-tile";

  IRRewriter rewriter(op.getContext());
  if (!op.hasPureBufferSemantics())
    op = toBufferForm(rewriter, op);
  std::optional<std::pair<int64_t, int64_t>> iterations =
      countStaticIterations(op, config);

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  IndexBuilder ib{rewriter, loc};
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  MaskBounds mask = MaskBounds::get(op);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value out = op.getOutput(), lse = op.getLse();
  AttentionShape shape = op.getShape();
  float scale = op.getEffectiveScale();

  Value batch = ib.dim(q, kBatchPos), headsQ = ib.dim(q, kHeadsPos);
  Value seqQ = ib.dim(q, kSeqPos), seqK = ib.dim(k, kSeqPos);
  Value table = op.getBlockTable(), lens = op.getKvLens();
  // Paged: the capacity is pages per sequence times the page size.
  if (table)
    seqK = ib.mul(ib.dim(table, 1), ib.dim(k, kSeqPos));
  bool partial = op.isPartial();
  Value group = ib.divui(headsQ, ib.dim(k, kHeadsPos));
  Value numMBlocks = ib.ceilDiv(seqQ, ib.c(bm));
  Type f32 = rewriter.getF32Type();
  auto accType = RankedTensorType::get({bm, shape.headDimV}, f32);
  auto rowType = RankedTensorType::get({bm}, f32);

  // The grid: one program per (Q row block, query head, batch), as FA2's
  // dim3 grid(num_m_block, b, h).
  // Split-KV adds a fourth axis: the split.
  SmallVector<Value> gridUb = {numMBlocks, headsQ, batch};
  if (partial)
    gridUb.push_back(ib.dim(out, 0));
  SmallVector<Value> zeros(gridUb.size(), ib.c(0)),
      ones(gridUb.size(), ib.c(1));
  auto grid = scf::ParallelOp::create(rewriter, loc, zeros, gridUb, ones);
  grid->setAttr("flash.config", config);
  // Pass statistics are compiled out of no-assert LLVM builds (Debian's),
  // so the static counts are also recorded on the grid for users and tests.
  if (iterations) {
    grid->setAttr("flash.masked_iterations",
                  rewriter.getI64IntegerAttr(iterations->first));
    grid->setAttr("flash.unmasked_iterations",
                  rewriter.getI64IntegerAttr(iterations->second));
  }
  rewriter.setInsertionPointToStart(grid.getBody());
  Value mBlock = grid.getInductionVars()[0];
  Value head = grid.getInductionVars()[1];
  Value b = grid.getInductionVars()[2];
  Value split = partial ? grid.getInductionVars()[3] : Value();
  // GQA/MQA: query head h reads KV head h / (Hq / Hkv).
  Value kvHead = ib.divui(head, group);
  Value row0 = ib.mul(mBlock, ib.c(bm));
  // KV-cache lengths: this sequence's keys are [0, kv_lens[b]), clamped to
  // the cache so a bad length cannot read past it.
  if (lens) {
    Value len = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        memref::LoadOp::create(rewriter, loc, lens, ValueRange{b}));
    seqK = ib.min(ib.max(len, ib.c(0)), seqK);
  }

  // The Q block stays on chip for the whole KV loop.
  Value qBlock = readBlock(ib, q, b, head, row0, seqQ, bm);

  // Online-softmax state: acc = 0, m = -inf, l = 0.
  auto fill = [&](RankedTensorType type, float value) -> Value {
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32);
    Value cst = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getF32FloatAttr(value));
    return linalg::FillOp::create(rewriter, loc, cst, empty).getResult(0);
  };
  SmallVector<Value> state = {
      fill(accType, 0.0f),
      fill(rowType, -std::numeric_limits<float>::infinity()),
      fill(rowType, 0.0f)};

  KVRanges<Value> ranges = kvRanges(ib, mask, bm, bn, row0, seqQ, seqK);
  if (partial) {
    // Split s owns blocks [s * per, (s + 1) * per) of the sequence's
    // ceil(Sk / BN) blocks, per = ceil(blocks / S) (FA2's n_blocks_per_split);
    // every range is clipped to it, so masks and peeling are unchanged.
    Value blocks = ib.ceilDiv(seqK, ib.c(bn));
    Value per = ib.ceilDiv(blocks, gridUb.back());
    Value lo = ib.mul(split, per);
    Value hi = ib.min(ib.add(lo, per), blocks);
    auto clip = [&](Value x) { return ib.max(lo, ib.min(x, hi)); };
    ranges = {clip(ranges.nMin), clip(ranges.lEnd), clip(ranges.rStart),
              clip(ranges.nMax)};
  }

  // One KV loop over [lb, ub): block index = `reversed` ? ub - 1 - iv : iv.
  auto emitLoop = [&](Value lb, Value ub, bool masked, bool reversed,
                      StringRef role) {
    Value count = ib.sub(ub, lb);
    auto loop = scf::ForOp::create(
        rewriter, loc, ib.c(0), count, ib.c(1), state,
        [&](OpBuilder &nb, Location nloc, Value iv, ValueRange args) {
          IndexBuilder lib{nb, nloc};
          Value block =
              reversed ? lib.sub(lib.sub(ub, lib.c(1)), iv) : lib.add(lb, iv);
          Value col0 = lib.mul(block, lib.c(bn));
          Value kBlock =
              table ? readPagedBlock(lib, k, table, b, kvHead, col0, seqK, bn)
                    : readBlock(lib, k, b, kvHead, col0, seqK, bn);
          Value vBlock =
              table ? readPagedBlock(lib, v, table, b, kvHead, col0, seqK, bn)
                    : readBlock(lib, v, b, kvHead, col0, seqK, bn);
          auto update = TileUpdateOp::create(
              nb, nloc, TypeRange{accType, rowType, rowType}, qBlock, kBlock,
              vBlock, args[0], args[1], args[2], row0, col0, seqQ, seqK,
              nb.getF32FloatAttr(scale), op.getCausalAttr(), op.getWindowAttr(),
              op.getSoftcapAttr(), masked ? nb.getUnitAttr() : UnitAttr());
          scf::YieldOp::create(nb, nloc, update.getResults());
        });
    loop->setAttr("flash.kv_loop", rewriter.getStringAttr(role));
    (masked ? numMaskedLoops : numUnmaskedLoops) += 1;
    state = loop.getResults();
  };
  // FA2 order: every KV block right to left, the masked diagonal band
  // first, then the mask-free main loop, then (sliding window only) the
  // masked left edge. The three loops visit one contiguous descending
  // sequence of blocks, so flash-to-gpu can prefetch "the next block" across
  // loop boundaries.
  emitLoop(ranges.rStart, ranges.nMax, /*masked=*/true, /*reversed=*/true,
           "masked_right");
  emitLoop(ranges.lEnd, ranges.rStart, /*masked=*/false, /*reversed=*/true,
           "main");
  if (mask.leftBounded())
    emitLoop(ranges.nMin, ranges.lEnd, /*masked=*/true, /*reversed=*/true,
             "masked_left");

  auto outElt = cast<MemRefType>(out.getType()).getElementType();
  auto finalize = TileFinalizeOp::create(
      rewriter, loc,
      TypeRange{RankedTensorType::get(accType.getShape(), outElt), rowType},
      state[0], state[1], state[2], rewriter.getF32FloatAttr(scale),
      op.getSoftcapAttr());
  // Tail rows of the last block are computed but not stored.
  Value rows = ib.min(ib.c(bm), ib.sub(seqQ, row0));
  writeBlock(ib, finalize.getOut(), out, b, head, row0, rows, split);
  if (lse)
    writeBlock(ib, finalize.getLse(), lse, b, head, row0, rows, split);

  rewriter.eraseOp(op);
  ++numTiled;
  return success();
}

void FlashTilePass::tileCombine(CombineOp op) {
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  IndexBuilder ib{rewriter, loc};
  Value part = op.getPartialOut(), partLse = op.getPartialLse();
  Value out = op.getOutput(), lse = op.getLse();
  Type f32 = rewriter.getF32Type();
  Value splits = ib.dim(part, 0);
  Value ninf = arith::ConstantOp::create(
      rewriter, loc,
      rewriter.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(0.0f));
  auto grid = scf::ParallelOp::create(
      rewriter, loc, ValueRange{ib.c(0), ib.c(0), ib.c(0)},
      ValueRange{ib.dim(part, 3), ib.dim(part, 2), ib.dim(part, 1)},
      ValueRange{ib.c(1), ib.c(1), ib.c(1)});
  grid->setAttr("flash.combine", rewriter.getUnitAttr());
  rewriter.setInsertionPointToStart(grid.getBody());
  Value r = grid.getInductionVars()[0], h = grid.getInductionVars()[1],
        b = grid.getInductionVars()[2];
  auto overSplits = [&](Value init,
                        function_ref<Value(OpBuilder &, Location, Value, Value)>
                            body) {
    return scf::ForOp::create(
               rewriter, loc, ib.c(0), splits, ib.c(1), ValueRange{init},
               [&](OpBuilder &nb, Location nloc, Value s, ValueRange args) {
                 scf::YieldOp::create(nb, nloc, body(nb, nloc, s, args[0]));
               })
        .getResult(0);
  };
  auto loadLse = [&](OpBuilder &nb, Location nloc, Value s) -> Value {
    return memref::LoadOp::create(nb, nloc, partLse, ValueRange{s, b, h, r});
  };
  // LSE = m + log(sum_s exp(LSE_s - m)); a row no split saw keeps -inf
  // (m = -inf is replaced by 0 so that no -inf - -inf = NaN appears).
  Value m = overSplits(ninf, [&](OpBuilder &nb, Location nloc, Value s,
                                 Value acc) -> Value {
    return arith::MaxNumFOp::create(nb, nloc, acc, loadLse(nb, nloc, s));
  });
  Value isEmpty = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ,
                                        m, ninf);
  Value mSafe = arith::SelectOp::create(rewriter, loc, isEmpty, zero, m);
  Value sum = overSplits(zero, [&](OpBuilder &nb, Location nloc, Value s,
                                   Value acc) -> Value {
    Value e = math::ExpOp::create(
        nb, nloc, arith::SubFOp::create(nb, nloc, loadLse(nb, nloc, s), mSafe));
    return arith::AddFOp::create(nb, nloc, acc, e);
  });
  Value total = arith::SelectOp::create(
      rewriter, loc, isEmpty, ninf,
      arith::AddFOp::create(rewriter, loc, mSafe,
                            math::LogOp::create(rewriter, loc, sum)));
  if (lse)
    memref::StoreOp::create(rewriter, loc, total, lse, ValueRange{b, h, r});
  Value totalSafe = arith::SelectOp::create(rewriter, loc, isEmpty, zero, total);
  // O = sum_s exp(LSE_s - LSE) O_s, one head-dim element per iteration.
  auto dims = scf::ParallelOp::create(rewriter, loc, ValueRange{ib.c(0)},
                                      ValueRange{ib.dim(part, 4)},
                                      ValueRange{ib.c(1)});
  rewriter.setInsertionPointToStart(dims.getBody());
  Value d = dims.getInductionVars()[0];
  Value acc = overSplits(zero, [&](OpBuilder &nb, Location nloc, Value s,
                                   Value a) -> Value {
    Value w = math::ExpOp::create(
        nb, nloc,
        arith::SubFOp::create(nb, nloc, loadLse(nb, nloc, s), totalSafe));
    Value x = memref::LoadOp::create(nb, nloc, part, ValueRange{s, b, h, r, d});
    return math::FmaOp::create(nb, nloc, w, x, a);
  });
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  if (outElt != f32)
    acc = arith::TruncFOp::create(rewriter, loc, outElt, acc);
  memref::StoreOp::create(rewriter, loc, acc, out, ValueRange{b, h, r, d});
  rewriter.eraseOp(op);
}

} // namespace
