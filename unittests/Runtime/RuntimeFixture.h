//===- RuntimeFixture.h - Fixture of the capture entry tests ----*- C++ -*-===//
//
// What CaptureTest and BlockMaskTest share: a fixture that opens one of the
// test artifact's document mask entries (fake_cap, fake_bm) against the fake
// driver, with Q, K, V, O and LSE of one problem (B=2, Hq=4, Sq=33, Sk=70)
// and its document ids on the device, and frees them after each test. The
// tests fill the capture tensors the entry takes.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_UNITTESTS_RUNTIME_RUNTIMEFIXTURE_H
#define FLASH_UNITTESTS_RUNTIME_RUNTIMEFIXTURE_H

#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"

#include <cstdint>
#include <dlfcn.h>
#include <string>
#include <vector>

namespace flashrt_test {

/// The artifact's entry `entry` on `p`: Q and K all bf16 0.0078, V 1.0 for
/// the keys of document 0 (j < 40) and 2.0 for those of document 1, so every
/// query (i < 33, in document 0) sees V = 1.0 only.
class DocumentEntryTest : public ::testing::Test {
protected:
  explicit DocumentEntryTest(const char *entry) : entry(entry) {}

  void SetUp() override {
    void *h = dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    reinterpret_cast<void (*)()>(dlsym(h, "fakecuda_reset"))();
    flashrt_set_async(0);
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT, entry, &kernel), FLASHRT_OK)
        << lastError();
    calls = symbolIn<int>(FAKE_ARTIFACT, "fake_calls");
    p.sk = 70;
    q = p.q(alloc(p.qBytes()));
    k = p.k(alloc(p.kBytes()));
    v = p.v(alloc(p.vBytes()));
    o = p.o(alloc(p.oBytes()));
    lse = p.lse(alloc(p.lseBytes()));
    std::vector<uint16_t> host(p.kBytes() / 2, 0x3c00);
    ASSERT_EQ(flashrt_memcpy_htod(q.data, host.data(), p.qBytes()), FLASHRT_OK);
    ASSERT_EQ(flashrt_memcpy_htod(k.data, host.data(), p.kBytes()), FLASHRT_OK);
    std::vector<uint16_t> vh(p.vBytes() / 2);
    for (size_t i = 0; i < vh.size(); ++i)
      vh[i] = (i / p.dv) % p.sk < 40 ? 0x3f80 : 0x4000;
    ASSERT_EQ(flashrt_memcpy_htod(v.data, vh.data(), p.vBytes()), FLASHRT_OK);
    std::vector<int32_t> ids(size_t(p.b * p.sk));
    for (size_t i = 0; i < ids.size(); ++i)
      ids[i] = int64_t(i) % p.sk < 40 ? 0 : 1;
    docIds = rowMajor(copy(ids), FLASHRT_DTYPE_I32, {p.b, p.sk});
  }
  void TearDown() override {
    flashrt_close(kernel);
    for (void *b : buffers)
      flashrt_free(b);
  }

  void *alloc(size_t bytes) {
    void *ptr = nullptr;
    EXPECT_EQ(flashrt_malloc(&ptr, bytes), FLASHRT_OK) << lastError();
    buffers.push_back(ptr);
    return ptr;
  }
  template <typename T> void *copy(const std::vector<T> &host) {
    void *ptr = alloc(host.size() * sizeof(T));
    EXPECT_EQ(flashrt_memcpy_htod(ptr, host.data(), host.size() * sizeof(T)),
              FLASHRT_OK);
    return ptr;
  }

  /// Runs the entry with the first `n` of `caps`.
  int run(int n = 2) {
    return flashrt_attention_captures(kernel, &q, &k, &v, nullptr, nullptr,
                                      caps, n, &o, &lse, nullptr);
  }

  const char *entry;
  flashrt_kernel *kernel = nullptr;
  int *calls = nullptr;
  std::vector<void *> buffers;
  Problem p;
  flashrt_tensor q, k, v, o, lse;
  /// The document ids, i32 [B, Sk]: positions < 40 are document 0.
  flashrt_tensor docIds;
  flashrt_tensor caps[2];
};

} // namespace flashrt_test

#endif // FLASH_UNITTESTS_RUNTIME_RUNTIMEFIXTURE_H
