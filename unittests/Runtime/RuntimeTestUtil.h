//===- RuntimeTestUtil.h - Helpers of the runtime tests ---------*- C++ -*-===//
//
// What every runtime test shares: flashrt_tensor views of a problem (BHSD or
// BSHD storage) over any base pointers, the memref descriptor the test
// artifact's entries take and record, the runtime's last error as a string,
// and the test artifact's knobs reached by dlsym.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
#define FLASH_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H

#include "flashrt.h"

#include <cstdint>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace flashrt_test {

/// The memref descriptor the test artifact's entries take and record.
template <int Rank> struct MemRef {
  void *allocated, *aligned;
  int64_t offset, sizes[Rank], strides[Rank];
};

inline std::string lastError() { return flashrt_last_error(); }

/// A row-major tensor of `sizes` at `data`.
inline flashrt_tensor rowMajor(void *data, int32_t dtype,
                               const std::vector<int64_t> &sizes) {
  flashrt_tensor t = {};
  t.data = data;
  t.rank = int32_t(sizes.size());
  t.dtype = dtype;
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = stride;
    stride *= sizes[i];
  }
  return t;
}

/// Shapes of one attention problem.
struct Problem {
  int64_t b = 2, hq = 4, hkv = 2, sq = 33, sk = 70, d = 64, dv = 64;
  bool bshd = false;
  int32_t dtype = FLASHRT_DTYPE_BF16;

  /// A rank-4 view [b, h, s, x] of a buffer at `data`.
  flashrt_tensor view(void *data, int64_t h, int64_t s, int64_t x) const {
    flashrt_tensor t = {};
    t.data = data;
    t.rank = 4;
    t.dtype = dtype;
    int64_t sizes[4] = {b, h, s, x};
    // BSHD storage [b, s, h, x] seen in logical [b, h, s, x] order.
    int64_t strides[4] = {h * s * x, s * x, x, 1};
    if (bshd) {
      strides[1] = x;
      strides[2] = h * x;
    }
    for (int i = 0; i < 4; ++i) {
      t.sizes[i] = sizes[i];
      t.strides[i] = strides[i];
    }
    return t;
  }
  flashrt_tensor q(void *p) const { return view(p, hq, sq, d); }
  flashrt_tensor k(void *p) const { return view(p, hkv, sk, d); }
  flashrt_tensor v(void *p) const { return view(p, hkv, sk, dv); }
  flashrt_tensor o(void *p) const { return view(p, hq, sq, dv); }
  flashrt_tensor lse(void *p) const {
    flashrt_tensor t = {};
    t.data = p;
    t.rank = 3;
    t.dtype = FLASHRT_DTYPE_F32;
    int64_t sizes[3] = {b, hq, sq}, strides[3] = {hq * sq, sq, 1};
    for (int i = 0; i < 3; ++i) {
      t.sizes[i] = sizes[i];
      t.strides[i] = strides[i];
    }
    return t;
  }
  size_t qBytes() const { return size_t(b * hq * sq * d) * 2; }
  size_t kBytes() const { return size_t(b * hkv * sk * d) * 2; }
  size_t vBytes() const { return size_t(b * hkv * sk * dv) * 2; }
  size_t oBytes() const { return size_t(b * hq * sq * dv) * 2; }
  size_t lseBytes() const { return size_t(b * hq * sq) * 4; }
};

/// The address of `name` in the already loaded library `path`.
template <typename T> T *symbolIn(const std::string &path, const char *name) {
  void *h = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (!h)
    return nullptr;
  void *sym = dlsym(h, name);
  dlclose(h); // Keeps flashrt's reference only, so close still unloads.
  return reinterpret_cast<T *>(sym);
}

} // namespace flashrt_test

#endif // FLASH_UNITTESTS_RUNTIME_RUNTIMETESTUTIL_H
