//===- Targets.h - The GPUs the flash kernels are compiled for --*- C++ -*-===//
//
// The one table of supported chips: what flash-lower-to-gpu, flash-plan and
// flash-to-gpu need to know about each (SM version, shared memory per
// program, the PTX ISA version the kernels need there), so that an option
// naming a chip is checked once, against this list, before anything is built;
// and the one statement of the producer warpgroup's register split
// (producer-regs), which flash-lower-to-gpu checks and flash-to-gpu emits.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TARGET_TARGETS_H
#define FLASH_TARGET_TARGETS_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir {
class Operation;
} // namespace mlir

namespace mlir::flash {

/// One chip the kernels are compiled and checked for.
struct ChipInfo {
  /// The name `#nvvm.target` and ptxas use (`sm_90a`).
  StringRef name;
  /// Compute capability as flash-plan's `sm` option takes it (90).
  int64_t sm;
  /// Arch-specific features (`a` suffix): warpgroup MMA, setmaxnreg.
  bool archSpecific;
  /// Dynamic shared memory one program may use, in KiB (the opt-in maximum
  /// per block: 227 on sm_90, 163 on sm_80, 99 on sm_86/sm_89).
  int64_t smemKB;
  /// The `#nvvm.target` features: the PTX ISA version the kernels need.
  StringRef ptxFeatures;
  /// What one SM holds, for the programs an SM (flash-occupancy): shared
  /// memory in KiB (each program also takes kReservedSmemBytes), threads,
  /// programs. Every supported chip has 64K 32-bit registers an SM.
  int64_t smemPerSMKB, threadsPerSM, programsPerSM;
  static constexpr int64_t kRegistersPerSM = 65536;
  static constexpr int64_t kReservedSmemBytes = 1024;
};

/// The supported chips, in order.
ArrayRef<ChipInfo> getSupportedChips();

/// The entry for `name`, or null when the chip is not supported.
const ChipInfo *lookupChip(StringRef name);

/// "sm_80, sm_86, ..." for diagnostics.
std::string getSupportedChipNames();

/// Pass-option checks, run before a pass touches the IR: an error at `op`
/// that names the pass, the option and what it accepts. `chip` must be a
/// supported chip and `features`, when not empty, `+ptxNN` with at least the
/// PTX ISA version the chip needs.
LogicalResult checkChipOption(Operation *op, StringRef pass, StringRef chip,
                              StringRef features);
LogicalResult checkOptionRange(Operation *op, StringRef pass,
                               StringRef option, int64_t value, int64_t min,
                               int64_t max);

/// The setmaxnreg split of a kernel with a producer warpgroup: 384 threads
/// (the producer and two consumer warpgroups) launched with kLaunchRegs
/// registers each. The producer keeps `producer` (producer-regs: a multiple
/// of 8, setmaxnreg's granule, from setmaxnreg's least, 24, to the launch
/// count, as it only gives registers back); the consumers take the largest
/// multiple of 8 that fits (128 * producer + 256 * consumer <= 384 *
/// kLaunchRegs: a larger request would wait in setmaxnreg.inc for registers
/// nobody frees).
struct RegisterSplit {
  static constexpr int64_t kLaunchRegs = 168;
  static constexpr int64_t kMinProducerRegs = 24;
  static constexpr int64_t kMaxProducerRegs = kLaunchRegs;
  /// Why a producer-regs value is refused; each caller words its own
  /// diagnostic from it and the bounds above.
  enum class Error { None, OutOfRange, NotMultipleOf8 };

  Error error = Error::None;
  /// Registers per thread after setmaxnreg; set when error is None.
  int64_t producer = 0, consumer = 0;
};

/// The split for producer-regs `producerRegs`, or why it is refused.
RegisterSplit getRegisterSplit(int64_t producerRegs);

} // namespace mlir::flash

#endif // FLASH_TARGET_TARGETS_H
