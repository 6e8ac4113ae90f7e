//===- ReferenceTest.cpp - Tests for the reference attention ----*- C++ -*-===//
//
// The reference is the ground truth for compiled kernels, so it is checked
// against an independently written brute force (full score matrix with -inf
// for masked entries, then a two-pass softmax), against hand-computed values,
// and for layout invariance: BSHD strides, paged KV and varlen packing must
// reproduce the dense result bit for bit since they only change addressing.
//
//===----------------------------------------------------------------------===//

#include "flash/Reference/Reference.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

using namespace flash::ref;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// A dense row-major [B, H, S, D] tensor.
struct Tensor {
  Shape4 shape;
  std::vector<float> data;

  explicit Tensor(Shape4 s, float fill = 0.0f)
      : shape(s), data(s[0] * s[1] * s[2] * s[3], fill) {}
  View4 view() const { return {data.data(), contiguousStrides(shape)}; }
  MutView4 mut() { return {data.data(), contiguousStrides(shape)}; }
  float &operator()(int64_t b, int64_t h, int64_t s, int64_t d) {
    return mut().at(b, h, s, d);
  }
};

Tensor randomTensor(Shape4 shape, std::mt19937 &rng, float amp) {
  std::uniform_real_distribution<float> dist(-amp, amp);
  Tensor t(shape);
  for (float &x : t.data)
    x = dist(rng);
  return t;
}

/// Brute-force attention over dense BHSD tensors (kvLens supported), written
/// independently of the library: per-entry mask predicate, full S matrix.
struct Brute {
  std::vector<double> out, lse; // [B, Hq, Sq, Dv] and [B, Hq, Sq].
};

Brute bruteForce(const AttentionParams &p, const Tensor &q, const Tensor &k,
                 const Tensor &v) {
  const int64_t sq = p.seqQ, dv = p.headDimV;
  Brute r;
  r.out.assign(p.batch * p.headsQ * sq * dv, 0.0);
  r.lse.assign(p.batch * p.headsQ * sq, -kInf);
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t sk = p.kvLens ? p.kvLens[b] : p.seqK;
    for (int64_t h = 0; h < p.headsQ; ++h) {
      const int64_t hk = h * p.headsKV / p.headsQ;
      std::vector<double> s(sq * sk, -kInf);
      for (int64_t i = 0; i < sq; ++i)
        for (int64_t j = 0; j < sk; ++j) {
          const int64_t rel = j - (i + sk - sq); // > 0: key is in the future.
          bool visible = !(p.causal && rel > 0) &&
                         !(p.windowLeft >= 0 && rel < -p.windowLeft) &&
                         !(p.windowRight >= 0 && rel > p.windowRight);
          if (!visible)
            continue;
          double dot = 0.0;
          for (int64_t d = 0; d < p.headDim; ++d)
            dot +=
                double(q.data[((b * p.headsQ + h) * sq + i) * p.headDim + d]) *
                double(k.data[((b * p.headsKV + hk) * p.seqK + j) * p.headDim +
                              d]);
          double x = p.scale * dot;
          if (p.softcap > 0.0)
            x = p.softcap * std::tanh(x / p.softcap);
          if (p.alibiSlopes)
            x -= p.alibiSlopes[(p.alibiPerBatch ? b * p.headsQ : 0) + h] *
                 std::fabs(double(rel));
          s[i * sk + j] = x;
        }
      for (int64_t i = 0; i < sq; ++i) {
        const double *row = s.data() + i * sk;
        double m = -kInf;
        for (int64_t j = 0; j < sk; ++j)
          m = std::max(m, row[j]);
        if (m == -kInf)
          continue; // Empty row: defaults are 0 and -inf.
        std::vector<double> pr(sk);
        double l = 0.0;
        for (int64_t j = 0; j < sk; ++j)
          l += pr[j] = std::exp(row[j] - m); // exp(-inf) == 0 masks.
        double *o = &r.out[((b * p.headsQ + h) * sq + i) * dv];
        for (int64_t d = 0; d < dv; ++d) {
          double sum = 0.0;
          for (int64_t j = 0; j < sk; ++j)
            sum += pr[j] / l *
                   v.data[((b * p.headsKV + hk) * p.seqK + j) * dv + d];
          o[d] = sum;
        }
        r.lse[(b * p.headsQ + h) * sq + i] = m + std::log(l);
      }
    }
  }
  return r;
}

/// Runs attention() and checks every output against the brute force: the
/// float result must be the double result (to ~1e-12) rounded to float, i.e.
/// within half a float ulp plus 1e-12 relative slack.
void expectMatchesBrute(const AttentionParams &p, const Tensor &q,
                        const Tensor &k, const Tensor &v) {
  Tensor o({p.batch, p.headsQ, p.seqQ, p.headDimV}, kNaN);
  std::vector<float> lse(p.batch * p.headsQ * p.seqQ, kNaN);
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data()),
            "");
  Brute ref = bruteForce(p, q, k, v);
  double vMax = 0.0;
  for (float x : v.data)
    vMax = std::max(vMax, double(std::fabs(x)));
  for (size_t idx = 0; idx < o.data.size(); ++idx) {
    double got = o.data[idx], want = ref.out[idx];
    ASSERT_FALSE(std::isnan(got)) << "out[" << idx << "]";
    ASSERT_LE(std::fabs(got - want), std::fabs(want) * 0x1p-24 + 1e-12 * vMax)
        << "out[" << idx << "] want " << want;
  }
  for (size_t idx = 0; idx < lse.size(); ++idx) {
    double got = lse[idx], want = ref.lse[idx];
    ASSERT_FALSE(std::isnan(got)) << "lse[" << idx << "]";
    if (want == -kInf) {
      ASSERT_EQ(got, -kInf) << "lse[" << idx << "]";
      for (int64_t d = 0; d < p.headDimV; ++d)
        ASSERT_EQ(o.data[idx * p.headDimV + d], 0.0f) << "empty row " << idx;
      continue;
    }
    ASSERT_LE(std::fabs(got - want),
              std::fabs(want) * 0x1p-24 + 1e-12 * (1.0 + std::fabs(want)))
        << "lse[" << idx << "] want " << want;
  }
}

AttentionParams makeParams(int64_t b, int64_t hq, int64_t hkv, int64_t sq,
                           int64_t sk, int64_t d, int64_t dv) {
  AttentionParams p;
  p.batch = b, p.headsQ = hq, p.headsKV = hkv, p.seqQ = sq, p.seqK = sk;
  p.headDim = d, p.headDimV = dv, p.scale = 1.0 / std::sqrt(double(d));
  return p;
}

enum class Alibi { None, PerHead, PerBatch };

struct Case {
  int64_t b = 2, hq = 3, hkv = 3, sq = 5, sk = 7, d = 8, dv = 8;
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0;
  Alibi alibi = Alibi::None;
};

/// Random inputs in [-1, 1] and in [-8, 8] (the latter with a large scale so
/// scores span hundreds and exercise the max-subtraction).
void checkRandom(const Case &c) {
  std::mt19937 rng(1234);
  for (float amp : {1.0f, 8.0f}) {
    SCOPED_TRACE(amp);
    AttentionParams p = makeParams(c.b, c.hq, c.hkv, c.sq, c.sk, c.d, c.dv);
    p.causal = c.causal, p.windowLeft = c.windowLeft;
    p.windowRight = c.windowRight, p.softcap = c.softcap;
    if (amp > 1.0f)
      p.scale = 1.0;
    Tensor q = randomTensor({c.b, c.hq, c.sq, c.d}, rng, amp);
    Tensor k = randomTensor({c.b, c.hkv, c.sk, c.d}, rng, amp);
    Tensor v = randomTensor({c.b, c.hkv, c.sk, c.dv}, rng, amp);
    std::vector<float> slopes(c.b * c.hq);
    std::uniform_real_distribution<float> slopeDist(0.0f, 1.0f);
    for (float &s : slopes)
      s = slopeDist(rng);
    if (c.alibi != Alibi::None) {
      p.alibiSlopes = slopes.data();
      p.alibiPerBatch = c.alibi == Alibi::PerBatch;
    }
    expectMatchesBrute(p, q, k, v);
  }
}

/// Runs attention() on one query row of head 0 and returns (O[0..dv), LSE).
std::pair<std::vector<float>, float> runSmall(const AttentionParams &p,
                                              const Tensor &q, const Tensor &k,
                                              const Tensor &v,
                                              int64_t row = 0) {
  Tensor o({p.batch, p.headsQ, p.seqQ, p.headDimV}, kNaN);
  std::vector<float> lse(p.batch * p.headsQ * p.seqQ, kNaN);
  EXPECT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data()),
            "");
  std::vector<float> out(o.data.begin() + row * p.headDimV,
                         o.data.begin() + (row + 1) * p.headDimV);
  return {out, lse[row]};
}

//===----------------------------------------------------------------------===//
// Hand-computed cases.
//===----------------------------------------------------------------------===//

TEST(ReferenceHand, TwoKeys) {
  // s = [1, 0] => O = (2e + 4) / (e + 1), LSE = log(e + 1).
  AttentionParams p = makeParams(1, 1, 1, 1, 2, 2, 1);
  p.scale = 1.0;
  Tensor q({1, 1, 1, 2}), k({1, 1, 2, 2}), v({1, 1, 2, 1});
  q.data = {1, 0}, k.data = {1, 0, 0, 1}, v.data = {2, 4};
  auto [o, lse] = runSmall(p, q, k, v);
  const double e = std::exp(1.0);
  EXPECT_FLOAT_EQ(o[0], (2 * e + 4) / (e + 1));
  EXPECT_FLOAT_EQ(lse, std::log(e + 1));
}

TEST(ReferenceHand, RoundWeightRoundsPBeforePVOnly) {
  // s = [1, 0]: weights [1, 1/e] after the max; roundWeight (a kernel's
  // rounding of P) changes what multiplies V, not l: O = (2 r(1) + 4 r(1/e))
  // / (1 + 1/e), LSE = log(e + 1) as without it.
  AttentionParams p = makeParams(1, 1, 1, 1, 2, 2, 1);
  p.scale = 1.0;
  p.roundWeight = [](double w) { return std::floor(w * 4) / 4; };
  Tensor q({1, 1, 1, 2}), k({1, 1, 2, 2}), v({1, 1, 2, 1});
  q.data = {1, 0}, k.data = {1, 0, 0, 1}, v.data = {2, 4};
  auto [o, lse] = runSmall(p, q, k, v);
  const double e = std::exp(1.0);
  EXPECT_FLOAT_EQ(o[0], (2 * 1.0 + 4 * 0.25) / (1 + 1 / e));
  EXPECT_FLOAT_EQ(lse, std::log(e + 1));
}

TEST(ReferenceHand, CausalFirstRowSeesOnlyFirstKey) {
  AttentionParams p = makeParams(1, 1, 1, 2, 2, 2, 2);
  p.scale = 0.5, p.causal = true;
  Tensor q({1, 1, 2, 2}), k({1, 1, 2, 2}), v({1, 1, 2, 2});
  q.data = {1, 2, 0, 0}, k.data = {3, 4, 9, 9}, v.data = {0.25f, -3, 7, 7};
  auto [o, lse] = runSmall(p, q, k, v);
  // A single visible key: weight exactly 1, LSE = 0.5 * (3 + 8) exactly.
  EXPECT_EQ(o, (std::vector<float>{0.25f, -3}));
  EXPECT_EQ(lse, 5.5f);
  // Row 1 (q = 0) sees both keys with equal weight.
  auto [o1, lse1] = runSmall(p, q, k, v, 1);
  EXPECT_FLOAT_EQ(o1[0], (0.25 + 7) / 2);
  EXPECT_FLOAT_EQ(lse1, std::log(2.0));
}

TEST(ReferenceHand, CausalBottomRightAlignment) {
  // Sq = 1, Sk = 3: the single query is the last one, so sees every key.
  AttentionParams p = makeParams(1, 1, 1, 1, 3, 1, 1);
  p.causal = true;
  Tensor q({1, 1, 1, 1}), k({1, 1, 3, 1}), v({1, 1, 3, 1});
  v.data = {1, 2, 6};
  auto [o, lse] = runSmall(p, q, k, v);
  EXPECT_FLOAT_EQ(o[0], 3.0f);
  EXPECT_FLOAT_EQ(lse, std::log(3.0));

  // Sq = 3, Sk = 1: rows 0 and 1 precede the only key.
  p = makeParams(1, 1, 1, 3, 1, 1, 1);
  p.causal = true;
  Tensor q3({1, 1, 3, 1}), k1({1, 1, 1, 1}), v1({1, 1, 1, 1});
  v1.data = {5};
  for (int64_t row : {0, 1}) {
    auto [oe, lsee] = runSmall(p, q3, k1, v1, row);
    EXPECT_EQ(oe[0], 0.0f);
    EXPECT_EQ(lsee, -kInf);
  }
  EXPECT_EQ(runSmall(p, q3, k1, v1, 2).first[0], 5.0f);
}

TEST(ReferenceHand, Softcap) {
  AttentionParams p = makeParams(1, 1, 1, 1, 2, 1, 1);
  p.scale = 1.0, p.softcap = 1.0;
  Tensor q({1, 1, 1, 1}), k({1, 1, 2, 1}), v({1, 1, 2, 1});
  q.data = {2}, k.data = {1, -1}, v.data = {1, 0};
  auto [o, lse] = runSmall(p, q, k, v);
  const double t = std::tanh(2.0); // Capped scores are [t, -t].
  EXPECT_FLOAT_EQ(o[0], std::exp(t) / (std::exp(t) + std::exp(-t)));
  EXPECT_FLOAT_EQ(lse, std::log(std::exp(t) + std::exp(-t)));
}

TEST(ReferenceHand, Alibi) {
  // q = 0 so s_j = -slope * |2 - j| = [-1, -0.5, 0].
  AttentionParams p = makeParams(1, 1, 1, 1, 3, 1, 1);
  float slope = 0.5f;
  p.alibiSlopes = &slope;
  Tensor q({1, 1, 1, 1}), k({1, 1, 3, 1}), v({1, 1, 3, 1});
  k.data = {1, 2, 3}, v.data = {1, 2, 3};
  auto [o, lse] = runSmall(p, q, k, v);
  const double w0 = std::exp(-1.0), w1 = std::exp(-0.5), w2 = 1.0;
  EXPECT_FLOAT_EQ(o[0], (w0 + 2 * w1 + 3 * w2) / (w0 + w1 + w2));
  EXPECT_FLOAT_EQ(lse, std::log(w0 + w1 + w2));
}

TEST(ReferenceHand, WindowLeft) {
  // Sq = 1, Sk = 4, windowLeft = 1: only keys 2 and 3 are visible.
  AttentionParams p = makeParams(1, 1, 1, 1, 4, 1, 1);
  p.windowLeft = 1;
  Tensor q({1, 1, 1, 1}), k({1, 1, 4, 1}), v({1, 1, 4, 1});
  v.data = {100, 100, 1, 2};
  auto [o, lse] = runSmall(p, q, k, v);
  EXPECT_FLOAT_EQ(o[0], 1.5f);
  EXPECT_FLOAT_EQ(lse, std::log(2.0));
}

TEST(ReferenceHand, GqaHeadMapping) {
  // One key per sequence, so each query head returns its KV head's value.
  AttentionParams p = makeParams(1, 4, 2, 1, 1, 1, 1);
  Tensor q({1, 4, 1, 1}), k({1, 2, 1, 1}), v({1, 2, 1, 1}), o({1, 4, 1, 1});
  v.data = {10, 20};
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), nullptr), "");
  EXPECT_EQ(o.data, (std::vector<float>{10, 10, 20, 20}));
}

//===----------------------------------------------------------------------===//
// Random cases against the brute force.
//===----------------------------------------------------------------------===//

TEST(ReferenceRandom, NonCausal) { checkRandom({}); }

TEST(ReferenceRandom, CausalSqLessThanSk) {
  Case c;
  c.sq = 4, c.sk = 9, c.causal = true;
  checkRandom(c);
}

TEST(ReferenceRandom, CausalSquare) {
  Case c;
  c.sq = c.sk = 6, c.causal = true;
  checkRandom(c);
}

TEST(ReferenceRandom, CausalSqGreaterThanSk) {
  Case c;
  c.sq = 9, c.sk = 4, c.causal = true;
  checkRandom(c); // Also asserts the 5 empty top rows are 0 / -inf.

  AttentionParams p = makeParams(1, 1, 1, 9, 4, 4, 4);
  p.causal = true;
  std::mt19937 rng(7);
  Tensor q = randomTensor({1, 1, 9, 4}, rng, 1);
  Tensor k = randomTensor({1, 1, 4, 4}, rng, 1);
  Tensor v = randomTensor({1, 1, 4, 4}, rng, 1);
  Tensor o({1, 1, 9, 4}, kNaN);
  std::vector<float> lse(9, kNaN);
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data()),
            "");
  for (int64_t i = 0; i < 9; ++i) {
    EXPECT_EQ(lse[i] == -kInf, i < 5) << i;
    for (int64_t d = 0; d < 4; ++d) {
      EXPECT_FALSE(std::isnan(o(0, 0, i, d)));
      EXPECT_TRUE(i >= 5 || o(0, 0, i, d) == 0.0f) << i;
    }
  }
}

TEST(ReferenceRandom, Gqa4To1) {
  Case c;
  c.hq = 8, c.hkv = 2, c.causal = true;
  checkRandom(c);
}

TEST(ReferenceRandom, Mqa) {
  Case c;
  c.hq = 4, c.hkv = 1;
  checkRandom(c);
}

TEST(ReferenceRandom, WindowLeftOnly) {
  Case c;
  c.sq = 8, c.sk = 8, c.windowLeft = 2;
  checkRandom(c);
}

TEST(ReferenceRandom, WindowRightOnly) {
  Case c;
  c.sq = 6, c.sk = 9, c.windowRight = 1;
  checkRandom(c);
}

TEST(ReferenceRandom, WindowBoth) {
  Case c;
  c.windowLeft = 1, c.windowRight = 2;
  checkRandom(c);
  // Sq > Sk with a narrow window leaves the top rows empty.
  c.sq = 9, c.sk = 4, c.windowLeft = 0, c.windowRight = 1;
  checkRandom(c);
}

TEST(ReferenceRandom, WindowWithCausal) {
  Case c;
  c.sq = 6, c.sk = 10, c.causal = true, c.windowLeft = 3;
  checkRandom(c);
  c.windowRight = 5; // Wider than causal: causal must win.
  checkRandom(c);
}

TEST(ReferenceRandom, Softcap) {
  Case c;
  c.softcap = 5.0, c.causal = true;
  checkRandom(c);
}

TEST(ReferenceRandom, AlibiPerHead) {
  Case c;
  c.alibi = Alibi::PerHead, c.sq = 4, c.sk = 9;
  checkRandom(c);
}

TEST(ReferenceRandom, AlibiPerBatchWithCausalAndSoftcap) {
  Case c;
  c.alibi = Alibi::PerBatch, c.causal = true, c.softcap = 3.0;
  checkRandom(c);
}

TEST(ReferenceRandom, HeadDimVDiffers) {
  Case c;
  c.d = 12, c.dv = 5, c.hq = 4, c.hkv = 2;
  checkRandom(c);
}

TEST(ReferenceRandom, NullLseAllowed) {
  AttentionParams p = makeParams(1, 2, 2, 3, 4, 4, 4);
  std::mt19937 rng(3);
  Tensor q = randomTensor({1, 2, 3, 4}, rng, 1);
  Tensor k = randomTensor({1, 2, 4, 4}, rng, 1);
  Tensor v = randomTensor({1, 2, 4, 4}, rng, 1);
  Tensor o1({1, 2, 3, 4}), o2({1, 2, 3, 4});
  std::vector<float> lse(6);
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o1.mut(), nullptr), "");
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o2.mut(), lse.data()),
            "");
  EXPECT_EQ(o1.data, o2.data);
}

//===----------------------------------------------------------------------===//
// Layout invariance: same arithmetic, other addressing, so results must be
// bitwise identical.
//===----------------------------------------------------------------------===//

/// Copies a dense BHSD tensor into BSHD storage.
std::vector<float> toBshd(const Tensor &t) {
  std::vector<float> out(t.data.size());
  MutView4 dst{out.data(), bshdStrides(t.shape)};
  for (int64_t b = 0; b < t.shape[0]; ++b)
    for (int64_t h = 0; h < t.shape[1]; ++h)
      for (int64_t s = 0; s < t.shape[2]; ++s)
        for (int64_t d = 0; d < t.shape[3]; ++d)
          dst.at(b, h, s, d) = t.view().at(b, h, s, d);
  return out;
}

TEST(ReferenceLayout, BshdMatchesBhsd) {
  AttentionParams p = makeParams(2, 4, 2, 5, 7, 6, 3);
  p.causal = true;
  std::mt19937 rng(11);
  Tensor q = randomTensor({2, 4, 5, 6}, rng, 2);
  Tensor k = randomTensor({2, 2, 7, 6}, rng, 2);
  Tensor v = randomTensor({2, 2, 7, 3}, rng, 2);
  Tensor o({2, 4, 5, 3}, kNaN);
  std::vector<float> lse(2 * 4 * 5), lse2(lse.size());
  ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data()),
            "");

  std::vector<float> qs = toBshd(q), ks = toBshd(k), vs = toBshd(v);
  std::vector<float> os(o.data.size(), kNaN);
  MutView4 oView{os.data(), bshdStrides(o.shape)};
  ASSERT_EQ(attention(p, {qs.data(), bshdStrides(q.shape)},
                      {ks.data(), bshdStrides(k.shape)},
                      {vs.data(), bshdStrides(v.shape)}, oView, lse2.data()),
            "");
  EXPECT_EQ(maxAbsDiff(o.view(), oView, o.shape), 0.0);
  EXPECT_EQ(lse, lse2);
  EXPECT_EQ(os, toBshd(o)); // Results really are stored BSHD.
}

TEST(ReferenceLayout, KvLens) {
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal);
    AttentionParams p = makeParams(4, 2, 1, 5, 8, 4, 4);
    p.causal = causal;
    std::vector<int32_t> lens = {8, 3, 0, 6};
    p.kvLens = lens.data();
    std::mt19937 rng(5);
    Tensor q = randomTensor({4, 2, 5, 4}, rng, 1);
    Tensor k = randomTensor({4, 1, 8, 4}, rng, 1);
    Tensor v = randomTensor({4, 1, 8, 4}, rng, 1);
    expectMatchesBrute(p, q, k, v); // Batch 2 is all empty rows.
  }
}

/// Scatters dense K/V [B, H, S, D] into pages using a shuffled block table.
struct Paged {
  Tensor k, v;
  std::vector<int32_t> table;
};

Paged makePaged(const Tensor &k, const Tensor &v, int64_t pageSize,
                int64_t pagesPerSeq, int64_t numPages, std::mt19937 &rng) {
  const int64_t batch = k.shape[0], heads = k.shape[1];
  Paged r{Tensor({numPages, heads, pageSize, k.shape[3]}, kNaN),
          Tensor({numPages, heads, pageSize, v.shape[3]}, kNaN),
          std::vector<int32_t>(numPages)};
  std::iota(r.table.begin(), r.table.end(), 0);
  std::shuffle(r.table.begin(), r.table.end(), rng);
  r.table.resize(batch * pagesPerSeq);
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t j = 0; j < k.shape[2]; ++j) {
        int64_t page = r.table[b * pagesPerSeq + j / pageSize];
        for (int64_t d = 0; d < k.shape[3]; ++d)
          r.k(page, h, j % pageSize, d) = k.view().at(b, h, j, d);
        for (int64_t d = 0; d < v.shape[3]; ++d)
          r.v(page, h, j % pageSize, d) = v.view().at(b, h, j, d);
      }
  return r;
}

TEST(ReferenceLayout, PagedMatchesUnpaged) {
  const int64_t seqK = 11;
  for (int64_t pageSize : {1, 3, 16}) {
    SCOPED_TRACE(pageSize);
    AttentionParams p = makeParams(3, 4, 2, 4, seqK, 8, 6);
    p.causal = true, p.windowLeft = 6;
    std::vector<int32_t> lens = {11, 5, 0};
    p.kvLens = lens.data();
    std::mt19937 rng(17);
    Tensor q = randomTensor({3, 4, 4, 8}, rng, 4);
    Tensor k = randomTensor({3, 2, seqK, 8}, rng, 4);
    Tensor v = randomTensor({3, 2, seqK, 6}, rng, 4);
    Tensor o({3, 4, 4, 6}, kNaN), po({3, 4, 4, 6}, kNaN);
    std::vector<float> lse(3 * 4 * 4), plse(lse.size());
    ASSERT_EQ(attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data()),
              "");

    const int64_t pagesPerSeq = (seqK + pageSize - 1) / pageSize;
    Paged pg = makePaged(k, v, pageSize, pagesPerSeq, 3 * pagesPerSeq + 2, rng);
    p.blockTable = pg.table.data(), p.pageSize = pageSize;
    p.pagesPerSeq = pagesPerSeq, p.numPages = 3 * pagesPerSeq + 2;
    ASSERT_EQ(
        attention(p, q.view(), pg.k.view(), pg.v.view(), po.mut(), plse.data()),
        "");
    EXPECT_EQ(o.data, po.data);
    EXPECT_EQ(lse, plse);
  }
}

TEST(ReferenceLayout, VarlenMatchesPerSequence) {
  // (Sq_b, Sk_b), including empty query and empty key sequences.
  const std::vector<std::pair<int32_t, int32_t>> seqs = {
      {3, 5}, {0, 4}, {4, 4}, {6, 2}, {2, 0}};
  const int64_t hq = 4, hkv = 2, d = 5, dv = 3, nb = seqs.size();
  std::vector<int32_t> cuQ = {0}, cuK = {0};
  for (auto [sq, sk] : seqs)
    cuQ.push_back(cuQ.back() + sq), cuK.push_back(cuK.back() + sk);
  const int64_t totQ = cuQ.back() + 1, totK = cuK.back(); // +1: padding row.

  for (bool paged : {false, true}) {
    for (bool causal : {false, true}) {
      SCOPED_TRACE(::testing::Message() << paged << causal);
      std::mt19937 rng(23);
      Tensor q = randomTensor({1, hq, totQ, d}, rng, 2);
      Tensor k = randomTensor({1, hkv, totK, d}, rng, 2);
      Tensor v = randomTensor({1, hkv, totK, dv}, rng, 2);
      AttentionParams p = makeParams(nb, hq, hkv, totQ, totK, d, dv);
      p.causal = causal, p.cuSeqlensQ = cuQ.data(), p.cuSeqlensK = cuK.data();

      // Paged variant: re-scatter each sequence's keys into pages of 2.
      const int64_t pageSize = 2, pagesPerSeq = 3;
      Tensor kp({nb * pagesPerSeq, hkv, pageSize, d}, kNaN);
      Tensor vp({nb * pagesPerSeq, hkv, pageSize, dv}, kNaN);
      std::vector<int32_t> table(nb * pagesPerSeq);
      std::iota(table.rbegin(), table.rend(), 0); // Reversed page order.
      for (int64_t b = 0; b < nb; ++b)
        for (int64_t h = 0; h < hkv; ++h)
          for (int64_t j = 0; j < seqs[b].second; ++j) {
            int64_t page = table[b * pagesPerSeq + j / pageSize];
            for (int64_t x = 0; x < d; ++x)
              kp(page, h, j % pageSize, x) = k(0, h, cuK[b] + j, x);
            for (int64_t x = 0; x < dv; ++x)
              vp(page, h, j % pageSize, x) = v(0, h, cuK[b] + j, x);
          }
      if (paged) {
        p.blockTable = table.data(), p.pageSize = pageSize;
        p.pagesPerSeq = pagesPerSeq, p.numPages = nb * pagesPerSeq;
      }

      Tensor o({1, hq, totQ, dv}, kNaN);
      std::vector<float> lse(hq * totQ, kNaN);
      ASSERT_EQ(attention(p, q.view(), paged ? kp.view() : k.view(),
                          paged ? vp.view() : v.view(), o.mut(), lse.data()),
                "");
      for (int64_t h = 0; h < hq; ++h) // Padding row left untouched.
        EXPECT_TRUE(std::isnan(lse[h * totQ + totQ - 1]));

      for (int64_t b = 0; b < nb; ++b) {
        auto [sq, sk] = seqs[b];
        if (sq == 0)
          continue;
        // Dense run; kvLens expresses Sk_b = 0, which seqK cannot.
        AttentionParams s = makeParams(1, hq, hkv, sq, std::max(sk, 1), d, dv);
        s.causal = causal, s.kvLens = &sk;
        Tensor qs({1, hq, sq, d}), ks({1, hkv, s.seqK, d}),
            vs({1, hkv, s.seqK, dv}), os({1, hq, sq, dv});
        std::vector<float> lses(hq * sq);
        for (int64_t h = 0; h < hq; ++h)
          for (int64_t i = 0; i < sq; ++i)
            for (int64_t x = 0; x < d; ++x)
              qs(0, h, i, x) = q(0, h, cuQ[b] + i, x);
        for (int64_t h = 0; h < hkv; ++h)
          for (int64_t j = 0; j < sk; ++j) {
            for (int64_t x = 0; x < d; ++x)
              ks(0, h, j, x) = k(0, h, cuK[b] + j, x);
            for (int64_t x = 0; x < dv; ++x)
              vs(0, h, j, x) = v(0, h, cuK[b] + j, x);
          }
        ASSERT_EQ(attention(s, qs.view(), ks.view(), vs.view(), os.mut(),
                            lses.data()),
                  "");
        for (int64_t h = 0; h < hq; ++h)
          for (int64_t i = 0; i < sq; ++i) {
            EXPECT_EQ(lse[h * totQ + cuQ[b] + i], lses[h * sq + i]);
            for (int64_t x = 0; x < dv; ++x)
              EXPECT_EQ(o(0, h, cuQ[b] + i, x), os(0, h, i, x));
          }
      }
    }
  }
}

//===----------------------------------------------------------------------===//
// Invalid parameters.
//===----------------------------------------------------------------------===//

TEST(ReferenceErrors, InvalidParams) {
  Tensor q({2, 4, 3, 4}), k({2, 2, 5, 4}), v({2, 2, 5, 4});
  Tensor o({2, 4, 3, 4}, 42.0f);
  std::vector<float> lse(2 * 4 * 3, 42.0f);
  const AttentionParams base = makeParams(2, 4, 2, 3, 5, 4, 4);
  auto run = [&](const AttentionParams &p) {
    return attention(p, q.view(), k.view(), v.view(), o.mut(), lse.data());
  };
  ASSERT_EQ(run(base), "");
  std::fill(o.data.begin(), o.data.end(), 42.0f);
  std::fill(lse.begin(), lse.end(), 42.0f);

  // Each mutation must be rejected with a message and write nothing.
  std::vector<int32_t> badLens = {5, 6}, negLens = {-1, 2}, goodLens = {2, 5};
  std::vector<int32_t> cuBad = {0, 2, 1}, cuLong = {0, 2, 4}, cuOk = {0, 1, 3};
  std::vector<int32_t> table = {0, 1, 2, 7}, tableNeg = {0, -1, 2, 3};
  std::vector<std::pair<const char *, AttentionParams>> bad;
  auto add = [&](const char *what, auto mutate) {
    AttentionParams p = base;
    mutate(p);
    bad.push_back({what, p});
  };
  add("batch 0", [](auto &p) { p.batch = 0; });
  add("seqQ 0", [](auto &p) { p.seqQ = 0; });
  add("seqK -1", [](auto &p) { p.seqK = -1; });
  add("headDim 0", [](auto &p) { p.headDim = 0; });
  add("headDimV 0", [](auto &p) { p.headDimV = 0; });
  add("headsKV 0", [](auto &p) { p.headsKV = 0; });
  add("Hq % Hkv", [](auto &p) { p.headsKV = 3; });
  add("scale 0", [](auto &p) { p.scale = 0; });
  add("scale < 0", [](auto &p) { p.scale = -1; });
  add("scale NaN", [](auto &p) { p.scale = std::nan(""); });
  add("scale inf", [](auto &p) { p.scale = kInf; });
  add("softcap < 0", [](auto &p) { p.softcap = -1; });
  add("softcap NaN", [](auto &p) { p.softcap = std::nan(""); });
  add("windowLeft -2", [](auto &p) { p.windowLeft = -2; });
  add("windowRight -5", [](auto &p) { p.windowRight = -5; });
  add("kvLens > seqK", [&](auto &p) { p.kvLens = badLens.data(); });
  add("kvLens < 0", [&](auto &p) { p.kvLens = negLens.data(); });
  add("cuQ only", [&](auto &p) { p.cuSeqlensQ = cuOk.data(); });
  add("cuQ decreasing", [&](auto &p) {
    p.cuSeqlensQ = cuBad.data(), p.cuSeqlensK = cuOk.data();
  });
  add("cuQ beyond seqQ", [&](auto &p) {
    p.cuSeqlensQ = cuLong.data(), p.cuSeqlensK = cuOk.data();
  });
  add("paging sizes without table", [](auto &p) { p.pageSize = 4; });
  auto paged = [&](AttentionParams &p) {
    p.blockTable = table.data(), p.pageSize = 3, p.pagesPerSeq = 2;
    p.numPages = 8;
  };
  add("pageSize 0", [&](auto &p) { paged(p), p.pageSize = 0; });
  add("numPages 0", [&](auto &p) { paged(p), p.numPages = 0; });
  add("page out of range", [&](auto &p) { paged(p), p.numPages = 7; });
  add("negative page",
      [&](auto &p) { paged(p), p.blockTable = tableNeg.data(); });
  add("seq longer than pages", [&](auto &p) { paged(p), p.pageSize = 2; });

  for (auto &[what, p] : bad)
    EXPECT_NE(run(p), "") << what;
  const Strides4 st = q.view().strides;
  EXPECT_NE(
      attention(base, {nullptr, st}, k.view(), v.view(), o.mut(), lse.data()),
      "");
  EXPECT_NE(
      attention(base, q.view(), {nullptr, st}, v.view(), o.mut(), lse.data()),
      "");
  EXPECT_NE(
      attention(base, q.view(), k.view(), {nullptr, st}, o.mut(), lse.data()),
      "");
  EXPECT_NE(
      attention(base, q.view(), k.view(), v.view(), {nullptr, st}, lse.data()),
      "");
  EXPECT_TRUE(std::all_of(o.data.begin(), o.data.end(),
                          [](float x) { return x == 42.0f; }));
  EXPECT_TRUE(
      std::all_of(lse.begin(), lse.end(), [](float x) { return x == 42.0f; }));

  // Unused block-table entries may hold garbage: only reached pages count.
  AttentionParams p = base;
  paged(p);
  p.kvLens = goodLens.data(); // Batch 0 only reaches page 0.
  table[1] = -1;
  Tensor kp({8, 2, 3, 4}), vp({8, 2, 3, 4});
  EXPECT_EQ(attention(p, q.view(), kp.view(), vp.view(), o.mut(), nullptr), "");
}

} // namespace
