//===- GpuRun.h - flash-run's GPU mode --------------------------*- C++ -*-===//
//
// Runs a compiled artifact's entry point on the GPU through libflashrt and
// checks it against the reference. Plain C++ (no MLIR, no LLVM), so that it
// also builds as flash-run-gpu for the GPU machine, which has no MLIR.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_GPURUN_H
#define FLASH_TOOLS_FLASH_RUN_GPURUN_H

namespace flash::run {

/// Whether the command line asks for the GPU mode (has --artifact).
bool wantsGpuMode(int argc, char **argv);

/// The GPU mode's main: exit code 0 all cases pass, 1 a case fails, 2 usage
/// or runtime error.
int gpuMain(int argc, char **argv);

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_GPURUN_H
