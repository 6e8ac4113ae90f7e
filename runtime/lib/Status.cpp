//===- Status.cpp - Thread-local error state of the runtime ---------------===//
//
// The per-thread error code and message behind flashrt_last_error(), see
// Status.h.
//
//===----------------------------------------------------------------------===//

#include "Status.h"

#include <cstdio>

using namespace flashrt;

namespace {
struct ThreadState {
  int code = FLASHRT_OK;
  std::string message;
  int apiDepth = 0;
};
// A function-local thread_local avoids the static initialisation order
// problem when an artifact's constructor calls in before our own globals
// would be ready.
ThreadState &state() {
  static thread_local ThreadState s;
  return s;
}
} // namespace

int flashrt::clearError() {
  ThreadState &s = state();
  s.code = FLASHRT_OK;
  s.message.clear();
  return FLASHRT_OK;
}

int flashrt::recordError(int code, std::string message) {
  ThreadState &s = state();
  // Outside a C API call nobody collects the error: print it, and keep the
  // latest for flashrt_last_error().
  if (s.apiDepth == 0)
    std::fprintf(stderr, "flashrt: %s\n", message.c_str());
  if (s.code == FLASHRT_OK || s.apiDepth == 0) {
    s.code = code;
    s.message = std::move(message);
  }
  return code;
}

int flashrt::pendingError() { return state().code; }

int flashrt::invalid(const std::string &message) {
  return recordError(FLASHRT_ERR_INVALID_ARGUMENT, message);
}

const std::string &flashrt::errorMessage() { return state().message; }

ApiScope::ApiScope() { ++state().apiDepth; }
ApiScope::~ApiScope() { --state().apiDepth; }

extern "C" const char *flashrt_last_error(void) {
  return state().message.c_str();
}
