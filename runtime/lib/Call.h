//===- Call.h - One call of an entry, checked against its ABI ---*- C++ -*-===//
//
// What flashrt_open hands out (the kernel: the loaded artifact, its entry and
// its ABI record) and what the run and time functions of the C API make of
// their arguments before anything reaches the GPU: a Call, the tensors
// checked against each other and the ABI record (a bad stride or a host
// pointer must be an error message, not a fault in a kernel) and turned into
// the MLIR memref descriptors the entry's C interface takes (Call.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef FLASHRT_CALL_H
#define FLASHRT_CALL_H

#include "flashrt/Abi.h"
#include "flashrt.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

/// The handle flashrt.h declares opaque.
struct flashrt_kernel {
  void *handle = nullptr;
  void *entry = nullptr;
  std::string path, func, abiJson;
  flashrt::Abi abi;
};

namespace flashrt {

/// MLIR's ranked memref descriptor, as `_mlir_ciface_` functions take it.
template <int Rank> struct MemRef {
  void *allocated, *aligned;
  int64_t offset, sizes[Rank], strides[Rank];
};

/// A validated call, ready to run as often as needed.
struct Call {
  flashrt_kernel *k;
  MemRef<4> q, kk, v, o;
  MemRef<3> lse;
  MemRef<1> lens;
  MemRef<2> table;
  /// Capture descriptors of rank 0 to 4: (allocated, aligned, offset,
  /// sizes[rank], strides[rank]), every field 8 bytes, as MemRef<rank>.
  std::vector<std::array<int64_t, 11>> captures;
  bool empty = false;

  /// Runs the entry; returns the first error its mgpu* calls recorded.
  int run();
};

/// flashrt_set_pointer_checks's process-wide flag; never destroyed, like
/// the rest of the runtime's state.
std::atomic<bool> &pointerChecks();

/// flashrt_attention and flashrt_time_ms take no kv_lens / block table: an
/// error naming the _kv function when `k` takes them.
int refuseServing(const flashrt_kernel *k, const char *api, const char *kvApi);

/// Entries with capture tensors take them through the _captures functions:
/// an error naming `capApi` when `k` has captures.
int refuseCaptures(const flashrt_kernel *k, const char *api,
                   const char *capApi);

/// Checks the arguments (NULL where the entry takes no such operand; the
/// captures as flashrt_attention_captures describes them) and fills `call`;
/// `call.empty` when there is nothing to compute.
int prepare(flashrt_kernel *k, const flashrt_tensor *q,
            const flashrt_tensor *kk, const flashrt_tensor *v,
            const flashrt_tensor *lens, const flashrt_tensor *table,
            const flashrt_tensor *captures, int numCaptures,
            const flashrt_tensor *o, const flashrt_tensor *lse, Call &call);

} // namespace flashrt

#endif // FLASHRT_CALL_H
