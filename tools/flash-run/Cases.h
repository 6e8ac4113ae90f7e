//===- Cases.h - flash-run's --shapes and --capture, both modes -*- C++ -*-===//
//
// The one statement of the --shapes syntax that flash-run's JIT mode and its
// GPU mode (GpuRun.cpp, flash-run-gpu) take, "B,Hq,Hkv,Sq,Sk[,D[,Dv]];...",
// and of the --capture rules that size and fill the capture tensors of a
// score_mod / mask_mod (and ALiBi's slopes) per case, with their messages,
// and the plain text parsers under them, which GpuRun's hand-written option
// parsing uses too. Plain C++ (GpuRun has no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CASES_H
#define FLASH_TOOLS_FLASH_RUN_CASES_H

#include <cstdint>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace flash::run {

/// One --shapes entry.
struct Case {
  int64_t b, hq, hkv, sq, sk;
  int64_t d = -1, dv = -1; // -1: the kernel's (the IR's, the artifact's).
};

/// Appends the cases of `text` to `cases`; returns "" or the error.
std::string parseShapes(const std::string &text, std::vector<Case> &cases);

/// One --capture rule, `KIND[:ARGS]@DIMS`:
///   uniform:LO,HI  f32 uniform in [LO, HI]
///   randint:LO,HI  i32 uniform in [LO, HI]
///   docs:N         i32 document ids in [0, N), sorted along the last dim
///   const:X        every element X (f32 or i32)
/// DIMS are `x`-separated sizes: B, Hq, Hkv, Sq, Sk or a number, e.g.
/// `docs:4@BxSq`.
struct CaptureRule {
  enum Kind { Uniform, RandInt, Docs, Const } kind = Uniform;
  double a = 0.0, b = 0.0;
  std::vector<std::string> dims;
  std::string text;
};

/// Parses one --capture rule into `rule`; returns "" or the error.
std::string parseCaptureRule(const std::string &text, CaptureRule &rule);

/// "" if `rule` fits capture #`n`, of f32 (`isFloat`) or i32 elements and
/// rank `rank` (`type` names it in the message), else why not.
std::string checkCaptureRule(const CaptureRule &rule, size_t n, bool isFloat,
                             int64_t rank, const std::string &type);

/// The sizes of the capture of `rule` in case `c`.
std::vector<int64_t> captureRuleSizes(const CaptureRule &rule, const Case &c);

/// A drawn capture (or ALiBi slopes) on the host: contiguous f32 (`f`) or
/// i32 (`i`) data, never empty.
struct HostCapture {
  std::vector<float> f;
  std::vector<int32_t> i;
  std::vector<int64_t> sizes, strides;
  bool isFloat() const { return !f.empty(); }
  const void *data() const {
    return isFloat() ? static_cast<const void *>(f.data()) : i.data();
  }
  size_t bytes() const { return isFloat() ? f.size() * 4 : i.size() * 4; }
  /// Element `idx` (`rank` indices) as a double, or nullopt when out of
  /// bounds.
  std::optional<double> at(const int64_t *idx, size_t rank) const;
};

/// Draws the capture of `rule` with `sizes`, f32 if `isFloat` else i32.
HostCapture drawCapture(const CaptureRule &rule, bool isFloat,
                        const std::vector<int64_t> &sizes, std::mt19937 &rng);

/// ALiBi slopes, [Hq] or (rank 2) [B, Hq]: uniform in [1/256, 1/4] (ALiBi's
/// own slopes 2^(-8 h / H) lie in [1/256, 1/2]).
HostCapture drawSlopes(unsigned rank, const Case &c, std::mt19937 &rng);

/// A whole decimal integer (no trailing text, no overflow).
bool parseInt(const std::string &text, int64_t &out);
/// A whole floating-point number (no trailing text).
bool parseDouble(const std::string &text, double &out);
/// `s` without leading and trailing blanks.
std::string trim(const std::string &s);
/// The `sep`-separated fields of `s`, empty ones included.
std::vector<std::string> split(const std::string &s, char sep);

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_CASES_H
