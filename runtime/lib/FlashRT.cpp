//===- FlashRT.cpp - The flashrt C API: artifacts and running -------------===//
//
// Opens artifacts (dlopen; the artifact's constructor loads its GPU module,
// whose architecture is checked against the device), and runs or times an
// entry, forward or backward (each kind through its own functions): the
// arguments become a checked Call (Call.h), which runs with the caller's
// stream installed for the mgpu* functions (Runtime.h).
//
//===----------------------------------------------------------------------===//

#include "flashrt.h"

#include "flashrt/Abi.h"
#include "Call.h"
#include "CudaDriver.h"
#include "Runtime.h"
#include "Status.h"

#include <algorithm>
#include <dlfcn.h>
#include <memory>
#include <vector>

using namespace flashrt;

namespace {

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

/// Runs a prepared call on `stream` and, unless async, waits for it.
int runCall(Call &call, void *stream) {
  if (call.empty && call.zeros.empty())
    return FLASHRT_OK;
  auto s = static_cast<CUstream>(stream);
  int rc;
  {
    // The entry's own waits (after scratch allocation, after each launch)
    // are skipped: a split-KV entry launches two kernels, and waiting
    // between them doubled the latency of a small decode step.
    CallerStreamScope streamScope(s, /*wait=*/false);
    rc = call.empty ? call.zero(stream) : call.run();
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

int attention(flashrt_kernel *k, const flashrt_tensor *q,
              const flashrt_tensor *kk, const flashrt_tensor *v,
              const flashrt_tensor *lens, const flashrt_tensor *table,
              const flashrt_tensor *caps, int numCaps, const flashrt_tensor *o,
              const flashrt_tensor *lse, void *stream) {
  Call call;
  if (int rc = prepare(k, q, kk, v, lens, table, caps, numCaps, o, lse, call))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  return runCall(call, stream);
}

/// Times a prepared call: `warmup` untimed runs, then `reps` timed ones.
int timeCall(const char *api, Call &call, void *stream, int warmup, int reps,
             float *median_ms) {
  if (!median_ms)
    return invalid(std::string(api) + ": median_ms is NULL");
  if (warmup < 0 || reps < 1)
    return invalid(std::string(api) + ": need warmup >= 0 and reps >= 1");
  *median_ms = 0.0f;
  if (call.empty)
    return runCall(call, stream);
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

int timeMs(const char *api, flashrt_kernel *k, const flashrt_tensor *q,
           const flashrt_tensor *kk, const flashrt_tensor *v,
           const flashrt_tensor *lens, const flashrt_tensor *table,
           const flashrt_tensor *caps, int numCaps, const flashrt_tensor *o,
           const flashrt_tensor *lse, void *stream, int warmup, int reps,
           float *median_ms) {
  if (!median_ms)
    return invalid(std::string(api) + ": median_ms is NULL");
  if (warmup < 0 || reps < 1)
    return invalid(std::string(api) + ": need warmup >= 0 and reps >= 1");
  *median_ms = 0.0f;
  Call call;
  if (int rc = prepare(k, q, kk, v, lens, table, caps, numCaps, o, lse, call))
    return rc;
  if (call.empty)
    return FLASHRT_OK;
  return timeCall(api, call, stream, warmup, reps, median_ms);
}

} // namespace

extern "C" int flashrt_attention(flashrt_kernel *k, const flashrt_tensor *q,
                                 const flashrt_tensor *kk,
                                 const flashrt_tensor *v,
                                 const flashrt_tensor *o,
                                 const flashrt_tensor *lse, void *stream) {
  ApiScope scope;
  clearError();
  if (int rc = refuseKind(k, /*backward=*/false, /*timed=*/false,
                          "flashrt_attention"))
    return rc;
  if (int rc = refuseServing(k, "flashrt_attention", "flashrt_attention_kv"))
    return rc;
  if (int rc = refuseCaptures(k, "flashrt_attention",
                              "flashrt_attention_captures"))
    return rc;
  return attention(k, q, kk, v, nullptr, nullptr, nullptr, 0, o, lse, stream);
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
  if (int rc = refuseKind(k, /*backward=*/false, /*timed=*/false,
                          "flashrt_attention_kv"))
    return rc;
  if (int rc = refuseCaptures(k, "flashrt_attention_kv",
                              "flashrt_attention_captures"))
    return rc;
  return attention(k, q, kk, v, kv_lens, block_table, nullptr, 0, o, lse,
                   stream);
}

extern "C" int flashrt_attention_captures(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *kv_lens,
    const flashrt_tensor *block_table, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *o, const flashrt_tensor *lse,
    void *stream) {
  ApiScope scope;
  clearError();
  if (int rc = refuseKind(k, /*backward=*/false, /*timed=*/false,
                          "flashrt_attention_captures"))
    return rc;
  return attention(k, q, kk, v, kv_lens, block_table, captures, num_captures,
                   o, lse, stream);
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
  if (int rc =
          refuseKind(k, /*backward=*/false, /*timed=*/true, "flashrt_time_ms"))
    return rc;
  if (int rc = refuseServing(k, "flashrt_time_ms", "flashrt_time_kv_ms"))
    return rc;
  if (int rc = refuseCaptures(k, "flashrt_time_ms", "flashrt_time_captures_ms"))
    return rc;
  return timeMs("flashrt_time_ms", k, q, kk, v, nullptr, nullptr, nullptr, 0,
                o, lse, stream, warmup, reps, median_ms);
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
  if (median_ms)
    *median_ms = 0.0f;
  if (int rc = refuseKind(k, /*backward=*/false, /*timed=*/true,
                          "flashrt_time_kv_ms"))
    return rc;
  if (int rc = refuseCaptures(k, "flashrt_time_kv_ms",
                              "flashrt_time_captures_ms"))
    return rc;
  return timeMs("flashrt_time_kv_ms", k, q, kk, v, kv_lens, block_table,
                nullptr, 0, o, lse, stream, warmup, reps, median_ms);
}

extern "C" int flashrt_time_captures_ms(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *kv_lens,
    const flashrt_tensor *block_table, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *o, const flashrt_tensor *lse,
    void *stream, int warmup, int reps, float *median_ms) {
  ApiScope scope;
  clearError();
  if (median_ms)
    *median_ms = 0.0f;
  if (int rc = refuseKind(k, /*backward=*/false, /*timed=*/true,
                          "flashrt_time_captures_ms"))
    return rc;
  return timeMs("flashrt_time_captures_ms", k, q, kk, v, kv_lens, block_table,
                captures, num_captures, o, lse, stream, warmup, reps,
                median_ms);
}

extern "C" int flashrt_attention_backward(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *o, const flashrt_tensor *lse,
    const flashrt_tensor *dout, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *dq, const flashrt_tensor *dk,
    const flashrt_tensor *dv, void *stream) {
  ApiScope scope;
  clearError();
  if (int rc = refuseKind(k, /*backward=*/true, /*timed=*/false,
                          "flashrt_attention_backward"))
    return rc;
  Call call;
  if (int rc = prepareBackward(k, q, kk, v, o, lse, dout, captures,
                               num_captures, dq, dk, dv, call))
    return rc;
  return runCall(call, stream);
}

extern "C" int flashrt_time_backward_ms(
    flashrt_kernel *k, const flashrt_tensor *q, const flashrt_tensor *kk,
    const flashrt_tensor *v, const flashrt_tensor *o, const flashrt_tensor *lse,
    const flashrt_tensor *dout, const flashrt_tensor *captures,
    int num_captures, const flashrt_tensor *dq, const flashrt_tensor *dk,
    const flashrt_tensor *dv, void *stream, int warmup, int reps,
    float *median_ms) {
  ApiScope scope;
  clearError();
  const char *api = "flashrt_time_backward_ms";
  if (median_ms)
    *median_ms = 0.0f;
  if (int rc = refuseKind(k, /*backward=*/true, /*timed=*/true, api))
    return rc;
  if (!median_ms)
    return invalid(std::string(api) + ": median_ms is NULL");
  if (warmup < 0 || reps < 1)
    return invalid(std::string(api) + ": need warmup >= 0 and reps >= 1");
  Call call;
  if (int rc = prepareBackward(k, q, kk, v, o, lse, dout, captures,
                               num_captures, dq, dk, dv, call))
    return rc;
  return timeCall(api, call, stream, warmup, reps, median_ms);
}
