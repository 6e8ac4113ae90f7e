//===- CaptureTest.cpp - Capture tensors of score_mod / mask_mod entries --===//
//
// The runtime's side of captures (the read-only tensors a score_mod or
// mask_mod reads, listed in the ABI record's "captures"), against the fake
// driver and the test artifact's fake_cap entry (document ids i32 [B, S]
// and a per-head f32 [4] table after V): the ABI reader's "captures" and
// "num_args", every check of flashrt_attention_captures (count, rank,
// dtype, static dims, layout, alignment, empty, 2 GiB, device memory), the
// refusal of the other entry points in both directions, and a run whose
// descriptors arrive at the entry's capture arguments and whose result shows
// the document mask.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "RuntimeFixture.h"

#include "flashrt/Abi.h"

#include "gtest/gtest.h"

#include <string>
#include <vector>

using namespace flashrt_test;

namespace {

class Captures : public DocumentEntryTest {
protected:
  Captures() : DocumentEntryTest("fake_cap") {}

  void SetUp() override {
    DocumentEntryTest::SetUp();
    if (HasFatalFailure())
      return;
    caps[0] = docIds;
    // The bias table: 4 of 8 allocated floats (room for a strided view).
    caps[1] = tensor(copy(std::vector<float>(8, 0.5f)), FLASHRT_DTYPE_F32,
                     {4});
  }

  static flashrt_tensor tensor(void *data, int32_t dtype,
                               std::vector<int64_t> sizes) {
    return rowMajor(data, dtype, sizes);
  }

  /// INVALID_ARGUMENT with `text` in the message, and no call.
  void expectInvalid(int rc, const std::string &text) {
    EXPECT_EQ(rc, FLASHRT_ERR_INVALID_ARGUMENT) << lastError();
    EXPECT_NE(lastError().find(text), std::string::npos) << lastError();
    EXPECT_EQ(*calls, 0);
  }
};

TEST_F(Captures, RunPassesThemInArgumentOrder) {
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 1);
  const auto &doc = *symbolIn<MemRef<2>>(FAKE_ARTIFACT, "fake_last_doc");
  EXPECT_EQ(doc.aligned, caps[0].data);
  EXPECT_EQ(doc.offset, 0);
  EXPECT_EQ(doc.sizes[0], p.b);
  EXPECT_EQ(doc.sizes[1], p.sk);
  EXPECT_EQ(doc.strides[0], p.sk);
  EXPECT_EQ(doc.strides[1], 1);
  const auto &bias = *symbolIn<MemRef<1>>(FAKE_ARTIFACT, "fake_last_bias");
  EXPECT_EQ(bias.aligned, caps[1].data);
  EXPECT_EQ(bias.sizes[0], 4);
  EXPECT_EQ(symbolIn<MemRef<4>>(FAKE_ARTIFACT, "fake_last_o")->aligned,
            o.data);
  // Every query (i < 33) is in document 0: it sees only V = 1.0.
  std::vector<uint16_t> out(p.oBytes() / 2);
  ASSERT_EQ(flashrt_memcpy_dtoh(out.data(), o.data, p.oBytes()), FLASHRT_OK);
  for (size_t i = 0; i < out.size(); ++i)
    ASSERT_EQ(out[i], 0x3f80) << i;
  float ms = -1;
  ASSERT_EQ(flashrt_time_captures_ms(kernel, &q, &k, &v, nullptr, nullptr,
                                     caps, 2, &o, &lse, nullptr, 1, 3, &ms),
            FLASHRT_OK)
      << lastError();
  EXPECT_EQ(*calls, 5);
}

TEST_F(Captures, OtherEntryPointsRefuseThem) {
  expectInvalid(flashrt_attention(kernel, &q, &k, &v, &o, &lse, nullptr),
                "fake_cap takes 2 capture tensor(s) (the score_mod / "
                "mask_mod operands): call flashrt_attention_captures, not "
                "flashrt_attention");
  expectInvalid(flashrt_attention_kv(kernel, &q, &k, &v, nullptr, nullptr, &o,
                                     &lse, nullptr),
                "call flashrt_attention_captures, not flashrt_attention_kv");
  float ms = -1;
  expectInvalid(
      flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 1, 1, &ms),
      "call flashrt_time_captures_ms, not flashrt_time_ms");
  expectInvalid(flashrt_time_kv_ms(kernel, &q, &k, &v, nullptr, nullptr, &o,
                                   &lse, nullptr, 1, 1, &ms),
                "call flashrt_time_captures_ms, not flashrt_time_kv_ms");
  EXPECT_EQ(ms, 0.0f);
}

TEST_F(Captures, EntriesWithoutCapturesRefuseThem) {
  flashrt_kernel *plain = nullptr;
  ASSERT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &plain), FLASHRT_OK);
  expectInvalid(flashrt_attention_captures(plain, &q, &k, &v, nullptr,
                                           nullptr, caps, 1, &o, &lse,
                                           nullptr),
                "fake takes 0 capture tensor(s), not 1: pass NULL and 0");
  // NULL and 0 run it like flashrt_attention.
  EXPECT_EQ(flashrt_attention_captures(plain, &q, &k, &v, nullptr, nullptr,
                                       nullptr, 0, &o, &lse, nullptr),
            FLASHRT_OK)
      << lastError();
  flashrt_close(plain);
}

TEST_F(Captures, Count) {
  expectInvalid(run(1), "fake_cap takes 2 capture tensor(s), not 1 (the "
                        "score_mod / mask_mod operands, in the order of the "
                        "ABI's \"captures\")");
  expectInvalid(run(3), "not 3");
  expectInvalid(run(-1), "num_captures (-1) is negative");
  expectInvalid(flashrt_attention_captures(kernel, &q, &k, &v, nullptr,
                                           nullptr, nullptr, 2, &o, &lse,
                                           nullptr),
                "captures is NULL");
}

TEST_F(Captures, RankDtypeAndStaticDims) {
  std::swap(caps[0], caps[1]); // the order matters
  expectInvalid(run(), "capture 0 has rank 1 but fake_cap takes rank 2");
  std::swap(caps[0], caps[1]);
  caps[0].dtype = FLASHRT_DTYPE_F32;
  expectInvalid(run(), "capture 0 is f32 but fake_cap takes i32");
  caps[0].dtype = FLASHRT_DTYPE_UNCHECKED;
  caps[1].sizes[0] = 8;
  expectInvalid(run(), "capture 1 has 8 in dim 0 but fake_cap is compiled "
                       "for 4 (shape [4]; -1 = any)");
  caps[1].sizes[0] = -4;
  expectInvalid(run(), "capture 1 has a negative size or stride (dim 0)");
}

TEST_F(Captures, Layout) {
  // The ids are taken contiguous (identity layout): a transposed or padded
  // view would be read as if it were row-major.
  caps[0].strides[0] = p.sk + 2;
  expectInvalid(run(), "capture 0 has stride 72 in dim 0 but fake_cap takes "
                       "a contiguous (row-major) tensor");
  caps[0].strides[0] = p.sk;
  caps[0].strides[1] = 2;
  expectInvalid(run(), "stride 2 in dim 1");
  caps[0].strides[1] = 1;
  caps[1].strides[0] = 2; // strided layout with a dynamic stride: any
  EXPECT_EQ(run(), FLASHRT_OK) << lastError();
}

TEST_F(Captures, PointersAndSizes) {
  caps[1].data = static_cast<char *>(caps[1].data) + 2;
  expectInvalid(run(), "capture 1 data 0x");
  EXPECT_NE(lastError().find("is not 4-byte aligned"), std::string::npos);
  caps[1].data = nullptr;
  expectInvalid(run(), "capture 1 has no data (NULL)");
  caps[0].sizes[1] = 0;
  expectInvalid(run(), "capture 0 is empty");
  caps[0].sizes[1] = p.sk;
  caps[0].sizes[0] = int64_t(1) << 62;
  caps[0].strides[0] = p.sk;
  expectInvalid(run(), "capture 0 sizes overflow 64 bits");
  caps[0].sizes[0] = int64_t(1) << 24;
  expectInvalid(run(), "capture 0's view spans");
  EXPECT_NE(lastError().find("indexes with 32 bits"), std::string::npos);
  caps[0].sizes[0] = p.b;
  caps[1] = tensor(nullptr, FLASHRT_DTYPE_F32, {4});
  std::vector<float> host(4);
  caps[1].data = host.data();
  expectInvalid(run(), "capture 1 (0x");
  EXPECT_NE(lastError().find("is not CUDA memory"), std::string::npos);
}

TEST_F(Captures, EmptyProblemSkipsTheirChecks) {
  caps[0].sizes[0] = 0;
  p.b = 0;
  q = p.q(q.data);
  k = p.k(k.data);
  v = p.v(v.data);
  o = p.o(o.data);
  lse = p.lse(lse.data);
  EXPECT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 0);
}

TEST(CaptureAbi, Fields) {
  flashrt::Abi abi;
  std::string json =
      "{\"dtype\":\"bf16\",\"head_dim\":64,\"lse\":true,\"kv_lens\":true,"
      "\"captures\":[{\"dtype\":\"i32\",\"rank\":2,\"arg\":4,"
      "\"shape\":[-1,128],\"strides\":[-1,1],\"contiguous\":true},"
      "{\"rank\":0,\"dtype\":\"f16\"}],\"num_args\":8}";
  ASSERT_EQ(flashrt::parseAbi(json, abi), "");
  ASSERT_EQ(abi.captures.size(), 2u);
  EXPECT_EQ(abi.captures[0].dtype, FLASHRT_DTYPE_I32);
  EXPECT_EQ(abi.captures[0].rank, 2);
  EXPECT_EQ(abi.captures[0].arg, 4);
  EXPECT_EQ(abi.captures[0].shape, (std::vector<int64_t>{-1, 128}));
  EXPECT_TRUE(abi.captures[0].contiguous);
  // Without "arg": the next position.
  EXPECT_EQ(abi.captures[1].arg, 5);
  EXPECT_EQ(abi.captures[1].rank, 0);
  EXPECT_TRUE(abi.captures[1].shape.empty());
  EXPECT_EQ(abi.entryArity(), 8);
  // Today's records: none.
  ASSERT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":64,"
                              "\"captures\":[]}",
                              abi),
            "");
  EXPECT_TRUE(abi.captures.empty());
  EXPECT_EQ(abi.numArgs, -1);
}

TEST(CaptureAbi, Malformed) {
  auto parse = [](const std::string &captures, const char *extra = "") {
    flashrt::Abi abi;
    return flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":64,"
                             "\"lse\":true,\"captures\":" +
                                 captures + extra + "}",
                             abi);
  };
  EXPECT_EQ(parse("\"x\""), "\"captures\" is not an array");
  EXPECT_EQ(parse("[{\"dtype\":\"i64\",\"rank\":1}]"),
            "capture 0 has no \"dtype\" of f32, i32, bf16 or f16");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":5}]"),
            "capture 0 has no \"rank\" from 0 to 4 (flashrt_tensor's)");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":1,\"arg\":2}]"),
            "capture 0 has \"arg\" 2, not after Q, K, V, the serving "
            "operands and the captures before it");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":1,\"arg\":3},"
                  "{\"dtype\":\"i32\",\"rank\":1,\"arg\":3}]"),
            "capture 1 has \"arg\" 3, not after Q, K, V, the serving "
            "operands and the captures before it");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":1,\"arg\":5}]"),
            "capture 0 is argument 5 of an entry with 6 operands: O must "
            "follow it");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":2,\"shape\":[1]}]"),
            "capture 0 has 1 \"shape\" for rank 2");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":1,\"strides\":[-3]}]"),
            "capture 0 has a \"strides\" entry that is not -1 or a size");
  EXPECT_EQ(parse("[{\"dtype\":\"i32\",\"rank\":1}]", ",\"num_args\":5"),
            "\"num_args\" is 5 but Q, K, V, O, LSE and 1 captures make 6");
  std::string nine = "[";
  for (int i = 0; i < 9; ++i)
    nine += std::string(i ? "," : "") + "{\"dtype\":\"i32\",\"rank\":1}";
  EXPECT_EQ(parse(nine + "]"), "\"captures\" has 9 tensors; the runtime "
                               "passes at most 8");
}

TEST(CaptureAbi, OpenRefusesAMalformedRecord) {
  // The artifact's records are well formed; the reader's failures reach
  // flashrt_open as a load error (see Malformed for the messages).
  flashrt_kernel *k = nullptr;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake_cap", &k), FLASHRT_OK)
      << lastError();
  EXPECT_NE(std::string(flashrt_abi(k)).find("\"captures\":[{"),
            std::string::npos);
  flashrt_close(k);
}

} // namespace
