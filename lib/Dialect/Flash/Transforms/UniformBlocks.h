//===- UniformBlocks.h - KV blocks a key-equality mask decides --*- C++ -*-===//
//
// FlexAttention's BlockMask decided in the kernel, for a mask_mod that holds
// a conjunct `F(b, h, i) == G(b, h, j)` (the document mask doc[i] == doc[j]):
// per program, F's minimum and maximum over its rows; per KV block, whether
// every key's G equals the rows' one value (the conjunct is true on the
// whole block: it runs without it) or lies outside the rows' range (false on
// the whole block, and the mask is an and of it: the block is skipped). All
// other blocks run the mask_mod element-wise. Neither decision needs the
// keys to be sorted: it is exact for any ids. F and G are the test's two
// sides, cloned from the mask_mod; F must not read j nor G i. The rows and
// keys a program evaluates are clamped into the sequences, as the element
// mask's are (a duplicate changes no minimum, maximum or "all").
//
// Before the KV loops, one scan over the program's keys (emitScan) gives
// the program's block-mask hint from the data, as FlexAttention's
// create_block_mask does once per sequence: the first and last key whose G
// lies in the rows' range, and the same interval as visible when the rows
// share one F and every key between those two has it. flash-tile's runs then
// skip the blocks outside without loading them and run the blocks inside
// the whole interval with no mask at all; only the blocks between are
// decided one by one.
//
// The IR is tile-level and target-neutral: a 1-D linalg.generic per side,
// and-/min-/max-reductions of it into 0-d tensors, tensor.extract, and
// scf.if around the flash.tile_update (flash-to-gpu spreads the 1-D tiles
// over a warp's lanes, #flash.frag<spread>); the scan is an scf.for over
// chunks of keys carrying 1-D partial results, reduced once after it
// (spread over the whole program, #flash.frag<cta>).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_UNIFORMBLOCKS_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_UNIFORMBLOCKS_H

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <optional>

namespace mlir::flash {

class UniformKeyTest {
public:
  /// The first `F(i) == G(j)` conjunct of `op`'s mask_mod (memref form), its
  /// root an and-tree of it; nullopt when there is none.
  static std::optional<UniformKeyTest> analyze(AttentionOp op);

  /// F's minimum and maximum over rows [row0, row0 + bm) clamped to Sq - 1.
  struct Rows {
    Value lo, hi;
  };
  /// Whether the conjunct is false on every element of the block (`empty`)
  /// or true on every one (`full`).
  struct Blocks {
    Value empty, full;
  };

  /// `modArgs`: the values of the region's b, h and captures (i and j left
  /// out), as flash-tile passes them.
  Rows emitRows(OpBuilder &b, Location loc, ValueRange modArgs, Value row0,
                int64_t bm, Value seqQ) const;
  Blocks emitBlock(OpBuilder &b, Location loc, ValueRange modArgs,
                   const Rows &rows, Value col0, int64_t bn, Value seqK) const;

  /// Keys per iteration of the scan: a multiple of 128, 256, 384 and 512,
  /// so that every program size of the GPU configs holds each key of a
  /// chunk once (#flash.frag<cta>).
  static constexpr int64_t kScanChunk = 3072;
  /// The hint of the program's keys [keyLo, keyHi) (clamped into [0, Sk)
  /// by the caller): vlo / vhi the first key / one past the last whose G
  /// lies in [rows.lo, rows.hi] (vlo >= vhi: none), and flo / fhi the same
  /// when rows.lo == rows.hi and every key in between has G == lo (else an
  /// empty interval). Keys outside [vlo, vhi) fail the conjunct; those in
  /// [flo, fhi) pass it. Without `full` the whole interval is not sought
  /// (flo = fhi = 0).
  HintKeys<Value> emitScan(OpBuilder &b, Location loc, ValueRange modArgs,
                           const Rows &rows, Value keyLo, Value keyHi,
                           bool full) const;

  /// True when the mask_mod is the conjunct alone (a full block then runs
  /// no mask_mod at all).
  bool isWholeMask() const { return whole; }
  /// Replaces the conjunct by `true` in `mask`, a clone of the mask_mod's
  /// body (same op order), for the blocks it keeps whole.
  void dropFrom(Region &mask) const;

private:
  UniformKeyTest(Block *body, arith::CmpIOp test, bool rowOnLhs, bool whole,
                 unsigned position)
      : body(body), test(test), rowOnLhs(rowOnLhs), whole(whole),
        position(position) {}
  /// Clones the side `side` of the test with i or j set to `at`.
  Value cloneSide(OpBuilder &b, Value side, ValueRange modArgs, Value at,
                  bool isRow) const;

  Block *body;
  mutable arith::CmpIOp test;
  bool rowOnLhs, whole;
  unsigned position;
};

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_UNIFORMBLOCKS_H
