//===- FlashRT.cpp - The flashrt C API ------------------------------------===//
//
// Opens artifacts, checks tensors against an artifact's ABI record before
// anything reaches the GPU (a bad stride or a host pointer must be an error
// message, not a fault in a kernel), builds the MLIR memref descriptors of
// the entry's C interface and calls it with the caller's stream installed
// for the mgpu* functions (Runtime.h).
//
//===----------------------------------------------------------------------===//

#include "flashrt.h"

#include "Abi.h"
#include "CudaDriver.h"
#include "Runtime.h"
#include "Status.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <vector>

using namespace flashrt;

namespace {

/// MLIR's ranked memref descriptor, as `_mlir_ciface_` functions take it.
template <int Rank> struct MemRef {
  void *allocated, *aligned;
  int64_t offset, sizes[Rank], strides[Rank];
};
/// Entries take descriptor pointers: Q, K, V, [kv_lens], [block_table], O,
/// [LSE]; 4 to 7 of them.
using P = void *;
using Entry4 = void (*)(P, P, P, P);
using Entry5 = void (*)(P, P, P, P, P);
using Entry6 = void (*)(P, P, P, P, P, P);
using Entry7 = void (*)(P, P, P, P, P, P, P);

/// cp.async moves 16-byte chunks: rows must start on 16-byte boundaries.
constexpr int64_t kAlignBytes = 16;

/// flashrt_set_pointer_checks's process-wide flag; never destroyed, like
/// the rest of the runtime's state.
std::atomic<bool> &pointerChecks() {
  static auto *flag = new std::atomic<bool>(true);
  return *flag;
}

std::string hex(const void *p) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%p", p);
  return buf;
}

bool archCompatible(const Abi &abi, int major, int minor, bool jit) {
  if (abi.arch.empty())
    return true;
  if (abi.archSpecific) // sm_90a code runs on 9.0 only.
    return major == abi.archMajor && minor == abi.archMinor;
  if (jit) // PTX is JIT-compiled for any newer GPU.
    return major > abi.archMajor ||
           (major == abi.archMajor && minor >= abi.archMinor);
  // A cubin runs on its major version, same or higher minor.
  return major == abi.archMajor && minor >= abi.archMinor;
}

/// A tensor argument and what it must be.
struct Arg {
  const char *name;
  const flashrt_tensor *t;
  int rank;
  int elemBytes;
  int dtype;         // FLASHRT_DTYPE_* it must be (unless the caller says 0)
  bool used = true;  // the entry takes this operand
};

/// Positions in the argument array.
enum { kQ, kK, kV, kO, kLse, kLens, kTable, kNumArgs };

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

int invalid(const std::string &message) {
  return recordError(FLASHRT_ERR_INVALID_ARGUMENT, message);
}

/// Checks the arguments against each other and the ABI, without the driver.
/// Sets `empty` when there is nothing to compute.
int checkArgs(const flashrt_kernel *k, const Abi &abi, Arg *args,
              bool &empty);

/// Checks that the non-empty tensors are device memory of the current
/// context's device, covering their views.
int checkDeviceMemory(Arg *args);

} // namespace

struct flashrt_kernel {
  void *handle = nullptr;
  void *entry = nullptr;
  std::string path, func, abiJson;
  Abi abi;
};

namespace {

std::string shapeText(const std::vector<int64_t> &shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

int checkArgs(const flashrt_kernel *k, const Abi &abi, Arg *args,
              bool &empty) {
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
  } statics[] = {{kQ, 4, &abi.qShape, "q_shape"},
                 {kO, 3, &abi.qShape, "q_shape"},
                 {kLse, 3, &abi.qShape, "q_shape"},
                 {kK, 4, &abi.kvShape, "kv_shape"},
                 {kV, 3, &abi.kvShape, "kv_shape"}};
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
                     st.key + " " + shapeText(*st.shape) +
                     "; -1 = any)");
    }
  }

  // Q [B,Hq,Sq,D], K [B,Hkv,Sk,D], V [B,Hkv,Sk,Dv], O [B,Hq,Sq,Dv], LSE
  // [B,Hq,Sq]: every size is named by Q, K or V. Paged: K/V are page pools
  // [pages, Hkv, page_size, D]; kv_lens [B], block_table [B, pages_per_seq].
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

  empty = b == 0 || hq == 0 || sq == 0;
  if (empty)
    return FLASHRT_OK;
  if (hkv == 0 || hq % hkv != 0)
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
  return FLASHRT_OK;
}

int checkDeviceMemory(Arg *args) {
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  CUdevice device;
  if (!checkCuda(d->cuCtxGetDevice(&device), FLASHRT_ERR_CUDA,
                 "cuCtxGetDevice"))
    return pendingError();
  for (int i = 0; i < kNumArgs; ++i) {
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

/// A validated call, ready to run as often as needed.
struct Call {
  flashrt_kernel *k;
  MemRef<4> q, kk, v, o;
  MemRef<3> lse;
  MemRef<1> lens;
  MemRef<2> table;
  bool empty = false;

  /// Runs the entry; returns the first error its mgpu* calls recorded.
  int run() {
    clearError();
    const Abi &abi = k->abi;
    P p[7];
    int n = 0;
    p[n++] = &q;
    p[n++] = &kk;
    p[n++] = &v;
    if (abi.kvLens)
      p[n++] = &lens;
    if (abi.paged)
      p[n++] = &table;
    p[n++] = &o;
    if (abi.lse)
      p[n++] = &lse;
    switch (n) {
    case 4:
      reinterpret_cast<Entry4>(k->entry)(p[0], p[1], p[2], p[3]);
      break;
    case 5:
      reinterpret_cast<Entry5>(k->entry)(p[0], p[1], p[2], p[3], p[4]);
      break;
    case 6:
      reinterpret_cast<Entry6>(k->entry)(p[0], p[1], p[2], p[3], p[4], p[5]);
      break;
    default:
      reinterpret_cast<Entry7>(k->entry)(p[0], p[1], p[2], p[3], p[4], p[5],
                                         p[6]);
      break;
    }
    return pendingError();
  }
};

/// flashrt_attention and flashrt_time_ms take no kv_lens / block table.
int refuseServing(const flashrt_kernel *k, const char *api,
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

int prepare(flashrt_kernel *k, const flashrt_tensor *q,
            const flashrt_tensor *kk, const flashrt_tensor *v,
            const flashrt_tensor *lens, const flashrt_tensor *table,
            const flashrt_tensor *o, const flashrt_tensor *lse, Call &call) {
  if (!k)
    return invalid("the kernel is NULL (flashrt_open failed?)");
  const Abi &abi = k->abi;
  int elem = dtypeBytes(abi.dtype);
  Arg args[kNumArgs] = {{"Q", q, 4, elem, abi.dtype},
                        {"K", kk, 4, elem, abi.dtype},
                        {"V", v, 4, elem, abi.dtype},
                        {"O", o, 4, elem, abi.dtype},
                        {"LSE", lse, 3, 4, FLASHRT_DTYPE_F32, abi.lse},
                        {"kv_lens", lens, 1, 4, FLASHRT_DTYPE_I32, abi.kvLens},
                        {"block_table", table, 2, 4, FLASHRT_DTYPE_I32,
                         abi.paged}};
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
  if (int rc = checkArgs(k, abi, args, call.empty))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  if (pointerChecks().load(std::memory_order_relaxed))
    if (int rc = checkDeviceMemory(args))
      return rc;
  call.k = k;
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

} // namespace

//===----------------------------------------------------------------------===//
// Artifacts
//===----------------------------------------------------------------------===//

extern "C" int flashrt_open(const char *artifact_path, const char *func,
                            flashrt_kernel **out) {
  ApiScope scope;
  clearError();
  if (!out)
    return invalid("flashrt_open: out is NULL");
  *out = nullptr;
  if (!artifact_path || !*artifact_path)
    return invalid("flashrt_open: no artifact path");
  if (!func || !*func)
    return invalid("flashrt_open: no function name");
  std::string path = artifact_path;
  // A name without a slash would make dlopen search the library path; an
  // artifact is always a file, relative to the working directory.
  std::string file = path.find('/') == std::string::npos ? "./" + path : path;

  // The artifact's constructor loads its GPU module during dlopen.
  resetModuleLoads();
  void *handle = dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    std::string message =
        "cannot load artifact '" + path + "': " + (why ? why : "unknown error");
    if (message.find("undefined symbol: mgpu") != std::string::npos)
      message += " (libflashrt.so must be loaded with RTLD_GLOBAL before "
                 "the artifact)";
    return recordError(FLASHRT_ERR_LOAD, message);
  }
  ModuleLoads loads = moduleLoads();
  // By value: `message` may be the error state that clearError() empties.
  auto fail = [&](int code, std::string message) {
    dlclose(handle);
    clearError();
    return recordError(code, std::move(message));
  };

  std::string entryName = "_mlir_ciface_" + std::string(func);
  void *entry = dlsym(handle, entryName.c_str());
  if (!entry)
    return fail(FLASHRT_ERR_LOAD, "'" + path + "' has no " + entryName +
                                      ": no function '" + func +
                                      "' was compiled into it");
  std::string abiName = std::string(func) + "_flash_abi";
  auto *abiText = static_cast<const char *>(dlsym(handle, abiName.c_str()));
  if (!abiText)
    return fail(FLASHRT_ERR_LOAD, "'" + path + "' has no ABI record " +
                                      abiName + " (not a FlashMLIR artifact?)");
  auto kernel = std::make_unique<flashrt_kernel>();
  kernel->abiJson = abiText;
  std::string why = parseAbi(kernel->abiJson, kernel->abi);
  if (!why.empty())
    return fail(FLASHRT_ERR_LOAD,
                "'" + path + "': malformed " + abiName + ": " + why);
  const Abi &abi = kernel->abi;

  // Device checks only when the artifact has GPU code (its constructor
  // loaded a module): then the GPU must exist and match its architecture.
  if (loads.count > 0) {
    if (loads.failures > 0 && (loads.status == FLASHRT_ERR_NO_DRIVER ||
                               loads.status == FLASHRT_ERR_NO_DEVICE))
      return fail(loads.status, loads.message);
    clearError();
    DeviceInfo dev;
    if (!getCurrentDeviceInfo(dev))
      return fail(pendingError(), errorMessage());
    if (!archCompatible(abi, dev.ccMajor, dev.ccMinor, loads.jit))
      return fail(FLASHRT_ERR_ARCH,
                  "'" + path + "' was compiled for " + abi.arch +
                      " but device " + std::to_string(dev.device) + " is sm_" +
                      std::to_string(dev.ccMajor * 10 + dev.ccMinor) +
                      " (compute capability " + std::to_string(dev.ccMajor) +
                      "." + std::to_string(dev.ccMinor) + ")");
    if (loads.failures > 0)
      return fail(loads.status, "'" + path + "': " + loads.message);
  }

  kernel->handle = handle;
  kernel->entry = entry;
  kernel->path = path;
  kernel->func = func;
  *out = kernel.release();
  return clearError();
}

extern "C" void flashrt_set_pointer_checks(int on) {
  pointerChecks().store(on != 0);
}

extern "C" const char *flashrt_abi(const flashrt_kernel *k) {
  return k ? k->abiJson.c_str() : "";
}

extern "C" void flashrt_close(flashrt_kernel *k) {
  if (!k)
    return;
  ApiScope scope;
  // The artifact's destructor unloads its module (when this was the last
  // reference to the library).
  dlclose(k->handle);
  delete k;
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

extern "C" void mgpuStreamSynchronize(void *stream); // Mgpu.cpp

namespace {

int attention(flashrt_kernel *k, const flashrt_tensor *q,
              const flashrt_tensor *kk, const flashrt_tensor *v,
              const flashrt_tensor *lens, const flashrt_tensor *table,
              const flashrt_tensor *o, const flashrt_tensor *lse,
              void *stream) {
  Call call;
  if (int rc = prepare(k, q, kk, v, lens, table, o, lse, call))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  auto s = static_cast<CUstream>(stream);
  int rc;
  {
    // The entry's own waits (after scratch allocation, after each launch)
    // are skipped: a split-KV entry launches two kernels, and waiting
    // between them doubled the latency of a small decode step.
    CallerStreamScope streamScope(s, /*wait=*/false);
    rc = call.run();
  }
  if (asyncMode())
    return rc;
  // Sync mode: one wait at the end (also after an error, so nothing of
  // this call is still queued); a kernel's failure is still reported by the
  // call that launched it (mgpuStreamSynchronize names the kernel, and the
  // first error recorded wins).
  CallerStreamScope streamScope(s, /*wait=*/true);
  mgpuStreamSynchronize(s);
  return pendingError();
}

int timeMs(const char *api, flashrt_kernel *k, const flashrt_tensor *q,
           const flashrt_tensor *kk, const flashrt_tensor *v,
           const flashrt_tensor *lens, const flashrt_tensor *table,
           const flashrt_tensor *o, const flashrt_tensor *lse, void *stream,
           int warmup, int reps, float *median_ms) {
  if (!median_ms)
    return invalid(std::string(api) + ": median_ms is NULL");
  if (warmup < 0 || reps < 1)
    return invalid(std::string(api) + ": need warmup >= 0 and reps >= 1");
  *median_ms = 0.0f;
  Call call;
  if (int rc = prepare(k, q, kk, v, lens, table, o, lse, call))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();

  auto s = static_cast<CUstream>(stream);
  std::vector<CUevent> events(2 * size_t(reps), nullptr);
  auto destroyEvents = [&] {
    for (CUevent e : events)
      if (e)
        d->cuEventDestroy(e);
  };
  for (CUevent &e : events)
    if (!checkCuda(d->cuEventCreate(&e, CU_EVENT_DEFAULT), FLASHRT_ERR_CUDA,
                   "cuEventCreate")) {
      destroyEvents();
      return pendingError();
    }

  int rc = FLASHRT_OK;
  {
    // Back-to-back launches: waiting after each would time the host too.
    CallerStreamScope streamScope(s, /*wait=*/false);
    for (int i = 0; i < warmup && rc == FLASHRT_OK; ++i)
      rc = call.run();
    for (int i = 0; i < reps && rc == FLASHRT_OK; ++i) {
      d->cuEventRecord(events[2 * i], s);
      rc = call.run();
      d->cuEventRecord(events[2 * i + 1], s);
    }
  }
  if (rc == FLASHRT_OK) {
    CUresult result = d->cuEventSynchronize(events.back());
    if (result != CUDA_SUCCESS)
      rc = recordError(FLASHRT_ERR_LAUNCH,
                       "the timed kernels failed while running: " +
                           cudaErrorText(result));
  }
  std::vector<float> times(reps);
  for (int i = 0; i < reps && rc == FLASHRT_OK; ++i)
    if (!checkCuda(
            d->cuEventElapsedTime(&times[i], events[2 * i], events[2 * i + 1]),
            FLASHRT_ERR_CUDA, "cuEventElapsedTime"))
      rc = pendingError();
  destroyEvents();
  if (rc != FLASHRT_OK)
    return rc;
  std::sort(times.begin(), times.end());
  *median_ms = reps % 2 ? times[reps / 2]
                        : 0.5f * (times[reps / 2 - 1] + times[reps / 2]);
  return FLASHRT_OK;
}

} // namespace

extern "C" int flashrt_attention(flashrt_kernel *k, const flashrt_tensor *q,
                                 const flashrt_tensor *kk,
                                 const flashrt_tensor *v,
                                 const flashrt_tensor *o,
                                 const flashrt_tensor *lse, void *stream) {
  ApiScope scope;
  clearError();
  if (int rc = refuseServing(k, "flashrt_attention", "flashrt_attention_kv"))
    return rc;
  return attention(k, q, kk, v, nullptr, nullptr, o, lse, stream);
}

extern "C" int flashrt_attention_kv(flashrt_kernel *k, const flashrt_tensor *q,
                                    const flashrt_tensor *kk,
                                    const flashrt_tensor *v,
                                    const flashrt_tensor *kv_lens,
                                    const flashrt_tensor *block_table,
                                    const flashrt_tensor *o,
                                    const flashrt_tensor *lse, void *stream) {
  ApiScope scope;
  clearError();
  return attention(k, q, kk, v, kv_lens, block_table, o, lse, stream);
}

extern "C" int flashrt_time_ms(flashrt_kernel *k, const flashrt_tensor *q,
                               const flashrt_tensor *kk,
                               const flashrt_tensor *v, const flashrt_tensor *o,
                               const flashrt_tensor *lse, void *stream,
                               int warmup, int reps, float *median_ms) {
  ApiScope scope;
  clearError();
  if (median_ms)
    *median_ms = 0.0f;
  if (int rc = refuseServing(k, "flashrt_time_ms", "flashrt_time_kv_ms"))
    return rc;
  return timeMs("flashrt_time_ms", k, q, kk, v, nullptr, nullptr, o, lse,
                stream, warmup, reps, median_ms);
}

extern "C" int flashrt_time_kv_ms(flashrt_kernel *k, const flashrt_tensor *q,
                                  const flashrt_tensor *kk,
                                  const flashrt_tensor *v,
                                  const flashrt_tensor *kv_lens,
                                  const flashrt_tensor *block_table,
                                  const flashrt_tensor *o,
                                  const flashrt_tensor *lse, void *stream,
                                  int warmup, int reps, float *median_ms) {
  ApiScope scope;
  clearError();
  return timeMs("flashrt_time_kv_ms", k, q, kk, v, kv_lens, block_table, o,
                lse, stream, warmup, reps, median_ms);
}

//===----------------------------------------------------------------------===//
// Device helpers
//===----------------------------------------------------------------------===//

extern "C" int flashrt_malloc(void **ptr, size_t bytes) {
  ApiScope scope;
  clearError();
  if (!ptr)
    return invalid("flashrt_malloc: ptr is NULL");
  *ptr = nullptr;
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  CUdeviceptr p = 0;
  if (!checkCuda(d->cuMemAlloc(&p, bytes ? bytes : 1), FLASHRT_ERR_CUDA,
                 "allocating " + std::to_string(bytes) + " bytes on the GPU"))
    return pendingError();
  *ptr = reinterpret_cast<void *>(p);
  return FLASHRT_OK;
}

extern "C" int flashrt_free(void *ptr) {
  ApiScope scope;
  clearError();
  if (!ptr)
    return FLASHRT_OK;
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  checkCuda(d->cuMemFree(reinterpret_cast<CUdeviceptr>(ptr)), FLASHRT_ERR_CUDA,
            "cuMemFree");
  return pendingError();
}

extern "C" int flashrt_memcpy_htod(void *dst, const void *src, size_t bytes) {
  ApiScope scope;
  clearError();
  if (bytes && (!dst || !src))
    return invalid("flashrt_memcpy_htod: NULL pointer");
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  if (bytes)
    checkCuda(d->cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst), src, bytes),
              FLASHRT_ERR_CUDA, "cuMemcpyHtoD");
  return pendingError();
}

extern "C" int flashrt_memcpy_dtoh(void *dst, const void *src, size_t bytes) {
  ApiScope scope;
  clearError();
  if (bytes && (!dst || !src))
    return invalid("flashrt_memcpy_dtoh: NULL pointer");
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  if (bytes)
    checkCuda(d->cuMemcpyDtoH(dst, reinterpret_cast<CUdeviceptr>(src), bytes),
              FLASHRT_ERR_CUDA, "cuMemcpyDtoH");
  return pendingError();
}

extern "C" int flashrt_memset(void *dst, unsigned char byte, size_t bytes) {
  ApiScope scope;
  clearError();
  if (bytes && !dst)
    return invalid("flashrt_memset: NULL pointer");
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  if (bytes)
    checkCuda(d->cuMemsetD8(reinterpret_cast<CUdeviceptr>(dst), byte, bytes),
              FLASHRT_ERR_CUDA, "cuMemsetD8");
  return pendingError();
}

extern "C" int flashrt_synchronize(void) {
  ApiScope scope;
  clearError();
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  CUresult result = d->cuCtxSynchronize();
  if (result != CUDA_SUCCESS)
    recordError(FLASHRT_ERR_LAUNCH,
                "a kernel failed while running: " + cudaErrorText(result));
  return pendingError();
}

extern "C" int flashrt_device_info(int *cc_major, int *cc_minor, int *num_sms) {
  ApiScope scope;
  clearError();
  DeviceInfo info;
  if (!getCurrentDeviceInfo(info))
    return pendingError();
  if (cc_major)
    *cc_major = info.ccMajor;
  if (cc_minor)
    *cc_minor = info.ccMinor;
  if (num_sms)
    *num_sms = info.numSms;
  return FLASHRT_OK;
}
