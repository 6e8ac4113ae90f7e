//===- BlockMaskHint.h - The block_mask hints flash-run passes --*- C++ -*-===//
//
// flash.attention's block_mask hint (FlexAttention's BlockMask as key
// intervals per block of query rows) as flash-run fills it for a kernel
// that takes one, in the JIT mode and the GPU mode alike: derived per case
// from the reference's mask_mod (which never sees the hint). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_BLOCKMASKHINT_H
#define FLASH_TOOLS_FLASH_RUN_BLOCKMASKHINT_H

#include "Cases.h"
#include "flash/Reference/Reference.h"

#include <string>
#include <vector>

namespace flash::run {

/// The hint values (`shape` contiguous) for `mode`, from params.maskMod:
///   tight         the tightest sound hint: per hint row, the hull of the
///                 keys some row sees and the longest run every row sees;
///   loose         sound and useless: every key may be visible, none full;
///   unsound-full  every key full (wrong for any mask that hides a key:
///                 shows that the kernel uses the hint).
/// Rows past ceil(Sq / rows) are never to be read and claim every key
/// full, so a kernel that reads one goes wrong.
std::vector<int32_t> drawBlockMask(const ref::AttentionParams &params,
                                   const ref::Shape4 &shape, const Case &c,
                                   int64_t rows, const std::string &mode);

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_BLOCKMASKHINT_H
