//===- Mgpu.cpp - MLIR's mgpu* GPU launch ABI on the CUDA driver ----------===//
//
// The functions that MLIR's GPU host lowering (gpu-to-llvm and the LLVM
// translation of gpu.binary, MLIR 22) calls from an artifact: module load and
// unload from its global constructor and destructor, and per entry call
// get-function, stream create, launch, synchronise, destroy. Signatures are
// those of upstream's CudaRuntimeWrappers.cpp; the differences are policy:
//
//  * nothing aborts or only prints: the first error of a flashrt call is
//    recorded (Status.h) and returned by the C API once the entry is back;
//  * the caller's stream (PyTorch's current stream) replaces the stream the
//    entry creates, and is synchronised only in sync mode, never destroyed;
//  * kernels needing over 48 KiB of dynamic shared memory are opted in once;
//  * looked-up functions are cached, as the entry asks for its kernel by
//    name on every call and small decode launches should not pay for it.
//  * scratch memory comes from the caller's allocator when one is set
//    (flashrt_set_allocator), else from a per-stream cache of the driver's
//    stream-ordered allocations.
//
//===----------------------------------------------------------------------===//

#include "Runtime.h"
#include "Status.h"

#include <atomic>
#include <climits>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

using namespace flashrt;

namespace {

struct CallerState {
  bool active = false;
  CUstream stream = nullptr;
  bool wait = true;
  std::string lastKernel; // For errors seen at synchronisation.
};
CallerState &caller() {
  static thread_local CallerState s;
  return s;
}

ModuleLoads &loads() {
  static thread_local ModuleLoads l;
  return l;
}

std::atomic<bool> &asyncFlag() {
  static std::atomic<bool> *flag = new std::atomic<bool>(false);
  return *flag;
}

struct FunctionInfo {
  CUmodule module;
  std::string name;
  int smemAllowed; // Dynamic shared memory the function is opted in to.
};

/// Kernels by function handle and by (module, name pointer): the name is a
/// global string of the artifact, so its address identifies it cheaply; the
/// text is compared too, in case a later artifact reuses the address.
struct Registry {
  std::mutex mutex;
  std::unordered_map<CUfunction, FunctionInfo> byFunction;
  std::map<std::pair<CUmodule, const char *>, CUfunction> byName;
  std::set<CUdeviceptr> asyncAllocations;
  std::set<CUdeviceptr> managedAllocations;
  /// Scratch blocks (split-KV partials) given back by mgpuMemFree, kept for
  /// the next call on the same stream: a decode step allocates and frees
  /// the same sizes every call, and a fresh stream-ordered allocation costs
  /// far more than the few microseconds the kernels take (the pool gives
  /// its memory back at each synchronization).
  struct CachedBlock {
    CUdeviceptr ptr;
    uint64_t bytes;
    CUstream stream;
  };
  std::vector<CachedBlock> scratchCache;
  std::unordered_map<CUdeviceptr, uint64_t> scratchSizes;
};
constexpr size_t kScratchCacheBlocks = 16;

/// The caller's allocator (flashrt_set_allocator); empty for the built-in.
struct CallerAllocator {
  flashrt_alloc_fn alloc = nullptr;
  flashrt_free_fn free = nullptr;
  void *user = nullptr;
};
std::mutex &allocatorMutex() {
  static std::mutex *m = new std::mutex;
  return *m;
}
CallerAllocator &callerAllocatorSlot() {
  static CallerAllocator *a = new CallerAllocator;
  return *a;
}
CallerAllocator callerAllocator() {
  std::lock_guard<std::mutex> lock(allocatorMutex());
  return callerAllocatorSlot();
}
// Never destroyed: artifacts unload their modules from their destructors,
// possibly after this library's static destructors at exit.
Registry &registry() {
  static Registry *r = new Registry;
  return *r;
}

constexpr int kDefaultSmemLimit = 48 * 1024;

std::string kernelName(CUfunction f) {
  Registry &r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.byFunction.find(f);
  return it == r.byFunction.end() ? "<unknown>" : it->second.name;
}

bool isCallerStream(CUstream s) {
  const CallerState &c = caller();
  return c.active && s == c.stream;
}

void noteLoadFailure(CUresult cuError) {
  ModuleLoads &l = loads();
  if (l.failures++ == 0) {
    l.cuError = cuError;
    l.status = pendingError();
    l.message = errorMessage();
  }
}

/// Shared tail of mgpuModuleLoad and mgpuModuleLoadJIT.
CUmodule finishLoad(CUresult result, CUmodule module, const char *log) {
  if (result == CUDA_SUCCESS)
    return module;
  std::string what =
      "loading the artifact's GPU module failed: " + cudaErrorText(result);
  int status = FLASHRT_ERR_LOAD;
  if (result == CUDA_ERROR_NO_BINARY_FOR_GPU) {
    status = FLASHRT_ERR_ARCH;
    what += "; it was compiled for another GPU architecture";
  } else if (result == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
    what += "; the driver is older than the CUDA toolkit that produced it";
  }
  if (log && *log)
    what += "\n" + std::string(log);
  recordError(status, what);
  noteLoadFailure(result);
  return nullptr;
}

} // namespace

//===----------------------------------------------------------------------===//
// Interface to the C API (Runtime.h)
//===----------------------------------------------------------------------===//

CallerStreamScope::CallerStreamScope(CUstream stream, bool wait) {
  CallerState &c = caller();
  savedActive = c.active;
  savedStream = c.stream;
  savedWait = c.wait;
  c.active = true;
  c.stream = stream;
  c.wait = wait;
}

CallerStreamScope::~CallerStreamScope() {
  CallerState &c = caller();
  c.active = savedActive;
  c.stream = savedStream;
  c.wait = savedWait;
}

bool flashrt::asyncMode() { return asyncFlag().load(); }

void flashrt::resetModuleLoads() { loads() = ModuleLoads(); }

const ModuleLoads &flashrt::moduleLoads() { return loads(); }

extern "C" FLASHRT_API void flashrt_set_async(int on) {
  asyncFlag().store(on != 0);
}

//===----------------------------------------------------------------------===//
// Modules and functions
//===----------------------------------------------------------------------===//

/// A cubin or fatbin image (gpu-module-to-binary format=bin|fatbin); `size`
/// is not needed, the image carries its own.
extern "C" FLASHRT_API void *mgpuModuleLoad(const void *data,
                                            int64_t /*size*/) {
  ++loads().count;
  const Driver *d = getDriverWithContext();
  if (!d) {
    noteLoadFailure(0);
    return nullptr;
  }
  CUmodule module = nullptr;
  CUresult result = d->cuModuleLoadData(&module, data);
  return finishLoad(result, module, nullptr);
}

/// A PTX image (format=isa), JIT-compiled by the driver at `optLevel`.
extern "C" FLASHRT_API void *mgpuModuleLoadJIT(const void *data, int optLevel) {
  ++loads().count;
  loads().jit = true;
  const Driver *d = getDriverWithContext();
  if (!d) {
    noteLoadFailure(0);
    return nullptr;
  }
  char log[4096] = "";
  int options[] = {CU_JIT_OPTIMIZATION_LEVEL, /*CU_JIT_ERROR_LOG_BUFFER=*/5,
                   /*CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES=*/6};
  void *values[] = {reinterpret_cast<void *>(intptr_t(optLevel)), log,
                    reinterpret_cast<void *>(intptr_t(sizeof(log)))};
  CUmodule module = nullptr;
  CUresult result = d->cuModuleLoadDataEx(&module, data, 3, options, values);
  return finishLoad(result, module, log);
}

extern "C" FLASHRT_API void mgpuModuleUnload(void *module) {
  if (!module)
    return; // Its load failed; that was reported then.
  Registry &r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    for (auto it = r.byName.begin(); it != r.byName.end();) {
      if (it->first.first == module) {
        r.byFunction.erase(it->second);
        it = r.byName.erase(it);
      } else {
        ++it;
      }
    }
  }
  const Driver *d = getDriver();
  if (!d)
    return;
  CUresult result = d->cuModuleUnload(static_cast<CUmodule>(module));
  // At process exit the driver may be shut down before the artifact's
  // destructor runs; nothing is lost then.
  if (result != CUDA_ERROR_DEINITIALIZED)
    checkCuda(result, FLASHRT_ERR_CUDA, "cuModuleUnload");
}

extern "C" FLASHRT_API void *mgpuModuleGetFunction(void *module,
                                                   const char *name) {
  if (!module) {
    recordError(FLASHRT_ERR_LOAD,
                std::string("kernel '") + (name ? name : "") +
                    "' cannot be found: the artifact's GPU module is not "
                    "loaded (its load failed when the artifact was opened)");
    return nullptr;
  }
  auto *mod = static_cast<CUmodule>(module);
  Registry &r = registry();
  {
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.byName.find({mod, name});
    if (it != r.byName.end() && r.byFunction[it->second].name == name)
      return it->second;
  }
  const Driver *d = getDriverWithContext();
  if (!d)
    return nullptr;
  CUfunction f = nullptr;
  if (!checkCuda(d->cuModuleGetFunction(&f, mod, name), FLASHRT_ERR_LOAD,
                 std::string("looking up kernel '") + name +
                     "' in the artifact's GPU module"))
    return nullptr;
  std::lock_guard<std::mutex> lock(r.mutex);
  r.byName[{mod, name}] = f;
  r.byFunction[f] = FunctionInfo{mod, name, kDefaultSmemLimit};
  return f;
}

//===----------------------------------------------------------------------===//
// Launch and streams
//===----------------------------------------------------------------------===//

/// `paramsCount` is only needed by cuLaunchKernelEx-based launches.
extern "C" FLASHRT_API void
mgpuLaunchKernel(void *function, int64_t gridX, int64_t gridY, int64_t gridZ,
                 int64_t blockX, int64_t blockY, int64_t blockZ,
                 int32_t smemBytes, void *stream, void **params, void **extra,
                 int64_t /*paramsCount*/) {
  // An empty grid is valid for the host code (empty problem) but not for
  // the driver: there is simply nothing to run.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  if (!function) {
    recordError(FLASHRT_ERR_LAUNCH, "launch of a kernel that was not found");
    return;
  }
  // A failed step before it (e.g. a scratch allocation) has left the
  // kernel's operands unusable: launching would fault the context.
  if (caller().active && pendingError() != FLASHRT_OK)
    return;
  auto *f = static_cast<CUfunction>(function);
  std::string name = kernelName(f);
  caller().lastKernel = name;
  auto describe = [&] {
    return "kernel '" + name + "' (grid " + std::to_string(gridX) + "x" +
           std::to_string(gridY) + "x" + std::to_string(gridZ) + ", block " +
           std::to_string(blockX) + "x" + std::to_string(blockY) + "x" +
           std::to_string(blockZ) + ", " + std::to_string(smemBytes) +
           " bytes of dynamic shared memory)";
  };
  for (int64_t dim : {gridX, gridY, gridZ, blockX, blockY, blockZ})
    if (dim < 0 || dim > int64_t(UINT_MAX)) {
      recordError(FLASHRT_ERR_LAUNCH,
                  "cannot launch " + describe() + ": dimension out of range");
      return;
    }
  if (smemBytes < 0) {
    recordError(FLASHRT_ERR_LAUNCH,
                "cannot launch " + describe() +
                    ": negative dynamic shared memory size");
    return;
  }
  const Driver *d = getDriverWithContext();
  if (!d)
    return;

  if (smemBytes > kDefaultSmemLimit) {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    FunctionInfo &info = r.byFunction[f];
    if (info.smemAllowed < smemBytes) {
      CUresult result = d->cuFuncSetAttribute(
          f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smemBytes);
      if (result != CUDA_SUCCESS) {
        recordError(FLASHRT_ERR_LAUNCH,
                    "cannot give " + describe() + " " +
                        std::to_string(smemBytes) +
                        " bytes of shared memory (over this GPU's opt-in "
                        "limit?): " +
                        cudaErrorText(result));
        return;
      }
      info.smemAllowed = smemBytes;
    }
  }

  checkCuda(d->cuLaunchKernel(f, unsigned(gridX), unsigned(gridY),
                              unsigned(gridZ), unsigned(blockX),
                              unsigned(blockY), unsigned(blockZ),
                              unsigned(smemBytes),
                              static_cast<CUstream>(stream), params, extra),
            FLASHRT_ERR_LAUNCH, "launching " + describe());
}

extern "C" FLASHRT_API void *mgpuStreamCreate() {
  if (caller().active)
    return caller().stream;
  const Driver *d = getDriverWithContext();
  if (!d)
    return nullptr;
  CUstream stream = nullptr;
  if (!checkCuda(d->cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING),
                 FLASHRT_ERR_CUDA, "cuStreamCreate"))
    return nullptr;
  return stream;
}

extern "C" FLASHRT_API void mgpuStreamSynchronize(void *stream) {
  auto *s = static_cast<CUstream>(stream);
  if (isCallerStream(s) && !caller().wait)
    return;
  if (!s && !caller().active)
    return; // mgpuStreamCreate failed; that was reported.
  const Driver *d = getDriverWithContext();
  if (!d)
    return;
  // An error here is the kernel's, found when waiting for it (e.g. an
  // illegal address): a launch error, named after the last kernel.
  CUresult result = d->cuStreamSynchronize(s);
  if (result != CUDA_SUCCESS)
    recordError(FLASHRT_ERR_LAUNCH,
                "kernel '" + caller().lastKernel +
                    "' failed while running: " + cudaErrorText(result));
}

extern "C" FLASHRT_API void mgpuStreamDestroy(void *stream) {
  auto *s = static_cast<CUstream>(stream);
  if (isCallerStream(s) || !s)
    return;
  if (const Driver *d = getDriver())
    checkCuda(d->cuStreamDestroy(s), FLASHRT_ERR_CUDA, "cuStreamDestroy");
}

extern "C" FLASHRT_API void mgpuStreamWaitEvent(void *stream, void *event) {
  if (const Driver *d = getDriverWithContext())
    checkCuda(d->cuStreamWaitEvent(static_cast<CUstream>(stream),
                                   static_cast<CUevent>(event), 0),
              FLASHRT_ERR_CUDA, "cuStreamWaitEvent");
}

extern "C" FLASHRT_API void *mgpuEventCreate() {
  const Driver *d = getDriverWithContext();
  CUevent event = nullptr;
  if (d && !checkCuda(d->cuEventCreate(&event, CU_EVENT_DISABLE_TIMING),
                      FLASHRT_ERR_CUDA, "cuEventCreate"))
    return nullptr;
  return event;
}

extern "C" FLASHRT_API void mgpuEventDestroy(void *event) {
  const Driver *d = getDriver();
  if (d && event)
    checkCuda(d->cuEventDestroy(static_cast<CUevent>(event)), FLASHRT_ERR_CUDA,
              "cuEventDestroy");
}

extern "C" FLASHRT_API void mgpuEventSynchronize(void *event) {
  const Driver *d = getDriverWithContext();
  if (d && event && d->cuEventSynchronize(static_cast<CUevent>(event)))
    recordError(FLASHRT_ERR_LAUNCH, "kernel '" + caller().lastKernel +
                                        "' failed while running (seen at an "
                                        "event)");
}

extern "C" FLASHRT_API void mgpuEventRecord(void *event, void *stream) {
  const Driver *d = getDriverWithContext();
  if (d && event)
    checkCuda(d->cuEventRecord(static_cast<CUevent>(event),
                               static_cast<CUstream>(stream)),
              FLASHRT_ERR_CUDA, "cuEventRecord");
}

//===----------------------------------------------------------------------===//
// Memory (gpu.alloc / gpu.dealloc / gpu.memcpy / gpu.memset, e.g. scratch
// buffers of a split-KV kernel)
//===----------------------------------------------------------------------===//

extern "C" FLASHRT_API int flashrt_set_allocator(flashrt_alloc_fn alloc,
                                                 flashrt_free_fn free,
                                                 void *user) {
  ApiScope scope;
  clearError();
  if (!alloc != !free)
    return recordError(FLASHRT_ERR_INVALID_ARGUMENT,
                       "flashrt_set_allocator: give both alloc and free, or "
                       "neither (the built-in allocator)");
  std::lock_guard<std::mutex> lock(allocatorMutex());
  callerAllocatorSlot() = CallerAllocator{alloc, free, alloc ? user : nullptr};
  return FLASHRT_OK;
}

/// The caller's allocator when one is set; else stream-ordered where the
/// driver supports it, so that scratch memory allocated and freed by an
/// entry never makes an async caller wait.
extern "C" FLASHRT_API void *mgpuMemAlloc(uint64_t bytes, void *stream,
                                          bool isHostShared) {
  if (!isHostShared) {
    CallerAllocator a = callerAllocator();
    if (a.alloc) {
      void *ptr = bytes > SIZE_MAX ? nullptr : a.alloc(size_t(bytes), stream, a.user);
      if (!ptr)
        recordError(FLASHRT_ERR_CUDA, "allocating " + std::to_string(bytes) +
                                          " bytes of scratch memory: the "
                                          "caller's allocator failed");
      return ptr;
    }
  }
  const Driver *d = getDriverWithContext();
  if (!d)
    return nullptr;
  CUdeviceptr ptr = 0;
  if (!isHostShared) {
    // A cached block of this stream, large enough but not wasteful. Stream
    // order makes the reuse safe: its last user ran before on this stream.
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    for (size_t i = 0; i < r.scratchCache.size(); ++i) {
      Registry::CachedBlock blk = r.scratchCache[i];
      // blk.bytes - bytes <= bytes + 4096, written so that no huge
      // request wraps it (2 * bytes would).
      if (blk.stream == static_cast<CUstream>(stream) && blk.bytes >= bytes &&
          blk.bytes - bytes <= bytes + 4096 && bytes + 4096 > bytes) {
        r.scratchCache.erase(r.scratchCache.begin() + i);
        r.scratchSizes[blk.ptr] = blk.bytes;
        return reinterpret_cast<void *>(blk.ptr);
      }
    }
  }
  std::string what = "allocating " + std::to_string(bytes) + " bytes";
  if (isHostShared) {
    if (!d->cuMemAllocManaged) {
      recordError(FLASHRT_ERR_CUDA, what + ": no managed memory");
      return nullptr;
    }
    if (checkCuda(d->cuMemAllocManaged(&ptr, bytes, CU_MEM_ATTACH_GLOBAL),
                  FLASHRT_ERR_CUDA, what)) {
      Registry &r = registry();
      std::lock_guard<std::mutex> lock(r.mutex);
      r.managedAllocations.insert(ptr);
    }
    return reinterpret_cast<void *>(ptr);
  }
  if (d->cuMemAllocAsync && d->cuMemFreeAsync &&
      d->cuMemAllocAsync(&ptr, bytes, static_cast<CUstream>(stream)) ==
          CUDA_SUCCESS) {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.asyncAllocations.insert(ptr);
    r.scratchSizes[ptr] = bytes;
    return reinterpret_cast<void *>(ptr);
  }
  if (checkCuda(d->cuMemAlloc(&ptr, bytes), FLASHRT_ERR_CUDA, what)) {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.scratchSizes[ptr] = bytes;
  }
  return reinterpret_cast<void *>(ptr);
}

namespace {
/// Frees a device block for good (stream-ordered where it was allocated so).
void releaseBlock(const Driver *d, CUdeviceptr p, CUstream stream) {
  bool async;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    async = r.asyncAllocations.erase(p) != 0;
  }
  if (async) {
    checkCuda(d->cuMemFreeAsync(p, stream), FLASHRT_ERR_CUDA,
              "cuMemFreeAsync");
    return;
  }
  // Plain cuMemFree does not wait for the stream's kernels that may still
  // use the buffer.
  checkCuda(d->cuStreamSynchronize(stream), FLASHRT_ERR_LAUNCH,
            "waiting before freeing scratch memory");
  checkCuda(d->cuMemFree(p), FLASHRT_ERR_CUDA, "cuMemFree");
}
} // namespace

extern "C" FLASHRT_API void mgpuMemFree(void *ptr, void *stream) {
  if (!ptr)
    return;
  auto p = reinterpret_cast<CUdeviceptr>(ptr);
  auto s = static_cast<CUstream>(stream);
  bool builtIn;
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    builtIn = r.scratchSizes.count(p) || r.asyncAllocations.count(p) ||
              r.managedAllocations.erase(p);
  }
  if (!builtIn) {
    CallerAllocator a = callerAllocator();
    if (a.free) {
      a.free(ptr, stream, a.user);
      return;
    }
  }
  const Driver *d = getDriverWithContext();
  if (!d)
    return;
  Registry::CachedBlock evicted{0, 0, nullptr};
  {
    Registry &r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    auto it = r.scratchSizes.find(p);
    if (it != r.scratchSizes.end()) {
      // Keep it for the next call; the oldest block goes if full.
      r.scratchCache.push_back({p, it->second, s});
      r.scratchSizes.erase(it);
      if (r.scratchCache.size() <= kScratchCacheBlocks)
        return;
      evicted = r.scratchCache.front();
      r.scratchCache.erase(r.scratchCache.begin());
    }
  }
  if (evicted.ptr)
    releaseBlock(d, evicted.ptr, evicted.stream);
  else
    releaseBlock(d, p, s);
}

extern "C" FLASHRT_API void mgpuMemcpy(void *dst, void *src, size_t bytes,
                                       void *stream) {
  if (const Driver *d = getDriverWithContext())
    checkCuda(d->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                               reinterpret_cast<CUdeviceptr>(src), bytes,
                               static_cast<CUstream>(stream)),
              FLASHRT_ERR_CUDA, "cuMemcpyAsync");
}

extern "C" FLASHRT_API void mgpuMemset32(void *dst, unsigned value,
                                         size_t count, void *stream) {
  if (const Driver *d = getDriverWithContext())
    checkCuda(d->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, static_cast<CUstream>(stream)),
              FLASHRT_ERR_CUDA, "cuMemsetD32Async");
}

extern "C" FLASHRT_API void mgpuMemset16(void *dst, unsigned short value,
                                         size_t count, void *stream) {
  if (const Driver *d = getDriverWithContext())
    checkCuda(d->cuMemsetD16Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                  count, static_cast<CUstream>(stream)),
              FLASHRT_ERR_CUDA, "cuMemsetD16Async");
}
