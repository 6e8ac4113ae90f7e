//===- Targets.cpp - The GPUs the flash kernels are compiled for ----------===//
//
// The supported-chip table. The kernels need cp.async, ldmatrix and
// mma.sync.m16n8k16 with bf16 (sm_80, PTX ISA 7.0); the sm_90a variant adds
// wgmma, setmaxnreg and fence.proxy.async (PTX ISA 8.0). Each chip gets the
// lowest PTX ISA version that has all of them there and that LLVM's NVPTX
// backend accepts for it, so the PTX loads on the oldest driver that knows
// the chip; sm_90 keeps 8.0, the version its measured kernels were built with.
// Newer chips (sm_100a, sm_120, ...) are refused: their PTX needs ISA 8.6+
// and the kernels were never checked there.
//
//===----------------------------------------------------------------------===//

#include "flash/Target/Targets.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

ArrayRef<flash::ChipInfo> flash::getSupportedChips() {
  static const ChipInfo chips[] = {
      {"sm_80", 80, false, 163, "+ptx70", 164, 2048, 32},
      {"sm_86", 86, false, 99, "+ptx71", 100, 1536, 16},
      {"sm_89", 89, false, 99, "+ptx78", 100, 1536, 24},
      {"sm_90", 90, false, 227, "+ptx80", 228, 2048, 32},
      {"sm_90a", 90, true, 227, "+ptx80", 228, 2048, 32},
  };
  return chips;
}

const flash::ChipInfo *flash::lookupChip(StringRef name) {
  ArrayRef<ChipInfo> chips = getSupportedChips();
  const auto *it =
      llvm::find_if(chips, [&](const ChipInfo &c) { return c.name == name; });
  return it == chips.end() ? nullptr : it;
}

std::string flash::getSupportedChipNames() {
  return llvm::join(llvm::map_range(getSupportedChips(),
                                    [](const ChipInfo &c) { return c.name; }),
                    ", ");
}

/// The NN of "+ptxNN", or -1.
static int64_t ptxVersion(StringRef features) {
  int64_t version;
  if (!features.consume_front("+ptx") || features.getAsInteger(10, version))
    return -1;
  return version;
}

LogicalResult flash::checkChipOption(Operation *op, StringRef pass,
                                     StringRef chip, StringRef features) {
  const ChipInfo *info = lookupChip(chip);
  if (!info)
    return op->emitError() << pass << ": unsupported chip '" << chip
                           << "'; supported: " << getSupportedChipNames();
  if (!features.empty() &&
      ptxVersion(features) < ptxVersion(info->ptxFeatures))
    return op->emitError() << pass << ": features '" << features
                           << "' must be +ptxNN with NN >= "
                           << ptxVersion(info->ptxFeatures) << " for "
                           << chip;
  return success();
}

LogicalResult flash::checkOptionRange(Operation *op, StringRef pass,
                                      StringRef option, int64_t value,
                                      int64_t min, int64_t max) {
  if (value >= min && value <= max)
    return success();
  return op->emitError() << pass << ": " << option << " must be in [" << min
                         << ", " << max << "], not " << value;
}

flash::RegisterSplit flash::getRegisterSplit(int64_t producerRegs) {
  RegisterSplit split;
  if (producerRegs < RegisterSplit::kMinProducerRegs ||
      producerRegs > RegisterSplit::kMaxProducerRegs)
    split.error = RegisterSplit::Error::OutOfRange;
  else if (producerRegs % 8 != 0)
    split.error = RegisterSplit::Error::NotMultipleOf8;
  else {
    split.producer = producerRegs;
    split.consumer =
        (RegisterSplit::kLaunchRegs * 384 - 128 * producerRegs) / 256 / 8 * 8;
  }
  return split;
}
