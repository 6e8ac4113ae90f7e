//===- FlashOps.td - flash dialect operations --------------*- tablegen -*-===//
//
// `flash.attention`: softmax(scale * Q K^T + mask + bias) V with the variants
// FlashAttention-2 serves, on tensors (value semantics) or on memrefs
// (destination-passing, strided views accepted).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHOPS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHOPS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "flash/Dialect/Flash/IR/FlashAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Flash_AttentionOp : Flash_Op<"attention", [
    AttrSizedOperandSegments, IsolatedFromAbove,
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Scaled dot-product attention (FlashAttention-2 semantics)";
  let description = [{
    Computes, for every batch `b`, query head `h`, query row `i`:

    ```
    s_j   = scale * dot(Q[b, h, i, :], K[b, h / G, j, :])   G = Hq / Hkv
    s_j   = softcap * tanh(s_j / softcap)                    if softcap
    s_j   = s_j - slope[h] * |i + Sk - Sq - j|               if alibi
    s_j   = score_mod(s_j, b, h, i, j, captures...)          if score_mod
    O[b, h, i, :] = sum_j softmax(s)_j * V[b, h / G, j, :]   over visible j
    LSE[b, h, i]  = log(sum_j exp(s_j))                      natural log, f32
    ```

    Operands are in logical order `[batch, heads, seq, head_dim]` (PyTorch
    SDPA's order). On memrefs any strided layout is accepted, so FA2's
    `[batch, seq, heads, head_dim]` storage is a transposed view, not a copy.
    Batch, head counts and sequence lengths may be dynamic; head dims must be
    static. V's head dim `Dv` may differ from Q/K's `D`. Hq must be a
    multiple of Hkv (GQA; Hkv = 1 is MQA).

    Visibility of key `j` to query `i`, with `off = Sk - Sq` (bottom-right
    alignment, as FlashAttention >= 2.1 and PyTorch's `causal_lower_right`):
    * `causal`: `j <= i + off`;
    * `window = [left, right]`: `i + off - left <= j <= i + off + right`,
      where -1 leaves that side unbounded;
    * `kv_lens`: `j < kv_lens[b]` (and then `Sk = kv_lens[b]` in `off`);
    * `mask_mod`: `mask_mod(b, h, i, j, captures...)` is true.

    A score_mod that returns -inf masks the entry as well.

    Block mask (FlexAttention's BlockMask, as intervals): the optional
    `block_mask(%r)` operand, with `block_mask_rows = QB` (>= 1) in the
    attribute dictionary, is a hint that lets the kernels skip work a
    `mask_mod` provably does not need; it needs a mask_mod. `%r` is i32,
    `[B or 1, Hq or 1, R, 4]` with `R >= ceil(Sq / QB)` (a static 1 in the
    first two dims broadcasts over batch or heads). Row `r` of `(b, h)`
    holds `(vlo, vhi, flo, fhi)`, key positions with the promise that for
    every query `i` in `[r * QB, (r + 1) * QB)` the mask_mod is false at
    every key outside `[vlo, vhi)` and true at every key in `[flo, fhi)`
    (`flo >= fhi`: no such keys; `vlo >= vhi`: the rows see no key). The
    result is defined by the mask_mod alone; `flash-tile` skips the KV
    blocks outside the visible interval and evaluates no mask_mod on the
    blocks inside the full one. A hint that breaks its promise gives
    undefined results (as FlexAttention's BlockMask does).

    A query row that sees no key produces `O = 0` and `LSE = -inf` (never
    NaN). FA2 returns `+inf` there for its backward pass; `-inf` is the value
    of `log(0)` and lets split-KV partials combine by logsumexp unchanged.

    `scale` defaults to `1 / sqrt(D)`.

    Serving operands (all i32 unless stated):
    * `alibi(%slopes)`: f32, `[Hq]` or `[B, Hq]`.
    * `kv_lens(%lens)`: `[B]` valid KV-cache length per sequence.
    * `block_table(%table)`: `[B, pages]`; K and V are then paged,
      `[num_pages, Hkv, page_size, D]`, and key `j` of sequence `b` lives in
      page `table[b, j / page_size]`, slot `j % page_size`. Sk is
      `pages * page_size`.
    * `cu_seqlens(%cu_q, %cu_k)`: `[num_seqs + 1]` prefix sums for a varlen
      batch packed along seq; Q, K, V then have batch size 1.
    * `block_mask(%r)`: `[B or 1, Hq or 1, R, 4]`, see above.

    Score and mask modification (FlexAttention's `score_mod` / `mask_mod`):
    the optional regions are scalar functions of the logit `s` (f32, in
    logit units: after scale, softcap and ALiBi), the batch `b`, the query
    head `h`, the query position `i` and the key position `j` (index, 0-based
    in the unpadded sequence; for paged K/V the logical key index), followed
    by one block argument per `captures(...)` operand, of its type. The op is
    IsolatedFromAbove: the regions reach data only through the captures,
    read-only extra operands (ranked tensors read with `tensor.extract` in
    the tensor form, memrefs read with `memref.load` in the memref form). No
    op in a region may write, allocate or free memory. `score_mod` yields
    the new f32 logit, `mask_mod` an i1 (true: visible). The regions are
    evaluated only at valid `(b, h, i, j)` (`i < Sq`, `j < Sk`), so a
    capture indexed by them needs no bounds checks (and no target adds
    any: a read out of the capture's bounds is memref.load's undefined
    behaviour). The region's arithmetic keeps arith's semantics on every
    target, fast-math flags included: `arith.divf` is IEEE division unless
    it carries `fastmath<arcp>` (a division by a constant then becomes a
    multiply by its reciprocal, as the `softcap` attribute's own scaling
    does); `math.tanh` and `math.exp2` may use the target's approximate
    instructions, as the softmax's own exponent does.

    ```mlir
    flash.attention ins(%q, %k, %v : ...) captures(%doc : memref<?x?xi32>)
        outs(%o : ...) {causal}
        mask_mod {
        ^bb0(%b: index, %h: index, %i: index, %j: index,
             %d: memref<?x?xi32>):
          %di = memref.load %d[%b, %i] : memref<?x?xi32>
          %dj = memref.load %d[%b, %j] : memref<?x?xi32>
          %same = arith.cmpi eq, %di, %dj : i32
          flash.yield %same : i1
        }
    ```

    Tensor form: returns O (`[B, Hq, Sq, Dv]`, Q's element type) and
    optionally LSE (`[B, Hq, Sq]`, f32). Memref form: writes them into
    `outs(...)` and returns nothing.

    Partial form (what `flash-split-kv` produces, memrefs only): the outputs
    are `O_part` `[S, B, Hq, Sq, Dv]` and `LSE_part` `[S, B, Hq, Sq]`, both
    f32. The keys of sequence `b` fall into `ceil(Sk_b / BlockN)` blocks of
    `#flash.config`'s BlockN, dealt to the `S` splits in contiguous runs of
    `ceil(blocks / S)`; split `s` writes the attention over its keys alone
    (a split with no visible key writes O = 0, LSE = -inf), and
    `flash.combine` merges the splits.

    Example:
    ```mlir
    %o, %lse = flash.attention
        ins(%q, %k, %v : tensor<2x32x?x128xbf16>, tensor<2x8x?x128xbf16>,
                         tensor<2x8x?x128xbf16>)
        {causal, window = array<i64: 256, 0>}
        -> tensor<2x32x?x128xbf16>, tensor<2x32x?xf32>

    flash.attention ins(%q, %k, %v : memref<?x?x?x64xf16, strided<[?, 64, ?, 1]>>,
                                     memref<...>, memref<...>)
        outs(%o : memref<?x?x?x64xf16>) {scale = 0.125 : f32}
    ```
  }];

  let arguments = (ins
    AnyShaped:$query, AnyShaped:$key, AnyShaped:$value,
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
    `ins` `(` $query `,` $key `,` $value `:` type($query) `,` type($key) `,`
      type($value) `)`
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
    /// O and (if requested) LSE: results on tensors, `outs` on memrefs.
    ::mlir::ValueRange getOutputs() {
      return hasPureBufferSemantics() ? ::mlir::ValueRange(getOuts())
                                      : ::mlir::ValueRange(getResults());
    }
    ::mlir::Value getOutput() { return getOutputs()[0]; }
    /// The LSE output, or null when it is not requested.
    ::mlir::Value getLse() {
      auto outs = getOutputs();
      return outs.size() > 1 ? outs[1] : ::mlir::Value();
    }
    /// The partial form of flash-split-kv: f32 O and LSE with a leading
    /// split dimension.
    bool isPartial() {
      return ::llvm::cast<::mlir::ShapedType>(getOutput().getType())
                 .getRank() == 5;
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

def Flash_CombineOp : Flash_Op<"combine", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Merge split-KV partial attentions by logsumexp";
  let description = [{
    Flash-Decoding's second kernel: given the per-split outputs of a partial
    `flash.attention` (`O_part` `[S, B, H, Sq, Dv]`, `LSE_part`
    `[S, B, H, Sq]`, f32), writes for every row

    ```
    LSE = log(sum_s exp(LSE_part[s]))
    O   = sum_s exp(LSE_part[s] - LSE) * O_part[s]
    ```

    A split that saw no key has `LSE_part = -inf` and weight 0; a row whose
    splits all saw no key gets O = 0 and LSE = -inf, as `flash.attention`.
    Memref form only: O `[B, H, Sq, Dv]` in any element type, optional LSE
    `[B, H, Sq]` f32.

    ```mlir
    flash.combine ins(%op, %lp : memref<?x?x?x?x128xf32>, memref<?x?x?x?xf32>)
        outs(%o : memref<?x?x?x128xbf16>)
    ```
  }];
  let arguments = (ins AnyMemRef:$partial_out, AnyMemRef:$partial_lse,
                       Variadic<AnyMemRef>:$outs);
  let assemblyFormat = [{
    `ins` `(` $partial_out `,` $partial_lse `:` type($partial_out) `,`
      type($partial_lse) `)` `outs` `(` $outs `:` type($outs) `)` attr-dict
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getOutput() { return getOuts()[0]; }
    ::mlir::Value getLse() {
      return getOuts().size() > 1 ? getOuts()[1] : ::mlir::Value();
    }
  }];
}

def Flash_WorkspaceOp : Flash_Op<"workspace"> {
  let summary = "Scratch memory between the kernels of one attention";
  let description = [{
    Allocates the f32 partial outputs (`[S, B, H, Sq, Dv]`) or partial
    log-sum-exps (`[S, B, H, Sq]`) that flash-split-kv's partial attention
    writes and its `flash.combine` reads, or the backward's D (`[B, H, Sq]`)
    and f32 dQ accumulator (`[B, H, Sq, D]`, `zeroed`: it starts at 0): a
    buffer that lives between two kernels and nowhere else. Each target lowers it to its own allocation:
    flash-tile-to-scf to `memref.alloc` (freed by the bufferization
    deallocation pipeline), flash-to-gpu to a stream-ordered
    `gpu.alloc` / `gpu.dealloc` around the kernels that use it, and the
    artifact's ABI record marks the entry as split-KV.

    ```mlir
    %part = flash.workspace(%splits, %b, %sq) : memref<?x?x8x?x128xf32>
    ```
  }];
  let arguments = (ins Variadic<Index>:$dynamic_sizes, UnitAttr:$zeroed);
  let results = (outs Res<MemRefRankOf<[F32], [3, 4, 5]>, "",
                          [MemAlloc<DefaultResource>]>:$memref);
  let assemblyFormat = [{
    `(` $dynamic_sizes `)` attr-dict `:` type($memref)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Tile-level ops: what flash-tile emits and flash-online-softmax expands.
//===----------------------------------------------------------------------===//

def Flash_TileUpdateOp : Flash_Op<"tile_update", [
    RecursiveMemoryEffects, RecursivelySpeculatable,
    AllTypesMatch<["acc", "new_acc"]>, AllTypesMatch<["max", "new_max"]>,
    AllTypesMatch<["sum", "new_sum"]>]> {
  let summary = "Online-softmax update of one Q row block by one K/V block";
  let description = [{
    One iteration of FlashAttention-2's KV loop for one program. `query` is
    the Q row block (rows `row .. row + BM`), `key`/`value` the K/V block
    (keys `col .. col + BN`), zero-padded past the sequence ends. With
    `u` the score in kernel units (`u = Q K^T`, or the logit `scale * Q K^T`
    under `logits`, or the capped logit when `softcap` is set; the logit is
    `c * u` with `c = scale`, or 1 under softcap or `logits`) and masked
    entries at -inf:

    ```
    new_max = max(max, rowmax(u))
    p       = exp(c * (u - new_max))
    new_sum = sum * exp(c * (max - new_max)) + rowsum(p)
    new_acc = acc * exp(c * (max - new_max)) + p V
    ```

    With `masked`, key `j = col + c` is visible to query `i = row + r` iff
    `j < seq_k` and the causal/window conditions of `flash.attention` hold
    (`off = seq_k - seq_q`). Without it every entry is visible: `flash-tile`
    emits unmasked updates only for blocks it proved fully visible.

    The optional regions modify scores and visibility element-wise, after
    softcap: `score_mod` (`^bb0(%s: f32, %i: index, %j: index)`, yields the
    new f32 logit; needs logit units, i.e. `logits` or `softcap`) and
    `mask_mod` (`^bb0(%i: index, %j: index)`, yields i1, false masks the
    entry), both evaluated at the clamped positions `i = min(row + r,
    seq_q - 1)`, `j = min(col + c, seq_k - 1)` so that every read they make
    stays in bounds. They are not isolated: the batch and head come from the
    enclosing flash.grid and the captures from above. `mask_mod` applies
    whether or not the update is `masked`.
  }];
  let arguments = (ins AnyRankedTensor:$query, AnyRankedTensor:$key,
                       AnyRankedTensor:$value,
                       RankedTensorOf<[F32]>:$acc, RankedTensorOf<[F32]>:$max,
                       RankedTensorOf<[F32]>:$sum,
                       Index:$row, Index:$col, Index:$seq_q, Index:$seq_k,
                       F32Attr:$scale, UnitAttr:$causal,
                       OptionalAttr<DenseI64ArrayAttr>:$window,
                       OptionalAttr<F32Attr>:$softcap, UnitAttr:$masked,
                       UnitAttr:$logits);
  let results = (outs RankedTensorOf<[F32]>:$new_acc,
                      RankedTensorOf<[F32]>:$new_max,
                      RankedTensorOf<[F32]>:$new_sum);
  let regions = (region MaxSizedRegion<1>:$score_mod,
                        MaxSizedRegion<1>:$mask_mod);
  let assemblyFormat = [{
    $query `,` $key `,` $value `,` $acc `,` $max `,` $sum
    `at` `(` $row `,` $col `)` `bounds` `(` $seq_q `,` $seq_k `)` attr-dict
    `:` type($query) `,` type($key) `,` type($value) `,` type($acc) `,`
      type($max) `,` type($sum)
    (`score_mod` $score_mod^)? (`mask_mod` $mask_mod^)?
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// The factor c of the logit c * u in kernel units: the scale, or 1
    /// under softcap or `logits` (whose scores already include it).
    double getLogitFactor() {
      return getSoftcap() || getLogits() ? 1.0
                                         : double(getScale().convertToFloat());
    }
  }];
}

def Flash_TileFinalizeOp : Flash_Op<"tile_finalize", [Pure]> {
  let summary = "Epilogue of one Q row block: O = acc / l, LSE = m + log l";
  let description = [{
    Turns the online-softmax state into the outputs of one program:
    `out = acc / sum` (0 where `sum == 0`, i.e. a row that saw no key) in
    the output element type, and `lse = c * max + log(sum)` (-inf where
    `sum == 0`), `c` as in `flash.tile_update` (which must agree on
    `softcap` and `logits`).
  }];
  let arguments = (ins RankedTensorOf<[F32]>:$acc, RankedTensorOf<[F32]>:$max,
                       RankedTensorOf<[F32]>:$sum, F32Attr:$scale,
                       OptionalAttr<F32Attr>:$softcap, UnitAttr:$logits);
  let results = (outs AnyRankedTensor:$out, RankedTensorOf<[F32]>:$lse);
  let assemblyFormat = [{
    $acc `,` $max `,` $sum attr-dict `:` type($acc) `,` type($max) `,`
      type($sum) `->` type($out) `,` type($lse)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The factor c of the logit c * u in kernel units, as tile_update's.
    double getLogitFactor() {
      return getSoftcap() || getLogits() ? 1.0
                                         : double(getScale().convertToFloat());
    }
  }];
}

include "flash/Dialect/Flash/IR/FlashBackwardOps.td"
include "flash/Dialect/Flash/IR/FlashTileOps.td"
include "flash/Dialect/Flash/IR/FlashPipelineOps.td"

#endif // FLASH_DIALECT_FLASH_IR_FLASHOPS_TD
