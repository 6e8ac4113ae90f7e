//===- DeviceMemory.cpp - The C API's device helpers ----------------------===//
//
// flashrt_malloc/free, the copies, memset, synchronize and device_info: what
// a caller without a CUDA runtime of its own (flash-run-gpu, the benchmarks'
// C harness) needs to get tensors onto the GPU and back, on the context the
// kernels run in.
//
//===----------------------------------------------------------------------===//

#include "flashrt.h"

#include "CudaDriver.h"
#include "Status.h"

#include <string>

using namespace flashrt;

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

namespace {

/// What the copies and memset share: NULL pointers are an error unless there
/// is nothing to move; `op(driver)` runs on the kernels' context.
template <typename Op>
int moveBytes(const char *api, bool nullPointer, size_t bytes,
              const char *cudaCall, Op op) {
  ApiScope scope;
  clearError();
  if (bytes && nullPointer)
    return invalid(std::string(api) + ": NULL pointer");
  const Driver *d = getDriverWithContext();
  if (!d)
    return pendingError();
  if (bytes)
    checkCuda(op(*d), FLASHRT_ERR_CUDA, cudaCall);
  return pendingError();
}

} // namespace

extern "C" int flashrt_memcpy_htod(void *dst, const void *src, size_t bytes) {
  return moveBytes("flashrt_memcpy_htod", !dst || !src, bytes, "cuMemcpyHtoD",
                   [&](const Driver &d) {
                     return d.cuMemcpyHtoD(reinterpret_cast<CUdeviceptr>(dst),
                                           src, bytes);
                   });
}

extern "C" int flashrt_memcpy_dtoh(void *dst, const void *src, size_t bytes) {
  return moveBytes("flashrt_memcpy_dtoh", !dst || !src, bytes, "cuMemcpyDtoH",
                   [&](const Driver &d) {
                     return d.cuMemcpyDtoH(
                         dst, reinterpret_cast<CUdeviceptr>(src), bytes);
                   });
}

extern "C" int flashrt_memset(void *dst, unsigned char byte, size_t bytes) {
  return moveBytes(
      "flashrt_memset", !dst, bytes, "cuMemsetD8", [&](const Driver &d) {
        return d.cuMemsetD8(reinterpret_cast<CUdeviceptr>(dst), byte, bytes);
      });
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
