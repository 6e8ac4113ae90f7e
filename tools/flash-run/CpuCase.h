//===- CpuCase.h - One case of flash-run's JIT mode -------------*- C++ -*-===//
//
// A --shapes case run on the JIT-compiled kernel: its arguments' sizes and
// strides (CaseLayout, checked against the argument types before anything
// is compiled), then per case fresh random inputs, the C++ reference
// (flash/Reference/Reference.h), the kernel's outputs poisoned with NaN,
// the runs and the comparison, printed as one line.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CPUCASE_H
#define FLASH_TOOLS_FLASH_RUN_CPUCASE_H

#include "Cases.h"
#include "CpuKernel.h"
#include "CpuMods.h"
#include "flash/Reference/Reference.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <random>
#include <string>

namespace flash::run::cpu {

/// Sizes and element strides of every argument for one case, indexed by
/// role. Q, K, V and O are logical [B, H, S, D] views; paged K and V are the
/// page pool [num_pages, Hkv, page_size, D]. LSE ([B, Hq, Sq]), kv_lens
/// ([B]) and block_table ([B, pages_per_seq]) are contiguous and padded with
/// leading 1s to rank 4.
struct CaseLayout {
  ref::Shape4 shapes[NumRoles];
  ref::Strides4 strides[NumRoles];
  int64_t pageSize = 0, pagesPerSeq = 0, numPages = 0; // 0 unless paged.
  unsigned alibiRank = 1; // Slopes [Hq] or [B, Hq], padded like LSE.

  /// `pageSize` is 0 for non-paged K/V, else it must divide `c.sk`.
  CaseLayout(const Case &c, int64_t d, int64_t dv, int64_t pageSize, bool bshd,
             unsigned alibiRank = 1);
  /// Sizes and strides as the function argument sees them (not for
  /// captures, which CpuMods.h sizes).
  llvm::ArrayRef<int64_t> argSizes(ArgRole role) const {
    return llvm::ArrayRef<int64_t>(shapes[role])
        .take_back(roleRank(role, alibiRank));
  }
  /// The block-mask hint's sizes (CpuMods.h's blockMaskShape), contiguous.
  void setHint(const ref::Shape4 &shape) {
    shapes[Hint] = shape;
    strides[Hint] = ref::contiguousStrides(shape);
  }
  llvm::ArrayRef<int64_t> argStrides(ArgRole role) const {
    return llvm::ArrayRef<int64_t>(strides[role])
        .take_back(roleRank(role, alibiRank));
  }
};

/// Rejects sizes or strides the argument's type fixes to other values
/// (`layout`: --layout, for the message).
llvm::Error checkArg(ArgRole role, mlir::MemRefType type,
                     llvm::ArrayRef<int64_t> sizes,
                     llvm::ArrayRef<int64_t> strides, llvm::StringRef layout);

/// How runCase draws, runs and judges.
struct CaseOptions {
  bool largeInputs = false; // --inputs=large
  unsigned repeat = 1;      // Runs; the median time is printed.
  double tol = 0.0;         // Max abs error of O and LSE.
  double lseRtol = 0.0;     // LSE may also be off relative to |LSE|.
  std::string layout;       // --layout, for the printed line.
  std::vector<CaptureRule> captures; // --capture, one per capture.
  std::string blockMask = "tight";   // --block-mask (CpuMods.h).
};

/// Runs one case on fresh random inputs, prints its line, returns whether it
/// passed.
llvm::Expected<bool> runCase(const Kernel &kernel, void (*fn)(void **),
                             const Case &c, const CaseLayout &layout,
                             std::mt19937 &rng, const CaseOptions &opts);

/// The same for a backward kernel: fresh Q, K, V and dO, the forward
/// reference's O and LSE as its inputs, dQ, dK and dV poisoned, then
/// compared with ref::attentionBackward (a score_mod's derivative taken by
/// central differences of its region).
llvm::Expected<bool> runBackwardCase(const Kernel &kernel, void (*fn)(void **),
                                     const Case &c, const CaseLayout &layout,
                                     std::mt19937 &rng,
                                     const CaseOptions &opts);

} // namespace flash::run::cpu

#endif // FLASH_TOOLS_FLASH_RUN_CPUCASE_H
