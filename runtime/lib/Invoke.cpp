//===- Invoke.cpp - Run any C-interface entry on the caller's stream ------===//
//
// flashrt_attention runs entries whose ABI record the runtime checks. Other
// compiled functions (the Python binding's flash.combine merge, whose
// operands are rank-5 partials) are called through their MLIR C interface
// `_mlir_ciface_<func>(desc *...)` by a caller that built the memref
// descriptors itself; flashrt_invoke only gives that call what
// flashrt_attention gives its entry: the caller's stream for the mgpu*
// launches, and the first error of the call as the status.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Status.h"

extern "C" void mgpuStreamSynchronize(void *stream); // Mgpu.cpp

using namespace flashrt;

namespace {

using Ptr = void *;

/// Calls `entry` with `n` pointer arguments; C has no portable call with a
/// run-time argument count, so each arity is spelled out.
int callEntry(void *entry, int n, void *const *a) {
  switch (n) {
  case 1:
    return reinterpret_cast<void (*)(Ptr)>(entry)(a[0]), 0;
  case 2:
    return reinterpret_cast<void (*)(Ptr, Ptr)>(entry)(a[0], a[1]), 0;
  case 3:
    return reinterpret_cast<void (*)(Ptr, Ptr, Ptr)>(entry)(a[0], a[1], a[2]),
           0;
  case 4:
    return reinterpret_cast<void (*)(Ptr, Ptr, Ptr, Ptr)>(entry)(a[0], a[1],
                                                                 a[2], a[3]),
           0;
  case 5:
    return reinterpret_cast<void (*)(Ptr, Ptr, Ptr, Ptr, Ptr)>(entry)(
               a[0], a[1], a[2], a[3], a[4]),
           0;
  case 6:
    return reinterpret_cast<void (*)(Ptr, Ptr, Ptr, Ptr, Ptr, Ptr)>(entry)(
               a[0], a[1], a[2], a[3], a[4], a[5]),
           0;
  default:
    return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                       "flashrt_invoke: takes 1 to 6 arguments, not " +
                           std::to_string(n));
  }
}

} // namespace

extern "C" FLASHRT_API int flashrt_invoke(void *entry, int nargs,
                                          void *const *args, void *stream) {
  ApiScope scope;
  clearError();
  if (!entry)
    return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                       "flashrt_invoke: the entry is NULL");
  // The count first: the NULL checks below must not read past args.
  if (nargs < 1 || nargs > 6)
    return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                       "flashrt_invoke: takes 1 to 6 arguments, not " +
                           std::to_string(nargs));
  if (!args)
    return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                       "flashrt_invoke: args is NULL");
  for (int i = 0; i < nargs; ++i)
    if (!args[i])
      return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                         "flashrt_invoke: argument " + std::to_string(i) +
                             " is NULL");
  auto s = static_cast<CUstream>(stream);
  {
    CallerStreamScope streamScope(s, /*wait=*/false);
    if (int rc = callEntry(entry, nargs, args))
      return rc;
  }
  if (asyncMode() || pendingError())
    return pendingError();
  // Sync mode: wait, as flashrt_attention does.
  CallerStreamScope streamScope(s, /*wait=*/true);
  mgpuStreamSynchronize(s);
  return pendingError();
}
