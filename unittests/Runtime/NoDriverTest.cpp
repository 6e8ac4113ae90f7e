//===- NoDriverTest.cpp - The runtime on a machine without CUDA -----------===//
//
// Everything here runs where no NVIDIA driver exists, as in CI: every entry
// point must return a status and a message, never crash or abort. The driver
// library is pointed at a path that does not exist, so the tests behave the
// same on a GPU machine. Argument checking is reached through an artifact
// without GPU code (FakeArtifact.c built with -DFAKE_NO_GPU_MODULE), which
// opens without a driver; the ABI reader is tested directly.
//
//===----------------------------------------------------------------------===//

#include "RuntimeTestUtil.h"

#include "flashrt/Abi.h"

#include "gtest/gtest.h"

#include <cstdlib>
#include <string>
#include <vector>

using namespace flashrt_test;

extern "C" {
/// The mgpu* ABI as generated host code declares it.
void *mgpuModuleLoad(const void *, int64_t);
void *mgpuModuleLoadJIT(const void *, int);
void mgpuModuleUnload(void *);
void *mgpuModuleGetFunction(void *, const char *);
void *mgpuStreamCreate(void);
void mgpuLaunchKernel(void *, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, int32_t, void *, void **, void **, int64_t);
void mgpuStreamSynchronize(void *);
void mgpuStreamDestroy(void *);
void *mgpuMemAlloc(uint64_t, void *, bool);
void mgpuMemFree(void *, void *);
void *mgpuEventCreate(void);
}

namespace {

TEST(NoDriver, OpenMissingFile) {
  flashrt_kernel *k = reinterpret_cast<flashrt_kernel *>(1);
  EXPECT_EQ(flashrt_open("/nonexistent/libattn.so", "attn", &k),
            FLASHRT_ERR_LOAD);
  EXPECT_EQ(k, nullptr);
  EXPECT_NE(lastError().find("cannot load artifact '/nonexistent/libattn.so'"),
            std::string::npos)
      << lastError();
}

TEST(NoDriver, OpenNullArguments) {
  flashrt_kernel *k;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake", nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("out is NULL"), std::string::npos);
  EXPECT_EQ(flashrt_open(nullptr, "fake", &k), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, nullptr, &k),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "", &k),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_FALSE(lastError().empty());
  flashrt_close(nullptr);
  EXPECT_STREQ(flashrt_abi(nullptr), "");
}

TEST(NoDriver, DeviceInfoNamesLibcuda) {
  int major = -1, minor = -1, sms = -1;
  EXPECT_EQ(flashrt_device_info(&major, &minor, &sms), FLASHRT_ERR_NO_DRIVER);
  EXPECT_NE(lastError().find("libcuda"), std::string::npos) << lastError();
  EXPECT_NE(lastError().find("no NVIDIA driver"), std::string::npos);
  EXPECT_EQ(major, -1);
  // Same answer again, from the cached outcome.
  EXPECT_EQ(flashrt_device_info(nullptr, nullptr, nullptr),
            FLASHRT_ERR_NO_DRIVER);
}

TEST(NoDriver, DeviceHelpers) {
  void *p = reinterpret_cast<void *>(1);
  EXPECT_EQ(flashrt_malloc(&p, 64), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(p, nullptr);
  EXPECT_EQ(flashrt_malloc(nullptr, 64), FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(flashrt_free(nullptr), FLASHRT_OK);
  EXPECT_STREQ(flashrt_last_error(), "");
  char host[16];
  EXPECT_EQ(flashrt_memcpy_htod(host, host, 16), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(flashrt_memcpy_dtoh(host, host, 16), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(flashrt_memset(host, 0, 16), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(flashrt_synchronize(), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(flashrt_memcpy_htod(nullptr, host, 16),
            FLASHRT_ERR_INVALID_ARGUMENT);
}

TEST(NoDriver, OpenArtifactWithGpuCode) {
  flashrt_kernel *k = nullptr;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &k), FLASHRT_ERR_NO_DRIVER);
  EXPECT_EQ(k, nullptr);
  EXPECT_NE(lastError().find("libcuda"), std::string::npos) << lastError();
}

// Generated host code calls these directly; without a driver they must
// record the error and return null, never crash.
TEST(NoDriver, MgpuFunctionsRecordErrors) {
  void *module = mgpuModuleLoad("image", 6);
  EXPECT_EQ(module, nullptr);
  EXPECT_NE(lastError().find("libcuda"), std::string::npos) << lastError();
}

TEST(NoDriver, MgpuFunctionsReturnNull) {
  EXPECT_EQ(mgpuModuleLoadJIT("ptx", 2), nullptr);
  EXPECT_EQ(mgpuModuleGetFunction(nullptr, "kernel"), nullptr);
  EXPECT_NE(lastError().find("not loaded"), std::string::npos) << lastError();
  EXPECT_EQ(mgpuStreamCreate(), nullptr);
  EXPECT_NE(lastError().find("libcuda"), std::string::npos) << lastError();
  mgpuLaunchKernel(nullptr, 1, 1, 1, 128, 1, 1, 0, nullptr, nullptr, nullptr,
                   0);
  EXPECT_NE(lastError().find("not found"), std::string::npos) << lastError();
  mgpuStreamSynchronize(nullptr);
  mgpuStreamDestroy(nullptr);
  mgpuModuleUnload(nullptr);
  EXPECT_EQ(mgpuMemAlloc(64, nullptr, false), nullptr);
  mgpuMemFree(nullptr, nullptr);
  EXPECT_EQ(mgpuEventCreate(), nullptr);
}

//===----------------------------------------------------------------------===//
// Argument checks, through the artifact without GPU code
//===----------------------------------------------------------------------===//

/// Host buffers (16-byte aligned, as std::vector<double> storage is) for
/// one problem, plus the views flashrt_attention takes.
class Args : public ::testing::Test {
protected:
  void SetUp() override {
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake", &kernel), FLASHRT_OK)
        << lastError();
    calls = symbolIn<int>(FAKE_ARTIFACT_NOLOAD, "fake_calls");
    ASSERT_NE(calls, nullptr);
    resize();
  }
  void TearDown() override { flashrt_close(kernel); }

  void resize() {
    for (auto *buf : {&qBuf, &kBuf, &vBuf, &oBuf, &lseBuf})
      buf->assign(1 << 16, 0.0);
    q = p.q(qBuf.data());
    k = p.k(kBuf.data());
    v = p.v(vBuf.data());
    o = p.o(oBuf.data());
    lse = p.lse(lseBuf.data());
  }

  int run() { return flashrt_attention(kernel, &q, &k, &v, &o, &lse, nullptr); }

  /// Expects INVALID_ARGUMENT with `text` in the message, and no call.
  void expectInvalid(const std::string &text) {
    int before = *calls;
    EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT) << lastError();
    EXPECT_NE(lastError().find(text), std::string::npos) << lastError();
    EXPECT_EQ(*calls, before);
  }

  flashrt_kernel *kernel = nullptr;
  int *calls = nullptr;
  Problem p;
  std::vector<double> qBuf, kBuf, vBuf, oBuf, lseBuf;
  flashrt_tensor q, k, v, o, lse;
};

TEST_F(Args, AbiRecord) {
  std::string abi = flashrt_abi(kernel);
  EXPECT_NE(abi.find("\"dtype\":\"bf16\""), std::string::npos) << abi;
}

TEST_F(Args, UnknownFunction) {
  flashrt_kernel *other = nullptr;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "nope", &other),
            FLASHRT_ERR_LOAD);
  EXPECT_NE(lastError().find("has no _mlir_ciface_nope"), std::string::npos)
      << lastError();
}

TEST_F(Args, ValidArgumentsNeedTheDriver) {
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER);
  EXPECT_NE(lastError().find("libcuda"), std::string::npos);
  EXPECT_EQ(*calls, 0);
  p.bshd = true;
  resize();
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER);
}

TEST_F(Args, EmptyProblemRunsNothing) {
  for (int dim : {0, 1, 2}) { // batch, heads, query length
    p = Problem();
    int64_t *size = dim == 0 ? &p.b : dim == 1 ? &p.hq : &p.sq;
    *size = 0;
    resize();
    EXPECT_EQ(run(), FLASHRT_OK) << lastError();
  }
  EXPECT_EQ(*calls, 0);
  EXPECT_STREQ(flashrt_last_error(), "");
}

TEST_F(Args, NullArguments) {
  EXPECT_EQ(flashrt_attention(nullptr, &q, &k, &v, &o, &lse, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(flashrt_attention(kernel, nullptr, &k, &v, &o, &lse, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("Q is NULL"), std::string::npos);
  EXPECT_EQ(flashrt_attention(kernel, &q, &k, &v, nullptr, &lse, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("O is NULL"), std::string::npos);
  o.data = nullptr;
  expectInvalid("O has no data");
}

TEST_F(Args, LseMissing) {
  EXPECT_EQ(flashrt_attention(kernel, &q, &k, &v, &o, nullptr, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("writes LSE"), std::string::npos) << lastError();
}

TEST_F(Args, LseGivenToKernelWithout) {
  flashrt_kernel *f16 = nullptr;
  ASSERT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake_f16", &f16), FLASHRT_OK);
  p.dtype = FLASHRT_DTYPE_F16;
  p.d = 32;
  resize();
  EXPECT_EQ(flashrt_attention(f16, &q, &k, &v, &o, &lse, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("no LSE output"), std::string::npos);
  EXPECT_EQ(flashrt_attention(f16, &q, &k, &v, &o, nullptr, nullptr),
            FLASHRT_ERR_NO_DRIVER);
  flashrt_close(f16);
}

TEST_F(Args, WrongDtype) {
  q.dtype = FLASHRT_DTYPE_F16;
  expectInvalid("Q is f16 but fake takes bf16");
  q.dtype = FLASHRT_DTYPE_BF16;
  lse.dtype = FLASHRT_DTYPE_BF16;
  expectInvalid("LSE is bf16 but fake takes f32");
}

TEST_F(Args, WrongRank) {
  k.rank = 3;
  expectInvalid("K has rank 3, expected 4");
  k.rank = 4;
  lse.rank = 4;
  expectInvalid("LSE has rank 4, expected 3");
}

TEST_F(Args, WrongHeadDims) {
  p.d = 32;
  resize();
  expectInvalid("Q has 32 in dim 3, expected 64 = head dim (the artifact's D)");
  p = Problem();
  p.dv = 128;
  resize();
  expectInvalid("V has 128 in dim 3, expected 64");
}

TEST_F(Args, InconsistentSizes) {
  v.sizes[0] = 3;
  expectInvalid("V has 3 in dim 0, expected 2 = batch");
  v.sizes[0] = 2;
  v.sizes[2] = 69;
  expectInvalid("V has 69 in dim 2, expected 70 = KV length");
  v.sizes[2] = 70;
  o.sizes[1] = 2;
  expectInvalid("O has 2 in dim 1, expected 4 = heads");
  o.sizes[1] = 4;
  lse.sizes[2] = 1;
  expectInvalid("LSE has 1 in dim 2, expected 33 = query length");
}

TEST_F(Args, HeadsNotAMultiple) {
  p.hkv = 3;
  resize();
  expectInvalid("Q heads (4) must be a multiple of K/V heads (3)");
  p.hkv = 0;
  resize();
  expectInvalid("must be a multiple");
}

TEST_F(Args, Misaligned) {
  k.data = static_cast<char *>(k.data) + 2;
  expectInvalid("K data 0x");
  expectInvalid("is not 16-byte aligned");
}

TEST_F(Args, RowStrideNotMultipleOf8) {
  q.strides[2] = 68; // Rows of 64 elements padded to 68: 136 bytes.
  q.strides[1] = 68 * 40;
  q.strides[0] = 68 * 40 * 4;
  expectInvalid("Q stride of dim 2 is 68 elements, not a multiple of 8");
}

TEST_F(Args, OuterStridesNotMultipleOf8) {
  // Every outer dim is checked, the batch stride (dim 0) included: a batch
  // padded by 4 elements would misalign every row of batch 1.
  for (int dim : {0, 1}) {
    q = p.q(qBuf.data());
    q.strides[dim] += 4;
    expectInvalid("Q stride of dim " + std::to_string(dim) + " is " +
                  std::to_string(q.strides[dim]) +
                  " elements, not a multiple of 8");
  }
  q = p.q(qBuf.data());
  o.strides[0] += 4;
  expectInvalid("O stride of dim 0 is");
}

TEST_F(Args, InnermostStride) {
  v.strides[3] = 2;
  expectInvalid("V must have innermost stride 1, not 2");
}

TEST_F(Args, NegativeSizeOrStride) {
  o.strides[0] = -8;
  expectInvalid("O has a negative stride (dim 0)");
  o = p.o(oBuf.data());
  o.sizes[3] = -1;
  expectInvalid("O has a negative size (dim 3)");
}

TEST_F(Args, Overflow) {
  k.strides[0] = int64_t(1) << 62;
  expectInvalid("K sizes and strides overflow 64 bits");
}

TEST_F(Args, TwoGiBViews) {
  // 32-bit kernel indexing: every view must span less than 2 GiB.
  k.strides[0] = int64_t(1) << 30; // Batch 1 starts 2 GiB in.
  expectInvalid("K's view spans 2147501568 bytes; fake indexes with 32 bits "
                "and takes less than 2 GiB per tensor");
  k = p.k(kBuf.data());
  lse.strides[0] = int64_t(1) << 29;
  expectInvalid("LSE's view spans");
}

TEST_F(Args, LseStrides) {
  lse.strides[1] = 40; // Padded rows are fine: LSE is written per element.
  lse.strides[0] = 161;
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER) << lastError();
  lse.data = static_cast<char *>(lse.data) + 4;
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER) << lastError();
  lse.data = static_cast<char *>(lse.data) + 2;
  expectInvalid("LSE data 0x");
  expectInvalid("is not 4-byte aligned");
  lse = p.lse(lseBuf.data());
  lse.strides[2] = 2;
  expectInvalid("LSE must have innermost stride 1, not 2");
}

TEST_F(Args, UnitDimStridesAreIgnored) {
  p.sq = 1;
  resize();
  q.strides[2] = 3; // Never stepped over.
  lse.strides[2] = 5;
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER) << lastError();
}

TEST_F(Args, ZeroKeysSkipTheirPointers) {
  p.sk = 0;
  resize();
  k.data = nullptr;
  v.data = reinterpret_cast<void *>(3);
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER) << lastError();
}

TEST_F(Args, UncheckedDtypeIsAccepted) {
  q.dtype = k.dtype = FLASHRT_DTYPE_UNCHECKED;
  EXPECT_EQ(run(), FLASHRT_ERR_NO_DRIVER) << lastError();
}

TEST_F(Args, TimingChecksItsArguments) {
  float ms = -1;
  EXPECT_EQ(flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 1, 0, &ms),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(
      flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 1, 3, nullptr),
      FLASHRT_ERR_INVALID_ARGUMENT);
  q.dtype = FLASHRT_DTYPE_F16;
  EXPECT_EQ(flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 1, 3, &ms),
            FLASHRT_ERR_INVALID_ARGUMENT);
  q.dtype = FLASHRT_DTYPE_BF16;
  EXPECT_EQ(flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 1, 3, &ms),
            FLASHRT_ERR_NO_DRIVER);
}

//===----------------------------------------------------------------------===//
// KV-cache entries: kv_lens, block tables, static shapes
//===----------------------------------------------------------------------===//

/// fake_kv (kv_lens) and fake_paged (kv_lens + block table over [pages, 2,
/// 16, 64] pools), both compiled for Hq 4, Hkv 2, D 64 (q_shape
/// [-1,4,-1,64]), checked without a driver.
class KvArgs : public Args {
protected:
  void SetUp() override {
    Args::SetUp();
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake_kv", &kv), FLASHRT_OK)
        << lastError();
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake_paged", &paged),
              FLASHRT_OK)
        << lastError();
    lens = vec(lensBuf, 1, {p.b});
    table = vec(tableBuf, 2, {p.b, 5});
    // Pools of 11 pages of 16 keys (any count: pages are not the batch).
    pk = pool(pkBuf, 11, 16);
    pv = pool(pvBuf, 11, 16);
  }
  void TearDown() override {
    flashrt_close(kv);
    flashrt_close(paged);
    Args::TearDown();
  }

  flashrt_tensor vec(std::vector<int32_t> &buf, int rank,
                     std::vector<int64_t> sizes) {
    buf.assign(1024, 0);
    flashrt_tensor t = {};
    t.data = buf.data();
    t.rank = rank;
    t.dtype = FLASHRT_DTYPE_I32;
    int64_t stride = 1;
    for (int i = rank - 1; i >= 0; --i) {
      t.sizes[i] = sizes[i];
      t.strides[i] = stride;
      stride *= sizes[i];
    }
    return t;
  }
  flashrt_tensor pool(std::vector<double> &buf, int64_t pages, int64_t ps) {
    buf.assign(1 << 14, 0.0);
    Problem pp = p;
    pp.b = pages;
    return pp.view(buf.data(), p.hkv, ps, p.d);
  }

  int runKv() {
    return flashrt_attention_kv(kv, &q, &k, &v, &lens, nullptr, &o, &lse,
                                nullptr);
  }
  int runPaged() {
    return flashrt_attention_kv(paged, &q, &pk, &pv, &lens, &table, &o, &lse,
                                nullptr);
  }
  void expectKv(int rc, const std::string &text) {
    int before = *calls;
    EXPECT_EQ(rc, FLASHRT_ERR_INVALID_ARGUMENT) << lastError();
    EXPECT_NE(lastError().find(text), std::string::npos) << lastError();
    EXPECT_EQ(*calls, before);
  }

  flashrt_kernel *kv = nullptr, *paged = nullptr;
  std::vector<int32_t> lensBuf, tableBuf;
  std::vector<double> pkBuf, pvBuf;
  flashrt_tensor lens, table, pk, pv;
};

TEST_F(KvArgs, ValidArgumentsNeedTheDriver) {
  EXPECT_EQ(runKv(), FLASHRT_ERR_NO_DRIVER) << lastError();
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
  p.bshd = true;
  resize();
  pk = pool(pkBuf, 11, 16);
  pv = pool(pvBuf, 11, 16);
  EXPECT_EQ(runKv(), FLASHRT_ERR_NO_DRIVER) << lastError();
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
  // Unchecked dtypes are accepted, as for the other tensors.
  lens.dtype = table.dtype = FLASHRT_DTYPE_UNCHECKED;
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
  EXPECT_EQ(*calls, 0);
}

TEST_F(KvArgs, PlainEntryPointsRefuseThem) {
  expectKv(flashrt_attention(kv, &q, &k, &v, &o, &lse, nullptr),
           "fake_kv takes kv_lens (per-sequence KV lengths): call "
           "flashrt_attention_kv, not flashrt_attention");
  expectKv(flashrt_attention(paged, &q, &pk, &pv, &o, &lse, nullptr),
           "fake_paged takes kv_lens and a block table (paged K/V): call "
           "flashrt_attention_kv");
  float ms = -1;
  expectKv(flashrt_time_ms(kv, &q, &k, &v, &o, &lse, nullptr, 1, 3, &ms),
           "call flashrt_time_kv_ms, not flashrt_time_ms");
  EXPECT_EQ(ms, 0.0f);
  EXPECT_EQ(flashrt_time_kv_ms(kv, &q, &k, &v, &lens, nullptr, &o, &lse,
                               nullptr, 1, 3, &ms),
            FLASHRT_ERR_NO_DRIVER)
      << lastError();
  expectKv(flashrt_time_kv_ms(kv, &q, &k, &v, nullptr, nullptr, &o, &lse,
                              nullptr, 1, 3, &ms),
           "pass kv_lens");
}

TEST_F(KvArgs, OldEntriesThroughTheKvCall) {
  // The plain entry runs through flashrt_attention_kv with both NULL...
  EXPECT_EQ(flashrt_attention_kv(kernel, &q, &k, &v, nullptr, nullptr, &o,
                                 &lse, nullptr),
            FLASHRT_ERR_NO_DRIVER)
      << lastError();
  // ... and refuses what it does not take.
  expectKv(flashrt_attention_kv(kernel, &q, &k, &v, &lens, nullptr, &o, &lse,
                                nullptr),
           "fake has no kv_lens operand: pass NULL for kv_lens");
  expectKv(flashrt_attention_kv(kernel, &q, &k, &v, nullptr, &table, &o, &lse,
                                nullptr),
           "fake has no block table (not paged): pass NULL for block_table");
  expectKv(flashrt_attention_kv(kv, &q, &k, &v, &lens, &table, &o, &lse,
                                nullptr),
           "fake_kv has no block table");
}

TEST_F(KvArgs, MissingOperands) {
  expectKv(flashrt_attention_kv(kv, &q, &k, &v, nullptr, nullptr, &o, &lse,
                                nullptr),
           "fake_kv takes per-sequence KV lengths: pass kv_lens (i32 [B])");
  expectKv(flashrt_attention_kv(paged, &q, &pk, &pv, &lens, nullptr, &o, &lse,
                                nullptr),
           "fake_paged reads a paged KV cache: pass block_table");
  expectKv(flashrt_attention_kv(paged, &q, &pk, &pv, nullptr, &table, &o,
                                &lse, nullptr),
           "pass kv_lens");
  lens.data = nullptr;
  expectKv(runKv(), "kv_lens has no data (NULL)");
}

TEST_F(KvArgs, KvLensChecks) {
  lens.dtype = FLASHRT_DTYPE_F32;
  expectKv(runKv(), "kv_lens is f32 but fake_kv takes i32");
  lens.dtype = FLASHRT_DTYPE_I32;
  lens.rank = 2;
  expectKv(runKv(), "kv_lens has rank 2, expected 1");
  lens.rank = 1;
  lens.sizes[0] = p.b + 1;
  expectKv(runKv(), "kv_lens has 3 in dim 0, expected 2 = batch (Q's)");
  lens.sizes[0] = p.b;
  lens.strides[0] = 2;
  expectKv(runKv(), "kv_lens must have innermost stride 1, not 2");
  lens.strides[0] = 1;
  lens.data = reinterpret_cast<char *>(lensBuf.data()) + 2;
  expectKv(runKv(), "is not 4-byte aligned");
  lens.data = lensBuf.data();
  lens.sizes[0] = -1;
  expectKv(runKv(), "kv_lens has a negative size");
}

TEST_F(KvArgs, BlockTableChecks) {
  table.dtype = FLASHRT_DTYPE_BF16;
  expectKv(runPaged(), "block_table is bf16 but fake_paged takes i32");
  table.dtype = FLASHRT_DTYPE_I32;
  table.rank = 1;
  expectKv(runPaged(), "block_table has rank 1, expected 2");
  table.rank = 2;
  table.sizes[0] = 3;
  expectKv(runPaged(), "block_table has 3 in dim 0, expected 2 = batch (Q's)");
  table.sizes[0] = p.b;
  table.strides[1] = 2;
  table.strides[0] = 10;
  expectKv(runPaged(), "block_table must have innermost stride 1, not 2");
  // Any outer stride (a slice of a wider table), one page per sequence.
  table.strides[1] = 1;
  table.strides[0] = 7;
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
  table.sizes[1] = 1;
  table.strides[1] = 5;
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
}

TEST_F(KvArgs, PagedPools) {
  // K's page count is free; V's must be K's.
  pv = pool(pvBuf, 10, 16);
  expectKv(runPaged(), "V has 10 in dim 0, expected 11 = pages (K's)");
  pv = pool(pvBuf, 11, 8);
  expectKv(runPaged(), "V has 8 in dim 2 (page size) but fake_paged is "
                       "compiled for 16 (kv_shape [-1,2,16,64]; -1 = any)");
  pv = pool(pvBuf, 11, 16);
  pk = pool(pkBuf, 11, 8);
  expectKv(runPaged(), "K has 8 in dim 2 (page size) but fake_paged is "
                       "compiled for 16");
  pk = pool(pkBuf, 11, 16);
  EXPECT_EQ(runPaged(), FLASHRT_ERR_NO_DRIVER) << lastError();
}

TEST_F(KvArgs, StaticShapes) {
  p.hq = 8;
  resize();
  expectKv(runKv(), "Q has 8 in dim 1 (heads) but fake_kv is compiled for 4 "
                    "(q_shape [-1,4,-1,64]; -1 = any)");
  p = Problem();
  p.hkv = 1;
  resize();
  expectKv(runKv(), "K has 1 in dim 1 (KV heads) but fake_kv is compiled for "
                    "2 (kv_shape [-1,2,-1,64]");
  p = Problem();
  resize();
  o.sizes[1] = 2;
  expectKv(runKv(), "O has 2 in dim 1 (heads) but fake_kv is compiled for 4");
  o = p.o(oBuf.data());
  lse.sizes[1] = 8;
  expectKv(runKv(), "LSE has 8 in dim 1 (heads) but fake_kv is compiled for 4");
  lse = p.lse(lseBuf.data());
  v.sizes[1] = 4;
  expectKv(runKv(), "V has 4 in dim 1 (KV heads) but fake_kv is compiled");
  v = p.v(vBuf.data());
  // Dynamic dims (batch, query and KV lengths) take any size.
  p.b = 1;
  p.sq = 5;
  p.sk = 300;
  resize();
  lens.sizes[0] = 1;
  EXPECT_EQ(runKv(), FLASHRT_ERR_NO_DRIVER) << lastError();
  // An empty batch runs nothing.
  p.b = 0;
  resize();
  lens.sizes[0] = 0;
  EXPECT_EQ(runKv(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 0);
}

//===----------------------------------------------------------------------===//
// The ABI reader
//===----------------------------------------------------------------------===//

TEST(AbiReader, Fields) {
  std::string json =
      "{ \"func\" : \"attn\", \"note\": \"\\\"dtype\\\": f16\", "
      "\"nested\": {\"dtype\": \"f32\", \"x\": [1, {\"y\": 2}]},\n"
      "\"dtype\":\"bf16\",\"head_dim\":128,\"head_dim_v\": 64,"
      "\"causal\":true,\"window\":[ 256 , 0 ],\"softcap\":0.0,"
      "\"scale\":8.8e-2,\"lse\":false,\"arch\":\"sm_90a\"}";
  flashrt::Abi abi;
  EXPECT_EQ(flashrt::parseAbi(json, abi), "");
  EXPECT_EQ(abi.dtype, FLASHRT_DTYPE_BF16);
  EXPECT_EQ(abi.headDim, 128);
  EXPECT_EQ(abi.headDimV, 64);
  EXPECT_FALSE(abi.lse);
  EXPECT_EQ(abi.archMajor, 9);
  EXPECT_EQ(abi.archMinor, 0);
  EXPECT_TRUE(abi.archSpecific);
  EXPECT_EQ(flashrt::abiBool(json, "causal"), true);
  EXPECT_EQ(flashrt::abiNumber(json, "scale"), 0.088);
  EXPECT_EQ(flashrt::abiNumbers(json, "window"), (std::vector<double>{256, 0}));
  EXPECT_EQ(flashrt::abiString(json, "func"), "attn");
  EXPECT_EQ(flashrt::abiNumber(json, "y"), std::nullopt);
  EXPECT_EQ(flashrt::abiString(json, "missing"), std::nullopt);
  EXPECT_EQ(abi.indexBits, 32);
}

TEST(AbiReader, Defaults) {
  flashrt::Abi abi;
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":64}", abi), "");
  EXPECT_EQ(abi.headDimV, 64);
  EXPECT_FALSE(abi.lse);
  EXPECT_EQ(abi.arch, "");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":64,"
                              "\"arch\":\"sm_100\"}",
                              abi),
            "");
  EXPECT_EQ(abi.archMajor, 10);
}

TEST(AbiReader, Malformed) {
  flashrt::Abi abi;
  EXPECT_EQ(flashrt::parseAbi("{\"head_dim\":64}", abi), "no \"dtype\"");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f8\",\"head_dim\":64}", abi),
            "unknown \"dtype\" 'f8' (expected bf16, f16 or f32)");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":6.5}", abi),
            "no positive integer \"head_dim\"");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":64,"
                              "\"arch\":\"gfx90a\"}",
                              abi),
            "\"arch\" 'gfx90a' is not of the form sm_XY");
  EXPECT_EQ(flashrt::parseAbi("not json", abi), "no \"dtype\"");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":64,"
                              "\"index_bits\":16}",
                              abi),
            "\"index_bits\" must be 32 or 64");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"f16\",\"head_dim\":", abi),
            "no positive integer \"head_dim\"");
}

TEST(AbiReader, ServingFields) {
  flashrt::Abi abi;
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":128,"
                              "\"kv_lens\":true,\"paged\":true,"
                              "\"split_kv\":true,\"q_shape\":[-1,32,1,128],"
                              "\"kv_shape\":[-1, 8, 16, 128]}",
                              abi),
            "");
  EXPECT_TRUE(abi.kvLens);
  EXPECT_TRUE(abi.paged);
  EXPECT_TRUE(abi.splitKv);
  EXPECT_EQ(abi.qShape, (std::vector<int64_t>{-1, 32, 1, 128}));
  EXPECT_EQ(abi.kvShape, (std::vector<int64_t>{-1, 8, 16, 128}));
  // Older records: none of it.
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":128}", abi),
            "");
  EXPECT_FALSE(abi.kvLens || abi.paged || abi.splitKv);
  EXPECT_TRUE(abi.qShape.empty() && abi.kvShape.empty());
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":128,"
                              "\"q_shape\":[-1,32,1]}",
                              abi),
            "\"q_shape\" must have 4 dims");
  EXPECT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":128,"
                              "\"kv_shape\":[-1,8,-2,128]}",
                              abi),
            "\"kv_shape\" has a dim that is not -1 or a size");
}

} // namespace

int main(int argc, char **argv) {
  // No driver, also on a machine that has one.
  setenv("FLASHRT_LIBCUDA", "/nonexistent/flashrt-test/libcuda.so.1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
