//===- BlockMaskHint.cpp - The block_mask hints flash-run passes ----------===//
//
// Derives a block_mask hint from the reference's mask_mod, for both modes
// (the JIT mode's functions and the GPU mode's artifacts); see
// BlockMaskHint.h. Plain C++: flash-run-gpu links it.
//
//===----------------------------------------------------------------------===//

#include "BlockMaskHint.h"

#include <algorithm>
#include <array>

using namespace ::flash;
namespace ref = ::flash::ref;

std::vector<int32_t> run::drawBlockMask(const ref::AttentionParams &params,
                                        const ref::Shape4 &shape, const Case &c,
                                        int64_t rows, const std::string &mode) {
  const auto sk = int32_t(c.sk);
  std::vector<int32_t> hint(shape[0] * shape[1] * shape[2] * 4);
  std::vector<char> full(c.sk);
  for (int64_t hb = 0; hb < shape[0]; ++hb)
    for (int64_t hh = 0; hh < shape[1]; ++hh)
      for (int64_t r = 0; r < shape[2]; ++r) {
        int32_t *e = &hint[((hb * shape[1] + hh) * shape[2] + r) * 4];
        int64_t i0 = r * rows, i1 = std::min((r + 1) * rows, c.sq);
        if (i0 >= c.sq || mode == "unsound-full") {
          std::copy_n(std::array<int32_t, 4>{0, sk, 0, sk}.data(), 4, e);
          continue;
        }
        if (mode == "loose") {
          std::copy_n(std::array<int32_t, 4>{0, sk, 0, 0}.data(), 4, e);
          continue;
        }
        // tight: a broadcast dim (size 1) summarises every batch / head.
        int32_t vlo = sk, vhi = 0;
        std::fill(full.begin(), full.end(), 1);
        for (int64_t b = 0; b < c.b; ++b)
          for (int64_t h = 0; h < c.hq; ++h) {
            if ((shape[0] != 1 && b != hb) || (shape[1] != 1 && h != hh))
              continue;
            for (int64_t i = i0; i < i1; ++i)
              for (int32_t j = 0; j < sk; ++j) {
                if (!params.maskMod(b, h, i, j)) {
                  full[j] = 0;
                  continue;
                }
                vlo = std::min(vlo, j);
                vhi = std::max(vhi, j + 1);
              }
          }
        int32_t flo = 0, fhi = 0;
        for (int32_t j = 0, run = 0; j < sk; ++j) {
          run = full[j] ? run + 1 : 0;
          if (run > fhi - flo)
            flo = j + 1 - run, fhi = j + 1;
        }
        std::copy_n(std::array<int32_t, 4>{vlo, vhi, flo, fhi}.data(), 4, e);
      }
  return hint;
}
