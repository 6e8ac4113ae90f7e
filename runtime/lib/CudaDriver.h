//===- CudaDriver.h - The CUDA driver API, loaded at run time ---*- C++ -*-===//
//
// The few CUDA driver types, constants and entry points the runtime uses,
// declared here rather than taken from cuda.h so that the runtime builds
// without CUDA installed, and resolved with dlopen/dlsym from libcuda.so.1
// (or $FLASHRT_LIBCUDA) on first use, so that it also loads without a
// driver. Also the context policy: the caller's current context (PyTorch's)
// if any, else the retained primary context of $FLASHRT_DEVICE (default 0).
//
//===----------------------------------------------------------------------===//

#ifndef FLASHRT_CUDADRIVER_H
#define FLASHRT_CUDADRIVER_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace flashrt {

// Opaque handles and scalar types, ABI-identical to cuda.h's.
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUevent = struct CUevent_st *;

// Values from cuda.h that the runtime needs (stable across CUDA versions).
enum : int {
  CUDA_SUCCESS = 0,
  CUDA_ERROR_INVALID_VALUE = 1,
  CUDA_ERROR_DEINITIALIZED = 4,
  CUDA_ERROR_NO_DEVICE = 100,
  CUDA_ERROR_INVALID_DEVICE = 101,
  CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
  CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
  CUDA_ERROR_NOT_FOUND = 500,
};
enum : int {
  CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN = 97,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8,
  CU_POINTER_ATTRIBUTE_MEMORY_TYPE = 2,
  CU_POINTER_ATTRIBUTE_IS_MANAGED = 8,
  CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9,
  CU_POINTER_ATTRIBUTE_RANGE_START_ADDR = 11,
  CU_POINTER_ATTRIBUTE_RANGE_SIZE = 12,
  CU_MEMORYTYPE_HOST = 1,
  CU_MEMORYTYPE_DEVICE = 2,
  CU_MEMORYTYPE_UNIFIED = 4,
  CU_STREAM_NON_BLOCKING = 1,
  CU_EVENT_DEFAULT = 0,
  CU_EVENT_DISABLE_TIMING = 2,
  CU_MEM_ATTACH_GLOBAL = 1,
  CU_JIT_OPTIMIZATION_LEVEL = 7,
};

/// The driver entry points: X(member, return type, parameters, symbol, older
/// symbol to try when the first is missing or nullptr, required).
#define FLASHRT_DRIVER_FUNCTIONS(X)                                            \
  X(cuInit, CUresult, (unsigned), "cuInit", nullptr, true)                     \
  X(cuDriverGetVersion, CUresult, (int *), "cuDriverGetVersion", nullptr,      \
    true)                                                                      \
  X(cuGetErrorName, CUresult, (CUresult, const char **), "cuGetErrorName",     \
    nullptr, true)                                                             \
  X(cuGetErrorString, CUresult, (CUresult, const char **), "cuGetErrorString", \
    nullptr, true)                                                             \
  X(cuDeviceGet, CUresult, (CUdevice *, int), "cuDeviceGet", nullptr, true)    \
  X(cuDeviceGetCount, CUresult, (int *), "cuDeviceGetCount", nullptr, true)    \
  X(cuDeviceGetAttribute, CUresult, (int *, int, CUdevice),                    \
    "cuDeviceGetAttribute", nullptr, true)                                     \
  X(cuDevicePrimaryCtxRetain, CUresult, (CUcontext *, CUdevice),               \
    "cuDevicePrimaryCtxRetain", nullptr, true)                                 \
  X(cuCtxGetCurrent, CUresult, (CUcontext *), "cuCtxGetCurrent", nullptr,      \
    true)                                                                      \
  X(cuCtxSetCurrent, CUresult, (CUcontext), "cuCtxSetCurrent", nullptr, true)  \
  X(cuCtxGetDevice, CUresult, (CUdevice *), "cuCtxGetDevice", nullptr, true)   \
  X(cuCtxSynchronize, CUresult, (), "cuCtxSynchronize", nullptr, true)         \
  X(cuModuleLoadData, CUresult, (CUmodule *, const void *),                    \
    "cuModuleLoadData", nullptr, true)                                         \
  X(cuModuleLoadDataEx, CUresult,                                              \
    (CUmodule *, const void *, unsigned, int *, void **),                      \
    "cuModuleLoadDataEx", nullptr, true)                                       \
  X(cuModuleUnload, CUresult, (CUmodule), "cuModuleUnload", nullptr, true)     \
  X(cuModuleGetFunction, CUresult, (CUfunction *, CUmodule, const char *),     \
    "cuModuleGetFunction", nullptr, true)                                      \
  X(cuFuncSetAttribute, CUresult, (CUfunction, int, int),                      \
    "cuFuncSetAttribute", nullptr, true)                                       \
  X(cuLaunchKernel, CUresult,                                                  \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,   \
     unsigned, CUstream, void **, void **),                                    \
    "cuLaunchKernel", nullptr, true)                                           \
  X(cuStreamCreate, CUresult, (CUstream *, unsigned), "cuStreamCreate",        \
    nullptr, true)                                                             \
  X(cuStreamSynchronize, CUresult, (CUstream), "cuStreamSynchronize", nullptr, \
    true)                                                                      \
  X(cuStreamDestroy, CUresult, (CUstream), "cuStreamDestroy_v2",               \
    "cuStreamDestroy", true)                                                   \
  X(cuStreamWaitEvent, CUresult, (CUstream, CUevent, unsigned),                \
    "cuStreamWaitEvent", nullptr, true)                                        \
  X(cuPointerGetAttributes, CUresult, (unsigned, int *, void **, CUdeviceptr), \
    "cuPointerGetAttributes", nullptr, true)                                   \
  X(cuMemAlloc, CUresult, (CUdeviceptr *, size_t), "cuMemAlloc_v2", nullptr,   \
    true)                                                                      \
  X(cuMemAllocManaged, CUresult, (CUdeviceptr *, size_t, unsigned),            \
    "cuMemAllocManaged", nullptr, false)                                       \
  X(cuMemFree, CUresult, (CUdeviceptr), "cuMemFree_v2", nullptr, true)         \
  X(cuMemAllocAsync, CUresult, (CUdeviceptr *, size_t, CUstream),              \
    "cuMemAllocAsync", nullptr, false)                                         \
  X(cuMemFreeAsync, CUresult, (CUdeviceptr, CUstream), "cuMemFreeAsync",       \
    nullptr, false)                                                            \
  X(cuMemcpyHtoD, CUresult, (CUdeviceptr, const void *, size_t),               \
    "cuMemcpyHtoD_v2", nullptr, true)                                          \
  X(cuMemcpyDtoH, CUresult, (void *, CUdeviceptr, size_t), "cuMemcpyDtoH_v2",  \
    nullptr, true)                                                             \
  X(cuMemcpyAsync, CUresult, (CUdeviceptr, CUdeviceptr, size_t, CUstream),     \
    "cuMemcpyAsync", nullptr, true)                                            \
  X(cuMemsetD8, CUresult, (CUdeviceptr, unsigned char, size_t),                \
    "cuMemsetD8_v2", nullptr, true)                                            \
  X(cuMemsetD16Async, CUresult,                                                \
    (CUdeviceptr, unsigned short, size_t, CUstream), "cuMemsetD16Async",       \
    nullptr, true)                                                             \
  X(cuMemsetD32Async, CUresult, (CUdeviceptr, unsigned, size_t, CUstream),     \
    "cuMemsetD32Async", nullptr, true)                                         \
  X(cuEventCreate, CUresult, (CUevent *, unsigned), "cuEventCreate", nullptr,  \
    true)                                                                      \
  X(cuEventRecord, CUresult, (CUevent, CUstream), "cuEventRecord", nullptr,    \
    true)                                                                      \
  X(cuEventSynchronize, CUresult, (CUevent), "cuEventSynchronize", nullptr,    \
    true)                                                                      \
  X(cuEventElapsedTime, CUresult, (float *, CUevent, CUevent),                 \
    "cuEventElapsedTime_v2", "cuEventElapsedTime", true)                       \
  X(cuEventDestroy, CUresult, (CUevent), "cuEventDestroy_v2",                  \
    "cuEventDestroy", true)

/// The resolved entry points; optional ones may be null.
struct Driver {
#define FLASHRT_DRIVER_MEMBER(name, ret, params, sym, oldSym, required)        \
  ret(*name) params = nullptr;
  FLASHRT_DRIVER_FUNCTIONS(FLASHRT_DRIVER_MEMBER)
#undef FLASHRT_DRIVER_MEMBER
};

/// Loads and initialises the driver once per process (cuInit(0)). Returns the
/// driver, or null after recording why (FLASHRT_ERR_NO_DRIVER /
/// FLASHRT_ERR_NO_DEVICE, the same answer on every call).
const Driver *getDriver();

/// Makes sure a context is current on this thread (see the file comment) and
/// returns the driver, or null after recording an error.
const Driver *getDriverWithContext();

/// "CUDA_ERROR_X (its description)" for a driver result.
std::string cudaErrorText(CUresult result);

/// Records `what` failing with `result` as `status` (FLASHRT_ERR_*) and
/// returns false; returns true for CUDA_SUCCESS.
bool checkCuda(CUresult result, int status, const std::string &what);

/// The device of the current context, with its compute capability.
struct DeviceInfo {
  CUdevice device = 0;
  int ccMajor = 0, ccMinor = 0, numSms = 0, maxSmemOptin = 0;
};
bool getCurrentDeviceInfo(DeviceInfo &info);

} // namespace flashrt

#endif // FLASHRT_CUDADRIVER_H
