//===- GpuRun.h - flash-run's GPU mode --------------------------*- C++ -*-===//
//
// Runs a compiled artifact's entry point on the GPU through libflashrt and
// checks it against the reference. Plain C++ (no MLIR, no LLVM), so that it
// also builds as flash-run-gpu for the GPU machine, which has no MLIR; what
// needs MLIR (the score_mod / mask_mod regions the reference evaluates) is
// handed in by flash-run as a GpuModsLoader.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_GPURUN_H
#define FLASH_TOOLS_FLASH_RUN_GPURUN_H

#include "Cases.h"
#include "flash/Reference/Reference.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace flash::run {

/// What the MLIR source of an entry with captures says (--source): ALiBi,
/// the capture types, and the reference's score_mod / mask_mod.
struct GpuMods {
  /// The rank of ALiBi's slopes (the entry's first capture), 0 without.
  unsigned alibiRank = 0;
  /// The other captures, in order: f32 or i32 elements, rank, the type as
  /// text for messages.
  struct Capture {
    bool isFloat = true;
    int64_t rank = 0;
    std::string type;
  };
  std::vector<Capture> captures;
  /// The op has a mask_mod (from which a block_mask hint is derived).
  bool maskMod = false;
  /// Sets params.scoreMod / maskMod to evaluate the regions on `captures`
  /// (the drawn tensors, in order, ALiBi's slopes not among them), callable
  /// from several threads; the first evaluation error lands in *error.
  std::function<void(std::vector<HostCapture> captures,
                     ref::AttentionParams &params,
                     std::shared_ptr<std::string> error)>
      setCallbacks;
};

/// Reads @func of the MLIR file `source` into `mods`; returns "" or the
/// error.
using GpuModsLoader = std::function<std::string(
    const std::string &source, const std::string &func, GpuMods &mods)>;

/// Whether the command line asks for the GPU mode (has --artifact).
bool wantsGpuMode(int argc, char **argv);

/// The GPU mode's main: exit code 0 all cases pass, 1 a case fails, 2 usage
/// or runtime error. Without a `loader` (flash-run-gpu) --source is refused.
int gpuMain(int argc, char **argv, const GpuModsLoader &loader = nullptr);

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_GPURUN_H
