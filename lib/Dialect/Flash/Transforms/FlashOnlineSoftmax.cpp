//===- FlashOnlineSoftmax.cpp - Explicit online softmax -------------------===//
//
// flash-online-softmax: expands flash.tile_update into the two tile GEMMs and
// the online-softmax recurrence of FlashAttention-2 (FA2 softmax.h), and
// flash.tile_finalize into its epilogue, on static tensor tiles with linalg,
// arith and math. The score scale is folded into the exponent so that each
// probability costs one multiply-add and one exp2, as in FA2.
//
// Units: u is the score the kernel keeps (Q K^T, or the logit under
// `logits`, or the capped logit with softcap); the logit is c * u with
// c = scale (c = 1 under softcap or `logits`). The running max m is kept in
// u units and scaled only inside the exponent.
//
// score_mod and mask_mod regions are inlined into one element-wise generic
// on the score tile, after softcap and before the causal/window mask, on
// every block (masked or not).
//
//===----------------------------------------------------------------------===//

#include "TileBuilder.h"
#include "TileMods.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHONLINESOFTMAX
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

using utils::IteratorType;

void expandUpdate(RewriterBase &rewriter, TileUpdateOp op) {
  TileBuilder tb{rewriter, op.getLoc()};
  auto par = IteratorType::parallel, red = IteratorType::reduction;
  int64_t bm = op.getQuery().getType().getDimSize(0);
  int64_t bn = op.getKey().getType().getDimSize(0);
  float scale = op.getScale().convertToFloat();
  std::optional<APFloat> softcap = op.getSoftcap();
  double c = op.getLogitFactor();

  // S = Q K^T                                        (first tile GEMM)
  Value s = tb.matmul(op.getQuery(), op.getKey(), tb.zeros({bm, bn}),
                      /*transposeB=*/true);

  // S = S * scale                                    (logits only)
  if (op.getLogits())
    s = tb.generic({}, s, {tb.id2()}, {par, par},
                   [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                     return arith::MulFOp::create(b, l, a[0], tb.f32(scale));
                   });

  // S = softcap * tanh(S * scale / softcap)          (softcap only)
  if (softcap) {
    double cap = softcap->convertToDouble();
    s = tb.generic({}, s, {tb.id2()}, {par, par},
                   [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                     Value x =
                         arith::MulFOp::create(b, l, a[0], tb.f32(scale / cap));
                     Value t = math::TanhOp::create(b, l, x);
                     return arith::MulFOp::create(b, l, t, tb.f32(cap));
                   });
  }

  // S[r, c] = score_mod(S[r, c], i, j), then -inf unless mask_mod(i, j),
  // at i = row + r, j = col + c clamped into the sequences: the regions may
  // index captures by them, and the tail rows and keys they would otherwise
  // see are discarded or masked anyway. An unmasked block lies inside the
  // key sequence (flash-tile proved it fully visible), so only a masked
  // one clamps j: a per-element min the GPU would pay on every block.
  Region &scoreMod = op.getScoreMod(), &maskMod = op.getMaskMod();
  if (!scoreMod.empty() || !maskMod.empty()) {
    IndexBuilder ob{rewriter, op.getLoc()};
    Value lastRow = ob.sub(op.getSeqQ(), ob.c(1));
    Value row = op.getRow(), col = op.getCol();
    bool clampCol = op.getMasked();
    Value lastCol = clampCol ? ob.sub(op.getSeqK(), ob.c(1)) : Value();
    s = tb.generic(
        {}, s, {tb.id2()}, {par, par},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          IndexBuilder ib{b, l};
          Value i = ib.min(ib.add(row, linalg::IndexOp::create(b, l, 0)),
                           lastRow);
          Value j = ib.add(col, linalg::IndexOp::create(b, l, 1));
          if (clampCol)
            j = ib.min(j, lastCol);
          Value x = a[0];
          if (!scoreMod.empty())
            x = inlineModRegion(b, scoreMod, {x, i, j});
          if (!maskMod.empty()) {
            Value visible = inlineModRegion(b, maskMod, {i, j});
            Value ninf = tb.f32(-std::numeric_limits<float>::infinity());
            x = arith::SelectOp::create(b, l, visible, x, ninf);
          }
          return x;
        });
  }

  // S[r, j] = -inf unless key col + j is visible to query row + r
  if (op.getMasked()) {
    int64_t left, right;
    std::tie(left, right) = getWindowBounds(op.getWindow());
    bool causal = op.getCausal();
    Value row = op.getRow(), col = op.getCol();
    Value seqQ = op.getSeqQ(), seqK = op.getSeqK();
    s = tb.generic(
        {}, s, {tb.id2()}, {par, par},
        [&](OpBuilder &b, Location l, ValueRange a) -> Value {
          IndexBuilder ib{b, l};
          Value i = ib.add(row, linalg::IndexOp::create(b, l, 0));
          Value j = ib.add(col, linalg::IndexOp::create(b, l, 1));
          // Bottom-right alignment: query i's diagonal is key i + Sk - Sq.
          Value diag = diagonal(ib, i, ib.sub(seqK, seqQ));
          Value visible = keyVisible(ib, causal, left, right, diag, j, seqK);
          Value ninf = tb.f32(-std::numeric_limits<float>::infinity());
          return arith::SelectOp::create(b, l, visible, a[0], ninf);
        });
  }

  // m_new = max(m, rowmax(S))
  Value mOld = op.getMax();
  Value mNew = tb.generic({s}, mOld, {tb.id2(), tb.rowOf2()}, {par, red},
                          [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                            return arith::MaxNumFOp::create(b, l, a[0], a[1]);
                          });

  // ms = m_new * scale * log2e, or 0 while the row has seen no key (so that
  // exp2(-inf - ms) is 0 rather than NaN, as FA2's max_scaled)
  Value cLog2e = tb.f32(c * kLog2e);
  Value ms =
      tb.generic({mNew}, tb.emptyLike(mNew), {tb.id1(), tb.id1()}, {par},
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value scaled = arith::MulFOp::create(b, l, a[0], cLog2e);
                   return arith::SelectOp::create(b, l, isNegInf(b, l, a[0]),
                                                  tb.f32(0), scaled);
                 });

  // P = exp2(S * scale * log2e - ms)                  (one FFMA + EX2)
  Value p = tb.generic({ms}, s, {tb.rowOf2(), tb.id2()}, {par, par},
                       [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value negMs = arith::NegFOp::create(b, l, a[0]);
                         Value x =
                             math::FmaOp::create(b, l, a[1], cLog2e, negMs);
                         return math::Exp2Op::create(b, l, x);
                       });

  // alpha = exp2(m * scale * log2e - ms)              (rescale factor)
  Value alpha =
      tb.generic({mOld, ms}, tb.emptyLike(mOld), {tb.id1(), tb.id1(), tb.id1()},
                 {par}, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value negMs = arith::NegFOp::create(b, l, a[1]);
                   Value x = math::FmaOp::create(b, l, a[0], cLog2e, negMs);
                   return math::Exp2Op::create(b, l, x);
                 });

  // l_new = l * alpha + rowsum(P)
  Value lScaled =
      tb.generic({alpha}, op.getSum(), {tb.id1(), tb.id1()}, {par},
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   return arith::MulFOp::create(b, l, a[1], a[0]).getResult();
                 });
  Value lNew =
      tb.generic({p}, lScaled, {tb.id2(), tb.rowOf2()}, {par, red},
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   return arith::AddFOp::create(b, l, a[1], a[0]).getResult();
                 });

  // acc = acc * alpha
  Value acc =
      tb.generic({alpha}, op.getAcc(), {tb.rowOf2(), tb.id2()}, {par, par},
                 [&](OpBuilder &b, Location l, ValueRange a) {
                   return arith::MulFOp::create(b, l, a[1], a[0]).getResult();
                 });

  // P = convert(P) to V's element type                (in registers, FA2)
  Type vElt = op.getValue().getType().getElementType();
  if (!vElt.isF32())
    p = tb.generic(
        {p}, tb.emptyLike(p, vElt), {tb.id2(), tb.id2()}, {par, par},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return arith::TruncFOp::create(b, l, vElt, a[0]).getResult();
        });

  // acc += P V                                        (second tile GEMM)
  acc = tb.matmul(p, op.getValue(), acc, /*transposeB=*/false);

  rewriter.replaceOp(op, {acc, mNew, lNew});
}

void expandFinalize(RewriterBase &rewriter, TileFinalizeOp op) {
  TileBuilder tb{rewriter, op.getLoc()};
  auto par = IteratorType::parallel;
  double c = op.getLogitFactor();
  Type outElt = op.getOut().getType().getElementType();

  // O = acc / l, and 0 for a row that saw no key (l == 0), never NaN
  Value out =
      tb.generic({op.getAcc(), op.getSum()}, tb.emptyLike(op.getAcc(), outElt),
                 {tb.id2(), tb.rowOf2(), tb.id2()}, {par, par},
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value zero = tb.f32(0.0);
                   Value empty = arith::CmpFOp::create(
                       b, l, arith::CmpFPredicate::OEQ, a[1], zero);
                   Value inv = arith::DivFOp::create(b, l, tb.f32(1.0), a[1]);
                   inv = arith::SelectOp::create(b, l, empty, zero, inv);
                   Value o = arith::MulFOp::create(b, l, a[0], inv);
                   if (!outElt.isF32())
                     o = arith::TruncFOp::create(b, l, outElt, o);
                   return o;
                 });

  // LSE = m * scale + log(l), and -inf (log 0) for a row that saw no key
  Value lse = tb.generic(
      {op.getMax(), op.getSum()}, tb.emptyLike(op.getMax()),
      {tb.id1(), tb.id1(), tb.id1()}, {par},
      [&](OpBuilder &b, Location l, ValueRange a) -> Value {
        Value empty = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OEQ,
                                            a[1], tb.f32(0.0));
        Value logit = arith::MulFOp::create(b, l, a[0], tb.f32(c));
        Value v =
            arith::AddFOp::create(b, l, logit, math::LogOp::create(b, l, a[1]));
        return arith::SelectOp::create(
            b, l, empty, tb.f32(-std::numeric_limits<float>::infinity()), v);
      });
  rewriter.replaceOp(op, {out, lse});
}

struct FlashOnlineSoftmaxPass
    : flash::impl::FlashOnlineSoftmaxBase<FlashOnlineSoftmaxPass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> tileOps;
    getOperation()->walk([&](Operation *op) {
      if (isa<TileUpdateOp, TileFinalizeOp>(op))
        tileOps.push_back(op);
    });
    for (Operation *op : tileOps) {
      if (auto update = dyn_cast<TileUpdateOp>(op)) {
        rewriter.setInsertionPoint(update);
        numMasked += update.getMasked() ? 1 : 0;
        expandUpdate(rewriter, update);
        ++numUpdates;
      } else if (auto finalize = dyn_cast<TileFinalizeOp>(op)) {
        rewriter.setInsertionPoint(finalize);
        expandFinalize(rewriter, finalize);
        ++numFinalized;
      }
    }
  }
};

} // namespace
