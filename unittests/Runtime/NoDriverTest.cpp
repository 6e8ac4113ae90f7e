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

#include "../../runtime/lib/Abi.h"

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

std::string lastError() { return flashrt_last_error(); }

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

} // namespace

int main(int argc, char **argv) {
  // No driver, also on a machine that has one.
  setenv("FLASHRT_LIBCUDA", "/nonexistent/flashrt-test/libcuda.so.1", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
