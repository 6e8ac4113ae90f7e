//===- GpuCaptures.cpp - Capture tensors in flash-run's GPU mode ----------===//
//
// Resolves, checks and draws the capture tensors of an entry whose ABI
// record lists them; see GpuCaptures.h.
//
//===----------------------------------------------------------------------===//

#include "GpuCaptures.h"
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
  const std::vector<flashrt::CaptureAbi> &records = abi.captures;
  std::string entry = "@" + func;
  GpuMods &mods = out.mods;
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
           ": is it the source of this artifact?";
  for (size_t n = 0; n < records.size(); ++n) {
    bool slopes = mods.alibiRank && n == 0;
    const GpuMods::Capture *cap =
        slopes ? nullptr : &mods.captures[n - (mods.alibiRank != 0)];
    int dtype = slopes || cap->isFloat ? FLASHRT_DTYPE_F32 : FLASHRT_DTYPE_I32;
    int64_t rank = slopes ? int64_t(mods.alibiRank) : cap->rank;
    if (records[n].dtype != dtype || records[n].rank != rank)
      return "capture " + std::to_string(n) + " of " + entry + " is " +
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
  }
  return "";
}

std::string flash::run::checkCaptureCase(const flashrt::Abi &abi,
                                         const EntryCaptures &e,
                                         const Case &c) {
  size_t first = e.mods.alibiRank != 0;
  for (size_t n = 0; n < e.rules.size(); ++n) {
    const flashrt::CaptureAbi &record = abi.captures[first + n];
    std::vector<int64_t> sizes = captureRuleSizes(e.rules[n], c);
    std::optional<int64_t> count = 1;
    for (size_t d = 0; d < sizes.size(); ++d) {
      if (d < record.shape.size() && record.shape[d] >= 0 &&
          record.shape[d] != sizes[d])
        return "dim " + std::to_string(d) + " of capture " +
               std::to_string(first + n) + " is static (" +
               std::to_string(record.shape[d]) + "), but --capture '" +
               e.rules[n].text + "' gives it " + std::to_string(sizes[d]);
      count = count ? checkedProduct({*count, sizes[d]}) : std::nullopt;
    }
    if (std::string err = checkTensorElements(count); !err.empty())
      return "capture " + std::to_string(first + n) + ": " + err;
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
  return out;
}
