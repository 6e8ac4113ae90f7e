//===- BackwardTest.cpp - Tests for the reference attention backward ------===//
//
// attentionBackward is the ground truth for compiled backward kernels, so each
// of its gradients is checked against central finite differences of
// L = sum(dO * O), where O comes from the forward reference: the derivative
// is then taken of the very function the forward defines, through every
// feature (masks, GQA, softcap, ALiBi, score_mod, mask_mod, varlen, strides).
// The forward takes and returns float, so inputs sit on a 2^-12 grid (every
// perturbed value is exact in float) and the differences use a fourth-order
// stencil with a step large enough that O's float rounding stays far below
// the tolerance; that tolerance still fails a dropped scale, a missing D, P
// taken from the running max instead of the LSE, a missing score_mod' or
// softcap' factor, and dQ/dK computed from the wrong operand.
//
//===----------------------------------------------------------------------===//

#include "flash/Reference/Reference.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <vector>

using namespace flash::ref;

namespace {

const float kNaN = std::numeric_limits<float>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

/// Finite-difference step: a power of two, so x +- step and x +- 2 step are
/// exact for inputs on the 2^-12 grid.
const double kStep = 0x1p-5;

/// Allowed |analytic - numeric| relative to 1 + max |numeric| of a tensor.
const double kTol = 2e-5;

/// A float tensor of logical shape [B, H, S, D], stored row-major as BHSD or,
/// with `bshd`, as FA2's [B, S, H, D].
struct Buf {
  Shape4 shape;
  bool bshd;
  std::vector<float> data;

  Buf(Shape4 s, bool bshd, float fill = 0.0f)
      : shape(s), bshd(bshd), data(s[0] * s[1] * s[2] * s[3], fill) {}
  Strides4 strides() const {
    return bshd ? bshdStrides(shape) : contiguousStrides(shape);
  }
  View4 view() const { return {data.data(), strides()}; }
  MutView4 mut() { return {data.data(), strides()}; }
  float &operator()(int64_t b, int64_t h, int64_t s, int64_t d) {
    return mut().at(b, h, s, d);
  }
};

/// Uniform in [-amp, amp] on the 2^-12 grid.
Buf randomBuf(Shape4 shape, bool bshd, std::mt19937 &rng, double amp) {
  const int64_t n = int64_t(amp * 4096);
  std::uniform_int_distribution<int64_t> dist(-n, n);
  Buf t(shape, bshd);
  for (float &x : t.data)
    x = float(dist(rng)) * 0x1p-12f;
  return t;
}

enum class Alibi { None, PerHead, PerBatch };

/// A random problem; scale 0 means 1 / sqrt(d). With varlen, b counts the
/// sequences and sq / sk are the packed row counts.
struct Case {
  int64_t b = 2, hq = 2, hkv = 2, sq = 4, sk = 6, d = 4, dv = 4;
  bool causal = false, bshd = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0, scale = 0.0, amp = 1.0;
  Alibi alibi = Alibi::None;
  const int32_t *cuQ = nullptr, *cuK = nullptr;
};

/// Parameters plus the inputs and dO they are differentiated at. Movable but
/// not copyable: p points into `slopes`.
struct Problem {
  AttentionParams p;
  Buf q, k, v, dO;
  std::vector<float> slopes;

  Problem(const Case &c, std::mt19937 &rng)
      : q(randomBuf({c.cuQ ? 1 : c.b, c.hq, c.sq, c.d}, c.bshd, rng, c.amp)),
        k(randomBuf({c.cuQ ? 1 : c.b, c.hkv, c.sk, c.d}, c.bshd, rng, c.amp)),
        v(randomBuf({c.cuQ ? 1 : c.b, c.hkv, c.sk, c.dv}, c.bshd, rng, 1.0)),
        dO(randomBuf({c.cuQ ? 1 : c.b, c.hq, c.sq, c.dv}, c.bshd, rng, 1.0)) {
    p.batch = c.b, p.headsQ = c.hq, p.headsKV = c.hkv, p.seqQ = c.sq;
    p.seqK = c.sk, p.headDim = c.d, p.headDimV = c.dv;
    p.scale = c.scale > 0.0 ? c.scale : 1.0 / std::sqrt(double(c.d));
    p.causal = c.causal, p.windowLeft = c.windowLeft;
    p.windowRight = c.windowRight, p.softcap = c.softcap;
    p.cuSeqlensQ = c.cuQ, p.cuSeqlensK = c.cuK;
    std::uniform_real_distribution<float> slopeDist(0.0f, 1.0f);
    slopes.resize(c.b * c.hq);
    for (float &s : slopes)
      s = slopeDist(rng);
    if (c.alibi != Alibi::None) {
      p.alibiSlopes = slopes.data();
      p.alibiPerBatch = c.alibi == Alibi::PerBatch;
    }
  }
  Problem(const Problem &) = delete;
  Problem(Problem &&) = default;
};

/// L = sum(dO * O) with O from the forward reference (rows the forward leaves
/// untouched, varlen padding, count as 0).
double loss(const Problem &pr) {
  Buf o(pr.dO.shape, pr.dO.bshd);
  EXPECT_EQ(
      attention(pr.p, pr.q.view(), pr.k.view(), pr.v.view(), o.mut(), nullptr),
      "");
  double l = 0.0;
  for (size_t i = 0; i < o.data.size(); ++i)
    l += double(pr.dO.data[i]) * double(o.data[i]);
  return l;
}

/// dL/dx for x = x.data[idx]: the fourth-order central difference
/// (8 (L(h) - L(-h)) - (L(2h) - L(-2h))) / 12h.
double numericGrad(Problem &pr, Buf &x, size_t idx) {
  const float x0 = x.data[idx];
  auto at = [&](double step) {
    x.data[idx] = float(x0 + step);
    return loss(pr);
  };
  const double g =
      (8.0 * (at(kStep) - at(-kStep)) - (at(2 * kStep) - at(-2 * kStep))) /
      (12.0 * kStep);
  x.data[idx] = x0;
  return g;
}

/// The analytic gradients, written into NaN-poisoned buffers laid out like
/// the inputs (so a gradient element left unwritten fails the comparison).
struct Grads {
  Buf dq, dk, dv;
};

Grads backward(const Problem &pr) {
  Grads g{Buf(pr.q.shape, pr.q.bshd, kNaN), Buf(pr.k.shape, pr.k.bshd, kNaN),
          Buf(pr.v.shape, pr.v.bshd, kNaN)};
  EXPECT_EQ(attentionBackward(pr.p, pr.q.view(), pr.k.view(), pr.v.view(),
                              pr.dO.view(), g.dq.mut(), g.dk.mut(), g.dv.mut()),
            "");
  return g;
}

/// Compares every element of `got` (the gradient w.r.t. `x`) with the
/// numeric derivative.
void expectMatchesNumeric(const char *name, Problem &pr, Buf &x,
                          const Buf &got) {
  std::vector<double> num(x.data.size());
  double numMax = 0.0;
  for (size_t i = 0; i < x.data.size(); ++i)
    numMax = std::max(numMax, std::fabs(num[i] = numericGrad(pr, x, i)));
  double worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < x.data.size(); ++i) {
    double err = std::fabs(double(got.data[i]) - num[i]);
    if (std::isnan(err))
      err = kInf;
    if (err > worst)
      worst = err, at = i;
  }
  EXPECT_LE(worst, kTol * (1.0 + numMax))
      << name << " storage index " << at << ": analytic " << got.data[at]
      << ", numeric " << num[at] << " (max |numeric| " << numMax << ")";
}

/// Checks dq, dk and dv of `pr` against finite differences; returns them.
Grads checkGradients(Problem &pr) {
  Grads g = backward(pr);
  expectMatchesNumeric("dq", pr, pr.q, g.dq);
  expectMatchesNumeric("dk", pr, pr.k, g.dk);
  expectMatchesNumeric("dv", pr, pr.v, g.dv);
  return g;
}

Grads checkCase(const Case &c, unsigned seed = 7) {
  std::mt19937 rng(seed);
  Problem pr(c, rng);
  return checkGradients(pr);
}

/// True if every element of rows [s0, s1) of every (batch, head) of `t` is
/// exactly 0.
bool rowsZero(Buf &t, int64_t s0, int64_t s1) {
  for (int64_t b = 0; b < t.shape[0]; ++b)
    for (int64_t h = 0; h < t.shape[1]; ++h)
      for (int64_t s = s0; s < s1; ++s)
        for (int64_t d = 0; d < t.shape[3]; ++d)
          if (t(b, h, s, d) != 0.0f)
            return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Hand-computed cases.
//===----------------------------------------------------------------------===//

TEST(BackwardHand, SingleKey) {
  // P = 1, so dS = P (dP - D) = 0 exactly and dv = dO.
  Case c;
  c.b = 1, c.hq = 1, c.hkv = 1, c.sq = 1, c.sk = 1, c.d = 3, c.dv = 2;
  std::mt19937 rng(1);
  Problem pr(c, rng);
  Grads g = backward(pr);
  EXPECT_EQ(g.dq.data, std::vector<float>(3, 0.0f));
  EXPECT_EQ(g.dk.data, std::vector<float>(3, 0.0f));
  EXPECT_EQ(g.dv.data, pr.dO.data);
}

TEST(BackwardHand, TwoKeys) {
  // s = [1, 0], P = [e, 1] / (e + 1), O = (2e + 4) / (e + 1), dO = 1:
  // dS = P (v - O) = [-2e, 2e] / (e + 1)^2, dq = dS_0 k_0 + dS_1 k_1,
  // dk_j = dS_j q, dv = P.
  Case c;
  c.b = 1, c.hq = 1, c.hkv = 1, c.sq = 1, c.sk = 2, c.d = 2, c.dv = 1;
  c.scale = 1.0;
  std::mt19937 rng(1);
  Problem pr(c, rng);
  pr.q.data = {1, 0}, pr.k.data = {1, 0, 0, 1}, pr.v.data = {2, 4};
  pr.dO.data = {1};
  Grads g = backward(pr);
  const double e = std::exp(1.0), ds = 2 * e / ((e + 1) * (e + 1));
  EXPECT_FLOAT_EQ(g.dq.data[0], -ds);
  EXPECT_FLOAT_EQ(g.dq.data[1], ds);
  EXPECT_FLOAT_EQ(g.dk.data[0], -ds);
  EXPECT_FLOAT_EQ(g.dk.data[2], ds);
  EXPECT_EQ(g.dk.data[1], 0.0f);
  EXPECT_EQ(g.dk.data[3], 0.0f);
  EXPECT_FLOAT_EQ(g.dv.data[0], e / (e + 1));
  EXPECT_FLOAT_EQ(g.dv.data[1], 1 / (e + 1));
}

TEST(BackwardHand, RoundingHooks) {
  // TwoKeys with P = [0.731, 0.269] and dS = [-0.393, 0.393] rounded down to
  // quarters on their way into the products: dv = round(P) dO, dq and dk
  // from round(dS); D stays exact, so dS itself is unchanged before it.
  const double e = std::exp(1.0);
  Case c;
  c.b = 1, c.hq = 1, c.hkv = 1, c.sq = 1, c.sk = 2, c.d = 2, c.dv = 1;
  c.scale = 1.0;
  std::mt19937 rng(1);
  Problem pr(c, rng);
  pr.q.data = {1, 0}, pr.k.data = {1, 0, 0, 1}, pr.v.data = {2, 4};
  pr.dO.data = {1};
  auto quarters = [](double x) { return std::floor(x * 4) / 4; };
  pr.p.roundWeight = quarters;
  pr.p.roundScoreGrad = quarters;
  Grads g = backward(pr);
  EXPECT_EQ(g.dv.data, (std::vector<float>{0.5f, 0.25f}));
  EXPECT_EQ(g.dq.data, (std::vector<float>{-0.5f, 0.25f}));
  EXPECT_EQ(g.dk.data, (std::vector<float>{-0.5f, 0.0f, 0.25f, 0.0f}));

  // D from O = (2e + 4) / (e + 1) = 2.54 rounded down to 2.5: dS = P (dP -
  // 2.5) with dP = v = [2, 4]; P itself is exact.
  pr.p.roundWeight = pr.p.roundScoreGrad = nullptr;
  pr.p.roundOutput = quarters;
  g = backward(pr);
  EXPECT_FLOAT_EQ(g.dq.data[0], e / (e + 1) * (2 - 2.5));
  EXPECT_FLOAT_EQ(g.dq.data[1], 1 / (e + 1) * (4 - 2.5));
  EXPECT_FLOAT_EQ(g.dv.data[0], e / (e + 1));

  // Identity hooks change nothing.
  Problem plain(c, rng);
  Grads want = backward(plain);
  plain.p.roundWeight = plain.p.roundScoreGrad = plain.p.roundOutput =
      [](double x) { return x; };
  Grads got = backward(plain);
  EXPECT_EQ(got.dq.data, want.dq.data);
  EXPECT_EQ(got.dk.data, want.dk.data);
  EXPECT_EQ(got.dv.data, want.dv.data);
}

//===----------------------------------------------------------------------===//
// Finite differences: masks and layouts.
//===----------------------------------------------------------------------===//

TEST(BackwardNumeric, Plain) { checkCase({}); }

TEST(BackwardNumeric, LargeLogits) {
  // Scores span tens: a peaked softmax, sensitive to how P is normalized.
  Case c;
  c.scale = 1.0, c.amp = 2.0;
  checkCase(c);
}

TEST(BackwardNumeric, CausalSquare) {
  Case c;
  c.sq = 5, c.sk = 5, c.causal = true;
  checkCase(c);
}

TEST(BackwardNumeric, CausalSqLessThanSk) {
  Case c;
  c.sq = 3, c.sk = 7, c.causal = true;
  checkCase(c);
}

TEST(BackwardNumeric, CausalSqGreaterThanSk) {
  // Bottom-right: rows 0..3 precede key 0, so they see nothing and get dq = 0.
  Case c;
  c.sq = 7, c.sk = 3, c.causal = true;
  Grads g = checkCase(c);
  EXPECT_TRUE(rowsZero(g.dq, 0, 4));
  EXPECT_FALSE(rowsZero(g.dq, 4, 7));
}

TEST(BackwardNumeric, WindowLeftLeavesKeysUnseen) {
  // Sq = 2, Sk = 7, window [-1, 0]: rows see keys {4, 5} and {5, 6}, so
  // keys 0..3 get dk = dv = 0.
  Case c;
  c.sq = 2, c.sk = 7, c.windowLeft = 1, c.windowRight = 0;
  Grads g = checkCase(c);
  EXPECT_TRUE(rowsZero(g.dk, 0, 4));
  EXPECT_TRUE(rowsZero(g.dv, 0, 4));
  EXPECT_FALSE(rowsZero(g.dv, 4, 7));
}

TEST(BackwardNumeric, WindowBoth) {
  Case c;
  c.sq = 6, c.sk = 6, c.windowLeft = 2, c.windowRight = 1;
  checkCase(c);
}

TEST(BackwardNumeric, WindowWithCausal) {
  Case c;
  c.sq = 4, c.sk = 7, c.causal = true, c.windowLeft = 2;
  checkCase(c);
}

TEST(BackwardNumeric, Gqa) {
  Case c;
  c.hq = 4, c.hkv = 2, c.causal = true;
  checkCase(c);
}

TEST(BackwardNumeric, Mqa) {
  Case c;
  c.hq = 4, c.hkv = 1;
  checkCase(c);
}

TEST(BackwardNumeric, HeadDimVDiffers) {
  Case c;
  c.d = 5, c.dv = 3, c.causal = true;
  checkCase(c);
}

/// `t`'s logical contents stored with the other layout.
Buf relayout(Buf &t) {
  Buf r(t.shape, !t.bshd);
  for (int64_t i0 = 0; i0 < t.shape[0]; ++i0)
    for (int64_t i1 = 0; i1 < t.shape[1]; ++i1)
      for (int64_t i2 = 0; i2 < t.shape[2]; ++i2)
        for (int64_t i3 = 0; i3 < t.shape[3]; ++i3)
          r(i0, i1, i2, i3) = t(i0, i1, i2, i3);
  return r;
}

TEST(BackwardNumeric, BshdMatchesBhsd) {
  // Strides only change addressing: the same gradients, bit for bit.
  Case c;
  c.hq = 4, c.hkv = 2, c.d = 3, c.dv = 5, c.causal = true;
  std::mt19937 rng(9);
  Problem dense(c, rng);
  Problem strided(c, rng);
  strided.q = relayout(dense.q), strided.k = relayout(dense.k);
  strided.v = relayout(dense.v), strided.dO = relayout(dense.dO);
  Grads gs = checkGradients(strided);
  Grads gd = backward(dense);
  EXPECT_EQ(relayout(gs.dq).data, gd.dq.data);
  EXPECT_EQ(relayout(gs.dk).data, gd.dk.data);
  EXPECT_EQ(relayout(gs.dv).data, gd.dv.data);
}

TEST(BackwardNumeric, Varlen) {
  // (Sq_b, Sk_b) with an empty query sequence, an empty key sequence, Sq > Sk
  // and a padding row at the end of both packs (its gradients must be 0).
  const std::vector<int32_t> cuQ = {0, 3, 3, 7, 10, 12};
  const std::vector<int32_t> cuK = {0, 5, 9, 13, 15, 15};
  for (bool causal : {false, true}) {
    SCOPED_TRACE(causal);
    Case c;
    c.b = 5, c.hq = 4, c.hkv = 2, c.sq = 13, c.sk = 16, c.d = 3, c.dv = 2;
    c.causal = causal, c.cuQ = cuQ.data(), c.cuK = cuK.data();
    Grads g = checkCase(c);
    EXPECT_TRUE(rowsZero(g.dq, 10, 13)); // Sk = 0, then padding.
    EXPECT_TRUE(rowsZero(g.dk, 5, 9));   // Sq = 0: no row sees these.
    EXPECT_TRUE(rowsZero(g.dv, 5, 9));
    EXPECT_TRUE(rowsZero(g.dk, 15, 16));
    EXPECT_TRUE(rowsZero(g.dv, 15, 16));
  }
}

//===----------------------------------------------------------------------===//
// Finite differences: score modifications.
//===----------------------------------------------------------------------===//

TEST(BackwardNumeric, Softcap) {
  // Scores up to ~8 against a cap of 2: tanh is well into its bend.
  Case c;
  c.scale = 1.0, c.amp = 1.5, c.softcap = 2.0, c.causal = true;
  checkCase(c);
}

TEST(BackwardNumeric, AlibiPerHead) {
  Case c;
  c.alibi = Alibi::PerHead;
  checkCase(c);
}

TEST(BackwardNumeric, AlibiPerBatchWithCausalAndSoftcap) {
  Case c;
  c.sq = 5, c.sk = 8, c.alibi = Alibi::PerBatch, c.causal = true;
  c.softcap = 1.5, c.scale = 1.0;
  checkCase(c);
}

/// Runs a case with a score_mod and its derivative.
using ScoreFn =
    std::function<double(double s, int64_t b, int64_t h, int64_t i, int64_t j)>;
Grads checkScoreMod(Case c, ScoreFn mod, ScoreFn grad) {
  std::mt19937 rng(11);
  Problem pr(c, rng);
  pr.p.scoreMod = std::move(mod);
  pr.p.scoreModGrad = std::move(grad);
  return checkGradients(pr);
}

TEST(BackwardNumeric, ScoreModRelativeBias) {
  // d/ds = 1, but the bias depends on (b, h, i, j).
  Case c;
  c.causal = true, c.hq = 4, c.hkv = 2;
  checkScoreMod(
      c,
      [](double s, int64_t b, int64_t h, int64_t i, int64_t j) {
        return s + 0.3 * double(i - j) + 0.1 * double(h) - 0.2 * double(b);
      },
      [](double, int64_t, int64_t, int64_t, int64_t) { return 1.0; });
}

TEST(BackwardNumeric, ScoreModSquare) {
  Case c;
  checkScoreMod(
      c,
      [](double s, int64_t, int64_t h, int64_t, int64_t) {
        return 0.5 * (double(h) + 1) * s * s;
      },
      [](double s, int64_t, int64_t h, int64_t, int64_t) {
        return (double(h) + 1) * s;
      });
}

TEST(BackwardNumeric, ScoreModTanhAfterSoftcapAndAlibi) {
  // The derivative chains through all three: score_mod' * softcap'.
  Case c;
  c.scale = 1.0, c.softcap = 3.0, c.alibi = Alibi::PerHead, c.causal = true;
  checkScoreMod(
      c,
      [](double s, int64_t, int64_t, int64_t i, int64_t) {
        return 2.0 * std::tanh(s) + 0.1 * double(i);
      },
      [](double s, int64_t, int64_t, int64_t, int64_t) {
        const double t = std::tanh(s);
        return 2.0 * (1.0 - t * t);
      });
}

TEST(BackwardNumeric, ScoreModNegInfHidesKeys) {
  // A -inf score hides the key: no gradient flows to or through it, and
  // scoreModGrad (NaN here) is not applied to it.
  Case c;
  c.sq = 5, c.sk = 5;
  Grads g = checkScoreMod(
      c,
      [](double s, int64_t, int64_t, int64_t i, int64_t j) {
        return (i + j) % 3 == 0 || j == 4 ? -kInf : s;
      },
      [](double, int64_t, int64_t, int64_t i, int64_t j) {
        return (i + j) % 3 == 0 || j == 4 ? std::nan("") : 1.0;
      });
  EXPECT_TRUE(rowsZero(g.dk, 4, 5)); // No row sees key 4.
  EXPECT_TRUE(rowsZero(g.dv, 4, 5));
}

TEST(BackwardNumeric, MaskModDocument) {
  // A causal document mask (documents [0, 3), [3, 5), [5, 8)), and row 6
  // hidden from every key: it sees nothing and gets dq = 0.
  const std::vector<int> doc = {0, 0, 0, 1, 1, 2, 2, 2};
  Case c;
  c.sq = 8, c.sk = 8, c.causal = true;
  std::mt19937 rng(5);
  Problem pr(c, rng);
  pr.p.maskMod = [&](int64_t, int64_t, int64_t i, int64_t j) {
    return doc[i] == doc[j] && i != 6;
  };
  Grads g = checkGradients(pr);
  EXPECT_TRUE(rowsZero(g.dq, 6, 7));
}

//===----------------------------------------------------------------------===//
// Refused and invalid parameters.
//===----------------------------------------------------------------------===//

TEST(BackwardErrors, RefusedAndInvalidParamsWriteNothing) {
  Case c;
  c.hq = 4, c.hkv = 2, c.sq = 3, c.sk = 5;
  std::mt19937 rng(3);
  Problem pr(c, rng);
  Buf dq(pr.q.shape, false, 42.0f), dk(pr.k.shape, false, 42.0f),
      dv(pr.v.shape, false, 42.0f);
  auto run = [&](const AttentionParams &p, View4 q, View4 dO, MutView4 dqOut) {
    return attentionBackward(p, q, pr.k.view(), pr.v.view(), dO, dqOut,
                             dk.mut(), dv.mut());
  };
  const AttentionParams &base = pr.p;

  std::vector<int32_t> lens = {5, 5}, table = {0, 1, 2, 3};
  std::vector<int32_t> cuBad = {0, 2, 1}, cuOk = {0, 1, 3};
  std::vector<std::pair<const char *, AttentionParams>> bad;
  auto add = [&](const char *what, auto mutate) {
    AttentionParams p = base;
    mutate(p);
    bad.push_back({what, p});
  };
  // Refused by the backward though the forward accepts them.
  add("kvLens", [&](auto &p) { p.kvLens = lens.data(); });
  add("blockTable", [&](auto &p) {
    p.blockTable = table.data(), p.pageSize = 5, p.pagesPerSeq = 2;
    p.numPages = 4;
  });
  auto identity = [](double s, int64_t, int64_t, int64_t, int64_t) {
    return s;
  };
  add("scoreMod without scoreModGrad", [&](auto &p) { p.scoreMod = identity; });
  add("scoreModGrad without scoreMod",
      [&](auto &p) { p.scoreModGrad = identity; });
  // Invalid for the forward too.
  add("batch 0", [](auto &p) { p.batch = 0; });
  add("headDimV 0", [](auto &p) { p.headDimV = 0; });
  add("Hq % Hkv", [](auto &p) { p.headsKV = 3; });
  add("scale 0", [](auto &p) { p.scale = 0; });
  add("scale NaN", [](auto &p) { p.scale = std::nan(""); });
  add("softcap < 0", [](auto &p) { p.softcap = -1; });
  add("windowLeft -2", [](auto &p) { p.windowLeft = -2; });
  add("cuQ only", [&](auto &p) { p.cuSeqlensQ = cuOk.data(); });
  add("cuQ decreasing", [&](auto &p) {
    p.cuSeqlensQ = cuBad.data(), p.cuSeqlensK = cuOk.data();
  });
  add("paging sizes without table", [](auto &p) { p.pageSize = 4; });

  for (auto &[what, p] : bad)
    EXPECT_NE(run(p, pr.q.view(), pr.dO.view(), dq.mut()), "") << what;
  const Strides4 st = pr.q.view().strides;
  EXPECT_NE(run(base, {nullptr, st}, pr.dO.view(), dq.mut()), "");
  EXPECT_NE(run(base, pr.q.view(), {nullptr, st}, dq.mut()), "");
  EXPECT_NE(run(base, pr.q.view(), pr.dO.view(), {nullptr, st}), "");
  EXPECT_NE(attentionBackward(base, pr.q.view(), {nullptr, st}, pr.v.view(),
                              pr.dO.view(), dq.mut(), dk.mut(), dv.mut()),
            "");
  EXPECT_NE(attentionBackward(base, pr.q.view(), pr.k.view(), {nullptr, st},
                              pr.dO.view(), dq.mut(), dk.mut(), dv.mut()),
            "");
  EXPECT_NE(attentionBackward(base, pr.q.view(), pr.k.view(), pr.v.view(),
                              pr.dO.view(), dq.mut(), {nullptr, st}, dv.mut()),
            "");
  EXPECT_NE(attentionBackward(base, pr.q.view(), pr.k.view(), pr.v.view(),
                              pr.dO.view(), dq.mut(), dk.mut(), {nullptr, st}),
            "");
  auto untouched = [](const Buf &t) {
    return std::all_of(t.data.begin(), t.data.end(),
                       [](float x) { return x == 42.0f; });
  };
  EXPECT_TRUE(untouched(dq));
  EXPECT_TRUE(untouched(dk));
  EXPECT_TRUE(untouched(dv));

  // The base parameters are valid, and then everything is written.
  EXPECT_EQ(run(base, pr.q.view(), pr.dO.view(), dq.mut()), "");
  EXPECT_FALSE(untouched(dq));
  EXPECT_FALSE(untouched(dk));
  EXPECT_FALSE(untouched(dv));
}

} // namespace
