//===- Runtime.h - State shared by the C API and the mgpu ABI ---*- C++ -*-===//
//
// The C API (FlashRT.cpp) and the mgpu* launch ABI (Mgpu.cpp) meet here: the
// C API tells the mgpu functions which stream the caller wants the kernel on
// and whether to wait for it, and the mgpu functions tell the C API what the
// artifact's constructor loaded while flashrt_open was dlopen-ing it.
//
//===----------------------------------------------------------------------===//

#ifndef FLASHRT_RUNTIME_H
#define FLASHRT_RUNTIME_H

#include "CudaDriver.h"

#include <string>

namespace flashrt {

/// While alive, mgpuStreamCreate on this thread returns `stream` (the
/// caller's, possibly null = legacy default stream) instead of creating one,
/// and mgpuStreamSynchronize / mgpuStreamDestroy on it only synchronise, in
/// sync mode, and never destroy it.
class CallerStreamScope {
public:
  CallerStreamScope(CUstream stream, bool wait);
  ~CallerStreamScope();
  CallerStreamScope(const CallerStreamScope &) = delete;
  CallerStreamScope &operator=(const CallerStreamScope &) = delete;

private:
  bool savedActive, savedWait;
  CUstream savedStream;
};

/// flashrt_set_async's process-wide flag.
bool asyncMode();

/// What mgpuModuleLoad / mgpuModuleLoadJIT saw on this thread since the last
/// resetModuleLoads(): flashrt_open brackets dlopen with these, as the
/// artifact's global constructor loads its GPU modules during dlopen.
struct ModuleLoads {
  int count = 0;        // modules the constructor tried to load
  int failures = 0;     // ... and failed to
  CUresult cuError = 0; // the first driver error, if any
  int status = 0;       // the first error's FLASHRT_ERR_*
  std::string message;  // ... and its message
  bool jit = false;     // loaded PTX (mgpuModuleLoadJIT), not a cubin
};
void resetModuleLoads();
const ModuleLoads &moduleLoads();

} // namespace flashrt

#endif // FLASHRT_RUNTIME_H
