//===- FlashBackwardOps.td - flash.attention_backward -------*- tablegen -*-===//
//
// The backward pass of flash.attention as one op: the gradients of the
// forward's output with respect to Q, K and V, given the forward's O and
// LSE and the output gradient dO. Operands, attributes, regions and their
// rules are the forward's (FlashOps.td), so one attention's forward and
// backward are written with the same text.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHBACKWARDOPS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHBACKWARDOPS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "flash/Dialect/Flash/IR/FlashAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Flash_AttentionBackwardOp : Flash_Op<"attention_backward", [
    AttrSizedOperandSegments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Gradients of scaled dot-product attention (FlashAttention-2's "
                "backward)";
  let description = [{
    For the `flash.attention` with the same Q, K, V, attributes, regions and
    captures, and `L = sum(dO * O)`, computes `dQ = dL/dQ`, `dK = dL/dK` and
    `dV = dL/dV`. Per batch `b`, query head `h` and query row `i`, over the
    keys `j` the forward's masks leave visible (with `s_j` the forward's
    logit before the score_mod and `s'_j` after it):

    ```
    P_j   = exp(s'_j - LSE[b, h, i])
    D_i   = sum_j P_j * dot(dO[i], V[j])          = dot(dO[i], O[i])
    dV[j] += P_j * dO[i]
    dS_j  = P_j * (dot(dO[i], V[j]) - D_i) * score_mod'(s_j) * softcap'
    dQ[i] += scale * dS_j * K[j]
    dK[j] += scale * dS_j * Q[i]
    ```

    where `score_mod'` is the derivative of the score_mod region with
    respect to its logit argument and `softcap' = 1 - tanh^2(x / softcap)`
    at the scaled dot product `x` (ALiBi adds a constant: no factor).
    `lse` is the forward's (f32, natural log, `-inf` on rows that see no
    key); such rows contribute nothing, and a key no row sees gets `dK =
    dV = 0`. With GQA (`Hq = G * Hkv`) dK and dV of a KV head sum over the
    `G` query heads that read it.

    `ins` are Q, K, V, O, LSE and dO: O and dO `[B, Hq, Sq, Dv]` with Q's
    element type, LSE `[B, Hq, Sq]` f32. dQ, dK and dV have the shapes and
    element types of Q, K and V: written into `outs(%dq, %dk, %dv)` in the
    memref form, returned in the tensor form.

    Everything else is the forward's, with the same verifier rules:
    `scale`, `causal` (bottom-right), `window`, `softcap`, `alibi(...)`,
    `cu_seqlens(...)`, `block_mask(...)` with `block_mask_rows`,
    `captures(...)` and the `score_mod` / `mask_mod` regions. `kv_lens` and
    `block_table` are refused: they describe a KV cache, which inference
    reads; a training batch of several lengths is varlen (`cu_seqlens`).

    ```mlir
    %dq, %dk, %dv = flash.attention_backward
        ins(%q, %k, %v, %o, %lse, %do : tensor<2x16x?x64xbf16>,
            tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>,
            tensor<2x16x?x64xbf16>, tensor<2x16x?xf32>,
            tensor<2x16x?x64xbf16>)
        {causal}
        -> tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>,
           tensor<2x4x?x64xbf16>
    ```
  }];

  let arguments = (ins
    AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
    AnyShaped:$out, AnyShaped:$lse, AnyShaped:$grad_out,
    Optional<AnyShaped>:$alibi_slopes,
    Optional<AnyShaped>:$kv_lens,
    Optional<AnyShaped>:$block_table,
    Optional<AnyShaped>:$cu_seqlens_q,
    Optional<AnyShaped>:$cu_seqlens_k,
    Optional<AnyShaped>:$block_mask,
    Variadic<AnyShaped>:$captures,
    Variadic<AnyShaped>:$outs,
    OptionalAttr<F32Attr>:$scale,
    UnitAttr:$causal,
    OptionalAttr<DenseI64ArrayAttr>:$window,
    OptionalAttr<F32Attr>:$softcap,
    OptionalAttr<Flash_ConfigAttr>:$config,
    OptionalAttr<I64Attr>:$block_mask_rows);
  let results = (outs Variadic<AnyRankedTensor>:$results);
  let regions = (region MaxSizedRegion<1>:$score_mod,
                        MaxSizedRegion<1>:$mask_mod);

  let assemblyFormat = [{
    `ins` `(` $query `,` $key `,` $value `,` $out `,` $lse `,` $grad_out `:`
      type($query) `,` type($key) `,` type($value) `,` type($out) `,`
      type($lse) `,` type($grad_out) `)`
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`kv_lens` `(` $kv_lens^ `:` type($kv_lens) `)`)?
    (`block_table` `(` $block_table^ `:` type($block_table) `)`)?
    (`cu_seqlens` `(` $cu_seqlens_q^ `,` $cu_seqlens_k `:` type($cu_seqlens_q)
      `,` type($cu_seqlens_k) `)`)?
    (`block_mask` `(` $block_mask^ `:` type($block_mask) `)`)?
    (`captures` `(` $captures^ `:` type($captures) `)`)?
    (`outs` `(` $outs^ `:` type($outs) `)`)?
    attr-dict (`->` type($results)^)?
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;

  let extraClassDeclaration = [{
    /// True for the memref (destination-passing) form.
    bool hasPureBufferSemantics() {
      return ::llvm::isa<::mlir::MemRefType>(getQuery().getType());
    }
    /// dQ, dK and dV: results on tensors, `outs` on memrefs.
    ::mlir::ValueRange getGradients() {
      return hasPureBufferSemantics() ? ::mlir::ValueRange(getOuts())
                                      : ::mlir::ValueRange(getResults());
    }
    /// The scale actually applied: the attribute or 1/sqrt(D).
    double getEffectiveScale();
    /// Window bounds, -1 where unbounded or absent.
    int64_t getWindowLeft();
    int64_t getWindowRight();
    /// Named dimension roles of the operands (see AttentionShape).
    AttentionShape getShape();
    /// True when a score_mod or mask_mod region is present.
    bool hasMods() {
      return !getScoreMod().empty() || !getMaskMod().empty();
    }
  }];
}

//===----------------------------------------------------------------------===//
// Tile level: what flash-tile emits for the backward and
// flash-backward-recompute expands.
//===----------------------------------------------------------------------===//

def Flash_TileGradOp : Flash_Op<"tile_grad", [
    RecursiveMemoryEffects, RecursivelySpeculatable,
    AllTypesMatch<["dk", "new_dk"]>, AllTypesMatch<["dv", "new_dv"]>]> {
  let summary = "FlashAttention-2's backward step: one K/V block by one Q "
                "row block";
  let description = [{
    One iteration of the Q-block loop of a backward program (a `kv` grid):
    `key` / `value` are the program's K/V block (keys `col .. col + BN`),
    `query` / `grad_out` a Q and dO row block (rows `row .. row + BM`),
    `lse` and `delta` their rows of the forward's LSE and of D = rowsum(dO
    * O); tiles are zero-padded past the sequence ends. With the logit `s =
    scale * Q K^T`, `s'` the `score_mod` region's value at `s` (the
    identity without one) and `s'_s` its derivative with respect to `s`:

    ```
    P      = exp(s' - lse)      0 where masked, or where lse = -inf
    new_dv = dv + P^T dO
    dP     = dO V^T
    dS     = P * (dP - delta) * s'_s
    new_dk = dk + scale * dS^T Q
    dq     = scale * dS K       this block's part of dQ's rows
    ```

    Masking (`masked`, `causal`, `window`, `mask_mod`) is tile_update's.
    The `score_mod` region (`^bb0(%s: f32, %i: index, %j: index)`) holds
    the whole logit modification after the scaled dot product: softcap
    (`cap * tanh(s / cap)`), ALiBi and the user's score_mod, so that one
    differentiation (ModDerivative.h) gives every factor of the chain rule.
    The regions are not isolated: batch and head come from the enclosing
    grid and the captures from above.
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       AnyRankedTensor:$value, AnyRankedTensor:$grad_out,
                       RankedTensorOf<[F32]>:$lse,
                       RankedTensorOf<[F32]>:$delta,
                       RankedTensorOf<[F32]>:$dk, RankedTensorOf<[F32]>:$dv,
                       Index:$row, Index:$col, Index:$seq_q, Index:$seq_k,
                       F32Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<DenseI64ArrayAttr>:$window,
                       UnitAttr:$masked);
  let results = (outs RankedTensorOf<[F32]>:$new_dk,
                      RankedTensorOf<[F32]>:$new_dv,
                      RankedTensorOf<[F32]>:$dq);
  let regions = (region MaxSizedRegion<1>:$score_mod,
                        MaxSizedRegion<1>:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $grad_out `,` $lse `,` $delta `,` $dk `,`
      $dv `at` `(` $row `,` $col `)` `bounds` `(` $seq_q `,` $seq_k `)`
      attr-dict `:` type($query) `,` type($key) `,` type($value) `,`
      type($grad_out) `,` type($lse) `,` type($delta) `,` type($dk) `,`
      type($dv) `->` type($dq)
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHBACKWARDOPS_TD
