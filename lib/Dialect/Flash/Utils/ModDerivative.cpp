//===- ModDerivative.cpp - The derivative of a score_mod as IR ------------===//
//
// Forward-mode differentiation of a score_mod region: each cloned op whose
// operands carry a derivative (a tangent) gets its tangent written right
// after it, by the op's rule below (ruleOf says which ops have one). The
// rules are the calculus of the op, stated on the clone's own operands and
// result, so a tangent reuses what the primal computed (tanh' from the
// tanh, exp' from the exp, the quotient in a division's rule).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/ModDerivative.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Debug.h"
#include "llvm/Support/MathExtras.h"

#define DEBUG_TYPE "flash-mod-derivative"

using namespace mlir;
using namespace mlir::flash;

namespace {

/// How an op's derivative follows from its operands'.
enum class Rule {
  /// The chain rule below (deriveOp).
  Chain,
  /// Piecewise constant in its float operands (comparisons, conversions to
  /// integers, rounding): derivative 0 wherever it exists.
  Zero,
  /// No derivative known: an error when the logit reaches it.
  None,
};

Rule ruleOf(Operation *op) {
  if (isa<arith::AddFOp, arith::SubFOp, arith::MulFOp, arith::DivFOp,
          arith::NegFOp, arith::MaximumFOp, arith::MaxNumFOp, arith::MinimumFOp,
          arith::MinNumFOp, arith::SelectOp, arith::ExtFOp, arith::TruncFOp,
          math::FmaOp, math::TanhOp, math::ExpOp, math::Exp2Op, math::ExpM1Op,
          math::LogOp, math::Log2Op, math::Log1pOp, math::SqrtOp, math::RsqrtOp,
          math::SinOp, math::CosOp, math::AbsFOp>(op))
    return Rule::Chain;
  if (isa<arith::CmpFOp, arith::FPToSIOp, arith::FPToUIOp, math::FloorOp,
          math::CeilOp, math::RoundOp, math::RoundEvenOp, math::TruncOp>(op))
    return Rule::Zero;
  return Rule::None;
}

/// Writes the tangents of one cloned op.
class TangentBuilder {
public:
  TangentBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value constant(Type t, double v) {
    return arith::ConstantOp::create(b, loc, FloatAttr::get(t, v));
  }
  /// Tangent arithmetic with a null Value as 0, so that a term whose
  /// operand does not depend on the logit is never written.
  Value add(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value neg(Value x) { return x ? arith::NegFOp::create(b, loc, x) : x; }
  Value mul(Value x, Value y) {
    return x && y ? arith::MulFOp::create(b, loc, x, y) : Value();
  }
  Value div(Value x, Value y) {
    return x ? arith::DivFOp::create(b, loc, x, y) : x;
  }
  Value orZero(Value x, Type t) { return x ? x : constant(t, 0.0); }
  /// select(cond, dx, dy), each side materialised (0 where null).
  Value select(Value cond, Value x, Value y, Type t) {
    if (!x && !y)
      return Value();
    return arith::SelectOp::create(b, loc, cond, orZero(x, t), orZero(y, t));
  }
  Value cmp(arith::CmpFPredicate p, Value x, Value y) {
    return arith::CmpFOp::create(b, loc, p, x, y);
  }

  /// The tangent of `op`'s result, `d[i]` the tangent of operand i (null:
  /// 0). Only for ops whose rule is Rule::Chain.
  Value derive(Operation *op, ArrayRef<Value> d) {
    Value r = op->getNumResults() ? op->getResult(0) : Value();
    Type t = r ? r.getType() : Type();
    auto x = [&](unsigned i) { return op->getOperand(i); };
    const double ln2 = llvm::numbers::ln2;
    return TypeSwitch<Operation *, Value>(op)
        .Case<arith::AddFOp>([&](auto) { return add(d[0], d[1]); })
        .Case<arith::SubFOp>([&](auto) { return add(d[0], neg(d[1])); })
        .Case<arith::MulFOp>(
            [&](auto) { return add(mul(d[0], x(1)), mul(x(0), d[1])); })
        // (a / b)' = (a' - (a / b) b') / b
        .Case<arith::DivFOp>(
            [&](auto) { return div(add(d[0], neg(mul(r, d[1]))), x(1)); })
        .Case<arith::NegFOp>([&](auto) { return neg(d[0]); })
        .Case<math::FmaOp>([&](auto) {
          return add(add(mul(d[0], x(1)), mul(x(0), d[1])), d[2]);
        })
        // The derivative of the operand the max (min) returns; ties take
        // the first, as the forward's value does not tell them apart.
        .Case<arith::MaximumFOp, arith::MaxNumFOp>([&](auto) {
          return select(cmp(arith::CmpFPredicate::OGE, x(0), x(1)), d[0], d[1],
                        t);
        })
        .Case<arith::MinimumFOp, arith::MinNumFOp>([&](auto) {
          return select(cmp(arith::CmpFPredicate::OLE, x(0), x(1)), d[0], d[1],
                        t);
        })
        .Case<arith::SelectOp>(
            [&](auto) { return select(x(0), d[1], d[2], t); })
        .Case<arith::ExtFOp>([&](auto) -> Value {
          return arith::ExtFOp::create(b, loc, t, d[0]);
        })
        .Case<arith::TruncFOp>([&](auto) -> Value {
          return arith::TruncFOp::create(b, loc, t, d[0]);
        })
        // tanh' = 1 - tanh^2
        .Case<math::TanhOp>([&](auto) {
          return mul(d[0], add(constant(t, 1.0), neg(mul(r, r))));
        })
        .Case<math::ExpOp>([&](auto) { return mul(d[0], r); })
        .Case<math::Exp2Op>(
            [&](auto) { return mul(d[0], mul(r, constant(t, ln2))); })
        .Case<math::ExpM1Op>(
            [&](auto) { return mul(d[0], add(r, constant(t, 1.0))); })
        .Case<math::LogOp>([&](auto) { return div(d[0], x(0)); })
        .Case<math::Log2Op>(
            [&](auto) { return div(d[0], mul(x(0), constant(t, ln2))); })
        .Case<math::Log1pOp>(
            [&](auto) { return div(d[0], add(x(0), constant(t, 1.0))); })
        // sqrt' = 1 / (2 sqrt), rsqrt' = -rsqrt^3 / 2
        .Case<math::SqrtOp>(
            [&](auto) { return div(d[0], mul(constant(t, 2.0), r)); })
        .Case<math::RsqrtOp>([&](auto) {
          return mul(d[0], mul(constant(t, -0.5), mul(r, mul(r, r))));
        })
        .Case<math::SinOp>([&](auto) -> Value {
          return mul(d[0], math::CosOp::create(b, loc, x(0)));
        })
        .Case<math::CosOp>([&](auto) -> Value {
          return neg(mul(d[0], math::SinOp::create(b, loc, x(0))));
        })
        .Case<math::AbsFOp>([&](auto) {
          return select(cmp(arith::CmpFPredicate::OLT, x(0), constant(t, 0.0)),
                        neg(d[0]), d[0], t);
        })
        .Default([](Operation *) -> Value {
          llvm_unreachable("derive called on an op without a chain rule");
        });
  }

private:
  OpBuilder &b;
  Location loc;
};

/// True when `op` or an op nested in it reads a value of `carrying`.
bool readsAny(Operation *op, const DenseSet<Value> &carrying) {
  bool found = false;
  op->walk([&](Operation *nested) {
    for (Value operand : nested->getOperands())
      found |= carrying.contains(operand);
  });
  return found;
}

} // namespace

Operation *mlir::flash::findNonDifferentiable(Region &region, unsigned wrt) {
  Block &block = region.front();
  DenseSet<Value> carrying{block.getArgument(wrt)};
  for (Operation &op : block) {
    if (isa<YieldOp>(op) || !readsAny(&op, carrying))
      continue;
    Rule rule = op.getNumRegions() ? Rule::None : ruleOf(&op);
    if (rule == Rule::None)
      return &op;
    if (rule == Rule::Chain)
      carrying.insert(op.getResult(0));
  }
  return nullptr;
}

LogicalResult mlir::flash::checkDifferentiable(Region &region, Operation *user,
                                               unsigned wrt) {
  Operation *op = findNonDifferentiable(region, wrt);
  if (!op)
    return success();
  InFlightDiagnostic diag =
      op->emitError("'")
      << op->getName()
      << "' has no derivative with respect to the logit: the backward pass "
         "differentiates a score_mod by the chain rule over arith and math "
         "ops (add, sub, mul, div, neg, fma, max, min, select, extf, truncf, "
         "tanh, exp, exp2, expm1, log, log2, log1p, sqrt, rsqrt, sin, cos, "
         "absf; comparisons, conversions to integers and rounding count as "
         "constant)";
  if (user)
    diag.attachNote(user->getLoc()) << "the score_mod of this op";
  return failure();
}

FailureOr<ValueAndDerivative>
mlir::flash::emitWithDerivative(OpBuilder &b, Region &region, ValueRange args,
                                Operation *user, unsigned wrt) {
  if (failed(checkDifferentiable(region, user, wrt)))
    return failure();
  Block &block = region.front();
  IRMapping map;
  map.map(block.getArguments(), args);
  // The tangents of the clone's values; the seed d(logit)/d(logit) = 1.
  DenseMap<Value, Value> tangent;
  Location loc = user ? user->getLoc() : region.getLoc();
  TangentBuilder tb(b, loc);
  tangent[args[wrt]] = tb.constant(args[wrt].getType(), 1.0);
  for (Operation &op : block) {
    if (auto yield = dyn_cast<YieldOp>(op)) {
      Value value = map.lookup(yield.getValues().front());
      Value d = tangent.lookup(value);
      return ValueAndDerivative{value, tb.orZero(d, value.getType())};
    }
    Operation *clone = b.clone(op, map);
    SmallVector<Value, 3> d;
    bool any = false;
    for (Value operand : clone->getOperands()) {
      d.push_back(tangent.lookup(operand));
      any |= bool(d.back());
    }
    if (!any || ruleOf(clone) != Rule::Chain)
      continue;
    // The builder inserts before a fixed point, so the tangent lands right
    // after its clone and before what is cloned next.
    Value dr = TangentBuilder(b, clone->getLoc()).derive(clone, d);
    LLVM_DEBUG(llvm::dbgs() << "tangent of " << *clone << "\n");
    if (dr)
      tangent[clone->getResult(0)] = dr;
  }
  return emitError(region.getLoc(), "score_mod region without flash.yield");
}
