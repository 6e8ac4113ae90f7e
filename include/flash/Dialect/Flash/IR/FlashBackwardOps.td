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

#endif // FLASH_DIALECT_FLASH_IR_FLASHBACKWARDOPS_TD
