//===- BlockMaskTest.cpp - The block_mask hint in the runtime -------------===//
//
// The runtime's side of flash.attention's block_mask hint (the ABI record's
// "block_mask": {"arg": N, "rows": QB}, one of the "captures"): the reader
// (which capture the hint is, its rows, every malformed record refused),
// and, against the fake driver and the test artifact's fake_bm entry (a
// document mask that honours its hint as the GPU kernels do), the check of
// the hint's sizes against Q before anything runs (the kernels read it
// without bounds checks) and a run whose result shows the hint was used.
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

TEST(BlockMaskAbi, Fields) {
  flashrt::Abi abi;
  std::string json =
      "{\"dtype\":\"bf16\",\"head_dim\":64,\"lse\":true,"
      "\"block_mask\":{\"arg\":4,\"rows\":128},\"captures\":["
      "{\"dtype\":\"f32\",\"rank\":1,\"arg\":3},"
      "{\"dtype\":\"i32\",\"rank\":4,\"arg\":4,\"shape\":[1,-1,-1,4]},"
      "{\"dtype\":\"i32\",\"rank\":2,\"arg\":5}],\"num_args\":8}";
  ASSERT_EQ(flashrt::parseAbi(json, abi), "");
  EXPECT_EQ(abi.blockMaskCapture, 1);
  EXPECT_EQ(abi.blockMaskRows, 128);
  // A key named block_mask inside another value is not the record's.
  ASSERT_EQ(flashrt::parseAbi(
                "{\"dtype\":\"bf16\",\"head_dim\":64,\"func\":\"block_mask\","
                "\"captures\":[{\"dtype\":\"i32\",\"rank\":4,\"arg\":3,"
                "\"block_mask\":{\"arg\":3,\"rows\":2}}]}",
                abi),
            "");
  EXPECT_EQ(abi.blockMaskCapture, -1);
  EXPECT_EQ(abi.blockMaskRows, 0);
  // Reading a record again resets it.
  ASSERT_EQ(flashrt::parseAbi(json, abi), "");
  ASSERT_EQ(flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":64}", abi), "");
  EXPECT_EQ(abi.blockMaskCapture, -1);
}

TEST(BlockMaskAbi, Malformed) {
  auto parse = [](const std::string &blockMask,
                  const std::string &hint = "\"dtype\":\"i32\",\"rank\":4") {
    flashrt::Abi abi;
    return flashrt::parseAbi("{\"dtype\":\"bf16\",\"head_dim\":64,"
                             "\"lse\":true,\"block_mask\":" +
                                 blockMask + ",\"captures\":[{" + hint +
                                 ",\"arg\":3}]}",
                             abi);
  };
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":16}"), "");
  EXPECT_EQ(parse("[3,16]"), "\"block_mask\" is not an object");
  EXPECT_EQ(parse("true"), "\"block_mask\" is not an object");
  EXPECT_EQ(parse("{\"arg\":3}"),
            "\"block_mask\" has no integer \"rows\" >= 1");
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":0}"),
            "\"block_mask\" has no integer \"rows\" >= 1");
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":1.5}"),
            "\"block_mask\" has no integer \"rows\" >= 1");
  EXPECT_EQ(parse("{\"rows\":16}"), "\"block_mask\" has no integer \"arg\"");
  EXPECT_EQ(parse("{\"arg\":4,\"rows\":16}"),
            "\"block_mask\" names argument 4, which is none of the "
            "\"captures\" (the runtime passes the hint with them)");
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":16}", "\"dtype\":\"f32\",\"rank\":4"),
            "\"block_mask\" names capture 0, which is not i32 [B or 1, Hq "
            "or 1, R, 4]");
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":16}", "\"dtype\":\"i32\",\"rank\":2"),
            "\"block_mask\" names capture 0, which is not i32 [B or 1, Hq "
            "or 1, R, 4]");
  EXPECT_EQ(parse("{\"arg\":3,\"rows\":16}",
                  "\"dtype\":\"i32\",\"rank\":4,\"shape\":[-1,-1,-1,3]"),
            "\"block_mask\" names capture 0, which is not i32 [B or 1, Hq "
            "or 1, R, 4]");
  // flashrt_open refuses what the reader refuses; the artifact's is fine.
  flashrt_kernel *k = nullptr;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT_NOLOAD, "fake_bm", &k), FLASHRT_OK)
      << lastError();
  EXPECT_NE(std::string(flashrt_abi(k)).find("\"block_mask\":{\"arg\":3"),
            std::string::npos);
  flashrt_close(k);
}

/// fake_bm with the document ids in caps[1] and in caps[0] the hint that
/// matches them (keys [0, 40) visible and full in every row); O poisoned
/// with NaNs.
class BlockMask : public DocumentEntryTest {
protected:
  BlockMask() : DocumentEntryTest("fake_bm") {}

  void SetUp() override {
    DocumentEntryTest::SetUp();
    if (HasFatalFailure())
      return;
    caps[1] = docIds;
    setHint({p.b, 1, 3}, {0, 40, 0, 40});
    poison();
  }
  /// The hint [b, h, r, 4] with `row` in every row.
  void setHint(std::vector<int64_t> bhr, std::vector<int32_t> row) {
    std::vector<int32_t> host;
    for (int64_t n = 0; n < bhr[0] * bhr[1] * bhr[2]; ++n)
      host.insert(host.end(), row.begin(), row.end());
    bhr.push_back(4);
    caps[0] = rowMajor(copy(host), FLASHRT_DTYPE_I32, bhr);
  }
  void poison() {
    std::vector<uint16_t> bits(p.oBytes() / 2, 0x7fc1);
    ASSERT_EQ(flashrt_memcpy_htod(o.data, bits.data(), p.oBytes()),
              FLASHRT_OK);
  }
  std::vector<uint16_t> out() {
    std::vector<uint16_t> bits(p.oBytes() / 2);
    EXPECT_EQ(flashrt_memcpy_dtoh(bits.data(), o.data, p.oBytes()),
              FLASHRT_OK);
    return bits;
  }
  /// INVALID_ARGUMENT with `text` in the message, no call, O untouched.
  void expectInvalid(const std::string &text) {
    EXPECT_EQ(run(), FLASHRT_ERR_INVALID_ARGUMENT);
    EXPECT_NE(lastError().find(text), std::string::npos) << lastError();
    EXPECT_EQ(*calls, 0);
    for (uint16_t x : out())
      ASSERT_EQ(x, 0x7fc1);
  }
};

TEST_F(BlockMask, RunPassesTheHint) {
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 1);
  const auto &hint = *symbolIn<MemRef<4>>(FAKE_ARTIFACT, "fake_last_hint");
  EXPECT_EQ(hint.aligned, caps[0].data);
  EXPECT_EQ(hint.sizes[0], p.b);
  EXPECT_EQ(hint.sizes[1], 1);
  EXPECT_EQ(hint.sizes[2], 3);
  EXPECT_EQ(hint.strides[2], 4);
  EXPECT_EQ(symbolIn<MemRef<2>>(FAKE_ARTIFACT, "fake_last_doc")->aligned,
            caps[1].data);
  for (uint16_t x : out())
    ASSERT_EQ(x, 0x3f80);
}

TEST_F(BlockMask, TheKernelUsesIt) {
  // A hint that claims every key full: the mask is skipped, V averages
  // 1.0 (40 keys) and 2.0 (30 keys) to 1.43 (bf16 0x3fb7).
  setHint({1, 1, 3}, {0, 70, 0, 70});
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  for (uint16_t x : out())
    ASSERT_EQ(x, 0x3fb7);
}

TEST_F(BlockMask, BroadcastAndSpareRows) {
  setHint({1, 1, 3}, {0, 40, 0, 40});
  EXPECT_EQ(run(), FLASHRT_OK) << lastError();
  setHint({p.b, p.hq, 5}, {0, 40, 0, 0}); // R > ceil(33 / 16): fine
  EXPECT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 2);
}

TEST_F(BlockMask, SizesAgainstQ) {
  setHint({p.b, 1, 2}, {0, 40, 0, 40});
  expectInvalid("the block_mask hint (capture 0) must be [B=2 or 1, Hq=4 or "
                "1, R >= ceil(Sq=33 / 16) = 3, 4] for fake_bm, got "
                "[2,1,2,4]");
  setHint({3, 1, 3}, {0, 40, 0, 40});
  expectInvalid("got [3,1,3,4]");
  setHint({p.b, 2, 3}, {0, 40, 0, 40});
  expectInvalid("got [2,2,3,4]");
  // The capture checks come first: another rank or dtype.
  setHint({p.b, 1, 3}, {0, 40, 0, 40});
  caps[0].dtype = FLASHRT_DTYPE_F32;
  expectInvalid("capture 0 is f32 but fake_bm takes i32");
}

} // namespace
