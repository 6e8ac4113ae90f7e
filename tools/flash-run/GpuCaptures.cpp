//===- GpuCaptures.cpp - Capture tensors in flash-run's GPU mode ----------===//
//
// Resolves, checks and draws the capture tensors of an entry whose ABI
// record lists them; see GpuCaptures.h.
//
//===----------------------------------------------------------------------===//

#include "GpuCaptures.h"
#include "BlockMaskHint.h"
#include "SizeGuard.h"

#include "flashrt.h"

using namespace flash::run;

/// "f32 rank 2" for a record's capture.
static std::string describe(const flashrt::CaptureAbi &c) {
  return std::string(flashrt::dtypeName(c.dtype)) + " rank " +
         std::to_string(c.rank);
}

std::string flash::run::resolveCaptures(const flashrt::Abi &abi,
                                        const std::string &func,
                                        const CaptureOptions &opts,
                                        const GpuModsLoader &loader,
                                        EntryCaptures &out) {
  // The block_mask hint takes no rule and is in no region: the other
  // records are matched against the source and the rules.
  std::vector<flashrt::CaptureAbi> records;
  std::vector<size_t> recordIndex;
  for (size_t i = 0; i < abi.captures.size(); ++i)
    if (int(i) != abi.blockMaskCapture) {
      records.push_back(abi.captures[i]);
      recordIndex.push_back(i);
    }
  std::string entry = "@" + func;
  GpuMods &mods = out.mods;
  std::string mode = opts.blockMask.empty() ? "tight" : opts.blockMask;
  if (mode != "tight" && mode != "loose" && mode != "unsound-full")
    return "--block-mask must be tight, loose or unsound-full, got '" + mode +
           "'";
  if (abi.blockMaskCapture < 0 && !opts.blockMask.empty())
    return "--block-mask is for entries with a block_mask hint (ABI "
           "\"block_mask\"); " + entry + " has none";
  if (abi.blockMaskCapture >= 0 && opts.source.empty())
    return entry + " takes a block_mask hint (ABI \"block_mask\"), which "
           "flash-run derives from its mask_mod: give the MLIR it was "
           "compiled from with --source=FILE.mlir (flash-run)";
  if (!opts.source.empty()) {
    if (!loader)
      return "flash-run-gpu cannot read --source (it has no MLIR): run "
             "flash-run --artifact=... --source=" + opts.source +
             " where MLIR is installed (--alibi checks an entry whose only "
             "capture is ALiBi's slopes without it)";
    if (std::string err = loader(opts.source, func, mods); !err.empty())
      return err;
    if (opts.alibi && !mods.alibiRank)
      return "--alibi, but " + entry + " in " + opts.source +
             " has no alibi(...) operand";
    if (abi.blockMaskCapture >= 0 && !mods.maskMod)
      return entry + " takes a block_mask hint, but its flash.attention in " +
             opts.source + " has no mask_mod to derive it from: is it the "
             "source of this artifact?";
  } else if (opts.alibi) {
    if (records.empty() || records[0].dtype != FLASHRT_DTYPE_F32 ||
        records[0].rank < 1 || records[0].rank > 2)
      return "--alibi, but " + entry + "'s first capture is " +
             (records.empty() ? std::string("absent")
                              : describe(records[0])) +
             "; ALiBi's slopes are f32 [Hq] or [B, Hq]";
    if (records.size() > 1)
      return entry + " takes " + std::to_string(records.size() - 1) +
             " capture(s) besides ALiBi's slopes, read by a score_mod / "
             "mask_mod that the reference evaluates from its MLIR: give it "
             "with --source=FILE.mlir (flash-run)";
    mods.alibiRank = unsigned(records[0].rank);
  } else if (!records.empty()) {
    return entry + " takes " + std::to_string(records.size()) +
           " capture tensor(s) (ALiBi's slopes or a score_mod / mask_mod's "
           "operands): give the MLIR it was compiled from with "
           "--source=FILE.mlir (flash-run), or --alibi when its only "
           "capture is ALiBi's slopes";
  }
  // The source must be what the artifact was compiled from.
  size_t want = (mods.alibiRank != 0) + mods.captures.size();
  if (want != records.size())
    return entry + " in " + opts.source + " has " + std::to_string(want) +
           " capture(s) (ALiBi's slopes included), but the artifact's entry "
           "takes " + std::to_string(records.size()) +
           (abi.blockMaskCapture >= 0 ? " besides its block_mask hint" : "") +
           ": is it the source of this artifact?";
  for (size_t n = 0; n < records.size(); ++n) {
    bool slopes = mods.alibiRank && n == 0;
    const GpuMods::Capture *cap =
        slopes ? nullptr : &mods.captures[n - (mods.alibiRank != 0)];
    int dtype = slopes || cap->isFloat ? FLASHRT_DTYPE_F32 : FLASHRT_DTYPE_I32;
    int64_t rank = slopes ? int64_t(mods.alibiRank) : cap->rank;
    if (records[n].dtype != dtype || records[n].rank != rank)
      return "capture " + std::to_string(recordIndex[n]) + " of " + entry +
             " is " +
             describe(records[n]) + " in the artifact but " +
             (slopes ? "ALiBi's slopes (f32 rank " + std::to_string(rank) + ")"
                     : cap->type) +
             " in " + opts.source;
  }
  if (opts.rules.size() != mods.captures.size())
    return entry + " takes " + std::to_string(mods.captures.size()) +
           " capture(s)" + (mods.alibiRank ? " besides ALiBi's slopes" : "") +
           "; give one --capture rule for each, got " +
           std::to_string(opts.rules.size());
  for (size_t n = 0; n < opts.rules.size(); ++n) {
    CaptureRule rule;
    if (std::string err = parseCaptureRule(opts.rules[n], rule); !err.empty())
      return err;
    const GpuMods::Capture &cap = mods.captures[n];
    if (std::string err =
            checkCaptureRule(rule, n, cap.isFloat, cap.rank, cap.type);
        !err.empty())
      return err;
    out.rules.push_back(rule);
    out.ruleRecords.push_back(recordIndex[(mods.alibiRank != 0) + n]);
  }
  if (abi.blockMaskCapture >= 0) {
    out.hintIndex = abi.blockMaskCapture;
    out.hintRows = abi.blockMaskRows;
    out.hintStatic = abi.captures[size_t(abi.blockMaskCapture)].shape;
    out.hintMode = mode;
  }
  return "";
}

std::string flash::run::checkCaptureCase(const flashrt::Abi &abi,
                                         const EntryCaptures &e,
                                         const Case &c) {
  for (size_t n = 0; n < e.rules.size(); ++n) {
    size_t index = e.ruleRecords[n];
    const flashrt::CaptureAbi &record = abi.captures[index];
    std::vector<int64_t> sizes = captureRuleSizes(e.rules[n], c);
    std::optional<int64_t> count = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (d < record.shape.size() && record.shape[d] >= 0 &&
          record.shape[d] != sizes[d])
        return "dim " + std::to_string(d) + " of capture " +
               std::to_string(index) + " is static (" +
               std::to_string(record.shape[d]) + "), but --capture '" +
               e.rules[n].text + "' gives it " + std::to_string(sizes[d]);
      count = count ? checkedProduct({*count, sizes[d]}) : std::nullopt;
    }
    if (std::string err = checkTensorElements(count); !err.empty())
      return "capture " + std::to_string(index) + ": " + err;
  }
  return "";
}

CaseCaptures flash::run::drawCaseCaptures(const EntryCaptures &e,
                                          const Case &c, std::mt19937 &rng) {
  CaseCaptures out;
  out.alibiRank = e.mods.alibiRank;
  if (out.alibiRank)
    out.tensors.push_back(drawSlopes(out.alibiRank, c, rng));
  std::vector<HostCapture> regionCaptures;
  for (size_t n = 0; n < e.rules.size(); ++n)
    regionCaptures.push_back(drawCapture(e.rules[n], e.mods.captures[n].isFloat,
                                         captureRuleSizes(e.rules[n], c), rng));
  out.tensors.insert(out.tensors.end(), regionCaptures.begin(),
                     regionCaptures.end());
  if (e.mods.setCallbacks)
    e.mods.setCallbacks(std::move(regionCaptures), out.regions, out.error);
  if (e.hintIndex >= 0) {
    // [B or 1, Hq or 1, R, 4]: a static 1 broadcasts, R is static or
    // ceil(Sq / rows); contiguous, as the kernels read it.
    auto fixed = [&](size_t d) {
      return d < e.hintStatic.size() ? e.hintStatic[d] : int64_t(-1);
    };
    ref::Shape4 shape = {fixed(0) == 1 ? 1 : c.b, fixed(1) == 1 ? 1 : c.hq,
                         fixed(2) >= 0 ? fixed(2)
                                       : (c.sq + e.hintRows - 1) / e.hintRows,
                         4};
    HostCapture hint;
    hint.i = drawBlockMask(out.regions, shape, c, e.hintRows, e.hintMode);
    hint.sizes.assign(shape.begin(), shape.end());
    hint.strides = {shape[1] * shape[2] * 4, shape[2] * 4, 4, 1};
    out.tensors.insert(out.tensors.begin() + e.hintIndex, std::move(hint));
    out.hintIndex = e.hintIndex;
    out.slopesIndex = out.alibiRank && e.hintIndex == 0 ? 1 : 0;
  }
  return out;
}
