//===- GpuCaptures.h - Capture tensors in flash-run's GPU mode --*- C++ -*-===//
//
// The capture tensors of an entry whose ABI record lists "captures" (ALiBi's
// slopes, a score_mod / mask_mod's operands) as the GPU mode runs them: what
// each is (from the MLIR source through flash-run's loader, or --alibi),
// the --capture rules (Cases.h) checked against the record, and per case
// the drawn host tensors with the reference's ALiBi slopes and region
// callbacks. A block_mask hint (the ABI's "block_mask", one of the
// captures) takes no rule: it is derived per case from the mask_mod
// (BlockMaskHint.h, --block-mask). Plain C++ (flash-run-gpu has no MLIR).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_GPUCAPTURES_H
#define FLASH_TOOLS_FLASH_RUN_GPUCAPTURES_H

#include "Cases.h"
#include "GpuRun.h"

#include "flashrt/Abi.h"

namespace flash::run {

/// What the entry's captures are and how each is filled.
struct EntryCaptures {
  /// ALiBi (the first capture) and the other captures' types; setCallbacks
  /// is set when the regions were read (--source).
  GpuMods mods;
  /// One --capture rule per capture after ALiBi's slopes, and the index in
  /// the ABI's "captures" of each rule's capture.
  std::vector<CaptureRule> rules;
  std::vector<size_t> ruleRecords;
  /// The block_mask hint: its index in the captures (-1: none), rows, the
  /// static sizes (-1 dynamic) and how it is derived (--block-mask).
  int hintIndex = -1;
  int64_t hintRows = 0;
  std::vector<int64_t> hintStatic;
  std::string hintMode;
  size_t count() const {
    return (mods.alibiRank != 0) + rules.size() + (hintIndex >= 0);
  }
};

/// What the GPU mode's options say about the captures.
struct CaptureOptions {
  std::string source;             // --source=FILE.mlir ("" if absent)
  bool alibi = false;             // --alibi
  std::vector<std::string> rules; // --capture, in order
  std::string blockMask;          // --block-mask ("": tight)
};

/// Resolves the captures of entry `func` (ABI `abi`) from `opts`, reading
/// --source through `loader` (none: flash-run-gpu); "" or the error.
std::string resolveCaptures(const flashrt::Abi &abi, const std::string &func,
                            const CaptureOptions &opts,
                            const GpuModsLoader &loader, EntryCaptures &out);

/// "" when case `c`'s captures fit the entry (its static dims) and are not
/// too large, else why not.
std::string checkCaptureCase(const flashrt::Abi &abi, const EntryCaptures &e,
                             const Case &c);

/// One case's captures: the host tensors in the ABI's order (ALiBi's slopes
/// first) and the reference's view of them over the whole batch.
struct CaseCaptures {
  std::vector<HostCapture> tensors;
  unsigned alibiRank = 0;
  /// Where ALiBi's slopes and the block_mask hint (-1: none) are among
  /// the tensors.
  size_t slopesIndex = 0;
  int hintIndex = -1;
  /// Only scoreMod / maskMod are set (when there are regions).
  ref::AttentionParams regions;
  /// The first error of a region's evaluation.
  std::shared_ptr<std::string> error = std::make_shared<std::string>();
  const float *slopes() const {
    return alibiRank ? tensors[slopesIndex].f.data() : nullptr;
  }
};

/// Draws case `c`'s captures.
CaseCaptures drawCaseCaptures(const EntryCaptures &e, const Case &c,
                              std::mt19937 &rng);

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_GPUCAPTURES_H
