//===- Reference.cpp - Reference attention implementation -------*- C++ -*-===//
//
// Straightforward per-row attention accumulated in double. Each query row is
// processed independently: the visible keys form one contiguous interval
// (causal and window bounds are all linear in the row index), so the mask is
// reduced to [lo, hi] and a two-pass softmax runs over it. Parameters are
// validated up front so that bad input yields a message, never a crash.
//
//===----------------------------------------------------------------------===//

#include "flash/Reference/Reference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
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

std::string validate(const AttentionParams &p, View4 q, View4 k, View4 v,
                     MutView4 out) {
  if (!q.data || !k.data || !v.data || !out.data)
    return "null Q/K/V/O data pointer";
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

} // namespace

std::string flash::ref::attention(const AttentionParams &p, View4 q, View4 k,
                                  View4 v, MutView4 out, float *lse) {
  std::string err = validate(p, q, k, v, out);
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
      double slope = 0.0;
      if (p.alibiSlopes)
        slope = p.alibiSlopes[p.alibiPerBatch ? b * p.headsQ + h : h];

      for (int64_t i = 0; i < sq; ++i) {
        const int64_t qRow = qRow0 + i, diag = i + offset;
        int64_t lo = 0, hi = sk - 1; // Inclusive interval of visible keys.
        if (p.causal)
          hi = std::min(hi, diag);
        // Clamping windows to sq + sk (beyond which they mask nothing)
        // keeps huge values from overflowing.
        if (p.windowRight >= 0)
          hi = std::min(hi, diag + std::min(p.windowRight, sq + sk));
        if (p.windowLeft >= 0)
          lo = std::max(lo, diag - std::min(p.windowLeft, sq + sk));

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
          s *= p.scale;
          if (p.softcap > 0.0)
            s = p.softcap * std::tanh(s / p.softcap);
          s -= slope * double(std::abs(diag - j));
          if (p.scoreMod)
            s = p.scoreMod(s, b, h, i, j);
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
                                               int64_t numPages,
                                               int64_t used) {
  std::vector<int32_t> ids(numPages);
  std::iota(ids.begin(), ids.end(), 0);
  std::shuffle(ids.begin(), ids.end(), rng);
  ids.resize(used);
  return ids;
}
