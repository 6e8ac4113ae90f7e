//===- MaskKeys.h - Key bounds a mask_mod states in its IR ------*- C++ -*-===//
//
// The block-mask keys that a mask_mod's own IR proves, so that flash-tile can
// skip the KV blocks it masks whole and run no mask_mod on the blocks it
// keeps whole (what a `block_mask` hint, FlexAttention's BlockMask, says from
// the outside). The mask is read as and/or of key tests `k pred t` (a signed
// order; k is j, j + x, j - x or x - j, FlexAttention's `q_idx - kv_idx <=
// W`), where x and t do not depend on j and are monotone in the query row i
// (built from i, b, h, constants and reads of captures at b / h / constant
// indices with add, sub, max, min, a select on such a condition, division
// by a positive constant and casts between integer widths: index or any
// integer type, as an embedder's i32 / i64 index arithmetic is, j cast too);
// any other i1 is an opaque term (all keys may be visible, none is full). A program of rows [first, last] evaluates each t at
// both rows, so one bound over the program is its min or max. That needs no
// wrap between the two rows: each add / sub on a row-dependent value is
// checked at both rows, as are the test rewritten as one of j (t - x, and k
// at the first and the last key), each cast that may narrow (index_cast,
// trunci: cast back, it must give its operand; index is 32 bits in a
// kernel) and, for a test in another type than index, t and x taken to
// index; on a wrap the program takes the keys that say nothing (every block
// visited and masked).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_UTILS_MASKKEYS_H
#define FLASH_DIALECT_FLASH_UTILS_MASKKEYS_H

#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "llvm/ADT/DenseMap.h"

#include <optional>

namespace mlir::flash {

/// How a value of a mask_mod region varies with the query row i.
enum class RowOrder { Invariant, Increasing, Decreasing, Unknown, KeyDependent };

class MaskKeyBounds {
public:
  /// The analysis of `op`'s mask_mod (either form); nullopt when it has
  /// none or no term of it bounds the keys (every term opaque).
  static std::optional<MaskKeyBounds> analyze(AttentionOp op);

  /// Emits the keys of the program whose valid rows are [first, last] of
  /// sequence b, head h: `regionArgs` are the values for the region's
  /// b, h and captures (in the region's order, i and j left out).
  HintKeys<Value> emit(IndexBuilder &ib, ValueRange regionArgs, Value first,
                       Value last, Value seqK) const;

private:
  /// A key test as written, `k p t` with k one of j, j + x, j - x, x - j
  /// (x and t not depending on j), and as a test of j itself: `j pred b`
  /// with b = t, t - x, t + x, x - t, whose row order is `order`.
  struct Term {
    enum Kind { Opaque, True, False, Test, And, Or } kind;
    enum Shift { Bare, Plus, Minus, From };
    arith::CmpIPredicate pred = arith::CmpIPredicate::eq; // Test: j pred b.
    Value bound, offset;                                  // Test: t, x.
    Shift shift = Bare;
    RowOrder order = RowOrder::Unknown;
    SmallVector<Operation *> keyCasts; // Test: the casts from j to k's key.
    unsigned lhs = 0, rhs = 0;         // And / Or.
  };

  explicit MaskKeyBounds(Block *body) : body(body) {}
  unsigned termOf(Value v, llvm::DenseMap<Value, unsigned> &memo);

  Block *body;
  llvm::DenseMap<Value, RowOrder> order;
  SmallVector<Term> terms;
  unsigned root = 0;
};

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_UTILS_MASKKEYS_H
