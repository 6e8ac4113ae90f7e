//===- FlashBackwardRecompute.cpp - FA2's backward step as tile math ------===//
//
// flash-backward-recompute: expands flash.tile_grad into FlashAttention-2's
// backward step (FA2 flash_bwd_kernel.h) on static tensor tiles with linalg,
// arith and math. The idea it is named after: the attention probabilities
// are never stored by the forward; the backward recomputes them from the
// saved log-sum-exp, P = exp(s' - LSE), one multiply-add and one exp2 per
// element as in the forward. The score_mod's value and its derivative come
// from one element-wise generic (ModDerivative.h), so softcap, ALiBi and the
// user's region all enter dS through the same chain rule.
//
//===----------------------------------------------------------------------===//

#include "TileBuilder.h"
#include "TileMods.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Utils/ModDerivative.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHBACKWARDRECOMPUTE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

using utils::IteratorType;

/// A linalg.generic over [BM, BN] with two f32 results.
std::pair<Value, Value> generic2(
    TileBuilder &tb, ValueRange inputs, Value init0, Value init1,
    ArrayRef<AffineMap> maps,
    function_ref<std::pair<Value, Value>(OpBuilder &, Location, ValueRange)>
        body) {
  auto par = IteratorType::parallel;
  auto op = linalg::GenericOp::create(
      tb.b, tb.loc, TypeRange{init0.getType(), init1.getType()}, inputs,
      ValueRange{init0, init1}, maps, {par, par},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        auto [x, y] = body(nb, nloc, args);
        linalg::YieldOp::create(nb, nloc, ValueRange{x, y});
      });
  return {op.getResult(0), op.getResult(1)};
}

LogicalResult expandGrad(RewriterBase &rewriter, TileGradOp op) {
  TileBuilder tb{rewriter, op.getLoc()};
  auto par = IteratorType::parallel;
  int64_t bm = op.getQuery().getType().getDimSize(0);
  int64_t bn = op.getKey().getType().getDimSize(0);
  int64_t d = op.getQuery().getType().getDimSize(1);
  double scale = op.getScale().convertToDouble();
  Type elt = op.getQuery().getType().getElementType();
  const float inf = std::numeric_limits<float>::infinity();

  // S = Q K^T                                         (first tile GEMM)
  Value s = tb.matmul(op.getQuery(), op.getKey(), tb.zeros({bm, bn}),
                      /*transposeB=*/true);

  // s = scale * S; (s', s'_s) = score_mod and its derivative at (s, i, j);
  // s' = -inf where masked. The positions are clamped into the sequences
  // as the forward's are (the regions may index captures by them).
  Region &scoreMod = op.getScoreMod(), &maskMod = op.getMaskMod();
  Operation *user = op;
  bool failedMod = false;
  IndexBuilder ob{rewriter, op.getLoc()};
  Value row = op.getRow(), col = op.getCol();
  Value seqQ = op.getSeqQ(), seqK = op.getSeqK();
  Value lastRow = ob.sub(seqQ, ob.c(1)), lastCol = ob.sub(seqK, ob.c(1));
  bool masked = op.getMasked(), causal = op.getCausal();
  int64_t left, right;
  std::tie(left, right) = getWindowBounds(op.getWindow());
  auto [logit, slope] = generic2(
      tb, {}, s, tb.zeros({bm, bn}), {tb.id2(), tb.id2()},
      [&](OpBuilder &b, Location l, ValueRange a) -> std::pair<Value, Value> {
        IndexBuilder ib{b, l};
        Value x = arith::MulFOp::create(b, l, a[0], tb.f32(scale));
        Value g = tb.f32(1.0);
        Value i = ib.add(row, linalg::IndexOp::create(b, l, 0));
        Value j = ib.add(col, linalg::IndexOp::create(b, l, 1));
        Value ic = ib.min(i, lastRow), jc = ib.min(j, lastCol);
        if (!scoreMod.empty()) {
          FailureOr<ValueAndDerivative> vd =
              emitWithDerivative(b, scoreMod, {x, ic, jc}, user);
          if (failed(vd)) {
            failedMod = true;
            return {x, g};
          }
          x = vd->value;
          g = vd->derivative;
        }
        Value visible;
        if (!maskMod.empty())
          visible = inlineModRegion(b, maskMod, {ic, jc});
        // A masked step also drops the padded rows past Sq: unlike the
        // forward's, they would add to dK and dV.
        if (masked) {
          Value diag = diagonal(ib, i, ib.sub(seqK, seqQ));
          Value keys = keyVisible(ib, causal, left, right, diag, j, seqK);
          keys = ib.land(keys, ib.lt(i, seqQ));
          visible = visible ? ib.land(visible, keys) : keys;
        }
        if (visible)
          x = arith::SelectOp::create(b, l, visible, x, tb.f32(-inf));
        return {x, g};
      });
  if (failedMod)
    return failure();

  // lse2 = LSE * log2e, and +inf on a row that saw no key (LSE = -inf), so
  // that its P is exp2(-inf) = 0, as FA2 does.
  Value lse2 =
      tb.generic({op.getLse()}, tb.emptyLike(op.getLse()), {tb.id1(), tb.id1()},
                 {par}, [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value scaled =
                       arith::MulFOp::create(b, l, a[0], tb.f32(kLog2e));
                   return arith::SelectOp::create(b, l, isNegInf(b, l, a[0]),
                                                  tb.f32(inf), scaled);
                 });

  // P = exp2(s' * log2e - lse2)                       (one FFMA + EX2)
  Value p = tb.generic({lse2}, logit, {tb.rowOf2(), tb.id2()}, {par, par},
                       [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                         Value neg = arith::NegFOp::create(b, l, a[0]);
                         Value x = math::FmaOp::create(b, l, a[1],
                                                       tb.f32(kLog2e), neg);
                         return math::Exp2Op::create(b, l, x);
                       });
  auto convert = [&](Value t) {
    if (elt.isF32())
      return t;
    return tb.generic(
        {t}, tb.emptyLike(t, elt), {tb.id2(), tb.id2()}, {par, par},
        [&](OpBuilder &b, Location l, ValueRange a) {
          return arith::TruncFOp::create(b, l, elt, a[0]).getResult();
        });
  };

  // dV += P^T dO                                      (P in dO's type)
  Value dv = tb.matmul(convert(p), op.getGradOut(), op.getDv(),
                       /*transposeB=*/false, /*transposeA=*/true);

  // dP = dO V^T
  Value dp = tb.matmul(op.getGradOut(), op.getValue(), tb.zeros({bm, bn}),
                       /*transposeB=*/true);

  // dS = scale * P * (dP - D) * s'_s, and 0 where P is (a masked entry's
  // s'_s may be anything, even inf)
  Value ds =
      tb.generic({p, op.getDelta(), slope}, dp,
                 {tb.id2(), tb.rowOf2(), tb.id2(), tb.id2()}, {par, par},
                 [&](OpBuilder &b, Location l, ValueRange a) -> Value {
                   Value diff = arith::SubFOp::create(b, l, a[3], a[1]);
                   Value x = arith::MulFOp::create(b, l, a[0], diff);
                   x = arith::MulFOp::create(b, l, x, a[2]);
                   x = arith::MulFOp::create(b, l, x, tb.f32(scale));
                   Value zero = arith::CmpFOp::create(
                       b, l, arith::CmpFPredicate::OEQ, a[0], tb.f32(0.0));
                   return arith::SelectOp::create(b, l, zero, tb.f32(0.0), x);
                 });
  Value dsElt = convert(ds);

  // dK += dS^T Q
  Value dk = tb.matmul(dsElt, op.getQuery(), op.getDk(),
                       /*transposeB=*/false, /*transposeA=*/true);
  // dQ's part: dS K
  Value dq = tb.matmul(dsElt, op.getKey(), tb.zeros({bm, d}),
                       /*transposeB=*/false);
  rewriter.replaceOp(op, {dk, dv, dq});
  return success();
}

struct FlashBackwardRecomputePass
    : flash::impl::FlashBackwardRecomputeBase<FlashBackwardRecomputePass> {
  using Base::Base;

  void runOnOperation() override {
    IRRewriter rewriter(&getContext());
    SmallVector<TileGradOp> steps;
    getOperation()->walk([&](TileGradOp op) { steps.push_back(op); });
    for (TileGradOp op : steps) {
      rewriter.setInsertionPoint(op);
      numMasked += op.getMasked() ? 1 : 0;
      if (failed(expandGrad(rewriter, op)))
        return signalPassFailure();
      ++numSteps;
    }
  }
};

} // namespace
