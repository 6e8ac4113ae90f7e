//===- ColumnBounds.h - Key-position bound tests on fragments ---*- C++ -*-===//
//
// A mask body's tests of a key position j against a bound t (a prefix-LM's
// `j <= max(i, prefix - 1)`, a document's `j >= start[b]`) lowered per
// register as the register's column constant k against one value per row:
// j = J + k, so `j p t` is `k p (max(t, -1) - J)` (TileArith.h's
// keyTestBound), the compare takes k as an immediate and the per-register
// add of k is gone.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTOGPU_COLUMNBOUNDS_H
#define FLASH_CONVERSION_FLASHTOGPU_COLUMNBOUNDS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::flash::gpu_kernel {

/// The column bound tests of an element-wise body and their lowering.
class ColumnBounds {
public:
  /// Plans on `body`, whose column positions (J + linalg.index 1, J from
  /// outside the body) are `positions`: a position folds when every user
  /// is a signed order or (in)equality test with it on one side.
  ColumnBounds(Block &body, ArrayRef<Operation *> positions);

  /// The i1 value of `op` for the register whose column is J + k (J =
  /// `baseOf(position)`), or null when `op` is no folded test.
  Value lower(OpBuilder &b, Location loc, Operation &op, IRMapping &m,
              int64_t k, function_ref<Value(Operation *)> baseOf) const;

private:
  /// Per folded test: its position and whether j is its left operand.
  struct Form {
    Operation *position;
    bool left;
  };
  llvm::DenseMap<Operation *, Form> forms;
};

} // namespace mlir::flash::gpu_kernel

#endif // FLASH_CONVERSION_FLASHTOGPU_COLUMNBOUNDS_H
