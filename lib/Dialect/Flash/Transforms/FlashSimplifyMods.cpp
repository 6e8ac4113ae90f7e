//===- FlashSimplifyMods.cpp - Exact simplifications of mod regions -------===//
//
// flash-simplify-mods: rewrites inside the score_mod / mask_mod regions of
// flash.attention that change no result and save work per score element,
// run by both pipelines before flash-tile. One so far: two signed bounds on
// the same value joined by `or` / `and` become one compare against the
// max / min of the bounds (a prefix-LM mask, `j <= i or j < prefix`, is
// `j <= max(i, prefix - 1)`). The bounds depend on the row and the captures
// only, so per element one compare and one select remain, where LLVM's
// instruction selection splits the select of an `or` into two selects per
// element (two FSEL in the SASS of the prefix-LM kernel's KV loop).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHSIMPLIFYMODS
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

using Pred = arith::CmpIPredicate;

/// A signed bound on x: x < t or x <= t (upper), x > t or x >= t (lower).
struct Bound {
  Value t;
  bool upper, strict;
};

/// `cmp` as a bound on `x` (on either side), if it is a signed order.
std::optional<Bound> boundOn(arith::CmpIOp cmp, Value x) {
  Pred p = cmp.getPredicate();
  bool left = cmp.getLhs() == x;
  if (!left && cmp.getRhs() != x)
    return std::nullopt;
  Value t = left ? cmp.getRhs() : cmp.getLhs();
  // With x on the right, t < x is the lower bound x > t, and so on.
  switch (p) {
  case Pred::slt:
    return Bound{t, left, true};
  case Pred::sle:
    return Bound{t, left, false};
  case Pred::sgt:
    return Bound{t, !left, true};
  case Pred::sge:
    return Bound{t, !left, false};
  default:
    return std::nullopt;
  }
}

/// or / and of two signed bounds on one value in the same direction -> one
/// compare: x <= a or x <= b is x <= max(a, b), x < a and x < b is
/// x < min(a, b), and so on. A strict and an inclusive bound are made alike
/// by t -/+ 1, kept at t where that would wrap (at the type's own width:
/// index is 64-bit on the CPU, 32-bit in the kernels).
template <typename JoinOp>
struct JoinBounds : OpRewritePattern<JoinOp> {
  using OpRewritePattern<JoinOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(JoinOp op,
                                PatternRewriter &rewriter) const override {
    auto a = op.getLhs().template getDefiningOp<arith::CmpIOp>();
    auto b = op.getRhs().template getDefiningOp<arith::CmpIOp>();
    if (!a || !b)
      return failure();
    for (Value x : {a.getLhs(), a.getRhs()}) {
      std::optional<Bound> ba = boundOn(a, x), bb = boundOn(b, x);
      if (!ba || !bb || ba->upper != bb->upper ||
          ba->t.getType() != bb->t.getType())
        continue;
      rewrite(op, x, *ba, *bb, rewriter);
      return success();
    }
    return failure();
  }

  void rewrite(JoinOp op, Value x, Bound ba, Bound bb,
               PatternRewriter &rewriter) const {
    Location loc = op.getLoc();
    bool isOr = std::is_same_v<JoinOp, arith::OrIOp>;
    bool upper = ba.upper;
    // Mixed strictness: `or` makes both inclusive, `and` both strict. Then
    // where t -/+ 1 would wrap and t is kept, the kept bound is implied by
    // (or) or implies (and) the other one, which max / min then keeps.
    bool strict = ba.strict == bb.strict ? ba.strict : !isOr;
    auto adjust = [&](Bound bd) -> Value {
      if (bd.strict == strict)
        return bd.t;
      // x < t is x <= t - 1 (upper, to inclusive), x <= t is x < t + 1
      // (upper, to strict); lower bounds mirror it.
      bool decrement = upper == !strict;
      Value one = arith::ConstantOp::create(
          rewriter, loc, rewriter.getIntegerAttr(bd.t.getType(), 1));
      Value moved =
          decrement ? arith::SubIOp::create(rewriter, loc, bd.t, one).getResult()
                    : arith::AddIOp::create(rewriter, loc, bd.t, one)
                          .getResult();
      Value wrapped = arith::CmpIOp::create(
          rewriter, loc, decrement ? Pred::sgt : Pred::slt, moved, bd.t);
      return arith::SelectOp::create(rewriter, loc, wrapped, bd.t, moved);
    };
    Value ta = adjust(ba), tb = adjust(bb);
    // or widens the bound, and narrows it: upper or -> max, upper and -> min.
    bool takeMax = isOr == upper;
    Value t = takeMax ? arith::MaxSIOp::create(rewriter, loc, ta, tb).getResult()
                      : arith::MinSIOp::create(rewriter, loc, ta, tb).getResult();
    Pred p = upper ? (strict ? Pred::slt : Pred::sle)
                   : (strict ? Pred::sgt : Pred::sge);
    rewriter.replaceOpWithNewOp<arith::CmpIOp>(op, p, x, t);
  }
};

struct FlashSimplifyModsPass
    : flash::impl::FlashSimplifyModsBase<FlashSimplifyModsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<JoinBounds<arith::OrIOp>, JoinBounds<arith::AndIOp>>(
        &getContext());
    FrozenRewritePatternSet frozen(std::move(patterns));
    WalkResult result = getOperation()->walk([&](AttentionOp op) {
      for (Region *region : {&op.getScoreMod(), &op.getMaskMod()})
        if (!region->empty() &&
            failed(applyPatternsGreedily(*region, frozen)))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

} // namespace
