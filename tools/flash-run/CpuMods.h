//===- CpuMods.h - Captures and mods in flash-run's JIT mode ----*- C++ -*-===//
//
// What flash-run adds for flash.attention's captures, score_mod / mask_mod
// and ALiBi: the --capture rules that say how each capture argument is sized
// and filled, the drawn capture and slope buffers with their memref
// descriptors, and the reference's score_mod / mask_mod callbacks, which
// evaluate the user's region IR in double (ScalarEval's evalRegion).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CPUMODS_H
#define FLASH_TOOLS_FLASH_RUN_CPUMODS_H

#include "Cases.h"
#include "CpuKernel.h"
#include "flash/Reference/Reference.h"

#include <random>

namespace flash::run::cpu {

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
  llvm::SmallVector<std::string, 4> dims;
  std::string text;
};

/// Parses one --capture rule.
llvm::Expected<CaptureRule> parseCaptureRule(llvm::StringRef text);

/// Checks the rules against the kernel's capture arguments: one rule per
/// capture, the rule's kind fits the element type, one size per dim.
llvm::Error checkCaptureRules(const Kernel &kernel,
                              llvm::ArrayRef<CaptureRule> rules);

/// A drawn capture (or ALiBi slopes): contiguous data and its descriptor.
struct ArgBuffer {
  std::vector<float> f;
  std::vector<int32_t> i;
  llvm::SmallVector<int64_t, 4> sizes, strides;
  /// {base, data, offset, sizes..., strides...}: a StridedMemRefType.
  /// Set by describe(), to be called once the buffer has its final place
  /// (copies and moves do not update it).
  llvm::SmallVector<int64_t, 11> desc;
  void describe();
  /// Element `idx` as a double, or nullopt when out of bounds.
  std::optional<double> at(llvm::ArrayRef<int64_t> idx) const;
};

/// The sizes of a capture of rule `rule` in case `c` (checked against the
/// static dims of `type`).
llvm::Expected<llvm::SmallVector<int64_t, 4>>
captureSizes(const CaptureRule &rule, mlir::MemRefType type, const Case &c);

/// Draws the capture of `rule` with `sizes`.
ArgBuffer drawCapture(const CaptureRule &rule, mlir::MemRefType type,
                      llvm::ArrayRef<int64_t> sizes, std::mt19937 &rng);

/// ALiBi slopes, [Hq] or [B, Hq]: uniform in [1/256, 1/4] (ALiBi's own
/// slopes 2^(-8 h / H) lie in [1/256, 1/2]).
ArgBuffer drawSlopes(unsigned rank, const Case &c, std::mt19937 &rng);

/// Sets params.scoreMod / maskMod to evaluate the kernel's regions on
/// `captures`; the first evaluation error lands in `error`.
void setModCallbacks(const Kernel &kernel,
                     llvm::ArrayRef<ArgBuffer> captures,
                     ref::AttentionParams &params, std::string &error);

} // namespace flash::run::cpu

#endif // FLASH_TOOLS_FLASH_RUN_CPUMODS_H
