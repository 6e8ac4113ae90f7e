//===- Reference.cpp - Reference attention implementation -------*- C++ -*-===//
//
// Straightforward per-row attention accumulated in double. Each query row is
// processed independently: the visible keys form one contiguous interval
// (causal and window bounds are all linear in the row index), so the mask is
// reduced to [lo, hi] and a two-pass softmax runs over it. The backward
// recomputes each row's softmax the same way and applies the textbook
// gradients (FlashAttention-2's D = rowsum(dO * O) form), accumulating dK and
// dV over rows and heads in double; optional hooks round P and dS on their
// way into the products and the O that D is taken from, as a kernel in
// bf16/f16 does. Parameters are
// validated up front so that bad input yields a message, never a crash.
//
//===----------------------------------------------------------------------===//

#include "flash/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

using namespace flash::ref;

namespace {

int64_t seqLenQ(const AttentionParams &p, int64_t b) {
  return p.cuSeqlensQ ? p.cuSeqlensQ[b + 1] - p.cuSeqlensQ[b] : p.seqQ;
}

/// Keys stored for sequence b, before kvLens trims them.
int64_t keyCapacity(const AttentionParams &p, int64_t b) {
  return p.cuSeqlensK ? p.cuSeqlensK[b + 1] - p.cuSeqlensK[b] : p.seqK;
}

int64_t seqLenK(const AttentionParams &p, int64_t b) {
  return p.kvLens ? p.kvLens[b] : keyCapacity(p, b);
}

std::string checkCuSeqlens(const int32_t *cu, int64_t batch, int64_t rows,
                           const char *name) {
  if (cu[0] < 0)
    return std::string(name) + "[0] is negative";
  for (int64_t b = 0; b < batch; ++b)
    if (cu[b + 1] < cu[b])
      return std::string(name) + " is not non-decreasing";
  if (cu[batch] > rows)
    return std::string(name) + "[batch] exceeds the packed row count";
  return "";
}

/// Checks everything but the data pointers, which the callers check.
std::string validate(const AttentionParams &p) {
  if (p.batch <= 0 || p.headsQ <= 0 || p.headsKV <= 0 || p.seqQ <= 0 ||
      p.seqK <= 0 || p.headDim <= 0 || p.headDimV <= 0)
    return "sizes must be positive";
  if (p.headsQ % p.headsKV != 0)
    return "headsQ must be a multiple of headsKV";
  if (!(p.scale > 0.0) || !std::isfinite(p.scale))
    return "scale must be finite and > 0";
  if (!(p.softcap >= 0.0) || !std::isfinite(p.softcap))
    return "softcap must be finite and >= 0";
  if (p.windowLeft < -1 || p.windowRight < -1)
    return "window sizes must be >= -1";
  if (!p.cuSeqlensQ != !p.cuSeqlensK)
    return "cuSeqlensQ and cuSeqlensK must be set together";
  if (p.cuSeqlensQ) {
    std::string err = checkCuSeqlens(p.cuSeqlensQ, p.batch, p.seqQ, "cuQ");
    if (err.empty())
      err = checkCuSeqlens(p.cuSeqlensK, p.batch, p.seqK, "cuK");
    if (!err.empty())
      return err;
  }
  for (int64_t b = 0; p.kvLens && b < p.batch; ++b)
    if (p.kvLens[b] < 0 || p.kvLens[b] > keyCapacity(p, b))
      return "kvLens[" + std::to_string(b) + "] out of range";
  if (!p.blockTable) {
    if (p.pageSize || p.pagesPerSeq || p.numPages)
      return "paging sizes given without a blockTable";
    return "";
  }
  if (p.pageSize <= 0 || p.pagesPerSeq <= 0 || p.numPages <= 0)
    return "paged KV needs positive pageSize, pagesPerSeq and numPages";
  for (int64_t b = 0; b < p.batch; ++b) {
    int64_t len = seqLenK(p, b);
    if (len > p.pagesPerSeq * p.pageSize)
      return "KV length exceeds pagesPerSeq * pageSize";
    // Only the pages actually reached are read, so only those must be valid.
    for (int64_t pg = 0; pg * p.pageSize < len; ++pg) {
      int32_t page = p.blockTable[b * p.pagesPerSeq + pg];
      if (page < 0 || page >= p.numPages)
        return "blockTable entry out of range";
    }
  }
  return "";
}

/// The inclusive interval [lo, hi] of keys that the causal and window masks
/// leave visible to row i (empty if lo > hi): every bound is linear in i, so
/// the visible keys are contiguous.
std::pair<int64_t, int64_t> visibleKeys(const AttentionParams &p, int64_t sq,
                                        int64_t sk, int64_t i) {
  const int64_t diag = i + sk - sq;
  int64_t lo = 0, hi = sk - 1;
  if (p.causal)
    hi = std::min(hi, diag);
  // Clamping windows to sq + sk (beyond which they mask nothing) keeps huge
  // values from overflowing.
  if (p.windowRight >= 0)
    hi = std::min(hi, diag + std::min(p.windowRight, sq + sk));
  if (p.windowLeft >= 0)
    lo = std::max(lo, diag - std::min(p.windowLeft, sq + sk));
  return {lo, hi};
}

/// The score of key j in row i (diagonal `diag`) from x = scale * (q . k):
/// softcap, then ALiBi, then scoreMod. If `grad` is non-null it receives
/// d score / d x, which is only meaningful where the score is finite.
double modScore(const AttentionParams &p, double x, double slope, int64_t b,
                int64_t h, int64_t i, int64_t j, int64_t diag,
                double *grad = nullptr) {
  double s = x, g = 1.0;
  if (p.softcap > 0.0) {
    double t = std::tanh(s / p.softcap);
    s = p.softcap * t;
    g = 1.0 - t * t;
  }
  s -= slope * double(std::abs(diag - j));
  if (p.scoreMod) {
    double mod = p.scoreMod(s, b, h, i, j);
    if (grad && mod != -std::numeric_limits<double>::infinity())
      g *= p.scoreModGrad(s, b, h, i, j);
    s = mod;
  }
  if (grad)
    *grad = g;
  return s;
}

double alibiSlope(const AttentionParams &p, int64_t b, int64_t h) {
  if (!p.alibiSlopes)
    return 0.0;
  return p.alibiSlopes[p.alibiPerBatch ? b * p.headsQ + h : h];
}

} // namespace

std::string flash::ref::attention(const AttentionParams &p, View4 q, View4 k,
                                  View4 v, MutView4 out, float *lse) {
  if (!q.data || !k.data || !v.data || !out.data)
    return "null Q/K/V/O data pointer";
  std::string err = validate(p);
  if (!err.empty())
    return err;

  const bool varlen = p.cuSeqlensQ != nullptr;
  const int64_t group = p.headsQ / p.headsKV;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> scores, acc(p.headDimV);

  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t sq = seqLenQ(p, b), sk = seqLenK(p, b);
    const int64_t offset = sk - sq;
    const int64_t qBatch = varlen ? 0 : b;
    const int64_t qRow0 = varlen ? p.cuSeqlensQ[b] : 0;

    // Maps logical key j of this sequence to its (outer, row) storage index.
    auto keyLoc = [&](int64_t j, int64_t &outer, int64_t &row) {
      if (p.blockTable) {
        outer = p.blockTable[b * p.pagesPerSeq + j / p.pageSize];
        row = j % p.pageSize;
      } else {
        outer = varlen ? 0 : b;
        row = varlen ? p.cuSeqlensK[b] + j : j;
      }
    };

    for (int64_t h = 0; h < p.headsQ; ++h) {
      const int64_t hk = h / group;
      const double slope = alibiSlope(p, b, h);

      for (int64_t i = 0; i < sq; ++i) {
        const int64_t qRow = qRow0 + i, diag = i + offset;
        const auto [lo, hi] = visibleKeys(p, sq, sk, i);

        float *lseOut =
            lse ? &lse[(qBatch * p.headsQ + h) * p.seqQ + qRow] : nullptr;
        if (lo > hi) {
          // No visible key: define the row as 0 / -inf instead of 0/0.
          for (int64_t d = 0; d < p.headDimV; ++d)
            out.at(qBatch, h, qRow, d) = 0.0f;
          if (lseOut)
            *lseOut = -std::numeric_limits<float>::infinity();
          continue;
        }

        scores.assign(hi - lo + 1, 0.0);
        double m = -inf;
        for (int64_t j = lo; j <= hi; ++j) {
          // A key mask_mod hides, or whose score_mod is -inf, gets weight 0.
          if (p.maskMod && !p.maskMod(b, h, i, j)) {
            scores[j - lo] = -inf;
            continue;
          }
          int64_t outer, row;
          keyLoc(j, outer, row);
          double s = 0.0;
          for (int64_t d = 0; d < p.headDim; ++d)
            s += double(q.at(qBatch, h, qRow, d)) *
                 double(k.at(outer, hk, row, d));
          s = modScore(p, s * p.scale, slope, b, h, i, j, diag);
          scores[j - lo] = s;
          m = std::max(m, s);
        }

        if (m == -inf) {
          // Every key masked by mask_mod or score_mod: as lo > hi above.
          for (int64_t d = 0; d < p.headDimV; ++d)
            out.at(qBatch, h, qRow, d) = 0.0f;
          if (lseOut)
            *lseOut = -std::numeric_limits<float>::infinity();
          continue;
        }
        double l = 0.0;
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int64_t j = lo; j <= hi; ++j) {
          if (scores[j - lo] == -inf)
            continue; // Never read a masked key's V (it may be NaN).
          int64_t outer, row;
          keyLoc(j, outer, row);
          double e = std::exp(scores[j - lo] - m);
          l += e;
          double w = p.roundWeight ? p.roundWeight(e) : e;
          for (int64_t d = 0; d < p.headDimV; ++d)
            acc[d] += w * double(v.at(outer, hk, row, d));
        }
        for (int64_t d = 0; d < p.headDimV; ++d)
          out.at(qBatch, h, qRow, d) = float(acc[d] / l);
        if (lseOut)
          *lseOut = float(m + std::log(l));
      }
    }
  }
  return "";
}

std::string flash::ref::attentionBackward(const AttentionParams &p, View4 q,
                                          View4 k, View4 v, View4 dOut,
                                          MutView4 dq, MutView4 dk,
                                          MutView4 dv) {
  if (!q.data || !k.data || !v.data || !dOut.data || !dq.data || !dk.data ||
      !dv.data)
    return "null Q/K/V/dO/dQ/dK/dV data pointer";
  // Training packs sequences with cuSeqlens; a KV cache has no gradient.
  if (p.kvLens)
    return "the backward does not support kvLens (use cuSeqlens)";
  if (p.blockTable)
    return "the backward does not support paged KV (blockTable)";
  if (p.scoreMod && !p.scoreModGrad)
    return "the backward needs scoreModGrad (d scoreMod / d s) with scoreMod";
  if (p.scoreModGrad && !p.scoreMod)
    return "scoreModGrad is set without scoreMod";
  std::string err = validate(p);
  if (!err.empty())
    return err;

  const bool varlen = p.cuSeqlensQ != nullptr;
  const int64_t group = p.headsQ / p.headsKV;
  const int64_t nb = varlen ? 1 : p.batch; // Storage batch.
  const int64_t d = p.headDim, dvDim = p.headDimV;
  const double inf = std::numeric_limits<double>::infinity();

  // dK and dV gather contributions from many rows and heads: accumulate them
  // in double, [nb, Hkv, seqK, D] and [nb, Hkv, seqK, Dv] row-major.
  std::vector<double> dkAcc(nb * p.headsKV * p.seqK * d, 0.0);
  std::vector<double> dvAcc(nb * p.headsKV * p.seqK * dvDim, 0.0);
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t h = 0; h < p.headsQ; ++h)
      for (int64_t i = 0; i < p.seqQ; ++i)
        for (int64_t x = 0; x < d; ++x)
          dq.at(b, h, i, x) = 0.0f; // Padding rows and rows with no key.

  // Per row, over its visible interval: s_j, f'(x_j), P_j and dP_j.
  std::vector<double> scores, fprime, probs, dprobs, dqAcc(d), oRow(dvDim);
  for (int64_t b = 0; b < p.batch; ++b) {
    const int64_t sq = seqLenQ(p, b), sk = seqLenK(p, b);
    const int64_t sb = varlen ? 0 : b; // Storage batch of Q, K, V and grads.
    const int64_t qRow0 = varlen ? p.cuSeqlensQ[b] : 0;
    const int64_t kRow0 = varlen ? p.cuSeqlensK[b] : 0;

    for (int64_t h = 0; h < p.headsQ; ++h) {
      const int64_t hk = h / group;
      const double slope = alibiSlope(p, b, h);
      auto kvIndex = [&](int64_t j, int64_t c, int64_t dim) {
        return ((sb * p.headsKV + hk) * p.seqK + kRow0 + j) * dim + c;
      };

      for (int64_t i = 0; i < sq; ++i) {
        const int64_t qRow = qRow0 + i, diag = i + sk - sq;
        const auto [lo, hi] = visibleKeys(p, sq, sk, i);
        if (lo > hi)
          continue;

        // Recompute the forward's scores and, alongside, d s_j / d x_j.
        const int64_t n = hi - lo + 1;
        scores.assign(n, -inf), fprime.assign(n, 0.0);
        probs.assign(n, 0.0), dprobs.assign(n, 0.0);
        double m = -inf;
        for (int64_t j = lo; j <= hi; ++j) {
          if (p.maskMod && !p.maskMod(b, h, i, j))
            continue;
          double x = 0.0;
          for (int64_t c = 0; c < d; ++c)
            x += double(q.at(sb, h, qRow, c)) *
                 double(k.at(sb, hk, kRow0 + j, c));
          scores[j - lo] = modScore(p, x * p.scale, slope, b, h, i, j, diag,
                                    &fprime[j - lo]);
          m = std::max(m, scores[j - lo]);
        }
        if (m == -inf)
          continue; // The row sees no key: its O is the constant 0.

        // P_j = exp(s_j - m) / l = exp(s_j - LSE), dP_j = dO . v_j, and
        // D = sum_j P_j dP_j (= dO . O). Hidden keys keep P_j = dP_j = 0 and
        // their K/V are never read (they may be NaN).
        double l = 0.0;
        for (int64_t j = 0; j < n; ++j)
          if (scores[j] != -inf)
            l += probs[j] = std::exp(scores[j] - m);
        double dsum = 0.0;
        if (p.roundOutput)
          std::fill(oRow.begin(), oRow.end(), 0.0);
        for (int64_t j = lo; j <= hi; ++j) {
          if (scores[j - lo] == -inf)
            continue;
          const double pj = probs[j - lo] /= l;
          const double pv = p.roundWeight ? p.roundWeight(pj) : pj;
          double dp = 0.0;
          for (int64_t c = 0; c < dvDim; ++c) {
            const double dO = dOut.at(sb, h, qRow, c);
            const double vc = v.at(sb, hk, kRow0 + j, c);
            dp += dO * vc;
            dvAcc[kvIndex(j, c, dvDim)] += pv * dO;
            if (p.roundOutput)
              oRow[c] += pj * vc;
          }
          dprobs[j - lo] = dp;
          dsum += pj * dp;
        }
        // D = dO . O with O as stored (rounded), instead of sum_j P_j dP_j.
        if (p.roundOutput) {
          dsum = 0.0;
          for (int64_t c = 0; c < dvDim; ++c)
            dsum += double(dOut.at(sb, h, qRow, c)) * p.roundOutput(oRow[c]);
        }

        // dS_j = P_j (dP_j - D), back through f' and the scale into dq, dk.
        std::fill(dqAcc.begin(), dqAcc.end(), 0.0);
        for (int64_t j = lo; j <= hi; ++j) {
          if (scores[j - lo] == -inf)
            continue;
          double ds = probs[j - lo] * (dprobs[j - lo] - dsum) * fprime[j - lo];
          if (p.roundScoreGrad)
            ds = p.roundScoreGrad(ds);
          const double dx = ds * p.scale;
          for (int64_t c = 0; c < d; ++c) {
            dqAcc[c] += dx * double(k.at(sb, hk, kRow0 + j, c));
            dkAcc[kvIndex(j, c, d)] += dx * double(q.at(sb, h, qRow, c));
          }
        }
        for (int64_t c = 0; c < d; ++c)
          dq.at(sb, h, qRow, c) = float(dqAcc[c]);
      }
    }
  }

  for (int64_t b = 0; b < nb; ++b)
    for (int64_t h = 0; h < p.headsKV; ++h)
      for (int64_t j = 0; j < p.seqK; ++j) {
        for (int64_t c = 0; c < d; ++c)
          dk.at(b, h, j, c) =
              float(dkAcc[((b * p.headsKV + h) * p.seqK + j) * d + c]);
        for (int64_t c = 0; c < dvDim; ++c)
          dv.at(b, h, j, c) =
              float(dvAcc[((b * p.headsKV + h) * p.seqK + j) * dvDim + c]);
      }
  return "";
}

Strides4 flash::ref::contiguousStrides(const Shape4 &shape) {
  return {shape[1] * shape[2] * shape[3], shape[2] * shape[3], shape[3], 1};
}

Strides4 flash::ref::bshdStrides(const Shape4 &shape) {
  // Storage [B, S, H, D]: heads are D apart, sequence steps H * D apart.
  return {shape[1] * shape[2] * shape[3], shape[3], shape[1] * shape[3], 1};
}

flash::ref::Diff flash::ref::compare(View4 got, View4 want,
                                     const Shape4 &shape) {
  Diff diff;
  for (int64_t i0 = 0; i0 < shape[0]; ++i0)
    for (int64_t i1 = 0; i1 < shape[1]; ++i1)
      for (int64_t i2 = 0; i2 < shape[2]; ++i2)
        for (int64_t i3 = 0; i3 < shape[3]; ++i3) {
          float g = got.at(i0, i1, i2, i3), w = want.at(i0, i1, i2, i3);
          double err = g == w ? 0.0 : std::fabs(double(g) - double(w));
          diff.nans += std::isnan(g);
          if (std::isnan(err))
            err = std::numeric_limits<double>::infinity();
          diff.maxErr = std::max(diff.maxErr, err);
        }
  return diff;
}

double flash::ref::maxAbsDiff(View4 a, View4 b, const Shape4 &shape) {
  return compare(a, b, shape).maxErr;
}

std::vector<int32_t> flash::ref::drawKvLens(std::mt19937 &rng, int64_t batch,
                                            int64_t sk) {
  std::uniform_int_distribution<int64_t> lenDist(0, sk);
  std::vector<int32_t> lens;
  for (int64_t b = 0; b < batch; ++b) {
    int64_t len = b == 0                ? sk
                  : b == 1 && batch > 2 ? 0
                  : b == 2 && batch > 3 ? 1
                                        : lenDist(rng);
    lens.push_back(int32_t(len));
  }
  return lens;
}

std::vector<int32_t> flash::ref::drawPageTable(std::mt19937 &rng,
                                               int64_t numPages, int64_t used) {
  std::vector<int32_t> ids(numPages);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.resize(used);
  return ids;
}
