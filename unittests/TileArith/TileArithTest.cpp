//===- TileArithTest.cpp - The block-mask bounds of TileArith.h -----------===//
//
// applyBlockMask (flash-tile's KV ranges narrowed by a block_mask hint),
// evaluated on integers over small programs and every hint drawn from the
// values around block edges and the sequence ends: the ranges stay ordered
// inside kvRanges', the mask-free main loop holds only blocks kvRanges left
// mask-free and the hint's full interval covers, no block the visible
// interval touches is skipped, an empty visible interval (vhi <= vlo)
// leaves no iteration, and a block both conditions free is in the main
// loop (the hint is used, not just obeyed). And the key tests: keyVisible
// against the op's definition of the mask, and keyTestBound (flash-to-gpu's
// compare of a register's constant column) against the test of j = base +
// k, for bounds around 0, the block edges and the int64 extremes; and the
// interval forms of a mask_mod's key tests and their and / or (KeyIntervals).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/TileArith.h"

#include <gtest/gtest.h>

#include <limits>
#include <vector>

using namespace mlir::flash;

namespace {

TEST(TileArith, BlockMaskRanges) {
  IntArith a;
  const MaskBounds masks[] = {{-1, -1}, {-1, 0}, {20, 0}, {5, 7}};
  int64_t checked = 0;
  for (int64_t bm : {16, 64})
    for (int64_t bn : {16, 32})
      for (MaskBounds mask : masks)
        for (int64_t seqQ : {1, 37, 100})
          for (int64_t seqK : {1, 45, 100})
            for (int64_t row0 = 0; row0 < seqQ; row0 += bm) {
              KVRanges<int64_t> r =
                  kvRanges(a, mask, bm, bn, row0, seqQ, seqK);
              std::vector<int64_t> values = {-1, 0, 1, bn - 1, bn, bn + 1,
                                             2 * bn + 1, seqK - 1, seqK,
                                             seqK + 5};
              for (int64_t vlo : values)
                for (int64_t vhi : values)
                  for (int64_t flo : values)
                    for (int64_t fhi : values) {
                      HintKeys<int64_t> h = {vlo, vhi, flo, fhi};
                      KVRanges<int64_t> n = applyBlockMask(a, r, h, bn);
                      ++checked;
                      SCOPED_TRACE(testing::Message()
                                   << "bm=" << bm << " bn=" << bn
                                   << " mask=" << mask.left << ","
                                   << mask.right << " Sq=" << seqQ
                                   << " Sk=" << seqK << " row0=" << row0
                                   << " hint=" << vlo << "," << vhi << ","
                                   << flo << "," << fhi);
                      // Ordered, inside kvRanges' blocks.
                      ASSERT_LE(r.nMin, n.nMin);
                      ASSERT_LE(n.nMin, n.lEnd);
                      ASSERT_LE(n.lEnd, n.rStart);
                      ASSERT_LE(n.rStart, n.nMax);
                      ASSERT_LE(n.nMax, r.nMax);
                      // Nothing visible: no iteration.
                      if (vhi <= vlo) {
                        ASSERT_EQ(n.nMin, n.nMax);
                        continue;
                      }
                      for (int64_t blk = r.nMin; blk < r.nMax; ++blk) {
                        bool inMain = n.lEnd <= blk && blk < n.rStart;
                        bool visited = n.nMin <= blk && blk < n.nMax;
                        bool wasMain = r.lEnd <= blk && blk < r.rStart;
                        bool full = blk * bn >= flo && (blk + 1) * bn <= fhi;
                        bool touched = blk * bn < vhi && (blk + 1) * bn > vlo;
                        // The main loop drops every mask: only blocks both
                        // kvRanges and the hint's full interval clear.
                        if (inMain) {
                          ASSERT_TRUE(wasMain && full) << "block " << blk;
                        }
                        // A block that may hold a visible key is visited.
                        if (touched) {
                          ASSERT_TRUE(visited) << "block " << blk;
                        }
                        // A sound hint's full blocks are mask-free.
                        if (wasMain && full && vlo <= flo && fhi <= vhi) {
                          ASSERT_TRUE(inMain) << "block " << blk;
                        }
                      }
                    }
            }
  EXPECT_GT(checked, 100000);
}

/// The oracle: j p t, evaluated directly.
bool holds(mlir::arith::CmpIPredicate p, int64_t j, int64_t t) {
  using P = mlir::arith::CmpIPredicate;
  switch (p) {
  case P::slt:
    return j < t;
  case P::sle:
    return j <= t;
  case P::sgt:
    return j > t;
  case P::sge:
    return j >= t;
  case P::eq:
    return j == t;
  case P::ne:
    return j != t;
  default:
    ADD_FAILURE() << "unexpected predicate";
    return false;
  }
}

TEST(TileArith, KeyTests) {
  using P = mlir::arith::CmpIPredicate;
  IntArith a;
  const int64_t big = std::numeric_limits<int64_t>::max();
  const std::vector<int64_t> bounds = {-big - 1, -5, -2, -1, 0, 1, 2, 7,
                                       8, 31, 32, 33, 64, 1031, big};
  int64_t checked = 0;
  // keyTestBound: j p t as k p (max(t, -1) - base), j = base + k.
  for (int64_t base : {0, 1, 2, 32, 1000})
    for (int64_t k : {0, 1, 7, 8, 9, 31})
      for (P p : {P::slt, P::sle, P::sgt, P::sge, P::eq, P::ne})
        for (int64_t t : bounds) {
          ASSERT_EQ(holds(p, k, keyTestBound(a, t, base)),
                    holds(p, base + k, t))
              << "base " << base << " k " << k << " t " << t;
          ++checked;
        }
  // keyVisible against the mask as the op defines it: j < Sk, j <= diag
  // (causal), diag - left <= j <= diag + right.
  for (bool causal : {false, true})
    for (int64_t left : {-1, 0, 3})
      for (int64_t right : {-1, 0, 2})
        for (int64_t seqK : {0, 1, 5, 17})
          for (int64_t diag = -4; diag < 22; ++diag)
            for (int64_t j = 0; j < 20; ++j) {
              bool want = j < seqK && (!causal || j <= diag) &&
                          (right < 0 || j <= diag + right) &&
                          (left < 0 || j >= diag - left);
              ASSERT_EQ(keyVisible(a, causal, left, right, diag, j, seqK),
                        want)
                  << "j " << j << " diag " << diag << " Sk " << seqK;
              ++checked;
            }
  EXPECT_GT(checked, 10000);
}

// keyTestInterval (a mask_mod's key test as an interval, MaskKeys.h) against
// the test itself on every key of [0, Sk), for bounds up to the int64
// extremes; andKeys / orKeys against and / or of the member tests: and's
// intervals are the exact intersections; or's visible interval holds every
// key either may see, its full one only keys one surely sees, and the exact
// union when the two meet (the merge is used, not just sound).
TEST(TileArith, KeyIntervals) {
  using P = mlir::arith::CmpIPredicate;
  IntArith a;
  const int64_t big = std::numeric_limits<int64_t>::max();
  int64_t checked = 0;
  for (int64_t seqK : {0, 1, 5, 17})
    for (P p : {P::slt, P::sle, P::sgt, P::sge})
      for (int64_t t : std::vector<int64_t>{-big - 1, -3, -1, 0, 1, 4, 5, 16,
                                            17, 18, big}) {
        KeyInterval<int64_t> r = keyTestInterval(a, p, t, seqK);
        ASSERT_TRUE(r.lo >= 0 && r.lo <= seqK + 1 && r.hi >= 0 &&
                    r.hi <= seqK + 1)
            << "t " << t << " Sk " << seqK;
        for (int64_t j = 0; j < seqK; ++j, ++checked)
          ASSERT_EQ(r.lo <= j && j < r.hi, holds(p, j, t))
              << "j " << j << " t " << t << " Sk " << seqK;
      }
  const int64_t seqK = 12;
  std::vector<std::pair<int64_t, int64_t>> spans;
  for (int64_t lo : {0, 3, 6, 12})
    for (int64_t hi : {0, 2, 6, 9, 12})
      spans.push_back({lo, hi});
  auto in = [](int64_t lo, int64_t hi, int64_t j) { return lo <= j && j < hi; };
  for (auto [xv0, xv1] : spans)
    for (auto [xf0, xf1] : spans)
      for (auto [yv0, yv1] : spans)
        for (auto [yf0, yf1] : spans) {
          HintKeys<int64_t> x = {xv0, xv1, xf0, xf1}, y = {yv0, yv1, yf0, yf1};
          HintKeys<int64_t> both = andKeys(a, x, y), either = orKeys(a, x, y);
          for (int64_t j = 0; j < seqK; ++j, ++checked) {
            bool xv = in(x.vlo, x.vhi, j), yv = in(y.vlo, y.vhi, j);
            bool xf = in(x.flo, x.fhi, j), yf = in(y.flo, y.fhi, j);
            ASSERT_EQ(in(both.vlo, both.vhi, j), xv && yv);
            ASSERT_EQ(in(both.flo, both.fhi, j), xf && yf);
            ASSERT_TRUE(!(xv || yv) || in(either.vlo, either.vhi, j));
            ASSERT_TRUE(!in(either.flo, either.fhi, j) || xf || yf);
            bool meet = std::max(x.flo, y.flo) <= std::min(x.fhi, y.fhi);
            if (meet && x.flo < x.fhi && y.flo < y.fhi) {
              ASSERT_EQ(in(either.flo, either.fhi, j), xf || yf);
            }
          }
        }
  EXPECT_GT(checked, 100000);
}

} // namespace
