//===- FlashTileBackward.cpp - flash-tile for flash.attention_backward ----===//
//
// The backward half of flash-tile: FlashAttention-2's backward as three
// grids (FA2 flash_bwd_launch_template.h), in the memref form:
//
//   delta  (Q row block, head, batch): D = rowsum(dO * O) into an f32
//          workspace, FA2's dot_do_o pre-pass.
//   kv     (KV block, KV head, batch): the program keeps its K and V block
//          and their dK / dV accumulators on chip and loops over the query
//          heads of its group and, for each, the Q row blocks that see the
//          block (causal and window bounds), the diagonal band masked and
//          the blocks that see every key unmasked, as the forward peels its
//          KV loop; each step is a flash.tile_grad whose dQ part is added
//          into an f32 workspace (flash.tile_accumulate, atomic on the GPU).
//   dq     (Q row block, head, batch): the f32 dQ converted to dQ's type.
//
// Softcap, ALiBi and the user's score_mod become one score_mod region of
// each step (TileMods.h), which flash-backward-recompute differentiates.
//
//===----------------------------------------------------------------------===//

#include "TileBackward.h"
#include "TileMods.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::flash;

namespace {

/// Moves the tensor form onto buffers, as the forward's toBufferForm does.
FailureOr<AttentionBackwardOp> toBufferForm(IRRewriter &rewriter,
                                            AttentionBackwardOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto toBuffer = [&](Value tensor) {
    return readOnlyBuffer(rewriter, loc, tensor);
  };
  Value q = toBuffer(op.getQuery()), k = toBuffer(op.getKey()),
        v = toBuffer(op.getValue());
  SmallVector<Value> captures = llvm::map_to_vector(op.getCaptures(), toBuffer);
  // dQ, dK and dV, sized from Q, K and V.
  SmallVector<Value> outs = allocResults(rewriter, op, {q, k, v});
  auto bufferOp = AttentionBackwardOp::create(
      rewriter, loc, TypeRange(), q, k, v, toBuffer(op.getOut()),
      toBuffer(op.getLse()), toBuffer(op.getGradOut()),
      toBuffer(op.getAlibiSlopes()), /*kv_lens=*/Value(),
      /*block_table=*/Value(), /*cu_seqlens_q=*/Value(),
      /*cu_seqlens_k=*/Value(), toBuffer(op.getBlockMask()), captures, outs,
      op.getScaleAttr(), op.getCausalAttr(), op.getWindowAttr(),
      op.getSoftcapAttr(), op.getConfigAttr(), op.getBlockMaskRowsAttr());
  if (failed(moveModsToBuffers(rewriter, op, bufferOp))) {
    rewriter.eraseOp(bufferOp);
    return failure();
  }
  replaceByBuffers(rewriter, op, outs);
  return bufferOp;
}

/// Emits the three grids of one memref-form op.
class BackwardTiler {
public:
  BackwardTiler(IRRewriter &rewriter, AttentionBackwardOp op)
      : rewriter(rewriter), op(op), loc(op.getLoc()), ib{rewriter, loc},
        config(op.getConfigAttr()), bm(config.getBlockM()),
        bn(config.getBlockN()) {}

  void emit();

private:
  RankedTensorType tileOf(Value src, int64_t rows) {
    auto type = cast<MemRefType>(src.getType());
    return RankedTensorType::get({rows, type.getDimSize(kDimPos)},
                                 type.getElementType());
  }
  RankedTensorType rowsOf(int64_t rows) {
    return RankedTensorType::get({rows}, rewriter.getF32Type());
  }
  Value zeros(ArrayRef<int64_t> shape) {
    Type f32 = rewriter.getF32Type();
    Value empty = tensor::EmptyOp::create(rewriter, loc, shape, f32);
    Value zero =
        arith::ConstantOp::create(rewriter, loc, rewriter.getF32FloatAttr(0));
    return linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  }
  /// An f32 workspace shaped like Q's [B, H, S] (and, with `dim`, its head
  /// dim).
  Value workspace(bool withDim, bool zeroed);
  /// A grid of `step` with three axes; its body is the insertion point.
  GridOp grid(ValueRange ub, BackwardStep step);
  /// `t` in `elt` (a linalg.generic of truncf), or `t` when it is f32.
  Value convert(Value t, Type elt);
  /// Rows of a block starting at `start` that lie before `limit`.
  Value rowsIn(Value start, Value limit, int64_t rows) {
    return ib.min(ib.c(rows), ib.sub(limit, start));
  }
  /// The Q row blocks [lo, hi) whose rows see a key of the block starting
  /// at `col0` under causal and window (all of them otherwise).
  std::pair<Value, Value> queryBlocks(Value col0, Value numM);
  /// The row blocks of [lo, hi) whose steps need no mask (a contiguous
  /// range, empty when the KV block has keys past Sk).
  std::pair<Value, Value> unmaskedBlocks(Value col0, Value lo, Value hi);

  void emitDelta(Value delta);
  void emitKV(Value delta, Value dqAcc);
  void emitDQ(Value dqAcc);

  IRRewriter &rewriter;
  AttentionBackwardOp op;
  Location loc;
  IndexBuilder ib;
  ConfigAttr config;
  int64_t bm, bn;
  Value batch, headsQ, headsK, seqQ, seqK, numM;
};

Value BackwardTiler::workspace(bool withDim, bool zeroed) {
  auto q = cast<MemRefType>(op.getQuery().getType());
  SmallVector<int64_t> shape(q.getShape().take_front(3));
  if (withDim)
    shape.push_back(q.getDimSize(kDimPos));
  SmallVector<Value> sizes;
  for (int64_t i = 0; i < 3; ++i)
    if (ShapedType::isDynamic(shape[i]))
      sizes.push_back(ib.dim(op.getQuery(), i));
  auto ws = WorkspaceOp::create(
      rewriter, loc, MemRefType::get(shape, rewriter.getF32Type()), sizes);
  if (zeroed)
    ws.setZeroed(true);
  return ws;
}

GridOp BackwardTiler::grid(ValueRange ub, BackwardStep step) {
  auto g = GridOp::create(rewriter, loc, ub);
  g.setConfigAttr(config);
  g.setCausal(op.getCausal());
  g.setWindowAttr(op.getWindowAttr());
  g.setScaleAttr(rewriter.getF32FloatAttr(float(op.getEffectiveScale())));
  g.setSoftcapAttr(op.getSoftcapAttr());
  g.setBackwardAttr(BackwardStepAttr::get(rewriter.getContext(), step));
  rewriter.setInsertionPointToStart(&g.getBody().front());
  return g;
}

Value BackwardTiler::convert(Value t, Type elt) {
  auto type = cast<RankedTensorType>(t.getType());
  if (type.getElementType() == elt)
    return t;
  Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), elt);
  auto map = rewriter.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> par(type.getRank(),
                                       utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{empty.getType()}, ValueRange{t},
             ValueRange{empty}, ArrayRef<AffineMap>{map, map}, par,
             [&](OpBuilder &b, Location l, ValueRange a) {
               linalg::YieldOp::create(
                   b, l, ValueRange{arith::TruncFOp::create(b, l, elt, a[0])});
             })
      .getResult(0);
}

std::pair<Value, Value> BackwardTiler::queryBlocks(Value col0, Value numM) {
  // Query i sees key j when j <= i + off + right (right = 0 under causal)
  // and j >= i + off - left (bottom-right: off = Sk - Sq).
  Value off = ib.sub(seqK, seqQ);
  int64_t left = op.getWindowLeft(), right = op.getWindowRight();
  if (op.getCausal())
    right = right < 0 ? 0 : std::min<int64_t>(right, 0);
  Value lo = ib.c(0), hi = numM;
  if (right >= 0) {
    // The first row that sees the block's first key.
    Value first = ib.max(ib.sub(ib.sub(col0, off), ib.c(right)), ib.c(0));
    lo = ib.min(ib.divui(first, ib.c(bm)), numM);
  }
  if (left >= 0) {
    // One past the last row that sees the block's last key.
    Value lastKey = ib.sub(ib.min(ib.add(col0, ib.c(bn)), seqK), ib.c(1));
    Value end = ib.add(ib.sub(lastKey, off), ib.c(left + 1));
    hi = ib.min(ib.ceilDiv(ib.max(end, ib.c(0)), ib.c(bm)), numM);
    hi = ib.max(hi, lo);
  }
  return {lo, hi};
}

std::pair<Value, Value> BackwardTiler::unmaskedBlocks(Value col0, Value lo,
                                                      Value hi) {
  // A step needs no mask when its rows lie in Sq, its keys in Sk, and every
  // key is visible to every row: the block's last key to the first row
  // (j <= i + off + right) and its first key to the last row (j >= i + off
  // - left).
  Value off = ib.sub(seqK, seqQ);
  int64_t left = op.getWindowLeft(), right = op.getWindowRight();
  if (op.getCausal())
    right = right < 0 ? 0 : std::min<int64_t>(right, 0);
  Value uLo = lo;
  Value uHi = ib.floorDiv(seqQ, ib.c(bm));
  if (right >= 0) {
    Value first = ib.sub(ib.sub(ib.add(col0, ib.c(bn - 1)), off), ib.c(right));
    uLo = ib.ceilDiv(ib.max(first, ib.c(0)), ib.c(bm));
  }
  if (left >= 0) {
    Value last = ib.add(ib.sub(ib.sub(col0, off), ib.c(bm - 1)), ib.c(left));
    uHi = ib.min(uHi, ib.add(ib.floorDiv(last, ib.c(bm)), ib.c(1)));
  }
  Value keysWhole = ib.le(ib.add(col0, ib.c(bn)), seqK);
  uHi = ib.select(keysWhole, uHi, uLo);
  uLo = ib.min(ib.max(uLo, lo), hi);
  uHi = ib.min(ib.max(uHi, uLo), hi);
  return {uLo, uHi};
}

void BackwardTiler::emitDelta(Value delta) {
  OpBuilder::InsertionGuard guard(rewriter);
  GridOp g = grid({numM, headsQ, batch}, BackwardStep::Delta);
  Value m = g.getInductionVars()[0], h = g.getInductionVars()[1],
        b = g.getInductionVars()[2];
  Value row0 = ib.mul(m, ib.c(bm));
  Value o =
      TileLoadOp::create(rewriter, loc, tileOf(op.getOut(), bm), TileRole::O,
                         op.getOut(), b, h, row0, seqQ, Value(), Value());
  Value dO = TileLoadOp::create(rewriter, loc, tileOf(op.getGradOut(), bm),
                                TileRole::DO, op.getGradOut(), b, h, row0, seqQ,
                                Value(), Value());
  // D[r] = sum_c dO[r, c] * O[r, c], in f32.
  MLIRContext *ctx = rewriter.getContext();
  AffineMap id2 = AffineMap::getMultiDimIdentityMap(2, ctx);
  AffineMap row = AffineMap::get(2, 0, {rewriter.getAffineDimExpr(0)}, ctx);
  Type f32 = rewriter.getF32Type();
  Value d = linalg::GenericOp::create(
                rewriter, loc, TypeRange{rowsOf(bm)}, ValueRange{dO, o},
                ValueRange{zeros({bm})}, ArrayRef<AffineMap>{id2, id2, row},
                {utils::IteratorType::parallel, utils::IteratorType::reduction},
                [&](OpBuilder &nb, Location l, ValueRange a) {
                  Value x = a[0], y = a[1];
                  if (!x.getType().isF32()) {
                    x = arith::ExtFOp::create(nb, l, f32, x);
                    y = arith::ExtFOp::create(nb, l, f32, y);
                  }
                  Value p = arith::MulFOp::create(nb, l, x, y);
                  linalg::YieldOp::create(
                      nb, l, ValueRange{arith::AddFOp::create(nb, l, a[2], p)});
                })
                .getResult(0);
  TileStoreOp::create(rewriter, loc, TileRole::Delta, d, delta,
                      ValueRange{b, h, row0}, rowsIn(row0, seqQ, bm));
}

void BackwardTiler::emitKV(Value delta, Value dqAcc) {
  OpBuilder::InsertionGuard guard(rewriter);
  Value numN = ib.ceilDiv(seqK, ib.c(bn));
  GridOp g = grid({numN, headsK, batch}, BackwardStep::KV);
  Value n = g.getInductionVars()[0], hk = g.getInductionVars()[1],
        b = g.getInductionVars()[2];
  Value col0 = ib.mul(n, ib.c(bn));
  Value k =
      TileLoadOp::create(rewriter, loc, tileOf(op.getKey(), bn), TileRole::K,
                         op.getKey(), b, hk, col0, seqK, Value(), Value());
  Value v =
      TileLoadOp::create(rewriter, loc, tileOf(op.getValue(), bn), TileRole::V,
                         op.getValue(), b, hk, col0, seqK, Value(), Value());
  auto kType = cast<RankedTensorType>(k.getType());
  auto vType = cast<RankedTensorType>(v.getType());
  SmallVector<Value> init = {zeros(kType.getShape()), zeros(vType.getShape())};
  Value group = ib.divui(headsQ, headsK);
  auto [mLo, mHi] = queryBlocks(col0, numM);
  float scale = float(op.getEffectiveScale());
  std::optional<double> softcap;
  if (op.getSoftcap())
    softcap = op.getSoftcap()->convertToDouble();

  // GQA: the query heads of the group, then their row blocks: the masked
  // band, the blocks that see every key of this one unmasked, the band on
  // the other side.
  auto heads = scf::ForOp::create(rewriter, loc, ib.c(0), group, ib.c(1), init);
  rewriter.setInsertionPointToStart(heads.getBody());
  Value h = ib.add(ib.mul(hk, group), heads.getInductionVar());
  auto [uLo, uHi] = unmaskedBlocks(col0, mLo, mHi);
  ModSources src{&op.getScoreMod(), &op.getMaskMod(), op.getAlibiSlopes(),
                 op.getCaptures(), softcap};
  auto run = [&](Value lo, Value hi, bool masked, ValueRange carried) {
    auto blocks = scf::ForOp::create(rewriter, loc, lo, hi, ib.c(1), carried);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(blocks.getBody());
    Value row0 = ib.mul(blocks.getInductionVar(), ib.c(bm));
    auto load = [&](TileRole role, Value src, RankedTensorType type) -> Value {
      return TileLoadOp::create(rewriter, loc, type, role, src, b, h, row0,
                                seqQ, Value(), Value());
    };
    Value q = load(TileRole::Q, op.getQuery(), tileOf(op.getQuery(), bm));
    Value dO = load(TileRole::DO, op.getGradOut(), tileOf(op.getGradOut(), bm));
    Value lse = load(TileRole::Lse, op.getLse(), rowsOf(bm));
    Value d = load(TileRole::Delta, delta, rowsOf(bm));
    Type f32 = rewriter.getF32Type();
    auto step = TileGradOp::create(
        rewriter, loc,
        TypeRange{kType.clone(f32), vType.clone(f32),
                  cast<RankedTensorType>(q.getType()).clone(f32)},
        q, k, v, dO, lse, d, blocks.getRegionIterArgs()[0],
        blocks.getRegionIterArgs()[1], row0, col0, seqQ, seqK,
        rewriter.getF32FloatAttr(scale), op.getCausalAttr(), op.getWindowAttr(),
        masked ? rewriter.getUnitAttr() : UnitAttr());
    buildModRegions(rewriter, src, step.getScoreMod(), step.getMaskMod(), loc,
                    ModContext{b, h, seqQ, seqK});
    TileAccumulateOp::create(rewriter, loc, TileRole::DQ, step.getDq(), dqAcc,
                             b, h, row0, rowsIn(row0, seqQ, bm));
    scf::YieldOp::create(rewriter, loc,
                         ValueRange{step.getNewDk(), step.getNewDv()});
    return blocks.getResults();
  };
  ValueRange carried = heads.getRegionIterArgs();
  carried = run(mLo, uLo, /*masked=*/true, carried);
  carried = run(uLo, uHi, /*masked=*/false, carried);
  carried = run(uHi, mHi, /*masked=*/true, carried);
  scf::YieldOp::create(rewriter, loc, carried);

  rewriter.setInsertionPointAfter(heads);
  Value count = rowsIn(col0, seqK, bn);
  auto [dkOut, dvOut] =
      std::make_pair(op.getGradients()[1], op.getGradients()[2]);
  TileStoreOp::create(rewriter, loc, TileRole::DK,
                      convert(heads.getResult(0), kType.getElementType()),
                      dkOut, ValueRange{b, hk, col0}, count);
  TileStoreOp::create(rewriter, loc, TileRole::DV,
                      convert(heads.getResult(1), vType.getElementType()),
                      dvOut, ValueRange{b, hk, col0}, count);
}

void BackwardTiler::emitDQ(Value dqAcc) {
  OpBuilder::InsertionGuard guard(rewriter);
  GridOp g = grid({numM, headsQ, batch}, BackwardStep::DQ);
  Value m = g.getInductionVars()[0], h = g.getInductionVars()[1],
        b = g.getInductionVars()[2];
  Value row0 = ib.mul(m, ib.c(bm));
  Value acc = TileLoadOp::create(rewriter, loc, tileOf(dqAcc, bm), TileRole::DQ,
                                 dqAcc, b, h, row0, seqQ, Value(), Value());
  Value dq = op.getGradients()[0];
  TileStoreOp::create(
      rewriter, loc, TileRole::DQ,
      convert(acc, cast<MemRefType>(dq.getType()).getElementType()), dq,
      ValueRange{b, h, row0}, rowsIn(row0, seqQ, bm));
}

void BackwardTiler::emit() {
  rewriter.setInsertionPoint(op);
  Value q = op.getQuery(), k = op.getKey();
  batch = ib.dim(q, kBatchPos);
  headsQ = ib.dim(q, kHeadsPos);
  headsK = ib.dim(k, kHeadsPos);
  seqQ = ib.dim(q, kSeqPos);
  seqK = ib.dim(k, kSeqPos);
  numM = ib.ceilDiv(seqQ, ib.c(bm));
  Value delta = workspace(/*withDim=*/false, /*zeroed=*/false);
  Value dqAcc = workspace(/*withDim=*/true, /*zeroed=*/true);
  emitDelta(delta);
  emitKV(delta, dqAcc);
  emitDQ(dqAcc);
  rewriter.eraseOp(op);
}

} // namespace

LogicalResult mlir::flash::tileBackward(AttentionBackwardOp op) {
  if (op.getCuSeqlensQ())
    return op.emitOpError("flash-tile does not lower 'cu_seqlens' yet");
  if (op.getBlockMask())
    return op.emitOpError("flash-tile does not tile the backward with a "
                          "block_mask hint yet");
  if (!op.getConfigAttr())
    return op.emitOpError("has no #flash.config: run flash-plan first or "
                          "write one by hand");
  IRRewriter rewriter(op.getContext());
  if (!op.hasPureBufferSemantics()) {
    FailureOr<AttentionBackwardOp> bufferOp = toBufferForm(rewriter, op);
    if (failed(bufferOp))
      return failure();
    op = *bufferOp;
  }
  BackwardTiler(rewriter, op).emit();
  return success();
}
