//===- ScalarEval.h - Evaluate data-independent linalg scalars -*- C++ -*-===//
//
// A small interpreter for the scalars of linalg bodies that read no tensor
// data: constants, fills, linalg.index and arith on them, e.g. a
// materialised attention mask or a scale. flash-raise-attention reads masks
// and scales with it at sample points. The same op semantics evaluate a
// flash.attention score_mod / mask_mod region in double for flash-run's
// reference: the user's own IR, not our lowering of it, is the oracle.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_UTILS_SCALAREVAL_H
#define FLASH_DIALECT_FLASH_UTILS_SCALAREVAL_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mlir::flash {

/// A float, or an integer (index, iN; i1 as 0 or 1).
struct EvalValue {
  double f = 0;
  int64_t i = 0;
  bool isFloat = false;
};

/// `v`, a value of the body of `ctx` (or, with a null `ctx`, a constant
/// outside any body), at the loop point `idx`. Fails on anything that
/// reads data or that the interpreter does not know.
FailureOr<EvalValue> evalScalar(Value v, linalg::GenericOp ctx,
                                ArrayRef<int64_t> idx, int depth = 0);

/// The result of the one-result scalar op `op` (arith, math) on the operand
/// values `in`; fails on an op it does not know.
FailureOr<EvalValue> evalOp(Operation *op, ArrayRef<EvalValue> in);

/// Reads element `indices` of the capture that is block argument
/// `argNumber` of the region being evaluated (fails when out of bounds).
using CaptureLoadFn =
    function_ref<FailureOr<EvalValue>(unsigned argNumber,
                                      ArrayRef<int64_t> indices)>;

/// Runs the single-block `region` (ending in flash.yield) on the block
/// arguments `args`, its memref.load / tensor.extract of block arguments
/// going to `load`; returns the yielded value. Fails on an op it does not
/// know.
FailureOr<EvalValue> evalRegion(Region &region, ArrayRef<EvalValue> args,
                                CaptureLoadFn load);

/// Element `point` of the tensor `t`, which must be built from constants,
/// fills, broadcasts, reshapes and elementwise generics of such scalars.
FailureOr<EvalValue> evalElement(Value t, ArrayRef<int64_t> point,
                                 int depth = 0);

/// The float `v` of `ctx`'s body if it is data-independent and the same at
/// the first and a far loop point, else nullopt.
std::optional<double> evalLoopInvariant(Value v, linalg::GenericOp ctx);

enum class MaskKind { None, Causal };

/// Classifies the predicate `visible(idx)` over the loops of `ctx`, whose
/// last two are query i and key j, by sampling the first rows and columns,
/// the last ones of a static size and far ones of a dynamic size, at batch
/// and head 0 and 1: every key visible, or exactly j <= i (a causal mask as
/// torch's tril(ones) gives) in every batch and head; else failure.
FailureOr<MaskKind>
classifyMask(linalg::GenericOp ctx,
             function_ref<FailureOr<bool>(ArrayRef<int64_t>)> visible);

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_UTILS_SCALAREVAL_H
