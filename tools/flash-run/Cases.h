//===- Cases.h - flash-run's --shapes, for both modes -----------*- C++ -*-===//
//
// The one statement of the --shapes syntax that flash-run's JIT mode and its
// GPU mode (GpuRun.cpp, flash-run-gpu) take, "B,Hq,Hkv,Sq,Sk[,D[,Dv]];...",
// with its messages, and the plain text parsers under it, which GpuRun's
// hand-written option parsing uses too. Plain C++ (GpuRun has no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CASES_H
#define FLASH_TOOLS_FLASH_RUN_CASES_H

#include <cstdint>
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
