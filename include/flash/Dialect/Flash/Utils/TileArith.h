//===- TileArith.h - Index arithmetic of the FA2 tiling ---------*- C++ -*-===//
//
// The index formulas of attention's masking, each written once over an
// arithmetic policy: which KV blocks a program visits and which of them need
// an element mask (kvRanges, narrowed by a block-mask hint in
// applyBlockMask), whether key j is visible to query i (keyVisible), and
// a key test as a compare of a register's constant column (keyTestBound).
// IntArith evaluates them on integers (flash-tile's static
// iteration counts); IndexBuilder emits them as arith ops, which is how
// flash-tile's loop bounds, flash-online-softmax's mask and flash-to-gpu's
// register-level mask are built. (The reference library and the checkers
// keep their own statement on purpose: an oracle must not share the code
// it checks.)
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_UTILS_TILEARITH_H
#define FLASH_DIALECT_FLASH_UTILS_TILEARITH_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

#include <algorithm>

namespace mlir::flash {

/// The mask of one attention as the tiling sees it: causal is a right window
/// of 0, and each side is either bounded (>= 0) or not.
struct MaskBounds {
  int64_t left = -1, right = -1;
  bool leftBounded() const { return left >= 0; }
  bool rightBounded() const { return right >= 0; }

  static MaskBounds get(AttentionOp op) {
    MaskBounds m{op.getWindowLeft(), op.getWindowRight()};
    if (op.getCausal())
      m.right = m.right >= 0 ? std::min<int64_t>(m.right, 0) : 0;
    return m;
  }
};

/// Number of blocks in a band that may need a mask on a bounded side: the
/// BlockM rows of a program span BlockM diagonals, which touch at most
/// ceil(BlockM / BlockN) + 1 blocks of BlockN columns.
inline int64_t bandBlocks(int64_t blockM, int64_t blockN) {
  return (blockM + blockN - 1) / blockN + 1;
}

/// Index arithmetic on plain integers (for the static iteration counts).
struct IntArith {
  using V = int64_t;
  V c(int64_t v) { return v; }
  V add(V x, V y) { return x + y; }
  V sub(V x, V y) { return x - y; }
  V min(V x, V y) { return std::min(x, y); }
  V max(V x, V y) { return std::max(x, y); }
  V floorDiv(V x, V y) { return x >= 0 ? x / y : -((-x + y - 1) / y); }
  V ceilDiv(V x, V y) { return -floorDiv(-x, y); }
  /// 1 if x % y != 0, else 0.
  V ragged(V x, V y) { return x % y != 0 ? 1 : 0; }
  bool lt(V x, V y) { return x < y; }
  bool le(V x, V y) { return x <= y; }
  bool ge(V x, V y) { return x >= y; }
  bool land(bool x, bool y) { return x && y; }
  V select(bool cond, V x, V y) { return cond ? x : y; }
};

/// The same arithmetic emitted as IR, keeping the emitted bounds readable.
struct IndexBuilder {
  using V = Value;
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value min(Value x, Value y) { return arith::MinSIOp::create(b, loc, x, y); }
  Value max(Value x, Value y) { return arith::MaxSIOp::create(b, loc, x, y); }
  Value ceilDiv(Value x, Value y) {
    return arith::CeilDivSIOp::create(b, loc, x, y);
  }
  Value floorDiv(Value x, Value y) {
    return arith::FloorDivSIOp::create(b, loc, x, y);
  }
  Value ragged(Value x, Value y) {
    Value ne =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne,
                              arith::RemSIOp::create(b, loc, x, y), c(0));
    return arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::ExtUIOp::create(b, loc, b.getI64Type(), ne));
  }
  Value divui(Value x, Value y) { return arith::DivUIOp::create(b, loc, x, y); }
  Value lt(Value x, Value y) { return cmp(arith::CmpIPredicate::slt, x, y); }
  Value le(Value x, Value y) { return cmp(arith::CmpIPredicate::sle, x, y); }
  Value ge(Value x, Value y) { return cmp(arith::CmpIPredicate::sge, x, y); }
  Value land(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value select(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value dim(Value shaped, int64_t i) {
    return memref::DimOp::create(b, loc, shaped, i);
  }
};

/// The last query row of the program whose first is `row0` that lies in the
/// sequence: min(row0 + BM - 1, Sq - 1) (a tail program's rows past Sq are
/// computed but not stored, and no mask or hint speaks for them).
template <typename Arith>
typename Arith::V lastRow(Arith &a, typename Arith::V row0, int64_t blockM,
                          typename Arith::V seqQ) {
  return a.min(a.add(row0, a.c(blockM - 1)), a.sub(seqQ, a.c(1)));
}

/// KV block ranges of one program: [nMin, lEnd) masked left edge,
/// [lEnd, rStart) unmasked main loop, [rStart, nMax) masked right band.
template <typename V> struct KVRanges { V nMin, lEnd, rStart, nMax; };

/// The block bounds of the program whose first query row is `row0`, written
/// once for both IntArith (static counts) and IndexBuilder (emitted IR).
template <typename Arith>
KVRanges<typename Arith::V> kvRanges(Arith &a, MaskBounds mask, int64_t blockM,
                                     int64_t blockN, typename Arith::V row0,
                                     typename Arith::V seqQ,
                                     typename Arith::V seqK) {
  auto off = a.sub(seqK, seqQ);
  auto bn = a.c(blockN);
  // Exclusive column bound of the last row: j <= row0 + BM - 1 + off + right.
  auto hi = seqK;
  if (mask.rightBounded())
    hi = a.min(seqK, a.add(a.add(row0, off), a.c(blockM + mask.right)));
  auto nMax = a.max(a.ceilDiv(hi, bn), a.c(0));
  // First visible column of the first row: j >= row0 + off - left.
  auto lo = a.c(0);
  if (mask.leftBounded())
    lo = a.max(a.c(0), a.sub(a.add(row0, off), a.c(mask.left)));
  auto nMin = a.min(a.floorDiv(lo, bn), nMax);
  // Right side: the diagonal band when bounded, else only a ragged last
  // block (seq_k % BN != 0) needs a mask.
  auto nRight = mask.rightBounded() ? a.c(bandBlocks(blockM, blockN))
                                    : a.ragged(seqK, bn);
  auto rStart = a.max(nMin, a.sub(nMax, nRight));
  auto lEnd = nMin;
  if (mask.leftBounded())
    lEnd = a.min(a.add(nMin, a.c(bandBlocks(blockM, blockN))), rStart);
  return {nMin, lEnd, rStart, nMax};
}

/// A block-mask hint in key positions (flash.attention's `block_mask`): keys
/// outside [vlo, vhi) are masked out and keys in [flo, fhi) visible, by the
/// mask_mod alone, for every query row the hint covers.
template <typename V> struct HintKeys { V vlo, vhi, flo, fhi; };

/// The hint of a program that covers several hint rows: the union of their
/// visible intervals and the intersection of their full ones (so the
/// promises hold for every row of the program).
template <typename Arith>
HintKeys<typename Arith::V> combineHints(Arith &a,
                                         HintKeys<typename Arith::V> x,
                                         HintKeys<typename Arith::V> y) {
  return {a.min(x.vlo, y.vlo), a.max(x.vhi, y.vhi), a.max(x.flo, y.flo),
          a.min(x.fhi, y.fhi)};
}

/// `r` (kvRanges' blocks) narrowed by the program's hint `h`: the blocks
/// that may hold a visible key, [floor(vlo / BN), ceil(vhi / BN)), bound
/// [nMin, nMax), and the blocks entirely in the full interval,
/// [ceil(flo / BN), floor(fhi / BN)), bound the mask-free main loop
/// [lEnd, rStart). Every bound is clamped so that nMin' <= lEnd' <= rStart'
/// <= nMax' stay ordered within [nMin, nMax]: the three loops still visit
/// one contiguous run of blocks, an empty visible interval leaves none and
/// an empty full one an empty main loop (every remaining block masked).
template <typename Arith>
KVRanges<typename Arith::V> applyBlockMask(Arith &a,
                                           KVRanges<typename Arith::V> r,
                                           HintKeys<typename Arith::V> h,
                                           int64_t blockN) {
  auto bn = a.c(blockN);
  auto clamp = [&](auto x, auto lo, auto hi) { return a.max(lo, a.min(x, hi)); };
  // vlo >= vhi: no visible key, no block (not the one block that the
  // rounded bounds of an empty interval inside it would give).
  auto lo = a.floorDiv(h.vlo, bn);
  auto hi = a.select(a.le(h.vhi, h.vlo), lo, a.ceilDiv(h.vhi, bn));
  auto nMax = clamp(hi, r.nMin, r.nMax);
  auto nMin = clamp(lo, r.nMin, nMax);
  auto fullLo = a.max(r.lEnd, a.ceilDiv(h.flo, bn));
  auto fullHi = a.min(r.rStart, a.floorDiv(h.fhi, bn));
  auto rStart = clamp(fullHi, nMin, nMax);
  auto lEnd = clamp(fullLo, nMin, rStart);
  return {nMin, lEnd, rStart, nMax};
}

/// The predicate of `t p x` written as `x p' t` (an order mirrored, an
/// (in)equality as it is). MLIR's arith has invertPredicate (the negation)
/// but no such swap.
inline arith::CmpIPredicate swapSides(arith::CmpIPredicate p) {
  using P = arith::CmpIPredicate;
  switch (p) {
  case P::slt:
    return P::sgt;
  case P::sle:
    return P::sge;
  case P::sgt:
    return P::slt;
  case P::sge:
    return P::sle;
  case P::ult:
    return P::ugt;
  case P::ule:
    return P::uge;
  case P::ugt:
    return P::ult;
  case P::uge:
    return P::ule;
  default:
    return p;
  }
}

/// Key positions [lo, hi) of [0, Sk) (none when lo >= hi).
template <typename V> struct KeyInterval { V lo, hi; };

/// The keys of [0, Sk) that pass `j pred t` (pred a signed order), as an
/// interval whose bounds stay in [0, Sk + 1] whatever t is (t may be any
/// value of its type: each side is clamped before the one +1).
template <typename Arith>
KeyInterval<typename Arith::V> keyTestInterval(Arith &a,
                                               arith::CmpIPredicate pred,
                                               typename Arith::V t,
                                               typename Arith::V seqK) {
  using P = arith::CmpIPredicate;
  auto zero = a.c(0), one = a.c(1);
  switch (pred) {
  case P::slt: // j < t
    return {zero, a.max(a.min(t, seqK), zero)};
  case P::sle: // j <= t
    return {zero, a.add(a.max(a.min(t, a.sub(seqK, one)), a.c(-1)), one)};
  case P::sge: // j >= t
    return {a.min(a.max(t, zero), seqK), seqK};
  default: // sgt: j > t
    return {a.add(a.max(a.min(t, seqK), a.c(-1)), one), seqK};
  }
}

/// The block-mask keys (HintKeys) of `x and y`: the visible intervals
/// intersect, and so do the full ones (both exact).
template <typename Arith>
HintKeys<typename Arith::V> andKeys(Arith &a, HintKeys<typename Arith::V> x,
                                    HintKeys<typename Arith::V> y) {
  return {a.max(x.vlo, y.vlo), a.min(x.vhi, y.vhi), a.max(x.flo, y.flo),
          a.min(x.fhi, y.fhi)};
}

/// The keys of `x or y`: the visible interval is the hull of both (a
/// superset of their union); the full one their union where it is one
/// interval (they meet), else x's (or y's when x's is empty), each a subset.
template <typename Arith>
HintKeys<typename Arith::V> orKeys(Arith &a, HintKeys<typename Arith::V> x,
                                   HintKeys<typename Arith::V> y) {
  auto xEmpty = a.le(x.fhi, x.flo);
  auto meet = a.le(a.max(x.flo, y.flo), a.min(x.fhi, y.fhi));
  auto pick = [&](auto hull, auto xv, auto yv) {
    return a.select(xEmpty, yv, a.select(meet, hull, xv));
  };
  return {a.min(x.vlo, y.vlo), a.max(x.vhi, y.vhi),
          pick(a.min(x.flo, y.flo), x.flo, y.flo),
          pick(a.max(x.fhi, y.fhi), x.fhi, y.fhi)};
}

/// The key mask of flash.attention: key j is visible to the query whose
/// diagonal is `diag` (query i's is i + Sk - Sq: bottom-right alignment)
/// iff j < Sk and, when set, j <= diag (causal), j <= diag + right and
/// j >= diag - left (window; -1 leaves a side unbounded).
template <typename Arith>
auto keyVisible(Arith &a, bool causal, int64_t left, int64_t right,
                typename Arith::V diag, typename Arith::V j,
                typename Arith::V seqK) {
  auto visible = a.lt(j, seqK);
  if (causal)
    visible = a.land(visible, a.le(j, diag));
  if (right >= 0)
    visible = a.land(visible, a.le(j, a.add(diag, a.c(right))));
  if (left >= 0)
    visible = a.land(visible, a.ge(j, a.sub(diag, a.c(left))));
  return visible;
}

/// Query i's diagonal key, i + (Sk - Sq), with the shift Sk - Sq given.
template <typename Arith>
typename Arith::V diagonal(Arith &a, typename Arith::V i,
                           typename Arith::V shift) {
  return a.add(i, shift);
}

/// A test `j pred t` of a key position j, which lies in [0, Sk), against a
/// bound t (pred a signed order or an (in)equality), for j = base + k
/// (base >= 0, base + k not wrapping): `j pred t` is `k pred
/// keyTestBound(t, base)` = max(t, -1) - base. j >= 0, so a t below -1
/// decides as -1 does, and then the subtraction cannot wrap. flash-to-gpu
/// compares a register's constant column k with one value per row so.
template <typename Arith>
typename Arith::V keyTestBound(Arith &a, typename Arith::V t,
                               typename Arith::V base) {
  return a.sub(a.max(t, a.c(-1)), base);
}

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_UTILS_TILEARITH_H
