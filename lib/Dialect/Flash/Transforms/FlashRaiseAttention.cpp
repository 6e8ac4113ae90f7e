//===- FlashRaiseAttention.cpp - Raise decomposed attention to flash ------===//
//
// flash-raise-attention: recognises scaled dot-product attention written as
// tensor ops, the way frontends emit it (torch-mlir's decomposition of
// aten.scaled_dot_product_attention: S = Q·Kᵀ, a constant scale, an optional
// materialised causal mask, a softmax over the keys, O = P·V, with K/V heads
// repeated for GQA), and replaces it by one flash.attention. Matching walks
// back from the P·V contraction; constants and masks are read by a small
// interpreter of arith/linalg.index that samples the mask at (query, key)
// points (ScalarEval.h). Anything that is not exactly attention is left
// untouched.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/ScalarEval.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHRAISEATTENTION
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// A logit at or below this is a masked-out key: torch's masks use -inf,
/// Hugging Face's the lowest finite float; exp() of either is 0.
constexpr double kMaskedBelow = -1e30;
/// Bounds the walks through the IR (and the interpreter's recursion).
constexpr int kMaxDepth = 64;

//===----------------------------------------------------------------------===//
// Looking through reshapes and elementwise generics
//===----------------------------------------------------------------------===//

/// Strips reshapes between [B, H, S, D] and [B*H, S, D] (what frontends put
/// around linalg.batch_matmul): elementwise ops and last-dim softmaxes
/// commute with them. Sets `*reshaped` when one was stripped.
Value peelBatchReshape(Value v, bool *reshaped = nullptr) {
  for (int i = 0; i < kMaxDepth; ++i) {
    SmallVector<ReassociationIndices> groups;
    Value src;
    if (auto c = v.getDefiningOp<tensor::CollapseShapeOp>()) {
      groups = c.getReassociationIndices();
      src = c.getSrc();
    } else if (auto e = v.getDefiningOp<tensor::ExpandShapeOp>()) {
      groups = e.getReassociationIndices();
      src = e.getSrc();
    } else {
      return v;
    }
    if (groups.size() != 3 || groups[0].size() != 2 || groups[1].size() != 1 ||
        groups[2].size() != 1)
      return v;
    if (reshaped)
      *reshaped = true;
    v = src;
  }
  return v;
}

/// The generic computing `v` element by element (parallel loops, one result
/// through the identity map, the init only giving the shape), or null.
linalg::GenericOp elementwiseProducer(Value v) {
  auto g = v.getDefiningOp<linalg::GenericOp>();
  if (!g || !g.hasPureTensorSemantics() || g.getNumResults() != 1 ||
      g.getNumParallelLoops() != g.getNumLoops() ||
      !g.getIndexingMapsArray().back().isIdentity() ||
      g.payloadUsesValueFromOperand(g.getDpsInitOperand(0)))
    return {};
  return g;
}

/// A scalar SSA value inside the body of a linalg.generic.
struct Elem {
  Value v;
  linalg::GenericOp op;
};

Elem yieldOf(linalg::GenericOp g) {
  return {g.getBody()->getTerminator()->getOperand(0), g};
}

/// Float casts are looked through: the kernel computes in f32 anyway.
Elem stripCasts(Elem e) {
  while (Operation *def = e.v.getDefiningOp()) {
    if (!isa<arith::ExtFOp, arith::TruncFOp>(def))
      break;
    e.v = def->getOperand(0);
  }
  return e;
}

/// The input operand whose block argument `e` is, or null.
OpOperand *readOperand(Elem e) {
  auto arg = dyn_cast<BlockArgument>(e.v);
  if (!arg || arg.getOwner() != e.op.getBody() ||
      arg.getArgNumber() >= e.op.getNumDpsInputs())
    return nullptr;
  return e.op.getDpsInputOperand(arg.getArgNumber());
}

/// The tensor `e` reads through the identity map (batch reshapes stripped),
/// or null.
Value wholeRead(Elem e) {
  OpOperand *o = readOperand(stripCasts(e));
  if (!o || !isa<RankedTensorType>(o->get().getType()) ||
      !e.op.getMatchingIndexingMap(o).isIdentity())
    return {};
  return peelBatchReshape(o->get());
}

/// Follows `e` into the elementwise generics it reads whole, so that fused
/// and unfused chains look alike.
Elem skip(Elem e) {
  for (int i = 0; i < kMaxDepth; ++i) {
    e = stripCasts(e);
    Value t = wholeRead(e);
    linalg::GenericOp g = t ? elementwiseProducer(t) : nullptr;
    if (!g)
      return e;
    e = yieldOf(g);
  }
  return e;
}

/// (d0, ..., d{n-2}) or (d0, ..., d{n-2}, 0): one value per row, broadcast
/// along the last (key) loop.
bool isRowMap(AffineMap map, unsigned numLoops) {
  if (map.getNumDims() != numLoops || numLoops < 2 ||
      map.getNumResults() < numLoops - 1 || map.getNumResults() > numLoops)
    return false;
  for (unsigned i = 0; i + 1 < numLoops; ++i)
    if (map.getResult(i) != getAffineDimExpr(i, map.getContext()))
      return false;
  if (map.getNumResults() == numLoops) {
    auto c = dyn_cast<AffineConstantExpr>(map.getResult(numLoops - 1));
    return c && c.getValue() == 0;
  }
  return true;
}

/// The tensor `e` reads as a row vector, or null.
Value rowRead(Elem e) {
  OpOperand *o = readOperand(stripCasts(e));
  if (!o || !isRowMap(e.op.getMatchingIndexingMap(o), e.op.getNumLoops()))
    return {};
  return o->get();
}

//===----------------------------------------------------------------------===//
// Softmax, scores and contractions
//===----------------------------------------------------------------------===//

bool isZeroInit(Value init) {
  auto type = cast<RankedTensorType>(init.getType());
  SmallVector<int64_t> origin(type.getRank());
  FailureOr<EvalValue> v = evalElement(init, origin);
  return succeeded(v) && v->isFloat && v->f == 0.0;
}

/// `y` combines the block arguments `a` and `acc` as max(a, acc).
bool isMaxOf(Value y, Value a, Value acc) {
  auto is = [&](Value x, Value z) {
    return (x == a && z == acc) || (x == acc && z == a);
  };
  if (isa_and_present<arith::MaximumFOp, arith::MaxNumFOp>(y.getDefiningOp()))
    return is(y.getDefiningOp()->getOperand(0),
              y.getDefiningOp()->getOperand(1));
  auto sel = y.getDefiningOp<arith::SelectOp>();
  auto cmp = sel ? sel.getCondition().getDefiningOp<arith::CmpFOp>() : nullptr;
  if (!cmp || !is(cmp.getLhs(), cmp.getRhs()))
    return false;
  using P = arith::CmpFPredicate;
  P p = cmp.getPredicate();
  bool greater = p == P::OGT || p == P::OGE || p == P::UGT || p == P::UGE;
  bool less = p == P::OLT || p == P::OLE || p == P::ULT || p == P::ULE;
  // select(x > z, x, z) or select(x < z, z, x).
  return (greater && sel.getTrueValue() == cmp.getLhs() &&
          sel.getFalseValue() == cmp.getRhs()) ||
         (less && sel.getTrueValue() == cmp.getRhs() &&
          sel.getFalseValue() == cmp.getLhs());
}

/// If `t` is a row-wise max (`isMax`) or sum over the last dim of a tensor
/// X, with -inf (max) or 0 (sum) as the start, returns X.
Value matchRowReduction(Value t, bool isMax) {
  t = peelBatchReshape(t);
  // keepdim: [..., S] -> [..., S, 1].
  if (auto e = t.getDefiningOp<tensor::ExpandShapeOp>()) {
    SmallVector<ReassociationIndices> groups = e.getReassociationIndices();
    unsigned r = e.getResultType().getRank();
    if (groups.back().size() == 2 && e.getResultType().getDimSize(r - 1) == 1 &&
        llvm::all_of(ArrayRef(groups).drop_back(),
                     [](auto &g) { return g.size() == 1; }))
      t = e.getSrc();
  }
  auto op = t.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 1)
    return {};
  unsigned r = cast<OpResult>(t).getResultNumber(), n = op.getNumLoops();
  OpOperand *in = op.getDpsInputOperand(0), *init = op.getDpsInitOperand(r);
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  if (n < 2 || !op.getMatchingIndexingMap(in).isIdentity() ||
      !isRowMap(op.getMatchingIndexingMap(init), n) ||
      iters.back() != utils::IteratorType::reduction ||
      llvm::count(iters, utils::IteratorType::reduction) != 1)
    return {};
  Block *body = op.getBlock();
  Value y = body->getTerminator()->getOperand(r);
  Value a = body->getArgument(0), acc = body->getArgument(1 + r);
  auto add = y.getDefiningOp<arith::AddFOp>();
  bool ok = isMax ? isMaxOf(y, a, acc)
                  : add && ((add.getLhs() == a && add.getRhs() == acc) ||
                            (add.getLhs() == acc && add.getRhs() == a));
  SmallVector<int64_t> origin(
      cast<RankedTensorType>(init->get().getType()).getRank());
  FailureOr<EvalValue> start = evalElement(init->get(), origin);
  if (!ok || failed(start) || !start->isFloat ||
      (isMax ? start->f > kMaskedBelow : start->f != 0.0))
    return {};
  return peelBatchReshape(in->get());
}

/// Matches exp(X - rowmax(X)) at `e` and returns X.
Value matchExpShift(Elem e) {
  e = skip(e);
  auto exp = e.v.getDefiningOp<math::ExpOp>();
  if (!exp)
    return {};
  Elem diff = skip({exp.getOperand(), e.op});
  auto sub = diff.v.getDefiningOp<arith::SubFOp>();
  if (!sub)
    return {};
  Value x = wholeRead({sub.getLhs(), diff.op});
  Value max = rowRead({sub.getRhs(), diff.op});
  if (!x || !max || matchRowReduction(max, /*isMax=*/true) != x)
    return {};
  return x;
}

/// torch's stable softmax over the last dim, exp(X - max) / sum(exp(X -
/// max)), as separate or fused generics; returns X.
Value matchDecomposedSoftmax(Value p) {
  linalg::GenericOp g = elementwiseProducer(p);
  if (!g)
    return {};
  Elem e = skip(yieldOf(g));
  auto div = e.v.getDefiningOp<arith::DivFOp>();
  if (!div)
    return {};
  Value x = matchExpShift({div.getLhs(), e.op});
  Value sum = rowRead({div.getRhs(), e.op});
  Value summed = sum ? matchRowReduction(sum, /*isMax=*/false) : Value();
  linalg::GenericOp sg = summed ? elementwiseProducer(summed) : nullptr;
  if (!x || !sg || matchExpShift(yieldOf(sg)) != x)
    return {};
  return x;
}

/// `op` (in the body of `g`) multiplies a value by a loop-invariant
/// constant or divides it by one: returns the value and the factor. Factors
/// must be positive: a negative one after a -inf mask would unmask.
std::optional<std::pair<Elem, double>> matchScale(Operation *op,
                                                  linalg::GenericOp g) {
  if (!isa_and_present<arith::MulFOp, arith::DivFOp>(op))
    return std::nullopt;
  bool isMul = isa<arith::MulFOp>(op);
  Elem lhs{op->getOperand(0), g}, rhs{op->getOperand(1), g};
  std::optional<double> c = evalLoopInvariant(rhs.v, g);
  if (!c && isMul && (c = evalLoopInvariant(lhs.v, g)))
    std::swap(lhs, rhs);
  if (!c || !(*c > 0.0) || !std::isfinite(*c))
    return std::nullopt;
  return std::make_pair(lhs, isMul ? *c : 1.0 / *c);
}

/// What lies between the softmax input and S = Q·Kᵀ.
struct Scores {
  Value s;
  double scale = 1.0;
  bool causal = false;
};

/// Walks back from the softmax input `x` through constant multiplies and
/// divides and at most one causal mask (additive or select) to S.
LogicalResult matchScores(Value x, Scores &out) {
  linalg::GenericOp g = elementwiseProducer(x);
  if (!g) {
    out.s = x;
    return success();
  }
  Elem e = yieldOf(g);
  bool masked = false;
  // Records the mask at `ctx`, given as `visible`.
  auto addMask = [&](linalg::GenericOp ctx,
                     function_ref<FailureOr<bool>(ArrayRef<int64_t>)> visible) {
    if (masked)
      return failure();
    masked = true;
    FailureOr<MaskKind> kind = classifyMask(ctx, visible);
    if (failed(kind))
      return failure();
    out.causal = *kind == MaskKind::Causal;
    return success();
  };
  for (int step = 0; step < kMaxDepth; ++step) {
    e = stripCasts(e);
    if (Value t = wholeRead(e)) {
      if (linalg::GenericOp p = elementwiseProducer(t)) {
        e = yieldOf(p);
        continue;
      }
      out.s = t;
      return success();
    }
    Operation *op = e.v.getDefiningOp();
    if (!op)
      return failure();
    Elem lhs{op->getNumOperands() > 0 ? op->getOperand(0) : Value(), e.op};
    Elem rhs{op->getNumOperands() > 1 ? op->getOperand(1) : Value(), e.op};
    if (isa<arith::MulFOp, arith::DivFOp>(op)) {
      std::optional<std::pair<Elem, double>> scaled = matchScale(op, e.op);
      if (!scaled)
        return failure();
      e = scaled->first;
      out.scale *= scaled->second;
    } else if (isa<arith::AddFOp>(op)) {
      // One side is the additive mask: 0 where visible, <= kMaskedBelow not.
      linalg::GenericOp ctx = e.op;
      auto isMask = [&](Elem m) {
        return addMask(ctx, [&](ArrayRef<int64_t> idx) -> FailureOr<bool> {
          FailureOr<EvalValue> v = evalScalar(m.v, ctx, idx);
          if (failed(v) || !v->isFloat ||
              (v->f != 0.0 && !(v->f <= kMaskedBelow)))
            return failure();
          return v->f == 0.0;
        });
      };
      if (succeeded(evalScalar(rhs.v, ctx,
                               SmallVector<int64_t>(ctx.getNumLoops(), 0))))
        e = succeeded(isMask(rhs)) ? lhs : Elem{};
      else
        e = succeeded(isMask(lhs)) ? rhs : Elem{};
      if (!e.v)
        return failure();
    } else if (auto sel = dyn_cast<arith::SelectOp>(op)) {
      // select(visible, s, -inf) or select(masked, -inf, s).
      linalg::GenericOp ctx = e.op;
      std::optional<double> t = evalLoopInvariant(sel.getTrueValue(), ctx);
      std::optional<double> f = evalLoopInvariant(sel.getFalseValue(), ctx);
      bool trueMasks = t && *t <= kMaskedBelow;
      if (!trueMasks && !(f && *f <= kMaskedBelow))
        return failure();
      auto visible = [&](ArrayRef<int64_t> idx) -> FailureOr<bool> {
        FailureOr<EvalValue> c = evalScalar(sel.getCondition(), ctx, idx);
        if (failed(c))
          return failure();
        return bool(c->i) != trueMasks;
      };
      if (failed(addMask(ctx, visible)))
        return failure();
      e = {trueMasks ? sel.getFalseValue() : sel.getTrueValue(), ctx};
    } else {
      return failure();
    }
  }
  return failure();
}

/// A contraction out[b..., m, n] = sum_k lhs[b..., m, k] * rhs[...] from a
/// zero start, where rhs is [b..., n, k] (`rhsTransposed`) or [b..., k, n].
struct Contraction {
  Value lhs, rhs;
  bool rhsTransposed;
};

std::optional<Contraction> matchContraction(Value result) {
  auto op = result.getDefiningOp<linalg::LinalgOp>();
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op) ||
      !isZeroInit(op.getDpsInitOperand(0)->get()))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> dims =
      linalg::inferContractionDims(op);
  if (failed(dims) || dims->m.size() != 1 || dims->n.size() != 1 ||
      dims->k.size() != 1 || dims->batch.empty())
    return std::nullopt;
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  ArrayRef<AffineExpr> out = maps[2].getResults();
  MLIRContext *ctx = op.getContext();
  AffineExpr m = getAffineDimExpr(dims->m[0], ctx),
             n = getAffineDimExpr(dims->n[0], ctx),
             k = getAffineDimExpr(dims->k[0], ctx);
  unsigned r = out.size();
  if (r != dims->batch.size() + 2 || out[r - 2] != m || out[r - 1] != n)
    return std::nullopt;
  auto expect = [&](AffineExpr a, AffineExpr b) {
    SmallVector<AffineExpr> e(out.drop_back(2));
    e.push_back(a);
    e.push_back(b);
    return e;
  };
  if (maps[0].getResults() != ArrayRef(expect(m, k)))
    return std::nullopt;
  bool transposed = maps[1].getResults() == ArrayRef(expect(n, k));
  if (!transposed && maps[1].getResults() != ArrayRef(expect(k, n)))
    return std::nullopt;
  return Contraction{op.getDpsInputOperand(0)->get(),
                     op.getDpsInputOperand(1)->get(), transposed};
}

/// True if `perm` swaps the last two dims and keeps the others.
bool isLastTwoSwap(ArrayRef<int64_t> perm) {
  int64_t r = perm.size();
  for (int64_t i = 0; i < r; ++i)
    if (perm[i] != (i < r - 2 ? i : 2 * r - 3 - i))
      return false;
  return r >= 2;
}

/// Strips from a Q·Kᵀ or P·V operand the batch reshapes, last-two-dims
/// transposes (flipping `transposed`) and, with `scale`, constant scales.
Value peelOperand(Value v, bool &transposed, double *scale, bool &reshaped) {
  for (int i = 0; i < kMaxDepth; ++i) {
    v = peelBatchReshape(v, &reshaped);
    if (auto t = v.getDefiningOp<linalg::TransposeOp>()) {
      if (!isLastTwoSwap(t.getPermutation()))
        return v;
      transposed = !transposed;
      v = t.getInput();
      continue;
    }
    linalg::GenericOp g = elementwiseProducer(v);
    if (!g || g.getNumDpsInputs() < 1)
      return v;
    Elem y = stripCasts(yieldOf(g));
    // A generic transpose: yields its input read through a swap.
    if (OpOperand *o = readOperand(y)) {
      AffineMap map = g.getMatchingIndexingMap(o);
      SmallVector<int64_t> perm;
      for (AffineExpr e : map.getResults())
        if (auto d = dyn_cast<AffineDimExpr>(e))
          perm.push_back(d.getPosition());
      if (perm.size() != map.getNumDims() || !isLastTwoSwap(perm))
        return v;
      transposed = !transposed;
      v = o->get();
      continue;
    }
    std::optional<std::pair<Elem, double>> scaled =
        scale ? matchScale(y.v.getDefiningOp(), g) : std::nullopt;
    Value t = scaled ? wholeRead(scaled->first) : Value();
    if (!t)
      return v;
    *scale *= scaled->second;
    v = t;
  }
  return v;
}

/// K or V with heads repeated G times, torch's repeat_interleave / Hugging
/// Face's repeat_kv: [B, Hkv, S, D] -> broadcast [B, Hkv, G, S, D] ->
/// collapse [B, Hkv*G, S, D] (head h reads KV head h / G, flash's GQA).
/// Returns the unrepeated tensor and G, or `v` and 1.
std::pair<Value, int64_t> peelRepeatedHeads(Value v) {
  auto c = v.getDefiningOp<tensor::CollapseShapeOp>();
  SmallVector<ReassociationIndices> gqa = {{0}, {1, 2}, {3}, {4}};
  if (!c || c.getReassociationIndices() != gqa)
    return {v, 1};
  Value wide = c.getSrc();
  int64_t g = c.getSrcType().getDimSize(2);
  if (ShapedType::isDynamic(g))
    return {v, 1};
  if (auto b = wide.getDefiningOp<linalg::BroadcastOp>()) {
    if (b.getDimensions() == ArrayRef<int64_t>{2})
      return {b.getInput(), g};
    return {v, 1};
  }
  linalg::GenericOp gen = elementwiseProducer(wide);
  OpOperand *o =
      gen && gen.getNumDpsInputs() == 1 ? readOperand(yieldOf(gen)) : nullptr;
  if (!o)
    return {v, 1};
  MLIRContext *ctx = gen.getContext();
  auto d = [&](unsigned i) { return getAffineDimExpr(i, ctx); };
  ArrayRef<AffineExpr> res = gen.getMatchingIndexingMap(o).getResults();
  if (res == ArrayRef<AffineExpr>{d(0), d(1), d(3), d(4)})
    return {o->get(), g};
  // [B, Hkv, 1, S, D] read at (d0, d1, 0, d3, d4): unsqueeze + expand.
  auto e = o->get().getDefiningOp<tensor::ExpandShapeOp>();
  SmallVector<ReassociationIndices> left = {{0}, {1, 2}, {3}, {4}},
                                    right = {{0}, {1}, {2, 3}, {4}};
  if (e &&
      res == ArrayRef<AffineExpr>{d(0), d(1), getAffineConstantExpr(0, ctx),
                                  d(3), d(4)} &&
      e.getResultType().getDimSize(2) == 1 &&
      (e.getReassociationIndices() == left ||
       e.getReassociationIndices() == right))
    return {e.getSrc(), g};
  return {v, 1};
}

/// Dim `i` of `a` equals dim `j` of `b`: statically, or provably.
bool sameDim(Value a, int64_t i, Value b, int64_t j) {
  int64_t x = cast<ShapedType>(a.getType()).getDimSize(i);
  int64_t y = cast<ShapedType>(b.getType()).getDimSize(j);
  if (!ShapedType::isDynamic(x) && !ShapedType::isDynamic(y))
    return x == y;
  FailureOr<bool> eq = ValueBoundsConstraintSet::areEqual({a, i}, {b, j});
  return succeeded(eq) && *eq;
}

//===----------------------------------------------------------------------===//
// The patterns
//===----------------------------------------------------------------------===//

/// Raises attention rooted at its P·V contraction; the softmax form is the
/// subclass's part.
struct RaiseAttentionBase : OpInterfaceRewritePattern<linalg::LinalgOp> {
  RaiseAttentionBase(MLIRContext *ctx, llvm::Statistic &raised)
      : OpInterfaceRewritePattern(ctx), raised(raised) {}

  /// X if `p` is softmax(X) over the last dim, else null.
  virtual Value matchSoftmax(Value p) const = 0;

  LogicalResult matchAndRewrite(linalg::LinalgOp root,
                                PatternRewriter &rewriter) const override {
    if (root->getNumResults() != 1)
      return failure();
    std::optional<Contraction> pv = matchContraction(root->getResult(0));
    if (!pv || pv->rhsTransposed)
      return rewriter.notifyMatchFailure(root, "not a P·V contraction");
    bool reshaped = false;
    Value x = matchSoftmax(peelBatchReshape(pv->lhs, &reshaped));
    Scores scores;
    if (!x || failed(matchScores(x, scores)))
      return rewriter.notifyMatchFailure(root, "P is not softmax(scores)");
    std::optional<Contraction> qk = matchContraction(scores.s);
    if (!qk)
      return rewriter.notifyMatchFailure(root, "scores are not Q·Kᵀ");
    bool tq = false, tk = !qk->rhsTransposed, tv = false;
    Value q = peelOperand(qk->lhs, tq, &scores.scale, reshaped);
    Value kFull = peelOperand(qk->rhs, tk, &scores.scale, reshaped);
    Value vFull = peelOperand(pv->rhs, tv, /*scale=*/nullptr, reshaped);
    auto [k, gk] = peelRepeatedHeads(kFull);
    auto [v, gv] = peelRepeatedHeads(vFull);
    if (tq || tk || tv || gk != gv)
      return rewriter.notifyMatchFailure(root, "operand layouts");

    // Types: what flash.attention's verifier asks, checked first.
    auto qT = cast<RankedTensorType>(q.getType());
    auto kT = cast<RankedTensorType>(k.getType());
    auto vT = cast<RankedTensorType>(v.getType());
    auto rootT = cast<RankedTensorType>(root->getResult(0).getType());
    Type elt = qT.getElementType();
    int64_t rank = qT.getRank();
    if ((rank != 3 && rank != 4) || kT.getRank() != rank ||
        vT.getRank() != rank ||
        (rank == 3 && (gk != 1 || rootT.getRank() != 3)) ||
        !isa<Float16Type, BFloat16Type, Float32Type>(elt) ||
        kT.getElementType() != elt || vT.getElementType() != elt ||
        rootT.getElementType() != elt || qT.isDynamicDim(rank - 1) ||
        vT.isDynamicDim(rank - 1) ||
        qT.getDimSize(rank - 1) != kT.getDimSize(rank - 1))
      return rewriter.notifyMatchFailure(root, "operand types");
    if (!(scores.scale > 0.0 && std::isfinite(scores.scale) &&
          std::isfinite(float(scores.scale))))
      return rewriter.notifyMatchFailure(root, "scale not finite and > 0");
    // Reshapes could regroup [B, H]: then batch and heads must be shown
    // equal (heads alone suffice, the products being equal).
    if (reshaped && rank == 4) {
      for (Value other : {kFull, vFull})
        if (!sameDim(q, 1, other, 1) ||
            (!sameDim(q, 0, other, 0) && qT.isDynamicDim(1)))
          return rewriter.notifyMatchFailure(root, "batch/heads differ");
    }
    // torch's tril mask is top-left aligned, flash's causal bottom-right:
    // they agree when Sq == Sk.
    if (scores.causal && !sameDim(q, rank - 2, k, rank - 2))
      return rewriter.notifyMatchFailure(root, "causal with Sq != Sk");

    // Rank-3 chains become batch 1; the result goes back to the root's type.
    SmallVector<ReassociationIndices> batchGroups = {{0, 1}, {2}, {3}};
    SmallVector<int64_t> shape(qT.getShape());
    if (rank == 3)
      shape.insert(shape.begin(), 1);
    shape.back() = vT.getDimSize(rank - 1);
    auto resultT = RankedTensorType::get(shape, elt);
    RankedTensorType outT =
        rootT.getRank() == 3
            ? tensor::CollapseShapeOp::inferCollapsedType(resultT, batchGroups)
            : resultT;
    if (!tensor::CastOp::areCastCompatible(outT, rootT))
      return rewriter.notifyMatchFailure(root, "result type");

    Location loc = root.getLoc();
    auto toRank4 = [&](Value t) -> Value {
      if (rank == 4)
        return t;
      SmallVector<int64_t> shape4 = {1};
      llvm::append_range(shape4, cast<ShapedType>(t.getType()).getShape());
      return tensor::ExpandShapeOp::create(
          rewriter, loc, RankedTensorType::get(shape4, elt), t, batchGroups);
    };
    auto attn = AttentionOp::create(
        rewriter, loc, TypeRange{resultT}, toRank4(q), toRank4(k), toRank4(v),
        Value(), Value(), Value(), Value(), Value(), /*block_mask=*/Value(),
        /*captures=*/ValueRange(), ValueRange(),
        rewriter.getF32FloatAttr(scores.scale),
        scores.causal ? rewriter.getUnitAttr() : UnitAttr(),
        DenseI64ArrayAttr(), FloatAttr(), ConfigAttr(), IntegerAttr());
    Value o = attn.getResult(0);
    if (rootT.getRank() == 3)
      o = tensor::CollapseShapeOp::create(rewriter, loc, o, batchGroups);
    if (o.getType() != rootT)
      o = tensor::CastOp::create(rewriter, loc, rootT, o);
    rewriter.replaceOp(root, o);
    ++raised;
    return success();
  }

  llvm::Statistic &raised;
};

/// Softmax written as linalg.softmax over the last dim.
struct RaiseLinalgSoftmaxAttention : RaiseAttentionBase {
  using RaiseAttentionBase::RaiseAttentionBase;
  Value matchSoftmax(Value p) const override {
    auto sm = p.getDefiningOp<linalg::SoftmaxOp>();
    if (!sm ||
        int64_t(sm.getDimension()) != sm.getInputOperandType().getRank() - 1)
      return {};
    return peelBatchReshape(sm.getInput());
  }
};

/// Softmax written as max, subtract, exp, sum, divide (torch's _softmax).
struct RaiseDecomposedSoftmaxAttention : RaiseAttentionBase {
  using RaiseAttentionBase::RaiseAttentionBase;
  Value matchSoftmax(Value p) const override {
    return matchDecomposedSoftmax(p);
  }
};

struct FlashRaiseAttentionPass
    : flash::impl::FlashRaiseAttentionBase<FlashRaiseAttentionPass> {
  using Base::Base;

  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RaiseLinalgSoftmaxAttention, RaiseDecomposedSoftmaxAttention>(
        &getContext(), numRaised);
    // No folding and no region simplification: where nothing matches, the
    // IR stays as it was (only the raised chains' dead ops are erased).
    GreedyRewriteConfig config;
    config.enableFolding(false).setRegionSimplificationLevel(
        GreedySimplifyRegionLevel::Disabled);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      signalPassFailure();
  }
};

} // namespace
