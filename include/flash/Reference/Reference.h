//===- Reference.h - Reference attention implementation ---------*- C++ -*-===//
//
// A deliberately simple, double-accumulating implementation of scaled
// dot-product attention with the FlashAttention-2 feature set (causal and
// sliding-window masks, GQA/MQA, softcap, ALiBi, KV-cache lengths, paged KV,
// variable-length batches), and of its backward pass (the analytic gradients
// with respect to Q, K and V). It is the ground truth that CPU- and
// GPU-compiled kernels are checked against, so it favours obviousness over
// speed and has no MLIR/LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_REFERENCE_REFERENCE_H
#define FLASH_REFERENCE_REFERENCE_H

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace flash::ref {

using Strides4 = std::array<int64_t, 4>;
using Shape4 = std::array<int64_t, 4>;

/// A read-only 4-D view in logical order [batch, heads, seq, dim] with element
/// strides, so FA2's [batch, seq, heads, dim] storage is just other strides.
struct View4 {
  const float *data = nullptr;
  Strides4 strides = {0, 0, 0, 0};

  float at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return data[b * strides[0] + h * strides[1] + s * strides[2] +
                d * strides[3]];
  }
};

/// Mutable counterpart of View4.
struct MutView4 {
  float *data = nullptr;
  Strides4 strides = {0, 0, 0, 0};

  float &at(int64_t b, int64_t h, int64_t s, int64_t d) const {
    return data[b * strides[0] + h * strides[1] + s * strides[2] +
                d * strides[3]];
  }
  operator View4() const { return {data, strides}; }
};

/// Attention problem description. Semantics, for sequence b, query head h
/// and query row i (0 <= i < Sq_b):
///
///  * Lengths: Sq_b = seqQ, or cuSeqlensQ[b+1] - cuSeqlensQ[b] (varlen).
///    Sk_b = kvLens[b] if kvLens is set, else cuSeqlensK[b+1] - cuSeqlensK[b]
///    (varlen), else seqK. offset = Sk_b - Sq_b.
///  * Query head h reads KV head h / (headsQ / headsKV) (GQA/MQA).
///  * Key j (0 <= j < Sk_b) is visible iff
///      causal           => j <= i + offset  (bottom-right aligned, as in
///                                             FlashAttention >= 2.1)
///      windowLeft >= 0  => j >= i + offset - windowLeft
///      windowRight >= 0 => j <= i + offset + windowRight.
///  * s_j = scale * (q_i . k_j); if softcap > 0, s_j = softcap*tanh(s_j /
///    softcap); then with ALiBi s_j -= slope * |i + offset - j|, where slope
///    is alibiSlopes[h], or alibiSlopes[b * headsQ + h] if alibiPerBatch;
///    then, if set, s_j = scoreMod(s_j, b, h, i, j).
///  * If set, maskMod(b, h, i, j) must also be true for key j to be visible;
///    a key whose score is -infinity is not visible either.
///  * m = max_j s_j, l = sum_j exp(s_j - m), O_i = sum_j exp(s_j - m) v_j / l,
///    LSE_i = m + log(l) (natural log), all over visible keys, in double.
///  * A row that sees no key gets O_i = 0 exactly and LSE_i = -infinity.
///
/// Layouts (logical [batch, heads, seq, dim] views, any strides):
///  * Q [B, Hq, Sq, D], K [B, Hkv, Sk, D], V [B, Hkv, Sk, Dv],
///    O [B, Hq, Sq, Dv], LSE contiguous [B, Hq, Sq] (optional).
///  * Paged KV (blockTable set): K is [numPages, Hkv, pageSize, D] and V
///    [numPages, Hkv, pageSize, Dv]; key j of sequence b lives in page
///    blockTable[b * pagesPerSeq + j / pageSize], slot j % pageSize.
///  * Varlen (cuSeqlensQ and cuSeqlensK set, each batch + 1 entries): Q, O,
///    LSE (and K, V unless paged) have batch dim 1 and seqQ / seqK are the
///    packed row counts; sequence b owns query rows [cuQ[b], cuQ[b+1]) and
///    key rows [cuK[b], cuK[b+1]). With kvLens too, only the first kvLens[b]
///    of those keys are used.
///  * Capacity: kvLens[b] may not exceed seqK (varlen: cuK[b+1] - cuK[b]);
///    with paging, Sk_b may not exceed pagesPerSeq * pageSize.
/// Output rows not owned by any sequence (varlen padding) are left untouched.
struct AttentionParams {
  int64_t batch = 0, headsQ = 0, headsKV = 0, seqQ = 0, seqK = 0;
  int64_t headDim = 0, headDimV = 0;
  /// Multiplies Q.K^T; must be finite and > 0.
  double scale = 0.0;
  bool causal = false;
  /// -1 means unbounded on that side.
  int64_t windowLeft = -1, windowRight = -1;
  /// 0 disables the softcap.
  double softcap = 0.0;
  /// [Hq] or, with alibiPerBatch, [B, Hq]; null disables ALiBi.
  const float *alibiSlopes = nullptr;
  bool alibiPerBatch = false;
  /// [B] used KV length per sequence (KV cache); null means all keys.
  const int32_t *kvLens = nullptr;
  /// [B, pagesPerSeq] row-major page indices into [0, numPages).
  const int32_t *blockTable = nullptr;
  int64_t pageSize = 0, pagesPerSeq = 0, numPages = 0;
  /// [B + 1] cumulative sequence lengths; both set or both null.
  const int32_t *cuSeqlensQ = nullptr, *cuSeqlensK = nullptr;
  /// FlexAttention's score_mod / mask_mod, called only for keys the masks
  /// above leave visible, with (b, h, i, j) in sequence coordinates.
  std::function<double(double s, int64_t b, int64_t h, int64_t i, int64_t j)>
      scoreMod;
  std::function<bool(int64_t b, int64_t h, int64_t i, int64_t j)> maskMod;
  /// d scoreMod(s, b, h, i, j) / d s, for attentionBackward (which refuses a
  /// scoreMod without it), called only where scoreMod's result is not -inf;
  /// the forward ignores it.
  std::function<double(double s, int64_t b, int64_t h, int64_t i, int64_t j)>
      scoreModGrad;
  /// If set, each weight exp(s_j - m) goes through it before it multiplies
  /// v_j (l still sums the exact weights): a kernel's rounding of P to its
  /// dtype, for the error of the same computation in that dtype (FA2's
  /// tolerance rule). attentionBackward rounds P_j with it before P_j
  /// multiplies dOut into dv.
  std::function<double(double)> roundWeight;
  /// attentionBackward only: if set, each dS_j f'(x_j) goes through it
  /// before it multiplies k_j into dq and q_i into dk (the scale follows):
  /// with roundWeight, a backward kernel's rounding of P and dS to its dtype
  /// for its matrix products, FA2's tolerance rule for the gradients. The
  /// forward ignores it.
  std::function<double(double)> roundScoreGrad;
  /// attentionBackward only: if set, D_i = dOut_i . O_i is taken with each
  /// element of O_i = sum_j P_j v_j through it, as a kernel reads D from
  /// the O its forward stored in its dtype (else D = sum_j P_j dP_j, exact).
  /// The forward ignores it.
  std::function<double(double)> roundOutput;
};

/// Computes attention into `out` and, if non-null, `lse`. Returns an empty
/// string on success, else a description of the invalid parameters, in which
/// case nothing is written. Never asserts on invalid input it can detect
/// (it cannot check that views cover enough memory).
std::string attention(const AttentionParams &p, View4 q, View4 k, View4 v,
                      MutView4 out, float *lse);

/// Computes the gradients dq, dk, dv of attention's output O with respect to
/// q, k and v, given dOut = dLoss/dO: for L = sum(dOut * O), dq = dL/dq etc.
/// O and LSE are recomputed from q, k, v, and everything is accumulated in
/// double. Semantics, with the forward's visibility, GQA head mapping and
/// score composition s_j = f(x_j), x_j = scale * (q_i . k_j), per
/// (sequence b, query head h, row i) over the keys j visible to it:
///
///  * P_j = exp(s_j - LSE_i), dP_j = dOut_i . v_j, D_i = sum_j P_j dP_j
///    (= dOut_i . O_i), dS_j = P_j (dP_j - D_i).
///  * f'(x_j) is the chain rule through the forward's composition: the
///    softcap contributes 1 - tanh^2(x_j / softcap), ALiBi (additive) 1, and
///    a scoreMod scoreModGrad(s', b, h, i, j), where s' is the score
///    scoreMod received.
///  * dq_i += dS_j f'(x_j) scale k_j, dk_j += dS_j f'(x_j) scale q_i,
///    dv_j += P_j dOut_i. With GQA, the dk/dv of a KV head sum over the query
///    heads of its group.
///  * A key hidden by a mask, by maskMod or by a -infinity score gets no
///    gradient and contributes nothing: rows that see no key have dq_i = 0,
///    keys that no row sees have dk_j = dv_j = 0.
///
/// Layouts are the forward's with dOut like O and dq/dk/dv like q/k/v
/// ([B, Hq, Sq, D], [B, Hkv, Sk, D], [B, Hkv, Sk, Dv]; batch 1 with varlen),
/// any strides; the outputs must not overlap each other or the inputs. They
/// are written entirely: varlen padding rows get 0 (dOut is read only on rows
/// a sequence owns). Training packs sequences with cuSeqlens, so kvLens and
/// blockTable are refused, as are a scoreMod without scoreModGrad and a
/// scoreModGrad without scoreMod. The gradients are exact unless roundWeight
/// / roundScoreGrad round P / dS on their way into the products and
/// roundOutput the O that D is taken from.
/// Returns an empty string on success, else a description of the refused or
/// invalid parameters (validated as the forward validates them), in which
/// case nothing is written.
std::string attentionBackward(const AttentionParams &p, View4 q, View4 k,
                              View4 v, View4 dOut, MutView4 dq, MutView4 dk,
                              MutView4 dv);

/// Row-major strides of a buffer of shape [d0, d1, d2, d3].
Strides4 contiguousStrides(const Shape4 &shape);

/// Strides of the logical [B, H, S, D] view of a buffer stored as FA2's
/// row-major [B, S, H, D]; `shape` is the logical [B, H, S, D].
Strides4 bshdStrides(const Shape4 &shape);

/// How `got` differs from `want` over logical shape `shape`: the maximum
/// |got - want| (equal infinities, e.g. the LSE of a row that sees no key,
/// compare as 0; a NaN on either side gives +infinity) and the number of
/// NaNs in `got` (the poison of unwritten elements).
struct Diff {
  double maxErr = 0.0;
  int64_t nans = 0;
};
Diff compare(View4 got, View4 want, const Shape4 &shape);

/// compare(a, b, shape).maxErr.
double maxAbsDiff(View4 a, View4 b, const Shape4 &shape);

/// KV-cache lengths for a test case: a full, an empty and a one-key cache
/// (given enough sequences that one more stays random), the rest uniform in
/// [0, sk].
std::vector<int32_t> drawKvLens(std::mt19937 &rng, int64_t batch, int64_t sk);

/// A block table: the first `used` entries of a fresh permutation of the
/// pool's `numPages` pages (the pages it leaves out are spares).
std::vector<int32_t> drawPageTable(std::mt19937 &rng, int64_t numPages,
                                   int64_t used);

} // namespace flash::ref

#endif // FLASH_REFERENCE_REFERENCE_H
