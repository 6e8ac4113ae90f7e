//===- CudaDriver.cpp - The CUDA driver API, loaded at run time -----------===//
//
// dlopen of libcuda.so.1, dlsym of every entry point in CudaDriver.h, cuInit,
// and the context policy. The first outcome (success or the reason for
// failure) is kept for the life of the process: a missing driver does not
// appear later, and retrying dlopen on every call would only cost time.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"
#include "Status.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>

using namespace flashrt;

namespace {

struct DriverState {
  std::mutex mutex;
  bool initialised = false;
  Driver driver;
  int status = FLASHRT_OK;
  std::string message;
  // Retained primary context for threads that have none current.
  CUcontext primary = nullptr;
  int defaultDevice = -1; // mgpuSetDefaultDevice; -1: $FLASHRT_DEVICE or 0.
};

// Never destroyed: artifacts' destructors may call in during exit, after
// this library's static destructors would have run.
DriverState &driverState() {
  static DriverState *s = new DriverState;
  return *s;
}

/// Fills `s.driver`; on failure sets s.status / s.message.
void loadDriver(DriverState &s) {
  const char *override = std::getenv("FLASHRT_LIBCUDA");
  const char *path = override && *override ? override : "libcuda.so.1";
  void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    s.status = FLASHRT_ERR_NO_DRIVER;
    s.message = std::string(path) +
                " not found: no NVIDIA driver on this machine (dlopen: " +
                (why ? why : "unknown error") + ")";
    return;
  }
  std::string missing;
  auto resolve = [&](const char *sym, const char *oldSym, bool required) {
    void *fn = dlsym(handle, sym);
    if (!fn && oldSym)
      fn = dlsym(handle, oldSym);
    if (!fn && required)
      missing += (missing.empty() ? "" : ", ") + std::string(sym);
    return fn;
  };
#define FLASHRT_DRIVER_RESOLVE(name, ret, params, sym, oldSym, required)       \
  s.driver.name =                                                              \
      reinterpret_cast<ret(*) params>(resolve(sym, oldSym, required));
  FLASHRT_DRIVER_FUNCTIONS(FLASHRT_DRIVER_RESOLVE)
#undef FLASHRT_DRIVER_RESOLVE
  if (!missing.empty()) {
    s.status = FLASHRT_ERR_NO_DRIVER;
    s.message = std::string(path) +
                " is too old or not the CUDA driver: it lacks " + missing;
    return;
  }
  CUresult result = s.driver.cuInit(0);
  if (result != CUDA_SUCCESS) {
    // Without a GPU cuInit says CUDA_ERROR_NO_DEVICE; anything else means
    // the driver itself is unusable (version mismatch, no kernel module...).
    s.status = result == CUDA_ERROR_NO_DEVICE ? FLASHRT_ERR_NO_DEVICE
                                              : FLASHRT_ERR_NO_DRIVER;
    s.message = "cuInit failed: " + cudaErrorText(result);
  }
}

/// The device for the primary context: mgpuSetDefaultDevice, else
/// $FLASHRT_DEVICE, else 0.
int selectedDevice(DriverState &s) {
  if (s.defaultDevice >= 0)
    return s.defaultDevice;
  const char *env = std::getenv("FLASHRT_DEVICE");
  if (!env || !*env)
    return 0;
  char *end = nullptr;
  long v = std::strtol(env, &end, 10);
  return *end == '\0' && v >= 0 && v < 1 << 20 ? int(v) : -1;
}

} // namespace

std::string flashrt::cudaErrorText(CUresult result) {
  const Driver &d = driverState().driver;
  const char *name = nullptr, *text = nullptr;
  if (d.cuGetErrorName)
    d.cuGetErrorName(result, &name);
  if (d.cuGetErrorString)
    d.cuGetErrorString(result, &text);
  std::string out = name ? name : "CUDA error " + std::to_string(result);
  if (text)
    out += std::string(" (") + text + ")";
  return out;
}

bool flashrt::checkCuda(CUresult result, int status, const std::string &what) {
  if (result == CUDA_SUCCESS)
    return true;
  recordError(status, what + " failed: " + cudaErrorText(result));
  return false;
}

const Driver *flashrt::getDriver() {
  DriverState &s = driverState();
  {
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.initialised) {
      loadDriver(s);
      s.initialised = true;
    }
  }
  if (s.status != FLASHRT_OK) {
    recordError(s.status, s.message);
    return nullptr;
  }
  return &s.driver;
}

const Driver *flashrt::getDriverWithContext() {
  const Driver *d = getDriver();
  if (!d)
    return nullptr;
  CUcontext current = nullptr;
  if (d->cuCtxGetCurrent(&current) == CUDA_SUCCESS && current)
    return d;

  DriverState &s = driverState();
  CUcontext primary;
  std::string failure;
  int status = FLASHRT_OK;
  {
    // A failure is not kept: FLASHRT_DEVICE may be fixed, and this path is
    // only retried on errors anyway.
    std::lock_guard<std::mutex> lock(s.mutex);
    if (!s.primary) {
      int ordinal = selectedDevice(s);
      int count = 0;
      d->cuDeviceGetCount(&count);
      CUdevice device;
      CUresult result = CUDA_ERROR_INVALID_DEVICE;
      if (ordinal >= 0 && ordinal < count)
        result = d->cuDeviceGet(&device, ordinal);
      if (result != CUDA_SUCCESS) {
        status = FLASHRT_ERR_NO_DEVICE;
        failure = ordinal < 0 ? "FLASHRT_DEVICE='" +
                                    std::string(std::getenv("FLASHRT_DEVICE")) +
                                    "' is not a device number"
                              : "no CUDA device " + std::to_string(ordinal) +
                                    " (" + std::to_string(count) + " device" +
                                    (count == 1 ? "" : "s") + " visible)";
      } else if ((result = d->cuDevicePrimaryCtxRetain(&s.primary, device)) !=
                 CUDA_SUCCESS) {
        s.primary = nullptr;
        status = FLASHRT_ERR_CUDA;
        failure = "cuDevicePrimaryCtxRetain(device " + std::to_string(ordinal) +
                  ") failed: " + cudaErrorText(result);
      }
    }
    primary = s.primary;
  }
  if (!primary) {
    recordError(status, failure);
    return nullptr;
  }
  if (!checkCuda(d->cuCtxSetCurrent(primary), FLASHRT_ERR_CUDA,
                 "cuCtxSetCurrent"))
    return nullptr;
  return d;
}

bool flashrt::getCurrentDeviceInfo(DeviceInfo &info) {
  const Driver *d = getDriverWithContext();
  if (!d)
    return false;
  if (!checkCuda(d->cuCtxGetDevice(&info.device), FLASHRT_ERR_CUDA,
                 "cuCtxGetDevice"))
    return false;
  struct {
    int *out;
    int attr;
  } attrs[] = {
      {&info.ccMajor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR},
      {&info.ccMinor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR},
      {&info.numSms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT},
      {&info.maxSmemOptin,
       CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN},
  };
  for (auto &a : attrs)
    if (!checkCuda(d->cuDeviceGetAttribute(a.out, a.attr, info.device),
                   FLASHRT_ERR_CUDA, "cuDeviceGetAttribute"))
      return false;
  return true;
}

/// mgpuSetDefaultDevice, upstream's way to pick the device before the first
/// module load; has no effect once the primary context exists.
extern "C" FLASHRT_API void mgpuSetDefaultDevice(int32_t device) {
  DriverState &s = driverState();
  std::lock_guard<std::mutex> lock(s.mutex);
  s.defaultDevice = device;
}
