//===- flash-run-gpu.cpp - flash-run's GPU mode alone ---------------------===//
//
// flash-run without MLIR: only the GPU mode (GpuRun.cpp), which runs a
// compiled artifact through libflashrt and checks it against the reference.
// Links neither libMLIR nor libLLVM, so it runs on a GPU machine that has
// neither; `flash-run --artifact=...` does the same where MLIR is installed.
//
//===----------------------------------------------------------------------===//

#include "GpuRun.h"

int main(int argc, char **argv) { return flash::run::gpuMain(argc, argv); }
