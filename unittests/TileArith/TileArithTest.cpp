//===- TileArithTest.cpp - The block-mask bounds of TileArith.h -----------===//
//
// applyBlockMask (flash-tile's KV ranges narrowed by a block_mask hint),
// evaluated on integers over small programs and every hint drawn from the
// values around block edges and the sequence ends: the ranges stay ordered
// inside kvRanges', the mask-free main loop holds only blocks kvRanges left
// mask-free and the hint's full interval covers, no block the visible
// interval touches is skipped, an empty visible interval (vhi <= vlo)
// leaves no iteration, and a block both conditions free is in the main
// loop (the hint is used, not just obeyed).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/TileArith.h"

#include <gtest/gtest.h>

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

} // namespace
