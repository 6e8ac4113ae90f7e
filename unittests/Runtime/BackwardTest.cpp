//===- BackwardTest.cpp - Backward entries through the runtime ------------===//
//
// The runtime's side of flash.attention_backward entries (ABI "kind":
// "backward", their operands' roles in "args"), against the fake driver and
// the test artifact's fake_bwd* entries, whose host "kernels" compute the
// gradients from the O and LSE they are given in a workspace they allocate
// and zero: the reader's "kind" and "args" (and its refusals), the kinds
// kept apart in both directions with messages naming the right function,
// descriptors passed in the order of "args", the timed variant, every
// argument check of flashrt_attention_backward, and empty problems, whose
// non-empty gradients are zeroed without a launch. flash-run-gpu's backward
// cases (test/Integration/Runtime) check the gradients' values.
//
//===----------------------------------------------------------------------===//

#include "FakeCuda.h"
#include "RuntimeTestUtil.h"

#include "flashrt/Abi.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

using namespace flashrt_test;
using flashrt::ArgRole;

namespace {

FakeCudaState &fake() {
  static FakeCudaState *s = [] {
    void *h = dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    return reinterpret_cast<FakeCudaState *(*)()>(dlsym(h, "fakecuda_state"))();
  }();
  return *s;
}

/// fake_bwd (causal bf16, D = Dv = 64) on B=2, Hq=4, Hkv=2, Sq=33, Sk=70:
/// Q, K, V and dO small varied values, O and LSE from the artifact's
/// forward entry `fake` (the same semantics), dQ, dK and dV NaN.
class Backward : public ::testing::Test {
protected:
  void SetUp() override {
    void *h = dlopen(FAKE_CUDA, RTLD_NOW | RTLD_LOCAL);
    reinterpret_cast<void (*)()>(dlsym(h, "fakecuda_reset"))();
    flashrt_set_async(0);
    open("fake_bwd");
    calls = symbolIn<int>(FAKE_ARTIFACT, "fake_calls");
    setUp();
  }
  void TearDown() override {
    flashrt_close(kernel);
    for (void *b : buffers)
      flashrt_free(b);
    flashrt_set_pointer_checks(1);
  }

  void open(const char *func) {
    flashrt_close(kernel);
    kernel = nullptr;
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT, func, &kernel), FLASHRT_OK)
        << lastError();
  }
  void *alloc(size_t bytes) {
    void *ptr = nullptr;
    EXPECT_EQ(flashrt_malloc(&ptr, bytes), FLASHRT_OK) << lastError();
    buffers.push_back(ptr);
    return ptr;
  }
  /// Fills a bf16 buffer with values in [-0.5, 0.5], varied by `seed`.
  void fill(const flashrt_tensor &t, size_t bytes, int seed) {
    std::vector<uint16_t> host(bytes / 2);
    for (size_t i = 0; i < host.size(); ++i) {
      float x = float(int((i * 37 + seed * 11) % 17) - 8) / 16.0f;
      uint32_t bits;
      std::memcpy(&bits, &x, 4);
      host[i] = uint16_t(bits >> 16);
    }
    ASSERT_EQ(flashrt_memcpy_htod(t.data, host.data(), bytes), FLASHRT_OK);
  }
  /// Allocates every tensor of `p` and computes O and LSE with `fake`.
  void setUp() {
    q = p.q(alloc(p.qBytes()));
    k = p.k(alloc(p.kBytes()));
    v = p.v(alloc(p.vBytes()));
    o = p.o(alloc(p.oBytes()));
    lse = p.lse(alloc(p.lseBytes()));
    dout = p.o(alloc(p.oBytes()));
    dq = p.q(alloc(p.qBytes()));
    dk = p.k(alloc(p.kBytes()));
    dv = p.v(alloc(p.vBytes()));
    fill(q, p.qBytes(), 1);
    fill(k, p.kBytes(), 2);
    fill(v, p.vBytes(), 3);
    fill(dout, p.oBytes(), 4);
    flashrt_kernel *forward = nullptr;
    ASSERT_EQ(flashrt_open(FAKE_ARTIFACT, "fake", &forward), FLASHRT_OK);
    ASSERT_EQ(flashrt_attention(forward, &q, &k, &v, &o, &lse, nullptr),
              FLASHRT_OK)
        << lastError();
    flashrt_close(forward);
    poison();
    *calls = 0;
    fake().launches = 0;
  }
  void poison() {
    for (auto [t, bytes] :
         {std::pair{&dq, p.qBytes()}, {&dk, p.kBytes()}, {&dv, p.vBytes()}})
      ASSERT_EQ(flashrt_memset(t->data, 0xff, bytes), FLASHRT_OK);
  }
  /// The 16-bit words of a device buffer.
  std::vector<uint16_t> words(const void *data, size_t bytes) {
    std::vector<uint16_t> host(bytes / 2);
    EXPECT_EQ(flashrt_memcpy_dtoh(host.data(), data, bytes), FLASHRT_OK);
    return host;
  }
  static size_t count(const std::vector<uint16_t> &w, uint16_t value) {
    return size_t(std::count(w.begin(), w.end(), value));
  }
  /// bf16 NaNs (the 0xffff poison and any NaN the kernel wrote).
  static size_t nans(const std::vector<uint16_t> &w) {
    return size_t(std::count_if(w.begin(), w.end(), [](uint16_t x) {
      return (x & 0x7f80) == 0x7f80 && (x & 0x7f) != 0;
    }));
  }

  int run(const flashrt_tensor *caps = nullptr, int numCaps = 0) {
    return flashrt_attention_backward(kernel, &q, &k, &v, &o, &lse, &dout, caps,
                                      numCaps, &dq, &dk, &dv, nullptr);
  }

  /// INVALID_ARGUMENT with `text` in the message, and no call.
  void expectInvalid(int rc, const std::string &text) {
    EXPECT_EQ(rc, FLASHRT_ERR_INVALID_ARGUMENT) << lastError();
    EXPECT_NE(lastError().find(text), std::string::npos)
        << "got: " << lastError() << "\nwant: " << text;
    EXPECT_EQ(*calls, 0);
  }

  flashrt_kernel *kernel = nullptr;
  int *calls = nullptr;
  std::vector<void *> buffers;
  Problem p;
  flashrt_tensor q, k, v, o, lse, dout, dq, dk, dv;
};

TEST_F(Backward, RunPassesTheGradientsInArgsOrder) {
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 1);
  // The delta, KV and dQ kernels.
  EXPECT_EQ(fake().launches, 3);
  EXPECT_STREQ(fake().kernel, "fake_bwd_dq");
  auto last = [](const char *name) {
    return symbolIn<MemRef<4>>(FAKE_ARTIFACT, name)->aligned;
  };
  EXPECT_EQ(last("fake_last_q"), q.data);
  EXPECT_EQ(last("fake_last_o"), o.data);
  EXPECT_EQ(last("fake_last_dq"), dq.data);
  EXPECT_EQ(last("fake_last_dk"), dk.data);
  EXPECT_EQ(last("fake_last_dv"), dv.data);
  // Every gradient written (the poison is NaN), and not all zero.
  for (auto [t, bytes] :
       {std::pair{&dq, p.qBytes()}, {&dk, p.kBytes()}, {&dv, p.vBytes()}}) {
    std::vector<uint16_t> w = words(t->data, bytes);
    EXPECT_EQ(nans(w), 0u);
    EXPECT_LT(count(w, 0) + count(w, 0x8000), w.size());
  }

  // An entry whose "args" has another order gets each descriptor where its
  // record says, and computes the same.
  std::vector<uint16_t> want = words(dk.data, p.kBytes());
  open("fake_bwd_perm");
  poison();
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(last("fake_last_dq"), dq.data);
  EXPECT_EQ(last("fake_last_dk"), dk.data);
  EXPECT_EQ(last("fake_last_dv"), dv.data);
  EXPECT_EQ(words(dk.data, p.kBytes()), want);
}

TEST_F(Backward, WorkspaceIsZeroedOnTheCallersStream) {
  // The dQ workspace comes from mgpuMemAlloc holding the fake's NaN bytes:
  // only the entry's mgpuMemset32 makes dQ finite. A second call reuses
  // the cached block, holding the first call's sums.
  for (int i = 0; i < 2; ++i) {
    poison();
    ASSERT_EQ(run(), FLASHRT_OK) << lastError();
    EXPECT_EQ(nans(words(dq.data, p.qBytes())), 0u);
  }
  std::vector<uint16_t> first = words(dq.data, p.qBytes());
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(words(dq.data, p.qBytes()), first);
  EXPECT_NE(*symbolIn<void *>(FAKE_ARTIFACT, "fake_last_workspace"), nullptr);
}

TEST_F(Backward, Timing) {
  float ms = -1;
  ASSERT_EQ(flashrt_time_backward_ms(kernel, &q, &k, &v, &o, &lse, &dout,
                                     nullptr, 0, &dq, &dk, &dv, nullptr, 1, 4,
                                     &ms),
            FLASHRT_OK)
      << lastError();
  EXPECT_EQ(*calls, 5);
  EXPECT_FLOAT_EQ(ms, 0.75f); // Three launches of 0.25 ms on the fake clock.
  EXPECT_EQ(flashrt_time_backward_ms(kernel, &q, &k, &v, &o, &lse, &dout,
                                     nullptr, 0, &dq, &dk, &dv, nullptr, 1, 0,
                                     &ms),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("flashrt_time_backward_ms: need warmup >= 0 and "
                             "reps >= 1"),
            std::string::npos)
      << lastError();
  EXPECT_EQ(flashrt_time_backward_ms(kernel, &q, &k, &v, &o, &lse, &dout,
                                     nullptr, 0, &dq, &dk, &dv, nullptr, 1, 1,
                                     nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
}

TEST_F(Backward, ForwardFunctionsRefuseIt) {
  float ms = -1;
  const std::string run = "fake_bwd is a backward entry (ABI \"kind\": "
                          "\"backward\", flash.attention_backward): call "
                          "flashrt_attention_backward, not ";
  const std::string time = "fake_bwd is a backward entry (ABI \"kind\": "
                           "\"backward\", flash.attention_backward): call "
                           "flashrt_time_backward_ms, not ";
  expectInvalid(flashrt_attention(kernel, &q, &k, &v, &o, &lse, nullptr),
                run + "flashrt_attention");
  expectInvalid(flashrt_attention_kv(kernel, &q, &k, &v, nullptr, nullptr, &o,
                                     &lse, nullptr),
                run + "flashrt_attention_kv");
  expectInvalid(flashrt_attention_captures(kernel, &q, &k, &v, nullptr, nullptr,
                                           nullptr, 0, &o, &lse, nullptr),
                run + "flashrt_attention_captures");
  expectInvalid(
      flashrt_time_ms(kernel, &q, &k, &v, &o, &lse, nullptr, 0, 1, &ms),
      time + "flashrt_time_ms");
  expectInvalid(flashrt_time_kv_ms(kernel, &q, &k, &v, nullptr, nullptr, &o,
                                   &lse, nullptr, 0, 1, &ms),
                time + "flashrt_time_kv_ms");
  expectInvalid(flashrt_time_captures_ms(kernel, &q, &k, &v, nullptr, nullptr,
                                         nullptr, 0, &o, &lse, nullptr, 0, 1,
                                         &ms),
                time + "flashrt_time_captures_ms");
  EXPECT_EQ(fake().launches, 0);
}

TEST_F(Backward, ForwardEntriesAreRefused) {
  struct {
    const char *func, *run, *time;
  } entries[] = {
      {"fake", "flashrt_attention", "flashrt_time_ms"},
      {"fake_kv", "flashrt_attention_kv", "flashrt_time_kv_ms"},
      {"fake_cap", "flashrt_attention_captures", "flashrt_time_captures_ms"}};
  for (const auto &e : entries) {
    open(e.func);
    std::string is = std::string(e.func) + " is a forward entry "
                                           "(flash.attention): call ";
    expectInvalid(run(), is + e.run + ", not flashrt_attention_backward");
    float ms = -1;
    expectInvalid(flashrt_time_backward_ms(kernel, &q, &k, &v, &o, &lse, &dout,
                                           nullptr, 0, &dq, &dk, &dv, nullptr,
                                           0, 1, &ms),
                  is + e.time + ", not flashrt_time_backward_ms");
    EXPECT_EQ(ms, 0.0f);
  }
  EXPECT_EQ(flashrt_attention_backward(nullptr, &q, &k, &v, &o, &lse, &dout,
                                       nullptr, 0, &dq, &dk, &dv, nullptr),
            FLASHRT_ERR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("the kernel is NULL"), std::string::npos);
}

TEST_F(Backward, ArgumentChecks) {
  flashrt_tensor saved[] = {q, k, v, o, lse, dout, dq, dk, dv};
  auto restore = [&] {
    flashrt_tensor *all[] = {&q, &k, &v, &o, &lse, &dout, &dq, &dk, &dv};
    for (int i = 0; i < 9; ++i)
      *all[i] = saved[i];
  };
  struct Misuse {
    const char *message;
    std::function<void()> apply;
  };
  std::vector<uint16_t> host(p.qBytes() / 2); // Not device memory.
  std::vector<Misuse> misuses = {
      {"dQ is NULL", [&] {}},
      {"LSE has rank 4, expected 3", [&] { lse.rank = 4; }},
      {"LSE is bf16 but fake_bwd takes f32",
       [&] { lse.dtype = FLASHRT_DTYPE_BF16; }},
      {"dO is f16 but fake_bwd takes bf16",
       [&] { dout.dtype = FLASHRT_DTYPE_F16; }},
      {"dO has 34 in dim 2, expected 33 = query length (Q's)",
       [&] { dout.sizes[2] = 34; }},
      {"dQ has 32 in dim 3, expected 64 = head dim (the artifact's D)",
       [&] { dq.sizes[3] = 32; }},
      {"dK has 3 in dim 1, expected 2 = KV heads (K's)",
       [&] { dk.sizes[1] = 3; }},
      {"dV has 71 in dim 2, expected 70 = KV length (K's)",
       [&] { dv.sizes[2] = 71; }},
      {"O has 1 in dim 0, expected 2 = batch (Q's)", [&] { o.sizes[0] = 1; }},
      {"LSE has 5 in dim 1, expected 4 = heads (Q's)",
       [&] { lse.sizes[1] = 5; }},
      {"Q heads (4) must be a multiple of K/V heads (3)",
       [&] {
         for (flashrt_tensor *t : {&k, &v, &dk, &dv})
           t->sizes[1] = 3;
       }},
      {"dV must have innermost stride 1, not 2", [&] { dv.strides[3] = 2; }},
      {"LSE must have innermost stride 1, not 2", [&] { lse.strides[2] = 2; }},
      {"dK data", [&] { dk.data = static_cast<char *>(dk.data) + 2; }},
      {"dQ stride of dim 2 is 65 elements, not a multiple of 8",
       [&] { dq.strides[2] = 65; }},
      {"dO sizes and strides overflow 64 bits",
       [&] { dout.strides[0] = INT64_MAX / 2; }},
      {"is not CUDA memory: a host pointer?", [&] { dq.data = host.data(); }},
      {"dQ and Q start at the same address", [&] { dq.data = q.data; }},
      {"dK and dV start at the same address", [&] { dv.data = dk.data; }},
  };
  for (size_t i = 0; i < misuses.size(); ++i) {
    restore();
    misuses[i].apply();
    int rc = i == 0 ? flashrt_attention_backward(kernel, &q, &k, &v, &o, &lse,
                                                 &dout, nullptr, 0, nullptr,
                                                 &dk, &dv, nullptr)
                    : run();
    SCOPED_TRACE(misuses[i].message);
    expectInvalid(rc, misuses[i].message);
  }
  restore();
  flashrt_tensor cap = rowMajor(alloc(64), FLASHRT_DTYPE_F32, {4});
  expectInvalid(run(&cap, 1), "fake_bwd takes 0 capture tensor(s), not 1: "
                              "pass NULL and 0");
  EXPECT_EQ(fake().launches, 0);
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
}

TEST_F(Backward, Bshd) {
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  std::vector<uint16_t> want = words(dq.data, p.qBytes());
  // The same values stored BSHD: the kernel reads them through the strides.
  p.bshd = true;
  flashrt_tensor *all[] = {&q, &k, &v, &o, &dout, &dq, &dk, &dv};
  std::vector<std::vector<uint16_t>> bhsd;
  for (flashrt_tensor *t : all) {
    size_t n = size_t(t->sizes[0] * t->sizes[1] * t->sizes[2] * t->sizes[3]);
    bhsd.push_back(words(t->data, n * 2));
  }
  for (size_t i = 0; i < 8; ++i) {
    flashrt_tensor &t = *all[i];
    const int64_t *s = t.sizes;
    flashrt_tensor bt = p.view(alloc(bhsd[i].size() * 2), s[1], s[2], s[3]);
    std::vector<uint16_t> host(bhsd[i].size());
    for (int64_t b = 0; b < s[0]; ++b)
      for (int64_t h = 0; h < s[1]; ++h)
        for (int64_t r = 0; r < s[2]; ++r)
          for (int64_t c = 0; c < s[3]; ++c)
            host[b * bt.strides[0] + h * bt.strides[1] + r * bt.strides[2] +
                 c] = bhsd[i][((b * s[1] + h) * s[2] + r) * s[3] + c];
    ASSERT_EQ(flashrt_memcpy_htod(bt.data, host.data(), host.size() * 2),
              FLASHRT_OK);
    t = bt;
  }
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  std::vector<uint16_t> got = words(dq.data, p.qBytes());
  for (int64_t b = 0; b < p.b; ++b)
    for (int64_t h = 0; h < p.hq; ++h)
      for (int64_t r = 0; r < p.sq; ++r)
        for (int64_t c = 0; c < p.d; ++c)
          ASSERT_EQ(got[b * dq.strides[0] + h * dq.strides[1] +
                        r * dq.strides[2] + c],
                    want[((b * p.hq + h) * p.sq + r) * p.d + c]);
}

TEST_F(Backward, EmptyProblemsZeroTheOtherSide) {
  // No query: dK and dV are 0, nothing is launched.
  for (flashrt_tensor *t : {&q, &o, &lse, &dout, &dq})
    t->sizes[2] = 0;
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 0);
  EXPECT_EQ(fake().launches, 0);
  EXPECT_EQ(count(words(dk.data, p.kBytes()), 0), p.kBytes() / 2);
  EXPECT_EQ(count(words(dv.data, p.vBytes()), 0), p.vBytes() / 2);

  // No key: dQ is 0, here a view of every other row of its buffer (not
  // dense: zeroed row by row).
  SetUp();
  for (flashrt_tensor *t : {&k, &v, &dk, &dv})
    t->sizes[2] = 0;
  for (flashrt_tensor *t : {&q, &o, &lse, &dout, &dq})
    t->sizes[2] = p.sq / 2;
  dq.strides[2] = 2 * p.d;
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 0);
  std::vector<uint16_t> w = words(dq.data, p.qBytes());
  for (int64_t b = 0; b < p.b; ++b)
    for (int64_t h = 0; h < p.hq; ++h)
      for (int64_t r = 0; r < p.sq; ++r)
        for (int64_t c = 0; c < p.d; ++c) {
          size_t at = size_t(((b * p.hq + h) * p.sq + r) * p.d + c);
          bool inView = r % 2 == 0 && r / 2 < p.sq / 2;
          ASSERT_EQ(w[at], inView ? 0 : 0xffff) << b << " " << h << " " << r;
        }

  // No batch: nothing at all, not even the driver's pointer queries.
  for (flashrt_tensor *t : {&q, &k, &v, &o, &lse, &dout, &dq, &dk, &dv})
    t->sizes[0] = 0;
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 0);
}

TEST_F(Backward, AlibiCapture) {
  open("fake_bwd_alibi");
  flashrt_tensor slopes =
      rowMajor(alloc(size_t(p.b * p.hq) * 4), FLASHRT_DTYPE_F32, {p.b, p.hq});
  std::vector<float> host(size_t(p.b * p.hq), 0.25f);
  ASSERT_EQ(flashrt_memcpy_htod(slopes.data, host.data(), host.size() * 4),
            FLASHRT_OK);
  expectInvalid(run(), "fake_bwd_alibi takes 1 capture tensor(s), not 0");
  ASSERT_EQ(run(&slopes, 1), FLASHRT_OK) << lastError();
  EXPECT_EQ(*calls, 1);
  // The slopes change the gradients.
  std::vector<uint16_t> with = words(dk.data, p.kBytes());
  open("fake_bwd");
  ASSERT_EQ(run(), FLASHRT_OK) << lastError();
  EXPECT_NE(words(dk.data, p.kBytes()), with);
  // Its static heads (q_shape [-1, 4, -1, 64]) cover the gradients too.
  open("fake_bwd_alibi");
  *calls = 0;
  dq.sizes[1] = 8;
  expectInvalid(run(&slopes, 1), "dQ has 8 in dim 1 (heads) but "
                                 "fake_bwd_alibi is compiled for 4");
}

//===----------------------------------------------------------------------===//
// The ABI reader
//===----------------------------------------------------------------------===//

const char kArgs[] =
    "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\",\"dq\",\"dk\",\"dv\"]";

std::string parse(const std::string &fields, flashrt::Abi &abi) {
  return flashrt::parseAbi(
      "{\"dtype\":\"bf16\",\"head_dim\":64," + fields + "}", abi);
}

std::string parse(const std::string &fields) {
  flashrt::Abi abi;
  return parse(fields, abi);
}

TEST(BackwardAbi, Fields) {
  flashrt::Abi abi;
  ASSERT_EQ(parse(std::string("\"kind\":\"backward\",\"lse\":false,") + kArgs +
                      ",\"num_args\":9",
                  abi),
            "");
  EXPECT_TRUE(abi.backward);
  EXPECT_STREQ(abi.kindName(), "backward");
  ASSERT_EQ(abi.args.size(), 9u);
  EXPECT_EQ(abi.args[5], ArgRole::DO);
  EXPECT_EQ(abi.args[8], ArgRole::DV);
  EXPECT_EQ(abi.entryArity(), 9);
  EXPECT_FALSE(abi.lse);

  // ALiBi's slopes and a capture between dO and dQ, "arg" optional.
  ASSERT_EQ(parse("\"kind\":\"backward\",\"args\":[\"q\",\"k\",\"v\",\"o\","
                  "\"lse\",\"do\",\"alibi\",\"capture\",\"dq\",\"dk\",\"dv\"],"
                  "\"captures\":[{\"dtype\":\"f32\",\"rank\":1,\"arg\":6},"
                  "{\"dtype\":\"i32\",\"rank\":2}],\"num_args\":11",
                  abi),
            "");
  ASSERT_EQ(abi.captures.size(), 2u);
  EXPECT_EQ(abi.captures[0].arg, 6);
  EXPECT_EQ(abi.captures[1].arg, 7);
  EXPECT_EQ(abi.args[6], ArgRole::Alibi);
  EXPECT_EQ(abi.args[7], ArgRole::Capture);
  EXPECT_EQ(abi.entryArity(), 11);

  // Forward records, with or without "kind", are as before; a reused Abi
  // forgets the backward's fields.
  ASSERT_EQ(parse("\"lse\":true", abi), "");
  EXPECT_FALSE(abi.backward);
  EXPECT_TRUE(abi.args.empty());
  EXPECT_EQ(abi.entryArity(), 5);
  ASSERT_EQ(parse("\"kind\":\"forward\",\"lse\":true,\"num_args\":5", abi), "");
  EXPECT_FALSE(abi.backward);
  EXPECT_STREQ(abi.kindName(), "forward");
}

TEST(BackwardAbi, Malformed) {
  std::string bwd = "\"kind\":\"backward\",";
  EXPECT_EQ(parse("\"kind\":\"sparse\""),
            "unknown \"kind\" 'sparse': this runtime runs \"forward\" and "
            "\"backward\" entries (is the artifact newer than libflashrt?)");
  EXPECT_EQ(parse("\"kind\":1"), "\"kind\" is not a string");
  EXPECT_EQ(parse("\"kind\":\"backward\""),
            "a backward record needs \"args\" (the role of each entry "
            "argument: q, k, v, o, lse, do, dq, dk, dv, alibi, capture)");
  EXPECT_EQ(parse(bwd + "\"args\":\"q\""), "\"args\" is not an array");
  EXPECT_EQ(parse(bwd + "\"args\":[\"q\",\"k\",\"v\",\"out\"]"),
            "\"args\" entry 3 (\"out\") is not one of q, k, v, o, lse, do, "
            "dq, dk, dv, alibi, capture");
  EXPECT_EQ(parse(bwd + "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\","
                        "\"dq\",\"dk\",\"dq\"]"),
            "\"args\" names 'dq' 2 times; a backward entry takes exactly one");
  EXPECT_EQ(parse(bwd + "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\","
                        "\"dq\",\"dk\"]"),
            "\"args\" names 'dv' 0 times; a backward entry takes exactly one");
  EXPECT_EQ(parse(bwd + "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\",\"do\","
                        "\"alibi\",\"alibi\",\"dq\",\"dk\",\"dv\"]"),
            "\"args\" names 'alibi' 2 times; a backward entry takes at most "
            "one");
  // Captures and their places.
  std::string withAlibi = bwd + "\"args\":[\"q\",\"k\",\"v\",\"o\",\"lse\","
                                "\"do\",\"alibi\",\"dq\",\"dk\",\"dv\"]";
  EXPECT_EQ(parse(withAlibi),
            "\"args\" has 1 alibi / capture arguments but \"captures\" lists "
            "0 tensors");
  EXPECT_EQ(parse(bwd + kArgs +
                  ",\"captures\":[{\"dtype\":\"f32\","
                  "\"rank\":1}]"),
            "\"args\" has 0 alibi / capture arguments but \"captures\" lists "
            "1 tensors");
  EXPECT_EQ(parse(withAlibi + ",\"captures\":[{\"dtype\":\"f32\","
                              "\"rank\":1,\"arg\":3}]"),
            "capture 0 has \"arg\" 3 but \"args\" has its alibi / capture "
            "argument at 6");
  EXPECT_EQ(parse(bwd + kArgs + ",\"num_args\":10"),
            "\"num_args\" is 10 but \"args\" names 9");
  // The forward-only keys are false for the backward.
  EXPECT_EQ(parse(bwd + kArgs + ",\"lse\":true"),
            "a backward record has \"lse\": true; the backward's operands "
            "are its \"args\"");
  EXPECT_EQ(parse(bwd + kArgs + ",\"paged\":true"),
            "a backward record has \"paged\": true; the backward's operands "
            "are its \"args\"");
}

TEST(BackwardAbi, OpenRefusesAnUnknownKind) {
  flashrt_kernel *k = nullptr;
  EXPECT_EQ(flashrt_open(FAKE_ARTIFACT, "fake_kind", &k), FLASHRT_ERR_LOAD);
  EXPECT_EQ(k, nullptr);
  EXPECT_NE(lastError().find("malformed fake_kind_flash_abi: unknown "
                             "\"kind\" 'sparse'"),
            std::string::npos)
      << lastError();
}

} // namespace
