//===- Call.h - One call of an entry, checked against its ABI ---*- C++ -*-===//
//
// What flashrt_open hands out (the kernel: the loaded artifact, its entry and
// its ABI record) and what the run and time functions of the C API make of
// their arguments before anything reaches the GPU: a Call, the tensors
// checked against each other and the ABI record (a bad stride or a host
// pointer must be an error message, not a fault in a kernel) and turned into
// the MLIR memref descriptors the entry's C interface takes (Call.cpp), for
// a forward entry or, in the order of its "args", a backward one.
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
  /// A backward entry's dO and gradients (its O and LSE are inputs).
  MemRef<4> dout, dq, dk, dv;
  /// Capture descriptors of rank 0 to 4: (allocated, aligned, offset,
  /// sizes[rank], strides[rank]), every field 8 bytes, as MemRef<rank>.
  std::vector<std::array<int64_t, 11>> captures;
  bool empty = false;
  /// An empty backward problem (no query or no key) launches nothing, but
  /// its gradients are still defined: 0 where the other side is empty.
  /// These are the non-empty ones (2-byte elements), zeroed instead.
  std::vector<flashrt_tensor> zeros;

  /// Runs the entry; returns the first error its mgpu* calls recorded.
  int run();
  /// Zeroes `zeros` on `stream` (stream-ordered, like the entry's writes).
  int zero(void *stream);
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

/// The run and time functions of one kind (forward: flashrt_attention*,
/// flashrt_time*_ms; backward: flashrt_*backward*) refuse an entry of the
/// other, naming the function that runs (`timed`: times) it.
int refuseKind(const flashrt_kernel *k, bool backward, bool timed,
               const char *api);

/// Checks the arguments (NULL where the entry takes no such operand; the
/// captures as flashrt_attention_captures describes them) and fills `call`;
/// `call.empty` when there is nothing to compute.
int prepare(flashrt_kernel *k, const flashrt_tensor *q,
            const flashrt_tensor *kk, const flashrt_tensor *v,
            const flashrt_tensor *lens, const flashrt_tensor *table,
            const flashrt_tensor *captures, int numCaptures,
            const flashrt_tensor *o, const flashrt_tensor *lse, Call &call);

/// prepare for a backward entry (flashrt_attention_backward): O, LSE and dO
/// are inputs, dQ, dK and dV outputs.
int prepareBackward(flashrt_kernel *k, const flashrt_tensor *q,
                    const flashrt_tensor *kk, const flashrt_tensor *v,
                    const flashrt_tensor *o, const flashrt_tensor *lse,
                    const flashrt_tensor *dout, const flashrt_tensor *captures,
                    int numCaptures, const flashrt_tensor *dq,
                    const flashrt_tensor *dk, const flashrt_tensor *dv,
                    Call &call);

} // namespace flashrt

#endif // FLASHRT_CALL_H
