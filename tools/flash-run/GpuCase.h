//===- GpuCase.h - What flash-run's GPU mode cases share --------*- C++ -*-===//
//
// The pieces of the GPU mode (GpuRun.cpp) that its forward cases and its
// backward cases (GpuBackward.cpp) share: the options, bf16/f16 rounding,
// the kernel's semantics read from its ABI record, device buffers, a
// parallel loop and the number formatting of the printed lines. Plain C++
// (flash-run-gpu has no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_GPUCASE_H
#define FLASH_TOOLS_FLASH_RUN_GPUCASE_H

#include "Cases.h"
#include "GpuCaptures.h"

#include "flash/Reference/Reference.h"
#include "flashrt.h"
#include "flashrt/Abi.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace flash::run::gpu {

/// Prints `message` as flash-run's error; returns the exit code 2.
inline int fail(const std::string &message) {
  std::fprintf(stderr, "flash-run: error: %s\n", message.c_str());
  return 2;
}

/// fail() with the runtime's last error after `what`.
inline int runtimeFail(const std::string &what) {
  return fail(what + ": " + flashrt_last_error());
}

/// The GPU mode's command line.
struct Options {
  std::string artifact, func, shapes, layout = "bhsd";
  std::optional<uint64_t> seed;
  unsigned repeat = 1;
  std::optional<double> tol;
  double lseTol = 2e-3;
  std::optional<int> device;
  std::optional<int64_t> pageSize;
  CaptureOptions captures;
  bool help = false;
};

//===----------------------------------------------------------------------===//
// bf16 / f16, round to nearest even
//===----------------------------------------------------------------------===//

inline uint16_t toBf16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000)
    return 0x7fc0;
  return uint16_t((x + 0x7fff + ((x >> 16) & 1)) >> 16);
}

inline float fromBf16(uint16_t h) {
  uint32_t x = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

inline uint16_t toF16(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, ax = x & 0x7fffffff;
  if (ax >= 0x7f800000) // inf, NaN
    return uint16_t(sign | (ax > 0x7f800000 ? 0x7e00 : 0x7c00));
  if (ax >= 0x477ff000) // >= 65520 rounds to infinity
    return uint16_t(sign | 0x7c00);
  if (ax < 0x38800000) { // below 2^-14: subnormal, in units of 2^-24
    float v;
    std::memcpy(&v, &ax, 4);
    return uint16_t(sign | uint32_t(std::nearbyint(v * 16777216.0f)));
  }
  uint32_t h = (((ax >> 23) - 112) << 10) | ((ax & 0x7fffff) >> 13);
  uint32_t rest = ax & 0x1fff;
  if (rest > 0x1000 || (rest == 0x1000 && (h & 1)))
    ++h;
  return uint16_t(sign | h);
}

inline float fromF16(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  float v = e == 0    ? std::ldexp(float(m), -24)
            : e == 31 ? (m ? std::numeric_limits<float>::quiet_NaN()
                           : std::numeric_limits<float>::infinity())
                      : std::ldexp(float(m | 0x400), e - 25);
  return (h & 0x8000) ? -v : v;
}

struct Dtype {
  bool bf16;
  uint16_t encode(float f) const { return bf16 ? toBf16(f) : toF16(f); }
  float decode(uint16_t h) const { return bf16 ? fromBf16(h) : fromF16(h); }
  float round(double x) const { return decode(encode(float(x))); }
};

/// What the artifact computes, from its ABI record.
/// What the artifact computes, from its ABI record.
struct Kernel {
  flashrt_kernel *handle = nullptr;
  flashrt::Abi abi;
  Dtype dtype{true};
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0, scale = 0.0;
  int64_t pageSize = 0; // Paged entries: the pool's page size.
};

/// Runs fn(i) for i in [0, n) on all cores.
template <typename Fn> void parallelFor(int64_t n, Fn fn) {
  int64_t workers =
      std::min<int64_t>(n, std::max(1u, std::thread::hardware_concurrency()));
  std::vector<std::thread> threads;
  for (int64_t w = 0; w < workers; ++w)
    threads.emplace_back([&, w] {
      for (int64_t i = w; i < n; i += workers)
        fn(i);
    });
  for (std::thread &t : threads)
    t.join();
}

/// Device memory freed on scope exit.
struct DeviceBuffer {
  void *ptr = nullptr;
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  ~DeviceBuffer() { flashrt_free(ptr); }
};

inline std::string format(const char *fmt, double x) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, x);
  return buf;
}

inline int64_t numel(const ref::Shape4 &s) { return s[0] * s[1] * s[2] * s[3]; }

/// "" when runBackwardCase's buffers for `c` fit (every size
/// overflow-checked), else why not.
std::string checkBackwardCaseSize(const Kernel &k, const Case &c);

/// Runs one case of a backward entry (ABI "kind": "backward"): 0 pass, 1
/// fail, 2 runtime error (printed).
int runBackwardCase(const Kernel &k, const Case &c, const Options &o,
                    const EntryCaptures &entryCaps, std::mt19937 &rng);

} // namespace flash::run::gpu

#endif // FLASH_TOOLS_FLASH_RUN_GPUCASE_H
