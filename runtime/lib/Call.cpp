//===- Call.cpp - Checking a call against the entry's ABI -----------------===//
//
// Checks the tensors of a flashrt_attention* / flashrt_time* call against
// each other and the kernel's ABI record (ranks, dtypes, the static dims the
// kernel was compiled for, sizes named by Q, K and V, alignment, 64- and
// 32-bit extents, innermost strides) and, unless pointer checks are off,
// that each is device memory of the current context's device covering its
// view; the capture tensors of score_mod / mask_mod entries likewise against
// their "captures" records. Then builds the memref descriptors and calls the
// entry with 4 to 7 + FLASHRT_MAX_CAPTURES of them, or a backward entry
// with 9 + its captures in the order of its "args".
//
//===----------------------------------------------------------------------===//

#include "Call.h"

#include "CudaDriver.h"
#include "Status.h"

#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

using namespace flashrt;

namespace {

/// Entries take descriptor pointers: Q, K, V, [kv_lens], [block_table], O,
/// [LSE], with the captures at their ABI positions (after the serving
/// operands); backward ones Q, K, V, O, LSE, dO, dQ, dK, dV and captures in
/// the order of their "args"; 4 to kMaxArity of them.
using P = void *;
constexpr size_t kMaxArity = 9 + FLASHRT_MAX_CAPTURES;

/// Calls `entry` with the N pointers of `p`. C has no call with a run-time
/// argument count, so each arity is instantiated.
template <size_t... I>
void callWith(void *entry, P *p, std::index_sequence<I...>) {
  using Fn = void (*)(decltype((void)I, P())...);
  reinterpret_cast<Fn>(entry)(p[I]...);
}
template <size_t... N>
void callEntry(void *entry, P *p, size_t n, std::index_sequence<N...>) {
  ((n == N ? callWith(entry, p, std::make_index_sequence<N>()) : void()), ...);
}

/// cp.async moves 16-byte chunks: rows must start on 16-byte boundaries.
constexpr int64_t kAlignBytes = 16;

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

/// A tensor argument and what it must be.
struct Arg {
  const char *name;
  const flashrt_tensor *t;
  int rank;
  int elemBytes;
  int dtype;        // FLASHRT_DTYPE_* it must be (unless the caller says 0)
  bool used = true; // the entry takes this operand
};

/// Positions in the argument array; the last four are the backward's.
enum { kQ, kK, kV, kO, kLse, kLens, kTable, kDO, kDQ, kDK, kDV, kNumArgs };

/// Byte extent [0, bytes) of a non-empty strided view, or -1 on overflow.
int64_t viewBytes(const flashrt_tensor &t, int elemBytes) {
  int64_t last = 0;
  for (int i = 0; i < t.rank; ++i) {
    int64_t step;
    if (__builtin_mul_overflow(t.sizes[i] - 1, t.strides[i], &step) ||
        __builtin_add_overflow(last, step, &last))
      return -1;
  }
  int64_t bytes;
  if (__builtin_add_overflow(last, 1, &last) ||
      __builtin_mul_overflow(last, int64_t(elemBytes), &bytes))
    return -1;
  return bytes;
}

bool isEmpty(const flashrt_tensor &t) {
  for (int i = 0; i < t.rank; ++i)
    if (t.sizes[i] == 0)
      return true;
  return false;
}

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

/// Checks the arguments against each other and the ABI, without the driver.
/// Sets `empty` when there is nothing to compute.
int checkArgs(const flashrt_kernel *k, const Abi &abi, Arg *args, bool &empty) {
  for (int i = 0; i < kNumArgs; ++i) {
    const Arg &a = args[i];
    if (!a.used)
      continue;
    if (!a.t)
      return invalid(std::string(a.name) + " is NULL");
    const flashrt_tensor &t = *a.t;
    if (t.rank != a.rank)
      return invalid(std::string(a.name) + " has rank " +
                     std::to_string(t.rank) + ", expected " +
                     std::to_string(a.rank));
    for (int d = 0; d < t.rank; ++d) {
      if (t.sizes[d] < 0)
        return invalid(std::string(a.name) + " has a negative size (dim " +
                       std::to_string(d) + ")");
      if (t.strides[d] < 0)
        return invalid(std::string(a.name) + " has a negative stride (dim " +
                       std::to_string(d) + ")");
    }
    if (t.dtype != FLASHRT_DTYPE_UNCHECKED && t.dtype != a.dtype)
      return invalid(std::string(a.name) + " is " + dtypeName(t.dtype) +
                     " but " + k->func + " takes " + dtypeName(a.dtype));
  }

  // The static dims the kernel was compiled for (ABI q_shape / kv_shape).
  struct Static {
    int arg, dims;
    const std::vector<int64_t> *shape;
    const char *key;
  } statics[] = {
      {kQ, 4, &abi.qShape, "q_shape"},   {kO, 3, &abi.qShape, "q_shape"},
      {kLse, 3, &abi.qShape, "q_shape"}, {kK, 4, &abi.kvShape, "kv_shape"},
      {kV, 3, &abi.kvShape, "kv_shape"}, {kDO, 3, &abi.qShape, "q_shape"},
      {kDQ, 4, &abi.qShape, "q_shape"},  {kDK, 4, &abi.kvShape, "kv_shape"},
      {kDV, 3, &abi.kvShape, "kv_shape"}};
  static const char *qDims[] = {"batch", "heads", "query length", "head dim"};
  static const char *kvDims[] = {"batch", "KV heads", "KV length", "head dim"};
  static const char *pageDims[] = {"pages", "KV heads", "page size",
                                   "head dim"};
  for (const Static &st : statics) {
    const Arg &a = args[st.arg];
    if (!a.used || st.shape->size() != 4)
      continue;
    for (int d = 0; d < st.dims; ++d) {
      int64_t want = (*st.shape)[d];
      if (want < 0 || a.t->sizes[d] == want)
        continue;
      const char *what = st.shape == &abi.qShape ? qDims[d]
                         : abi.paged             ? pageDims[d]
                                                 : kvDims[d];
      return invalid(std::string(a.name) + " has " +
                     std::to_string(a.t->sizes[d]) + " in dim " +
                     std::to_string(d) + " (" + what + ") but " + k->func +
                     " is compiled for " + std::to_string(want) + " (" +
                     st.key + " " + shapeText(*st.shape) + "; -1 = any)");
    }
  }

  // Q [B,Hq,Sq,D], K [B,Hkv,Sk,D], V [B,Hkv,Sk,Dv], O [B,Hq,Sq,Dv], LSE
  // [B,Hq,Sq]: every size is named by Q, K or V. Paged: K/V are page pools
  // [pages, Hkv, page_size, D]; kv_lens [B], block_table [B, pages_per_seq].
  // The backward's dO is like O, and each gradient like what it
  // differentiates.
  const flashrt_tensor &q = *args[kQ].t, &kk = *args[kK].t;
  int64_t b = q.sizes[0], hq = q.sizes[1], sq = q.sizes[2];
  int64_t kb = kk.sizes[0], hkv = kk.sizes[1], sk = kk.sizes[2];
  struct Expect {
    int arg, dim;
    int64_t value;
    const char *what;
    bool check = true;
  } expects[] = {
      {kQ, 3, abi.headDim, "head dim (the artifact's D)"},
      {kK, 0, b, "batch (Q's)", !abi.paged},
      {kK, 3, abi.headDim, "head dim (the artifact's D)"},
      {kV, 0, kb, abi.paged ? "pages (K's)" : "batch (Q's)"},
      {kV, 1, hkv, "KV heads (K's)"},
      {kV, 2, sk, abi.paged ? "page size (K's)" : "KV length (K's)"},
      {kV, 3, abi.headDimV, "head dim (the artifact's Dv)"},
      {kO, 0, b, "batch (Q's)"},
      {kO, 1, hq, "heads (Q's)"},
      {kO, 2, sq, "query length (Q's)"},
      {kO, 3, abi.headDimV, "head dim (the artifact's Dv)"},
      {kLse, 0, b, "batch (Q's)"},
      {kLse, 1, hq, "heads (Q's)"},
      {kLse, 2, sq, "query length (Q's)"},
      {kLens, 0, b, "batch (Q's)"},
      {kTable, 0, b, "batch (Q's)"},
      {kDO, 0, b, "batch (Q's)"},
      {kDO, 1, hq, "heads (Q's)"},
      {kDO, 2, sq, "query length (Q's)"},
      {kDO, 3, abi.headDimV, "head dim (the artifact's Dv)"},
      {kDQ, 0, b, "batch (Q's)"},
      {kDQ, 1, hq, "heads (Q's)"},
      {kDQ, 2, sq, "query length (Q's)"},
      {kDQ, 3, abi.headDim, "head dim (the artifact's D)"},
      {kDK, 0, b, "batch (Q's)"},
      {kDK, 1, hkv, "KV heads (K's)"},
      {kDK, 2, sk, "KV length (K's)"},
      {kDK, 3, abi.headDim, "head dim (the artifact's D)"},
      {kDV, 0, b, "batch (Q's)"},
      {kDV, 1, hkv, "KV heads (K's)"},
      {kDV, 2, sk, "KV length (K's)"},
      {kDV, 3, abi.headDimV, "head dim (the artifact's Dv)"},
  };
  for (const Expect &e : expects) {
    const Arg &a = args[e.arg];
    if (!a.used || !e.check)
      continue;
    if (a.t->sizes[e.dim] != e.value)
      return invalid(std::string(a.name) + " has " +
                     std::to_string(a.t->sizes[e.dim]) + " in dim " +
                     std::to_string(e.dim) + ", expected " +
                     std::to_string(e.value) + " = " + e.what);
  }

  if (abi.backward) {
    // Without a query or a key there is nothing to launch, but the
    // gradients on the other side are zeros to write: their checks below
    // still run (they skip only empty tensors).
    empty = b == 0 || hq == 0 || sq == 0 || sk == 0;
    if (b == 0)
      return FLASHRT_OK;
  } else {
    empty = b == 0 || hq == 0 || sq == 0;
    if (empty)
      return FLASHRT_OK;
  }
  if (hkv == 0 ? hq != 0 : hq % hkv != 0)
    return invalid("Q heads (" + std::to_string(hq) +
                   ") must be a multiple of K/V heads (" + std::to_string(hkv) +
                   ")");
  if (abi.paged && sk == 0)
    return invalid("K has page size 0 (dim 2)");

  for (int i = 0; i < kNumArgs; ++i) {
    const Arg &a = args[i];
    if (!a.used)
      continue;
    const flashrt_tensor &t = *a.t;
    if (isEmpty(t))
      continue; // K/V with Sk = 0: never read.
    std::string name = a.name;
    if (!t.data)
      return invalid(name + " has no data (NULL)");
    // Q/K/V/O move in 16-byte chunks; LSE, kv_lens and the block table are
    // read or written one 4-byte element at a time.
    int64_t align = a.rank == 4 ? kAlignBytes : a.elemBytes;
    if (reinterpret_cast<uintptr_t>(t.data) % align != 0)
      return invalid(name + " data " + hex(t.data) + " is not " +
                     std::to_string(align) + "-byte aligned");
    int64_t bytes = viewBytes(t, a.elemBytes);
    if (bytes < 0)
      return invalid(name + " sizes and strides overflow 64 bits");
    // Kernels with 32-bit index arithmetic (flash-to-gpu's) address each
    // tensor with signed 32-bit offsets.
    if (abi.indexBits == 32 && bytes > INT32_MAX)
      return invalid(name + "'s view spans " + std::to_string(bytes) +
                     " bytes; " + k->func +
                     " indexes with 32 bits and takes less than 2 GiB per "
                     "tensor");
    // A dim of size 1 is never stepped over, so its stride does not matter
    // (PyTorch leaves arbitrary ones there).
    if (t.sizes[t.rank - 1] > 1 && t.strides[t.rank - 1] != 1)
      return invalid(name + " must have innermost stride 1, not " +
                     std::to_string(t.strides[t.rank - 1]));
    if (a.rank != 4)
      continue; // LSE, kv_lens, block table: 4-byte scalars, outer strides any.
    int64_t rowElems = kAlignBytes / a.elemBytes;
    for (int d = 0; d < 3; ++d)
      if (t.sizes[d] > 1 && t.strides[d] % rowElems != 0)
        return invalid(name + " stride of dim " + std::to_string(d) + " is " +
                       std::to_string(t.strides[d]) +
                       " elements, not a multiple of " +
                       std::to_string(rowElems) + " (rows must be " +
                       std::to_string(kAlignBytes) + "-byte aligned)");
  }
  // A gradient written over an input (or another gradient) corrupts what
  // the kernels still read. Only a shared first element is certain overlap:
  // interleaved views (dK and dV of one packed buffer) are fine.
  for (int out : {kDQ, kDK, kDV})
    for (int i = 0; i < kNumArgs && args[out].used; ++i) {
      if (i == out || !args[i].used || isEmpty(*args[out].t) ||
          isEmpty(*args[i].t) || args[i].t->data != args[out].t->data)
        continue;
      return invalid(std::string(args[out].name) + " and " + args[i].name +
                     " start at the same address (" + hex(args[i].t->data) +
                     "): the gradients must not overlap the inputs or each "
                     "other");
    }
  return FLASHRT_OK;
}

/// Checks that the non-empty tensors are device memory of the current
/// context's device, covering their views.
int checkDeviceMemory(const Arg *args, size_t numArgs) {
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  CUdevice device;
  if (!checkCuda(d->cuCtxGetDevice(&device), FLASHRT_ERR_CUDA,
                 "cuCtxGetDevice"))
    return pendingError();
  for (size_t i = 0; i < numArgs; ++i) {
    const Arg &a = args[i];
    if (!a.used)
      continue;
    const flashrt_tensor &t = *a.t;
    if (isEmpty(t))
      continue;
    std::string name = a.name;
    // cuPointerGetAttributes, unlike the singular form, answers zeros
    // instead of an error for memory CUDA does not know. Zeroed 8-byte
    // slots hold each answer whatever its width (bool, int, pointer).
    int attrs[] = {
        CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
        CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
    uint64_t values[5] = {0, 0, 0, 0, 0};
    void *slots[5] = {&values[0], &values[1], &values[2], &values[3],
                      &values[4]};
    auto ptr = reinterpret_cast<CUdeviceptr>(t.data);
    if (!checkCuda(d->cuPointerGetAttributes(5, attrs, slots, ptr),
                   FLASHRT_ERR_CUDA, "cuPointerGetAttributes(" + name + ")"))
      return pendingError();
    auto memType = unsigned(values[0]);
    bool managed = values[1] != 0;
    auto ordinal = int(uint32_t(values[2]));
    if (memType == 0)
      return invalid(name + " (" + hex(t.data) +
                     ") is not CUDA memory: a host pointer? Pass tensors on "
                     "the GPU");
    if (memType == CU_MEMORYTYPE_HOST && !managed)
      return invalid(name + " (" + hex(t.data) +
                     ") is page-locked host memory, not device memory");
    if (!managed && ordinal != device)
      return invalid(name + " is on device " + std::to_string(ordinal) +
                     " but the kernel runs on device " +
                     std::to_string(device));
    uint64_t start = values[3], size = values[4];
    int64_t bytes = viewBytes(t, a.elemBytes);
    if (size != 0 && (ptr < start || ptr - start + uint64_t(bytes) > size))
      return invalid(name + "'s view (" + std::to_string(bytes) +
                     " bytes from " + hex(t.data) +
                     ") is not inside its allocation (" + std::to_string(size) +
                     " bytes from " + hex(reinterpret_cast<void *>(start)) +
                     ")");
  }
  return FLASHRT_OK;
}

template <int N> MemRef<N> descriptor(const flashrt_tensor &t) {
  MemRef<N> m;
  m.allocated = m.aligned = t.data;
  m.offset = 0;
  std::copy(t.sizes, t.sizes + N, m.sizes);
  std::copy(t.strides, t.strides + N, m.strides);
  return m;
}


/// The checks of one capture tensor against its "captures" record, without
/// the driver (the device checks follow with the other tensors).
int checkCapture(const flashrt_kernel *k, const CaptureAbi &c,
                 const std::string &name, const flashrt_tensor *tp) {
  if (!tp)
    return invalid(name + " is NULL");
  const flashrt_tensor &t = *tp;
  if (t.rank != c.rank)
    return invalid(name + " has rank " + std::to_string(t.rank) + " but " +
                   k->func + " takes rank " + std::to_string(c.rank));
  if (t.dtype != FLASHRT_DTYPE_UNCHECKED && t.dtype != c.dtype)
    return invalid(name + " is " + dtypeName(t.dtype) + " but " + k->func +
                   " takes " + dtypeName(c.dtype));
  for (int d = 0; d < t.rank; ++d) {
    if (t.sizes[d] < 0 || t.strides[d] < 0)
      return invalid(name + " has a negative size or stride (dim " +
                     std::to_string(d) + ")");
    if (!c.shape.empty() && c.shape[d] >= 0 && t.sizes[d] != c.shape[d])
      return invalid(name + " has " + std::to_string(t.sizes[d]) +
                     " in dim " + std::to_string(d) + " but " + k->func +
                     " is compiled for " + std::to_string(c.shape[d]) +
                     " (shape " + shapeText(c.shape) + "; -1 = any)");
  }
  if (isEmpty(t))
    return invalid(name + " is empty; a score_mod / mask_mod kernel clamps "
                          "its reads into each capture, which needs an "
                          "element");
  // A dim of size 1 is never stepped over: its stride does not matter.
  int64_t dense = 1;
  for (int d = t.rank - 1; d >= 0; --d) {
    int64_t want = c.contiguous              ? dense
                   : c.strides.empty()       ? -1
                                             : c.strides[d];
    if (t.sizes[d] > 1 && want >= 0 && t.strides[d] != want)
      return invalid(name + " has stride " + std::to_string(t.strides[d]) +
                     " in dim " + std::to_string(d) + " but " + k->func +
                     " takes " +
                     (c.contiguous ? "a contiguous (row-major) tensor"
                                   : "strides " + shapeText(c.strides) +
                                         " (-1 = any)"));
    if (__builtin_mul_overflow(dense, t.sizes[d], &dense))
      return invalid(name + " sizes overflow 64 bits");
  }
  int elem = dtypeBytes(c.dtype);
  if (!t.data)
    return invalid(name + " has no data (NULL)");
  if (reinterpret_cast<uintptr_t>(t.data) % elem != 0)
    return invalid(name + " data " + hex(t.data) + " is not " +
                   std::to_string(elem) + "-byte aligned");
  int64_t bytes = viewBytes(t, elem);
  if (bytes < 0)
    return invalid(name + " sizes and strides overflow 64 bits");
  if (k->abi.indexBits == 32 && bytes > INT32_MAX)
    return invalid(name + "'s view spans " + std::to_string(bytes) +
                   " bytes; " + k->func +
                   " indexes with 32 bits and takes less than 2 GiB per "
                   "tensor");
  return FLASHRT_OK;
}

/// A memref descriptor of rank t.rank (0 to 4) as 8-byte fields.
std::array<int64_t, 11> anyDescriptor(const flashrt_tensor &t) {
  std::array<int64_t, 11> m = {};
  m[0] = m[1] = int64_t(reinterpret_cast<uintptr_t>(t.data));
  m[2] = 0;
  for (int d = 0; d < t.rank; ++d) {
    m[3 + d] = t.sizes[d];
    m[3 + t.rank + d] = t.strides[d];
  }
  return m;
}

} // namespace

std::atomic<bool> &flashrt::pointerChecks() {
  static auto *flag = new std::atomic<bool>(true);
  return *flag;
}

int Call::run() {
  clearError();
  const Abi &abi = k->abi;
  if (abi.backward) {
    P p[kMaxArity];
    size_t cap = 0;
    for (size_t i = 0; i < abi.args.size(); ++i) {
      switch (abi.args[i]) {
      case ArgRole::Q:
        p[i] = &q;
        break;
      case ArgRole::K:
        p[i] = &kk;
        break;
      case ArgRole::V:
        p[i] = &v;
        break;
      case ArgRole::O:
        p[i] = &o;
        break;
      case ArgRole::Lse:
        p[i] = &lse;
        break;
      case ArgRole::DO:
        p[i] = &dout;
        break;
      case ArgRole::DQ:
        p[i] = &dq;
        break;
      case ArgRole::DK:
        p[i] = &dk;
        break;
      case ArgRole::DV:
        p[i] = &dv;
        break;
      case ArgRole::Alibi:
      case ArgRole::Capture:
        // Abi.cpp matched them one to one with the "captures" records.
        p[i] = captures[cap++].data();
        break;
      }
    }
    callEntry(k->entry, p, abi.args.size(),
              std::make_index_sequence<kMaxArity + 1>());
    return pendingError();
  }
  P fixed[7];
  int n = 0;
  fixed[n++] = &q;
  fixed[n++] = &kk;
  fixed[n++] = &v;
  if (abi.kvLens)
    fixed[n++] = &lens;
  if (abi.paged)
    fixed[n++] = &table;
  fixed[n++] = &o;
  if (abi.lse)
    fixed[n++] = &lse;
  // The captures at their argument positions, the rest in order around
  // them (Abi.cpp checked the positions against the arity).
  P p[kMaxArity];
  size_t arity = size_t(n) + captures.size(), next = 0, cap = 0;
  for (size_t i = 0; i < arity; ++i)
    p[i] = cap < captures.size() && size_t(abi.captures[cap].arg) == i
               ? static_cast<P>(captures[cap++].data())
               : fixed[next++];
  callEntry(k->entry, p, arity, std::make_index_sequence<kMaxArity + 1>());
  return pendingError();
}

int flashrt::refuseServing(const flashrt_kernel *k, const char *api,
                           const char *kvApi) {
  if (!k || (!k->abi.kvLens && !k->abi.paged))
    return FLASHRT_OK;
  std::string what = k->abi.kvLens && k->abi.paged
                         ? "kv_lens and a block table (paged K/V)"
                     : k->abi.kvLens ? "kv_lens (per-sequence KV lengths)"
                                     : "a block table (paged K/V)";
  return invalid(k->func + " takes " + what + ": call " + kvApi + ", not " +
                 api);
}

int flashrt::refuseCaptures(const flashrt_kernel *k, const char *api,
                            const char *capApi) {
  if (!k || k->abi.captures.empty())
    return FLASHRT_OK;
  return invalid(k->func + " takes " + std::to_string(k->abi.captures.size()) +
                 " capture tensor(s) (the score_mod / mask_mod operands): "
                 "call " + capApi + ", not " + api);
}

int flashrt::refuseKind(const flashrt_kernel *k, bool backward, bool timed,
                        const char *api) {
  if (!k || k->abi.backward == backward)
    return FLASHRT_OK;
  const Abi &abi = k->abi;
  if (abi.backward)
    return invalid(
        k->func +
        " is a backward entry (ABI \"kind\": "
        "\"backward\", flash.attention_backward): call " +
        (timed ? "flashrt_time_backward_ms" : "flashrt_attention_backward") +
        ", not " + api);
  const char *right =
      !abi.captures.empty()
          ? (timed ? "flashrt_time_captures_ms" : "flashrt_attention_captures")
      : abi.kvLens || abi.paged
          ? (timed ? "flashrt_time_kv_ms" : "flashrt_attention_kv")
          : (timed ? "flashrt_time_ms" : "flashrt_attention");
  return invalid(k->func + " is a forward entry (flash.attention): call " +
                 right + ", not " + api);
}

/// The block_mask hint against Q [B, Hq, Sq, D]: [B or 1, Hq or 1, R >=
/// ceil(Sq / rows), 4], as the kernel reads it unchecked.
static int checkBlockMask(const flashrt_kernel *k, const flashrt_tensor &t,
                          const flashrt_tensor &q) {
  int64_t rows = k->abi.blockMaskRows;
  int64_t need = (q.sizes[2] + rows - 1) / rows;
  if ((t.sizes[0] != 1 && t.sizes[0] != q.sizes[0]) ||
      (t.sizes[1] != 1 && t.sizes[1] != q.sizes[1]) || t.sizes[2] < need ||
      t.sizes[3] != 4)
    return invalid("the block_mask hint (capture " +
                   std::to_string(k->abi.blockMaskCapture) + ") must be [B=" +
                   std::to_string(q.sizes[0]) + " or 1, Hq=" +
                   std::to_string(q.sizes[1]) + " or 1, R >= ceil(Sq=" +
                   std::to_string(q.sizes[2]) + " / " + std::to_string(rows) +
                   ") = " + std::to_string(need) + ", 4] for " + k->func +
                   ", got " +
                   shapeText(std::vector<int64_t>(t.sizes, t.sizes + 4)));
  return FLASHRT_OK;
}

/// What prepare and prepareBackward share once each has named its operands
/// in `args`: the capture count, the checks of the tensors, the captures
/// and, unless pointer checks are off, the driver's view of each. Sets
/// call.empty and call.captures.
static int checkCall(flashrt_kernel *k, Arg *args,
                     const flashrt_tensor *captures, int numCaptures,
                     Call &call) {
  const Abi &abi = k->abi;
  size_t numCaps = abi.captures.size();
  if (numCaptures < 0 || (numCaptures > 0 && !captures))
    return invalid(k->func + ": captures is NULL or num_captures (" +
                   std::to_string(numCaptures) + ") is negative");
  if (size_t(numCaptures) != numCaps)
    return invalid(k->func + " takes " + std::to_string(numCaps) +
                   " capture tensor(s), not " + std::to_string(numCaptures) +
                   (numCaps ? " (the score_mod / mask_mod operands, in the "
                              "order of the ABI's \"captures\")"
                            : ": pass NULL and 0"));
  if (int rc = checkArgs(k, abi, args, call.empty))
    return rc;
  std::vector<std::string> names(numCaps);
  std::vector<Arg> all(args, args + kNumArgs);
  for (size_t i = 0; i < numCaps && !call.empty; ++i) {
    const CaptureAbi &c = abi.captures[i];
    names[i] = "capture " + std::to_string(i);
    if (int rc = checkCapture(k, c, names[i], &captures[i]))
      return rc;
    if (int(i) == abi.blockMaskCapture)
      if (int rc = checkBlockMask(k, captures[i], *args[kQ].t))
        return rc;
    all.push_back(
        {names[i].c_str(), &captures[i], c.rank, dtypeBytes(c.dtype), c.dtype});
  }
  // An empty backward still writes its non-empty gradients (as zeros).
  bool zeroes = abi.backward && call.empty &&
                (!isEmpty(*args[kDQ].t) || !isEmpty(*args[kDK].t) ||
                 !isEmpty(*args[kDV].t));
  if (call.empty && !zeroes)
    return FLASHRT_OK;
  if (pointerChecks().load(std::memory_order_relaxed))
    if (int rc = checkDeviceMemory(all.data(), all.size()))
      return rc;
  call.k = k;
  call.captures.clear();
  for (size_t i = 0; i < numCaps && !call.empty; ++i)
    call.captures.push_back(anyDescriptor(captures[i]));
  return FLASHRT_OK;
}

int flashrt::prepare(flashrt_kernel *k, const flashrt_tensor *q,
                     const flashrt_tensor *kk, const flashrt_tensor *v,
                     const flashrt_tensor *lens, const flashrt_tensor *table,
                     const flashrt_tensor *captures, int numCaptures,
                     const flashrt_tensor *o, const flashrt_tensor *lse,
                     Call &call) {
  if (!k)
    return invalid("the kernel is NULL (flashrt_open failed?)");
  const Abi &abi = k->abi;
  int elem = dtypeBytes(abi.dtype);
  Arg args[kNumArgs] = {
      {"Q", q, 4, elem, abi.dtype},
      {"K", kk, 4, elem, abi.dtype},
      {"V", v, 4, elem, abi.dtype},
      {"O", o, 4, elem, abi.dtype},
      {"LSE", lse, 3, 4, FLASHRT_DTYPE_F32, abi.lse},
      {"kv_lens", lens, 1, 4, FLASHRT_DTYPE_I32, abi.kvLens},
      {"block_table", table, 2, 4, FLASHRT_DTYPE_I32, abi.paged},
      {"dO", nullptr, 4, elem, abi.dtype, false},
      {"dQ", nullptr, 4, elem, abi.dtype, false},
      {"dK", nullptr, 4, elem, abi.dtype, false},
      {"dV", nullptr, 4, elem, abi.dtype, false}};
  if (abi.lse && !lse)
    return invalid(k->func + " writes LSE: pass an LSE tensor (f32 [B, Hq, "
                             "Sq])");
  if (!abi.lse && lse)
    return invalid(k->func + " has no LSE output: pass NULL for LSE");
  if (abi.kvLens && !lens)
    return invalid(k->func + " takes per-sequence KV lengths: pass kv_lens "
                             "(i32 [B])");
  if (!abi.kvLens && lens)
    return invalid(k->func + " has no kv_lens operand: pass NULL for kv_lens");
  if (abi.paged && !table)
    return invalid(k->func + " reads a paged KV cache: pass block_table (i32 "
                             "[B, pages_per_seq]) and K/V as page pools "
                             "[pages, Hkv, page_size, D]");
  if (!abi.paged && table)
    return invalid(k->func + " has no block table (not paged): pass NULL for "
                             "block_table");
  if (int rc = checkCall(k, args, captures, numCaptures, call))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  call.q = descriptor<4>(*q);
  call.kk = descriptor<4>(*kk);
  call.v = descriptor<4>(*v);
  call.o = descriptor<4>(*o);
  if (lse)
    call.lse = descriptor<3>(*lse);
  if (lens)
    call.lens = descriptor<1>(*lens);
  if (table)
    call.table = descriptor<2>(*table);
  return FLASHRT_OK;
}

int flashrt::prepareBackward(flashrt_kernel *k, const flashrt_tensor *q,
                             const flashrt_tensor *kk, const flashrt_tensor *v,
                             const flashrt_tensor *o, const flashrt_tensor *lse,
                             const flashrt_tensor *dout,
                             const flashrt_tensor *captures, int numCaptures,
                             const flashrt_tensor *dq, const flashrt_tensor *dk,
                             const flashrt_tensor *dv, Call &call) {
  if (!k)
    return invalid("the kernel is NULL (flashrt_open failed?)");
  const Abi &abi = k->abi;
  int elem = dtypeBytes(abi.dtype);
  // LSE is the forward's natural-log LSE (-inf on rows that saw no key).
  Arg args[kNumArgs] = {
      {"Q", q, 4, elem, abi.dtype},
      {"K", kk, 4, elem, abi.dtype},
      {"V", v, 4, elem, abi.dtype},
      {"O", o, 4, elem, abi.dtype},
      {"LSE", lse, 3, 4, FLASHRT_DTYPE_F32},
      {"kv_lens", nullptr, 1, 4, FLASHRT_DTYPE_I32, false},
      {"block_table", nullptr, 2, 4, FLASHRT_DTYPE_I32, false},
      {"dO", dout, 4, elem, abi.dtype},
      {"dQ", dq, 4, elem, abi.dtype},
      {"dK", dk, 4, elem, abi.dtype},
      {"dV", dv, 4, elem, abi.dtype}};
  if (int rc = checkCall(k, args, captures, numCaptures, call))
    return rc;
  call.zeros.clear();
  if (call.empty) {
    for (const flashrt_tensor *t : {dq, dk, dv})
      if (!isEmpty(*t))
        call.zeros.push_back(*t);
    return FLASHRT_OK;
  }
  call.q = descriptor<4>(*q);
  call.kk = descriptor<4>(*kk);
  call.v = descriptor<4>(*v);
  call.o = descriptor<4>(*o);
  call.lse = descriptor<3>(*lse);
  call.dout = descriptor<4>(*dout);
  call.dq = descriptor<4>(*dq);
  call.dk = descriptor<4>(*dk);
  call.dv = descriptor<4>(*dv);
  return FLASHRT_OK;
}

int Call::zero(void *stream) {
  if (zeros.empty())
    return FLASHRT_OK;
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  auto s = static_cast<CUstream>(stream);
  for (const flashrt_tensor &t : zeros) {
    auto base = reinterpret_cast<CUdeviceptr>(t.data);
    // One memset when the view covers a dense block (any dim order), else
    // one per row (rows have unit stride).
    int order[4] = {0, 1, 2, 3};
    std::sort(order, order + 4,
              [&](int a, int b) { return t.strides[a] > t.strides[b]; });
    int64_t dense = 1;
    bool isDense = true;
    for (int i = 3; i >= 0; --i) {
      int dim = order[i];
      if (t.sizes[dim] == 1)
        continue;
      isDense &= t.strides[dim] == dense;
      dense *= t.sizes[dim];
    }
    if (isDense) {
      if (!checkCuda(d->cuMemsetD16Async(base, 0, size_t(dense), s),
                     FLASHRT_ERR_CUDA, "zeroing a gradient"))
        return pendingError();
      continue;
    }
    for (int64_t i0 = 0; i0 < t.sizes[0]; ++i0)
      for (int64_t i1 = 0; i1 < t.sizes[1]; ++i1)
        for (int64_t i2 = 0; i2 < t.sizes[2]; ++i2) {
          int64_t at =
              i0 * t.strides[0] + i1 * t.strides[1] + i2 * t.strides[2];
          if (!checkCuda(d->cuMemsetD16Async(base + CUdeviceptr(at) * 2, 0,
                                             size_t(t.sizes[3]), s),
                         FLASHRT_ERR_CUDA, "zeroing a gradient"))
            return pendingError();
        }
  }
  return FLASHRT_OK;
}
