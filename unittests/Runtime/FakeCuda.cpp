//===- FakeCuda.cpp - A fake libcuda.so.1 for the runtime tests -----------===//
//
// Implements the driver entry points libflashrt resolves, on the host: a
// "device" with a settable compute capability, modules that load only the
// test artifacts' fake image, launches that record their configuration and
// enforce the 48 KiB dynamic shared memory opt-in like the real driver, and
// memory that is host memory tracked by address, so that pointer queries
// tell device memory from host memory. New allocations hold NaN bytes, as
// real ones hold garbage: a kernel that reads memory nobody wrote (a
// workspace it forgot to zero) fails. See FakeCuda.h.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace {

using CUresult = int;
using CUdeviceptr = unsigned long long;

enum : int {
  kSuccess = 0,
  kInvalidValue = 1,
  kNoDevice = 100,
  kInvalidDevice = 101,
  kInvalidImage = 200,
  kInvalidContext = 201,
  kNoBinaryForGpu = 209,
  kInvalidHandle = 400,
  kNotFound = 500,
  kIllegalAddress = 700,
  kLaunchOutOfResources = 701,
};

const char kImageMagic[] = "FAKECUBIN";

struct Function {
  std::string name;
  int smemAllowed = 48 * 1024;
};

struct Allocation {
  size_t size;
  int device;
};

struct Event {
  double ms = -1;
};

FakeCudaState state;
std::mutex mutex;
std::map<uintptr_t, Allocation> allocations;
int contextTag, moduleTag;
thread_local void *currentContext = nullptr;

int envInt(const char *name, int fallback) {
  const char *v = std::getenv(name);
  return v && *v ? std::atoi(v) : fallback;
}

void initialState() {
  state = FakeCudaState();
  int cc = envInt("FAKECUDA_CC", 90);
  state.ccMajor = cc / 10;
  state.ccMinor = cc % 10;
  state.numSms = 132;
  state.deviceCount = envInt("FAKECUDA_DEVICES", 1);
  state.loadResult = envInt("FAKECUDA_LOAD_RESULT", 0);
  state.launchResult = envInt("FAKECUDA_LAUNCH_RESULT", 0);
  state.syncResult = envInt("FAKECUDA_SYNC_RESULT", 0);
  state.maxSmemOptin = 227 * 1024;
}

struct Init {
  Init() { initialState(); }
} init;

/// The allocation holding [p, p + 1), if any.
const std::pair<const uintptr_t, Allocation> *findAllocation(uintptr_t p) {
  auto it = allocations.upper_bound(p);
  if (it == allocations.begin())
    return nullptr;
  --it;
  return p < it->first + it->second.size ? &*it : nullptr;
}

bool isDevice(const void *p, size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex);
  auto *a = findAllocation(uintptr_t(p));
  return a && uintptr_t(p) + bytes <= a->first + a->second.size;
}

} // namespace

extern "C" {

FakeCudaState *fakecuda_state(void) { return &state; }
void fakecuda_reset(void) { initialState(); }

CUresult cuInit(unsigned) {
  ++state.inits;
  return state.deviceCount > 0 ? kSuccess : kNoDevice;
}
CUresult cuDriverGetVersion(int *v) {
  *v = 13000;
  return kSuccess;
}
CUresult cuGetErrorName(CUresult r, const char **name) {
  static const struct {
    int code;
    const char *name;
  } names[] = {
      {kSuccess, "CUDA_SUCCESS"},
      {kInvalidValue, "CUDA_ERROR_INVALID_VALUE"},
      {kNoDevice, "CUDA_ERROR_NO_DEVICE"},
      {kInvalidDevice, "CUDA_ERROR_INVALID_DEVICE"},
      {kInvalidImage, "CUDA_ERROR_INVALID_IMAGE"},
      {kInvalidContext, "CUDA_ERROR_INVALID_CONTEXT"},
      {kNoBinaryForGpu, "CUDA_ERROR_NO_BINARY_FOR_GPU"},
      {kInvalidHandle, "CUDA_ERROR_INVALID_HANDLE"},
      {kNotFound, "CUDA_ERROR_NOT_FOUND"},
      {kIllegalAddress, "CUDA_ERROR_ILLEGAL_ADDRESS"},
      {kLaunchOutOfResources, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"},
  };
  for (const auto &n : names)
    if (n.code == r) {
      *name = n.name;
      return kSuccess;
    }
  *name = nullptr;
  return kInvalidValue;
}
CUresult cuGetErrorString(CUresult r, const char **text) {
  *text = r == kSuccess ? "no error" : "fake driver error";
  return kSuccess;
}
CUresult cuDeviceGet(int *device, int ordinal) {
  if (ordinal < 0 || ordinal >= state.deviceCount)
    return kInvalidDevice;
  *device = ordinal;
  return kSuccess;
}
CUresult cuDeviceGetCount(int *count) {
  *count = state.deviceCount;
  return kSuccess;
}
CUresult cuDeviceGetAttribute(int *value, int attr, int) {
  switch (attr) {
  case 16:
    *value = state.numSms;
    break;
  case 75:
    *value = state.ccMajor;
    break;
  case 76:
    *value = state.ccMinor;
    break;
  case 97:
    *value = state.maxSmemOptin;
    break;
  default:
    return kInvalidValue;
  }
  return kSuccess;
}
CUresult cuDevicePrimaryCtxRetain(void **ctx, int) {
  *ctx = &contextTag;
  return kSuccess;
}
CUresult cuCtxGetCurrent(void **ctx) {
  *ctx = currentContext;
  return kSuccess;
}
CUresult cuCtxSetCurrent(void *ctx) {
  currentContext = ctx;
  return kSuccess;
}
CUresult cuCtxGetDevice(int *device) {
  if (!currentContext)
    return kInvalidContext;
  *device = 0;
  return kSuccess;
}
CUresult cuCtxSynchronize() {
  ++state.ctxSyncs;
  return state.syncResult;
}

CUresult cuModuleLoadData(void **module, const void *image) {
  if (!currentContext)
    return kInvalidContext;
  if (state.loadResult)
    return state.loadResult;
  if (std::memcmp(image, kImageMagic, sizeof(kImageMagic)) != 0)
    return kInvalidImage;
  ++state.moduleLoads;
  *module = &moduleTag;
  return kSuccess;
}
CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned, int *,
                            void **) {
  return cuModuleLoadData(module, image);
}
CUresult cuModuleUnload(void *module) {
  if (module != &moduleTag)
    return kInvalidHandle;
  ++state.moduleUnloads;
  return kSuccess;
}
CUresult cuModuleGetFunction(void **f, void *module, const char *name) {
  if (module != &moduleTag)
    return kInvalidHandle;
  ++state.getFunctions;
  if (std::strncmp(name, "missing", 7) == 0)
    return kNotFound;
  // Leaked on purpose: a function lives as long as its module, here forever.
  *f = new Function{name};
  return kSuccess;
}
CUresult cuFuncSetAttribute(void *f, int attr, int value) {
  ++state.setAttrs;
  if (attr != 8 || value > state.maxSmemOptin)
    return kInvalidValue;
  static_cast<Function *>(f)->smemAllowed = value;
  return kSuccess;
}
CUresult cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz,
                        unsigned bx, unsigned by, unsigned bz, unsigned smem,
                        void *stream, void **, void **) {
  if (!currentContext)
    return kInvalidContext;
  auto *fn = static_cast<Function *>(f);
  if (!gx || !gy || !gz || !bx || !by || !bz || bx * by * bz > 1024)
    return kInvalidValue;
  if (int(smem) > fn->smemAllowed)
    return kInvalidValue;
  if (state.launchResult)
    return state.launchResult;
  ++state.launches;
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  std::memcpy(state.grid, grid, sizeof(grid));
  std::memcpy(state.block, block, sizeof(block));
  state.smem = smem;
  state.stream = stream;
  std::snprintf(state.kernel, sizeof(state.kernel), "%s", fn->name.c_str());
  return kSuccess;
}

CUresult cuStreamCreate(void **stream, unsigned) {
  ++state.streamsCreated;
  *stream = new int;
  return kSuccess;
}
CUresult cuStreamSynchronize(void *) {
  ++state.streamSyncs;
  return state.syncResult;
}
CUresult cuStreamDestroy_v2(void *stream) {
  ++state.streamsDestroyed;
  delete static_cast<int *>(stream);
  return kSuccess;
}
CUresult cuStreamWaitEvent(void *, void *, unsigned) { return kSuccess; }

CUresult cuPointerGetAttributes(unsigned n, int *attrs, void **data,
                                CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto *a = findAllocation(uintptr_t(ptr));
  for (unsigned i = 0; i < n; ++i) {
    switch (attrs[i]) {
    case 2: // MEMORY_TYPE: device, host (pinned), or 0 for unknown memory.
      *static_cast<unsigned *>(data[i]) =
          a ? 2u : (state.unknownIsPinned ? 1u : 0u);
      break;
    case 8: // IS_MANAGED
      *static_cast<unsigned *>(data[i]) = 0;
      break;
    case 9: // DEVICE_ORDINAL
      *static_cast<int *>(data[i]) = a ? a->second.device : -2;
      break;
    case 11: // RANGE_START_ADDR
      *static_cast<CUdeviceptr *>(data[i]) = a ? a->first : 0;
      break;
    case 12: // RANGE_SIZE
      *static_cast<size_t *>(data[i]) = a ? a->second.size : 0;
      break;
    default:
      return kInvalidValue;
    }
  }
  return kSuccess;
}

CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t bytes) {
  if (!currentContext)
    return kInvalidContext;
  size_t rounded = (bytes + 255) / 256 * 256;
  void *p = std::aligned_alloc(256, rounded);
  if (!p)
    return 2; // CUDA_ERROR_OUT_OF_MEMORY
  std::memset(p, 0xff, rounded);
  std::lock_guard<std::mutex> lock(mutex);
  allocations[uintptr_t(p)] = Allocation{bytes, state.allocDevice};
  *ptr = CUdeviceptr(uintptr_t(p));
  return kSuccess;
}
CUresult cuMemFree_v2(CUdeviceptr ptr) {
  std::lock_guard<std::mutex> lock(mutex);
  auto it = allocations.find(uintptr_t(ptr));
  if (it == allocations.end())
    return kInvalidValue;
  std::free(reinterpret_cast<void *>(it->first));
  allocations.erase(it);
  return kSuccess;
}
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes) {
  if (!isDevice(reinterpret_cast<void *>(dst), bytes))
    return kInvalidValue;
  std::memcpy(reinterpret_cast<void *>(dst), src, bytes);
  return kSuccess;
}
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes) {
  if (!isDevice(reinterpret_cast<void *>(src), bytes))
    return kInvalidValue;
  std::memcpy(dst, reinterpret_cast<void *>(src), bytes);
  return kSuccess;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t bytes, void *) {
  std::memcpy(reinterpret_cast<void *>(dst), reinterpret_cast<void *>(src),
              bytes);
  return kSuccess;
}
CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char value, size_t bytes) {
  if (!isDevice(reinterpret_cast<void *>(dst), bytes))
    return kInvalidValue;
  std::memset(reinterpret_cast<void *>(dst), value, bytes);
  return kSuccess;
}
CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short value, size_t n,
                          void *) {
  if (!isDevice(reinterpret_cast<void *>(dst), n * 2))
    return kInvalidValue;
  auto *p = reinterpret_cast<unsigned short *>(dst);
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return kSuccess;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned value, size_t n, void *) {
  if (!isDevice(reinterpret_cast<void *>(dst), n * 4))
    return kInvalidValue;
  auto *p = reinterpret_cast<unsigned *>(dst);
  for (size_t i = 0; i < n; ++i)
    p[i] = value;
  return kSuccess;
}

// Events read a clock that advances 0.25 ms per launch, so timings are
// deterministic.
CUresult cuEventCreate(void **event, unsigned) {
  *event = new Event;
  return kSuccess;
}
CUresult cuEventRecord(void *event, void *) {
  static_cast<Event *>(event)->ms = 0.25 * state.launches;
  return kSuccess;
}
CUresult cuEventSynchronize(void *) { return state.syncResult; }
CUresult cuEventElapsedTime_v2(float *ms, void *start, void *end) {
  auto *s = static_cast<Event *>(start), *e = static_cast<Event *>(end);
  if (s->ms < 0 || e->ms < 0)
    return kInvalidHandle;
  *ms = float(e->ms - s->ms);
  return kSuccess;
}
CUresult cuEventDestroy_v2(void *event) {
  delete static_cast<Event *>(event);
  return kSuccess;
}

} // extern "C"
