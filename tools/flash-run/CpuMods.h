//===- CpuMods.h - Captures and mods in flash-run (MLIR side) ---*- C++ -*-===//
//
// What flash-run adds for flash.attention's captures, score_mod / mask_mod
// and ALiBi where MLIR is at hand: the --capture rules (Cases.h) checked
// against the function's capture arguments, the drawn buffers with their
// memref descriptors, the reference's score_mod / mask_mod callbacks, which
// evaluate the user's region IR in double (ScalarEval's evalRegion), for
// the JIT mode and for the GPU mode's --source (flash-run.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CPUMODS_H
#define FLASH_TOOLS_FLASH_RUN_CPUMODS_H

#include "BlockMaskHint.h"
#include "Cases.h"
#include "CpuKernel.h"
#include "flash/Reference/Reference.h"

#include <memory>

namespace flash::run::cpu {

/// Checks the rules against the kernel's capture arguments: one rule per
/// capture, the rule's kind fits the element type, one size per dim.
llvm::Error checkCaptureRules(const Kernel &kernel,
                              llvm::ArrayRef<CaptureRule> rules);

/// A drawn capture (or ALiBi slopes) and its descriptor.
struct ArgBuffer : HostCapture {
  ArgBuffer() = default;
  explicit ArgBuffer(HostCapture h) : HostCapture(std::move(h)) {}
  /// {base, data, offset, sizes..., strides...}: a StridedMemRefType.
  /// Set by describe(), to be called once the buffer has its final place
  /// (copies and moves do not update it).
  llvm::SmallVector<int64_t, 11> desc;
  void describe();
};

/// The sizes of a capture of rule `rule` in case `c` (checked against the
/// static dims of `type`).
llvm::Expected<llvm::SmallVector<int64_t, 4>>
captureSizes(const CaptureRule &rule, mlir::MemRefType type, const Case &c);

/// The sizes of a block-mask hint of type `type` ([B or 1, Hq or 1, R, 4])
/// in case `c` with `rows` query rows per hint row: a static 1 stays 1 (it
/// broadcasts), R is the static size or ceil(Sq / rows).
ref::Shape4 blockMaskShape(mlir::MemRefType type, const Case &c,
                           int64_t rows);

/// Sets params.scoreMod / maskMod (for the non-null regions) to evaluate
/// them on `captures`; safe to call from several threads; the first
/// evaluation error lands in *error.
void setModCallbacks(mlir::Region *scoreMod, mlir::Region *maskMod,
                     std::vector<HostCapture> captures,
                     ref::AttentionParams &params,
                     std::shared_ptr<std::string> error);

} // namespace flash::run::cpu

#endif // FLASH_TOOLS_FLASH_RUN_CPUMODS_H
