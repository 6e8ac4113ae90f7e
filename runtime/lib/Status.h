//===- Status.h - Thread-local error state of the runtime -------*- C++ -*-===//
//
// Every runtime entry point reports failure as a flashrt_status code plus a
// message kept per thread for flashrt_last_error(). The mgpu* functions that
// generated host code calls return nothing useful, so they record the first
// error of the current flashrt call instead, and the C API returns it once the
// artifact's entry function is back. When no C API call is active (someone
// calls the artifact directly), errors are also printed to stderr, as
// upstream's CUDA wrappers do, since nobody else would see them.
//
//===----------------------------------------------------------------------===//

#ifndef FLASHRT_STATUS_H
#define FLASHRT_STATUS_H

#include "flashrt.h"

#include <string>

namespace flashrt {

/// Clears the error state (start of a C API call). Returns FLASHRT_OK.
int clearError();

/// Records an error unless one is already pending in the current C API call
/// (the first error is the cause, later ones are consequences). Outside a
/// call it prints the error and replaces any. Returns `code`.
int recordError(int code, std::string message);

/// recordError(FLASHRT_ERR_INVALID_ARGUMENT, message): the caller's mistake.
int invalid(const std::string &message);

/// The pending error code (FLASHRT_OK if none).
int pendingError();

/// The pending message ("" if none).
const std::string &errorMessage();

/// Marks the extent of a C API call on this thread, during which recorded
/// errors are returned to the caller rather than printed.
class ApiScope {
public:
  ApiScope();
  ~ApiScope();
  ApiScope(const ApiScope &) = delete;
  ApiScope &operator=(const ApiScope &) = delete;
};

} // namespace flashrt

#endif // FLASHRT_STATUS_H
