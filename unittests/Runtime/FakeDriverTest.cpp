//===- FakeDriverTest.cpp - The runtime's driver paths, without a GPU -----===//
//
// Runs the runtime against the fake libcuda.so.1 (FakeCuda.cpp) and the test
// artifact (FakeArtifact.c): module load at open, the architecture check,
// launch configuration, the caller's stream and sync/async modes, the shared
// memory opt-in, device pointer checks and error propagation from the
// driver. The fake "device memory" is host memory the artifact computes on,
// so results can be checked too.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "RuntimeTestUtil.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace flashrt_test;

extern "C" {
void *mgpuMemAlloc(uint64_t, void *, bool);
void mgpuMemFree(void *, void *);
}

namespace {

FakeCudaState &fake() {
  static FakeCudaState *s = [] {
    void *h = dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    auto *get =
        reinterpret_cast<FakeCudaState *(*)()>(dlsym(h, "fakecuda_state"));
    return get();
  }();
  return *s;
}

class FakeDriver : public ::testing::Test {
protected:
  void SetUp() override {
    void *h = dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    reinterpret_cast<void (*)()>(dlsym(h, "fakecuda_reset"))();
    flashrt_set_async(0);
  }
  void TearDown() override {
    flashrt_close(kernel);
    for (void *p : buffers)
      flashrt_free(p);
    flashrt_set_async(0);
  }

  void open(const char *func = "fake") {
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT, func, &kernel), FLASHRT_OK)
        << lastError();
  }

  void *alloc(size_t bytes) {
    void *ptr = nullptr;
    EXPECT_EQ(flashrt_malloc(&ptr, bytes), FLASHRT_OK) << lastError();
    buffers.push_back(ptr);
    return ptr;
  }

  /// Device buffers for `p`, Q/K random-ish, V all ones.
  void setUp(const Problem &problem) {
    p = problem;
    q = p.q(alloc(p.qBytes()));
    k = p.k(alloc(p.kBytes()));
    v = p.v(alloc(p.vBytes()));
    o = p.o(alloc(p.oBytes()));
    lse = p.lse(alloc(p.lseBytes()));
    std::vector<uint16_t> host(std::max(p.qBytes(), p.kBytes()) / 2);
    for (size_t i = 0; i < host.size(); ++i)
      host[i] = 0x3c00 + uint16_t(i % 7) * 0x40; // bf16 0.0078 to 0.0137
    ASSERT_EQ(flashrt_memcpy_htod(q.data, host.data(), p.qBytes()), FLASHRT_OK);
    ASSERT_EQ(flashrt_memcpy_htod(k.data, host.data(), p.kBytes()), FLASHRT_OK);
    host.assign(p.vBytes() / 2, 0x3f80); // bf16 1.0
    ASSERT_EQ(flashrt_memcpy_htod(v.data, host.data(), p.vBytes()), FLASHRT_OK);
    ASSERT_EQ(flashrt_memset(o.data, 0xff, p.oBytes()), FLASHRT_OK);
    ASSERT_EQ(flashrt_memset(lse.data, 0xff, p.lseBytes()), FLASHRT_OK);
  }

  int run(void *stream = nullptr) {
    return flashrt_attention(kernel, &q, &k, &v, &o, &lse, stream);
  }

  template <typename T> T *artifactSymbol(const char *name) {
    return symbolIn<T>(FAKE_ARTIFACT, name);
  }

  flashrt_kernel *kernel = nullptr;
  std::vector<void *> buffers;
  Problem p;
  flashrt_tensor q, k, v, o, lse;
};

TEST_F(FakeDriver, DeviceInfo) {
  int major = 0, minor = 0, sms = 0;
  ASSERT_EQ(flashrt_device_info(&major, &minor, &sms), FLASHRT_OK)
      << lastError();
  EXPECT_EQ(major, 9);
  EXPECT_EQ(minor, 0);
  EXPECT_EQ(sms, 132);
}

TEST_F(FakeDriver, OpenLoadsAndCloseUnloads) {
  open();
  EXPECT_EQ(fake().moduleLoads, 1);
  EXPECT_EQ(fake().moduleUnloads, 0);
  flashrt_close(kernel);
  kernel = nullptr;
  EXPECT_EQ(fake().moduleUnloads, 1);
}

TEST_F(FakeDriver, ArchMismatch) {
  for (int cc : {80, 86, 100}) {
    fake().ccMajor = cc / 10;
    fake().ccMinor = cc % 10;
    EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &kernel), FLASHRT_ERR_ARCH);
    EXPECT_EQ(kernel, nullptr);
    EXPECT_NE(lastError().find("was compiled for sm_90 but device 0 is sm_" +
                               std::to_string(cc)),
              std::string::npos)
        << lastError();
  }
}

TEST_F(FakeDriver, ModuleRejected) {
  fake().loadResult = 209; // CUDA_ERROR_NO_BINARY_FOR_GPU
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &kernel), FLASHRT_ERR_ARCH);
  EXPECT_NE(lastError().find("CUDA_ERROR_NO_BINARY_FOR_GPU"), std::string::npos)
      << lastError();
  fake().loadResult = 200; // CUDA_ERROR_INVALID_IMAGE
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &kernel), FLASHRT_ERR_LOAD);
  EXPECT_NE(lastError().find("loading the artifact's GPU module failed: "
                             "CUDA_ERROR_INVALID_IMAGE"),
            std::string::npos)
      << lastError();
}

TEST_F(FakeDriver, NoDevice) {
  // cuInit's outcome is cached for the process, so only the device number
  // can be tried here.
  setenv("FLASHRT_DEVICE", "3", 1);
  int rc = flashrt_device_info(nullptr, nullptr, nullptr);
  unsetenv("FLASHRT_DEVICE");
  // The primary context may already exist from an earlier test.
  if (rc != FLASHRT_OK) {
    EXPECT_EQ(rc, FLASHRT_ERR_NO_DEVICE);
    EXPECT_NE(lastError().find("no CUDA device 3 (1 device visible)"),
              std::string::npos)
        << lastError();
  }
}

TEST_F(FakeDriver, LaunchOnCallerStreamInSyncMode) {
  open();
  setUp(Problem());
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(fake().launches, 1);
  EXPECT_EQ(std::string(fake().kernel), "fake_kernel");
  EXPECT_EQ(fake().grid[0], 1u); // ceil(33 / 128)
  EXPECT_EQ(fake().grid[1], 4u);
  EXPECT_EQ(fake().grid[2], 2u);
  EXPECT_EQ(fake().block[0], 128u);
  EXPECT_EQ(fake().stream, nullptr);
  EXPECT_EQ(fake().streamsCreated, 0);
  EXPECT_EQ(fake().streamSyncs, 1);
  EXPECT_EQ(fake().streamsDestroyed, 0);
  EXPECT_EQ(*artifactSymbol<int>("fake_calls"), 1);
}

TEST_F(FakeDriver, AsyncModeDoesNotWait) {
  open();
  setUp(Problem());
  flashrt_set_async(1);
  void *stream = reinterpret_cast<void *>(0x1230);
  ASSERT_EQ(run(stream), FLASHRT_OK) << lastError();
  EXPECT_EQ(fake().stream, stream);
  EXPECT_EQ(fake().streamSyncs, 0);
  EXPECT_EQ(fake().streamsDestroyed, 0);
}

TEST_F(FakeDriver, DescriptorsAndResults) {
  open();
  Problem bshd;
  bshd.bshd = true;
  setUp(bshd);
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  const MemRef<4> &d = *artifactSymbol<MemRef<4>>("fake_last_q");
  EXPECT_EQ(d.aligned, q.data);
  EXPECT_EQ(d.offset, 0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(d.sizes[i], q.sizes[i]);
    EXPECT_EQ(d.strides[i], q.strides[i]);
  }
  // V is all ones, so every output row is 1 (the fake computes on the
  // "device" memory, which is host memory here).
  std::vector<uint16_t> out(p.oBytes() / 2);
  ASSERT_EQ(flashrt_memcpy_dtoh(out.data(), o.data, p.oBytes()), FLASHRT_OK);
  for (uint16_t x : out)
    ASSERT_EQ(x, 0x3f80);
  std::vector<float> l(p.lseBytes() / 4);
  ASSERT_EQ(flashrt_memcpy_dtoh(l.data(), lse.data, p.lseBytes()), FLASHRT_OK);
  for (float x : l)
    ASSERT_TRUE(std::isfinite(x));
}

TEST_F(FakeDriver, DirectCallCreatesItsOwnStream) {
  open();
  setUp(Problem());
  MemRef<4> d[4];
  MemRef<3> l = {lse.data, lse.data, 0, {2, 4, 33}, {132, 33, 1}};
  const flashrt_tensor *ts[4] = {&q, &k, &v, &o};
  for (int i = 0; i < 4; ++i) {
    d[i] = {ts[i]->data, ts[i]->data, 0, {}, {}};
    std::memcpy(d[i].sizes, ts[i]->sizes, sizeof(d[i].sizes));
    std::memcpy(d[i].strides, ts[i]->strides, sizeof(d[i].strides));
  }
  auto *entry = artifactSymbol<void(MemRef<4> *, MemRef<4> *, MemRef<4> *,
                                    MemRef<4> *, MemRef<3> *)>(
      "_mlir_ciface_fake");
  ASSERT_NE(entry, nullptr);
  entry(&d[0], &d[1], &d[2], &d[3], &l);
  EXPECT_EQ(fake().launches, 1);
  EXPECT_EQ(fake().streamsCreated, 1);
  EXPECT_EQ(fake().streamSyncs, 1);
  EXPECT_EQ(fake().streamsDestroyed, 1);
}

TEST_F(FakeDriver, LargeSharedMemoryIsOptedInOnce) {
  open();
  setUp(Problem());
  *artifactSymbol<int32_t>("fake_smem_bytes") = 100 * 1024;
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(fake().setAttrs, 1);
  EXPECT_EQ(fake().smem, 100u * 1024);
  *artifactSymbol<int32_t>("fake_smem_bytes") = 300 * 1024;
  EXPECT_EQ(run(), FLASHRT_ERR_LAUNCH);
  EXPECT_NE(lastError().find("cannot give kernel 'fake_kernel'"),
            std::string::npos)
      << lastError();
  *artifactSymbol<int32_t>("fake_smem_bytes") = 0;
}

TEST_F(FakeDriver, MissingKernel) {
  open();
  setUp(Problem());
  const char **name = artifactSymbol<const char *>("fake_kernel_name");
  *name = "missing_kernel";
  EXPECT_EQ(run(), FLASHRT_ERR_LOAD);
  EXPECT_NE(lastError().find("looking up kernel 'missing_kernel' in the "
                             "artifact's GPU module failed: "
                             "CUDA_ERROR_NOT_FOUND"),
            std::string::npos)
      << lastError();
  *name = "fake_kernel";
}

TEST_F(FakeDriver, LaunchError) {
  open();
  setUp(Problem());
  fake().launchResult = 701;
  EXPECT_EQ(run(), FLASHRT_ERR_LAUNCH);
  EXPECT_NE(lastError().find("launching kernel 'fake_kernel' (grid 1x4x2, "
                             "block 128x1x1, 0 bytes of dynamic shared "
                             "memory) failed: "
                             "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(fake().streamSyncs, 1); // Still waited on, but the first error
                                    // is the one reported.
}

TEST_F(FakeDriver, ExecutionError) {
  open();
  setUp(Problem());
  fake().syncResult = 700;
  EXPECT_EQ(run(), FLASHRT_ERR_LAUNCH);
  EXPECT_NE(lastError().find("kernel 'fake_kernel' failed while running: "
                             "CUDA_ERROR_ILLEGAL_ADDRESS"),
            std::string::npos)
      << lastError();
}

TEST_F(FakeDriver, HostPointer) {
  open();
  setUp(Problem());
  std::vector<double> host(p.vBytes() / 8 + 2);
  v.data = host.data();
  EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("is not CUDA memory: a host pointer?"),
            std::string::npos)
      << lastError();
  fake().unknownIsPinned = 1;
  EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("V (0x"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("is page-locked host memory"), std::string::npos);
  EXPECT_EQ(fake().launches, 0);
}

TEST_F(FakeDriver, PointerChecksCanBeTurnedOff) {
  open();
  setUp(Problem());
  fake().allocDevice = 1;
  k.data = alloc(p.kBytes());
  flashrt_set_pointer_checks(0);
  EXPECT_EQ(run(), FLASHRT_OK) << lastError();
  flashrt_set_pointer_checks(1);
  EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(fake().launches, 1);
}

TEST_F(FakeDriver, OtherDevice) {
  open();
  setUp(Problem());
  fake().allocDevice = 1;
  k.data = alloc(p.kBytes());
  EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("K is on device 1 but the kernel runs on "
                             "device 0"),
            std::string::npos)
      << lastError();
}

TEST_F(FakeDriver, ViewOutsideItsAllocation) {
  open();
  setUp(Problem());
  o.data = alloc(p.oBytes() - 16);
  EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("O's view (" + std::to_string(p.oBytes()) +
                             " bytes from 0x"),
            std::string::npos)
      << lastError();
  EXPECT_NE(lastError().find("is not inside its allocation"),
            std::string::npos);
}

TEST_F(FakeDriver, Timing) {
  open();
  setUp(Problem());
  float ms = -1;
  ASSERT_EQ(flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 2, 5, &ms),
            FLASHRT_OK)
      << lastError();
  EXPECT_EQ(fake().launches, 7);
  EXPECT_FLOAT_EQ(ms, 0.25f); // The fake clock: 0.25 ms per launch.
  EXPECT_EQ(fake().streamSyncs, 0);
}

TEST_F(FakeDriver, ScratchMemory) {
  void *p = mgpuMemAlloc(1000, nullptr, false);
  ASSERT_NE(p, nullptr);
  mgpuMemFree(p, nullptr);
  EXPECT_STREQ(flashrt_last_error(), "");
}

/// A caller's allocator (flashrt_set_allocator) that records its calls and
/// hands out blocks of its own arena, or NULL when `fail` is set.
struct RecordingAllocator {
  alignas(256) char arena[4][8192];
  int allocs = 0, frees = 0;
  size_t lastBytes = 0;
  void *lastAllocStream = nullptr, *lastFreed = nullptr, *lastFreeStream = nullptr;
  bool fail = false;

  static void *alloc(size_t bytes, void *stream, void *user) {
    auto *a = static_cast<RecordingAllocator *>(user);
    a->lastBytes = bytes;
    a->lastAllocStream = stream;
    if (a->fail || bytes > sizeof(a->arena[0]))
      return nullptr;
    return a->arena[a->allocs++ % 4];
  }
  static void free(void *ptr, void *stream, void *user) {
    auto *a = static_cast<RecordingAllocator *>(user);
    ++a->frees;
    a->lastFreed = ptr;
    a->lastFreeStream = stream;
  }
};

TEST_F(FakeDriver, CallerAllocatorServesScratch) {
  RecordingAllocator a;
  EXPECT_EQ(flashrt_set_allocator(RecordingAllocator::alloc, nullptr, &a),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("both alloc and free"), std::string::npos);
  // A block of the built-in allocator, freed after the switch, goes back
  // where it came from.
  void *old = mgpuMemAlloc(1000, nullptr, false);
  ASSERT_NE(old, nullptr);
  ASSERT_EQ(flashrt_set_allocator(RecordingAllocator::alloc,
                                  RecordingAllocator::free, &a),
            FLASHRT_OK);
  mgpuMemFree(old, nullptr);
  EXPECT_EQ(a.frees, 0);

  open("fake");
  setUp(Problem());
  *artifactSymbol<uint64_t>("fake_scratch_bytes") = 4096;
  auto *stream = reinterpret_cast<void *>(0x5a);
  ASSERT_EQ(run(stream), FLASHRT_OK) << lastError();
  void *scratch = *artifactSymbol<void *>("fake_last_scratch");
  EXPECT_EQ(a.allocs, 1);
  EXPECT_EQ(a.lastBytes, 4096u);
  EXPECT_EQ(a.lastAllocStream, stream);
  EXPECT_EQ(scratch, static_cast<void *>(a.arena[0]));
  EXPECT_EQ(a.frees, 1);
  EXPECT_EQ(a.lastFreed, scratch);
  EXPECT_EQ(a.lastFreeStream, stream);
  EXPECT_EQ(fake().launches, 1);

  // A failed allocation fails the call, and nothing is launched on it.
  a.fail = true;
  EXPECT_EQ(run(stream), FLASHRT_ERR_CUDA);
  EXPECT_NE(lastError().find("allocating 4096 bytes of scratch memory: the "
                             "caller's allocator failed"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(fake().launches, 1);

  // Both NULL: the built-in allocator again.
  ASSERT_EQ(flashrt_set_allocator(nullptr, nullptr, nullptr), FLASHRT_OK);
  ASSERT_EQ(run(stream), FLASHRT_OK) << lastError();
  EXPECT_EQ(a.allocs, 1);
  EXPECT_EQ(fake().launches, 2);
  *artifactSymbol<uint64_t>("fake_scratch_bytes") = 0;
}

/// Device copies of host data, as i32 tensors of the given sizes.
template <typename T>
void *deviceCopy(std::vector<void *> &buffers, const std::vector<T> &host) {
  void *ptr = nullptr;
  EXPECT_EQ(flashrt_malloc(&ptr, host.size() * sizeof(T)), FLASHRT_OK);
  buffers.push_back(ptr);
  EXPECT_EQ(flashrt_memcpy_htod(ptr, host.data(), host.size() * sizeof(T)),
            FLASHRT_OK);
  return ptr;
}

flashrt_tensor i32Tensor(void *data, std::vector<int64_t> sizes) {
  return rowMajor(data, FLASHRT_DTYPE_I32, sizes);
}


TEST_F(FakeDriver, KvLensRun) {
  open("fake_kv");
  setUp(Problem()); // B 2, Hq 4, Hkv 2, Sq 33, K/V 70 keys, V all ones
  // Keys past sequence 1's length hold 2.0: read, they would show in O.
  std::vector<uint16_t> vh(p.vBytes() / 2, 0x3f80);
  for (int64_t h = 0; h < p.hkv; ++h)
    for (int64_t j = 50; j < p.sk; ++j)
      for (int64_t d = 0; d < p.dv; ++d)
        vh[((1 * p.hkv + h) * p.sk + j) * p.dv + d] = 0x4000;
  ASSERT_EQ(flashrt_memcpy_htod(v.data, vh.data(), p.vBytes()), FLASHRT_OK);
  flashrt_tensor lens = i32Tensor(deviceCopy(buffers, std::vector<int32_t>{0, 50}), {2});
  ASSERT_EQ(flashrt_attention_kv(kernel, &q, &k, &v, &lens, nullptr, &o, &lse,
                                 nullptr),
            FLASHRT_OK)
      << lastError();
  EXPECT_EQ(fake().launches, 1);
  const MemRef<1> &d = *artifactSymbol<MemRef<1>>("fake_last_lens");
  EXPECT_EQ(d.aligned, lens.data);
  EXPECT_EQ(d.sizes[0], 2);
  EXPECT_EQ(d.strides[0], 1);
  std::vector<uint16_t> out(p.oBytes() / 2);
  ASSERT_EQ(flashrt_memcpy_dtoh(out.data(), o.data, p.oBytes()), FLASHRT_OK);
  std::vector<float> l(p.lseBytes() / 4);
  ASSERT_EQ(flashrt_memcpy_dtoh(l.data(), lse.data, p.lseBytes()), FLASHRT_OK);
  size_t half = out.size() / 2, lhalf = l.size() / 2;
  for (size_t i = 0; i < out.size(); ++i) // sequence 0 sees no key: O = 0
    ASSERT_EQ(out[i], i < half ? 0x0000 : 0x3f80) << i;
  for (size_t i = 0; i < l.size(); ++i)
    ASSERT_TRUE(i < lhalf ? std::isinf(l[i]) && l[i] < 0 : std::isfinite(l[i]))
        << i;

  // kv_lens goes through the pointer checks like the other tensors.
  std::vector<int32_t> host = {0, 50};
  lens.data = host.data();
  EXPECT_EQ(flashrt_attention_kv(kernel, &q, &k, &v, &lens, nullptr, &o, &lse,
                                 nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("kv_lens (0x"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("is not CUDA memory"), std::string::npos);
  EXPECT_EQ(fake().launches, 1);
}

TEST_F(FakeDriver, PagedRun) {
  open("fake_paged");
  Problem pr;
  pr.sq = 3;
  setUp(pr);
  // Pools of 8 pages of 16 keys; sequence 0 has 20 keys in pages 5, 2 (and
  // 7, unused), sequence 1 33 keys in pages 0, 6, 3. Every K/V element no
  // sequence may read is NaN: spare pages 1 and 4, and dead slots.
  const int64_t pages = 8, ps = 16;
  std::vector<int32_t> tableHost = {5, 2, 7, 0, 6, 3};
  std::vector<int32_t> lensHost = {20, 33};
  size_t pageElems = size_t(pr.hkv * ps * pr.d);
  std::vector<uint16_t> kh(pages * pageElems, 0x3c00), vh(kh.size(), 0x3f80);
  auto poison = [&](int64_t page, int64_t slot) {
    for (int64_t h = 0; h < pr.hkv; ++h)
      for (int64_t d = 0; d < pr.d; ++d) {
        size_t at = size_t(((page * pr.hkv + h) * ps + slot) * pr.d + d);
        kh[at] = vh[at] = 0x7fc0;
      }
  };
  for (int64_t page : {1, 4})
    for (int64_t s = 0; s < ps; ++s)
      poison(page, s);
  for (int64_t b = 0; b < 2; ++b)
    for (int64_t j = lensHost[b]; j < 3 * ps; ++j)
      poison(tableHost[b * 3 + j / ps], j % ps);
  Problem pool = pr;
  pool.b = pages;
  flashrt_tensor pk = pool.view(deviceCopy(buffers, kh), pr.hkv, ps, pr.d);
  flashrt_tensor pv = pool.view(deviceCopy(buffers, vh), pr.hkv, ps, pr.d);
  flashrt_tensor lens = i32Tensor(deviceCopy(buffers, lensHost), {2});
  flashrt_tensor table = i32Tensor(deviceCopy(buffers, tableHost), {2, 3});
  ASSERT_EQ(flashrt_attention_kv(kernel, &q, &pk, &pv, &lens, &table, &o, &lse,
                                 nullptr),
            FLASHRT_OK)
      << lastError();
  const MemRef<2> &t = *artifactSymbol<MemRef<2>>("fake_last_table");
  EXPECT_EQ(t.aligned, table.data);
  EXPECT_EQ(t.sizes[0], 2);
  EXPECT_EQ(t.sizes[1], 3);
  EXPECT_EQ(t.strides[0], 3);
  EXPECT_EQ(t.strides[1], 1);
  EXPECT_EQ(artifactSymbol<MemRef<1>>("fake_last_lens")->aligned, lens.data);
  std::vector<uint16_t> out(p.oBytes() / 2);
  ASSERT_EQ(flashrt_memcpy_dtoh(out.data(), o.data, p.oBytes()), FLASHRT_OK);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], 0x3f80) << i; // the live keys' V, no NaN
  std::vector<float> l(p.lseBytes() / 4);
  ASSERT_EQ(flashrt_memcpy_dtoh(l.data(), lse.data, p.lseBytes()), FLASHRT_OK);
  for (float x : l)
    ASSERT_TRUE(std::isfinite(x));
  // flashrt_time_kv_ms times the same call.
  float ms = -1;
  ASSERT_EQ(flashrt_time_kv_ms(kernel, &q, &pk, &pv, &lens, &table, &o, &lse,
                               nullptr, 1, 3, &ms),
            FLASHRT_OK)
      << lastError();
  EXPECT_FLOAT_EQ(ms, 0.25f);
  EXPECT_EQ(fake().launches, 5);
}

} // namespace
