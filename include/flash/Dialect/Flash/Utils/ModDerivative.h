//===- ModDerivative.h - The derivative of a score_mod as IR ----*- C++ -*-===//
//
// flash.attention_backward needs score_mod'(s), the derivative of the
// user's score_mod region with respect to its logit argument, wherever it
// needs the score_mod itself (dS = P * (dP - D) * score_mod'). This
// utility writes that derivative as IR next to a clone of the region, by
// forward-mode differentiation (the chain rule, op by op) over the arith
// and math ops a region may hold; softcap and ALiBi, which the tile passes
// write as score_mod ops, go through the same rules. Captures, indices and
// anything computed from them alone are constants to it. An op whose
// result depends on the logit and that has no rule is reported at that op.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_UTILS_MODDERIVATIVE_H
#define FLASH_DIALECT_FLASH_UTILS_MODDERIVATIVE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/Region.h"

namespace mlir::flash {

/// A region's yielded value and its derivative with respect to one block
/// argument.
struct ValueAndDerivative {
  Value value;
  Value derivative;
};

/// The first op of the single-block `region` whose result depends on block
/// argument `wrt` and that has no derivative rule, or null when the region
/// is differentiable with respect to it.
Operation *findNonDifferentiable(Region &region, unsigned wrt = 0);

/// findNonDifferentiable, reported: an error at the offending op (with a
/// note at `user`, the op the derivative is for); success when there is
/// none.
LogicalResult checkDifferentiable(Region &region, Operation *user,
                                  unsigned wrt = 0);

/// Clones the body of the single-block `region` (ended by flash.yield) at
/// the insertion point of `b`, its block arguments mapped to `args`, and
/// writes beside each cloned op that depends on `args[wrt]` its derivative
/// with respect to it. Returns the yielded value and its derivative (0 of
/// the value's type when the value does not depend on `args[wrt]`). Fails
/// with checkDifferentiable's diagnostic, writing nothing.
FailureOr<ValueAndDerivative> emitWithDerivative(OpBuilder &b, Region &region,
                                                 ValueRange args,
                                                 Operation *user,
                                                 unsigned wrt = 0);

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_UTILS_MODDERIVATIVE_H
