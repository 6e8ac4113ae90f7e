//===- Passes.td - flash dialect passes --------------------*- tablegen -*-===//
//
// The stages of the FlashAttention pipeline. Each runs alone in flash-opt and
// reads only what the previous stage wrote (the #flash.config attribute, the
// tile loops), never re-deciding it.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD
#define FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashRaiseAttention : Pass<"flash-raise-attention"> {
  let summary = "Raise attention written as linalg/tensor ops into "
                "flash.attention";
  let description = [{
    Recognises scaled dot-product attention in the form frontends emit it
    (torch-mlir's decomposition of `aten.scaled_dot_product_attention`, plain
    linalg on tensors) and replaces it with one `flash.attention`:

    * S = Q·Kᵀ: `linalg.matmul`/`linalg.batch_matmul` (default or transposed
      `indexing_maps`) or a contraction `linalg.generic`, with K transposed
      by `linalg.transpose` or a permuting generic;
    * the scale: multiplies/divides by a constant, on Q, on K or on S;
    * an optional mask, additive (0 / -inf) or `arith.select`, that is a
      materialised causal mask `j <= i` (torch's `tril(ones)`, built from
      `linalg.index` comparisons) and then becomes `causal`; torch's mask
      is top-left aligned, flash's bottom-right, so Sq == Sk must be shown
      (static, or equal by value bounds);
    * softmax over the key dim: `linalg.softmax` or the stable
      max/sub/exp/sum/div sequence (fused or not);
    * O = P·V; K and V heads repeated by broadcast + collapse (torch's
      `repeat_interleave`, Hugging Face's `repeat_kv`) become GQA.

    Rank-4 [B, H, S, D] chains, also with [B*H, S, D] batch matmuls between
    reshapes, and rank-3 [B*H, S, D] chains (raised with batch 1). Anything
    else (a softmax or reduction over another dim, a scale that is not a
    constant, a mask that is not exactly causal or comes from an argument,
    P·V with P on the wrong side) is left untouched: no match, no change.
    Masks and scales are read by evaluating their arith/`linalg.index`
    expressions at sample points (first, last and far rows and columns).
  }];
  let statistics = [
    Statistic<"numRaised", "num-raised", "Attentions raised">,
  ];
  let dependentDialects = [
    "::mlir::flash::FlashDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashPlan : Pass<"flash-plan"> {
  let summary = "Choose the kernel configuration of each flash.attention";
  let description = [{
    Records a `#flash.config` (BlockM, BlockN, warps, pipeline stages) on
    every `flash.attention` that has none, from the head dim, the element
    type and a target description. A configuration written by hand keeps
    its tiles. Every config, planned or kept, gets this pass's `key-bounds`
    and `uniform-blocks` as its `key_bounds` and `uniform_blocks` (the
    latter never with `pingpong`): flash-tile reads them there, so the
    analyses this pass plans for are the ones flash-tile runs.
    The choice starts from FlashAttention-2's launch templates (sm80/sm90),
    with one measured change: for head dims <= 64, FA2's 128 x 128 makes our
    kernel spill, and 128 x 64 ran 1.06x FA2 on the H200 (128 x 128: 0.93x).

    | head dim | BlockM x BlockN | warps |
    | --- | --- | --- |
    | <= 64 | 128 x 64 | 4 |
    | <= 128 | 128 x 64 (causal: 64 x 64, measured 0.94-1.12x FA2 against 0.90-0.97x) | 4 |
    | <= 192 | 128 x 64 | 8 |
    | <= 256 | 128 x 64 (8 warps) if Q + 2 stages of K/V fit in shared memory, else 64 x 64 (4 warps) |

    Decode and short chunks (static Sq <= 64, head dim <= 128; e.g. after
    flash-fold-gqa): 16 x 64 with one warp for Sq <= 16, else 64 x 64 with
    4 warps, and `splits = 0` on the memref form, so that flash-split-kv
    chooses the split count at run time.

    Targets without `cp.async` (sm < 80) get one stage.

    With `wgmma` (the sm_90a pipelines set it), prefill configurations use
    warpgroup MMA (`wgmma = true`, see `#flash.config`), from the H200 tile
    sweeps in `bench/results/2026-11-29-h200-wgmma-tile-sweep.txt`:

    | head dim | BlockM x BlockN | warps | measured vs FA2 (S = 512..16k) |
    | --- | --- | --- | --- |
    | 64 | 64 x 64 | 4 | 1.41-1.63x (causal 1.38-1.84x) |
    | 128 | 192 x 96 (causal: 64 x 96) | 12 (4) | 1.13-1.54x (causal 1.39-1.61x) |
    | 192 | 128 x 64 | 8 | 1.56-1.57x (causal 1.47-1.56x) |
    | 256 | 128 x 64 | 8 | 1.40-1.67x (causal 1.27-1.67x) |

    A `mask_mod` at head dim 128, not causal, gets FA3's producer warpgroup
    instead (128 x 96, 8 consumer warps, 3 stages, `producer = true`): its
    two consumer warpgroups do not run in lockstep, so one's mask work
    overlaps the other's GEMMs. A document mask ran at 0.76-0.77x the time
    of the 192 x 96 kernel (1.16-1.18x the unmasked kernel against 1.50x),
    a prefix-LM mask at 1.01x
    (bench/results/2026-12-02-h200-mask-mod-producer-config.log).
    Head dim 64 keeps 64 x 64: producer configs with two consumer
    warpgroups ran its document mask 1.09-1.24x slower.
    Without a `block_mask` hint or key bounds that flash-tile derives from
    the mask_mod's own tests (`key-bounds`; the mask then runs on every
    block) the
    config also takes FA3's ping-pong turns (`pingpong = true`,
    flash-pingpong): document mask and prefix-LM 1.04-1.11x the unmasked
    kernel against 1.09-1.20x without turns
    (bench/results/2026-12-02-h200-mask-mod-pingpong.log); with a hint most
    blocks run no mask, and the turns cost an unmasked loop 9-17 %.
    A causal mask_mod takes the same turns when unhinted (0.945-0.949x the
    time of 64 x 96 at 16k, 1.000x at 4k, with the longest-first grid:
    bench/results/2026-12-02-h200-mask-mod-pingpong.log); a hinted causal
    one keeps 64 x 96.

    Causal head dim 128 without mods (the causal attribute alone) picks
    its config by Sq (`long-causal-rows`, default 2048): from there on the
    producer config (128 x 96, 8 consumer warps, 3 stages, no turns) ran
    1.009-1.091x the speed of 64 x 96 (2k-16k), below it 0.91-0.96x
    (bench/results/2026-12-03-h200-long-causal-rows.log). A static Sq picks
    one; on memrefs a dynamic Sq gets both, `scf.if Sq >= long-causal-rows`
    around two clones of the op, so that the entry point launches the kernel
    its call's Sq wants (the tensor form, whose function boundary alone is
    bufferized, keeps 64 x 96 there).

    Head dims that are not multiples of 64 (32, 96, ...) and decode stay on
    mma.sync.
  }];
  let options = [
    Option<"smVersion", "sm", "int64_t", /*default=*/"90",
           "Target SM version (80 = A100, 90 = H100/H200)">,
    Option<"numSMs", "num-sms", "int64_t", /*default=*/"132",
           "Number of SMs of the target (flash-split-kv has its own "
           "num-sms option)">,
    Option<"smemPerBlockKB", "smem-kb", "int64_t", /*default=*/"227",
           "Shared memory one program may use, in KiB (227 on sm90, 163 on "
           "sm80)">,
    Option<"wgmma", "wgmma", "bool", /*default=*/"false",
           "Plan warpgroup-MMA configurations (sm_90a targets)">,
    Option<"keyBounds", "key-bounds", "bool", /*default=*/"true",
           "Let flash-tile bound the keys by a mask_mod's own key tests "
           "(MaskKeys.h; the config's key_bounds), and plan such a mask_mod "
           "as a hinted one">,
    Option<"uniformBlocks", "uniform-blocks", "bool", /*default=*/"false",
           "Let flash-tile classify the KV blocks of a mask_mod conjunct "
           "F(i) == G(j) in the program (UniformBlocks.h; the config's "
           "uniform_blocks, never with ping-pong turns), and plan for it: "
           "with wgmma, head dim 64 gets 128 x 64 with 8 warps, head dim 128 "
           "the producer config without ping-pong turns">,
    Option<"longCausalRows", "long-causal-rows", "int64_t",
           /*default=*/"2048",
           "With wgmma: a plain causal op at head dim 128 with at least this "
           "many query rows gets the producer config (128 x 96, 8 consumer "
           "warps, 3 stages); a dynamic Sq gets both kernels behind scf.if "
           "Sq >= this; 0 never">,
  ];
  let statistics = [
    Statistic<"numPlanned", "num-planned", "Configurations chosen">,
    Statistic<"numKept", "num-kept", "Hand-written configurations kept">,
    Statistic<"numVersioned", "num-versioned",
              "Ops planned twice behind a branch on Sq">,
  ];
  let dependentDialects = [
    "::mlir::flash::FlashDialect", "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"];
}

def FlashSimplifyMods : Pass<"flash-simplify-mods"> {
  let summary = "Exact simplifications of flash.attention's score_mod and "
                "mask_mod regions";
  let description = [{
    Rewrites inside the regions that change no result and save work per
    score element, on both targets (both pipelines run it before
    flash-tile). Two signed bounds on one value joined by `arith.ori` /
    `arith.andi` become one `arith.cmpi` against the `maxsi` / `minsi` of
    the bounds: `j <= i or j < p` (a prefix-LM mask) is
    `j <= max(i, p - 1)`, `p - 1` kept at `p` where it would wrap (then
    `j < p` is false and the max drops it). The bounds do not depend on the
    key, so per score element one compare and one select remain.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def FlashFoldGQA : Pass<"flash-fold-gqa"> {
  let summary = "Decode with GQA: fold each KV head's query heads into query "
                "rows";
  let description = [{
    For a `flash.attention` with one query token (Sq = 1) and Hq > Hkv, the
    G = Hq / Hkv query heads that share a KV head become G rows of one query
    block: Q `[B, Hq, 1, D]` is viewed as `[B, Hkv, G, D]`, O and LSE alike
    (a `memref.reinterpret_cast` of the same storage, no copy). Each K/V
    tile is then read once per group instead of once per query head
    (FA2's `seqlenq_ngroups_swapped`).

    With one query, `causal` sees every key and is dropped. Hq and Hkv must
    be static (the folded Sq = G sizes the query block). Ops with a
    window, ALiBi or a score_mod / mask_mod (functions of the head and the
    row, which would change meaning), the tensor form and the partial form
    are left alone.
  }];
  let statistics = [
    Statistic<"numFolded", "num-folded", "Attentions folded">,
  ];
  let dependentDialects = ["::mlir::memref::MemRefDialect"];
}

def FlashSplitKV : Pass<"flash-split-kv"> {
  let summary = "Flash-Decoding: split the KV axis into partial attentions "
                "and a logsumexp combine";
  let description = [{
    Rewrites each memref-form `flash.attention` whose `#flash.config` has
    `splits` != 1 into

    * a partial `flash.attention` writing f32 `O_part [S, B, Hq, Sq, Dv]` and
      `LSE_part [S, B, Hq, Sq]` into scratch buffers (`flash.workspace`,
      which each target lowers to its own allocation), each
      split attending to a contiguous run of KV blocks;
    * `flash.combine`, which merges the splits into O (and LSE) by
      logsumexp; empty splits (LSE = -inf) weigh nothing.

    `splits = N` fixes S = N. `splits = 0` (what flash-plan writes for
    decode) chooses S at run time with FlashAttention-2's
    `num_splits_heuristic`: with `work` = B * Hq * ceil(Sq / BlockM) programs
    and `slots` = num-sms * ctas-per-sm: over S <= min(128, slots, KV
    blocks) whose blocks per split differ from S - 1's, the smallest S whose
    wave efficiency (work * S / slots over its ceiling) is >= 85 % of the
    best. FA2 also takes S = 1 outright when work >= 0.8 * slots
    (`full-wave-shortcut`, off by default): its kernels run one program
    per SM, ours several, and a partial last wave (e.g. 512 programs on
    396 slots) leaves most of the GPU idle. The unsplit attention is kept
    for S = 1 behind an `scf.if`.
  }];
  let options = [
    Option<"numSMs", "num-sms", "int64_t", /*default=*/"132",
           "Number of SMs of the target (H200: 132)">,
    Option<"ctasPerSM", "ctas-per-sm", "int64_t", /*default=*/"0",
           "Programs resident per SM; 0 = from the config's shared memory "
           "and smem-kb">,
    Option<"smemPerBlockKB", "smem-kb", "int64_t", /*default=*/"227",
           "Shared memory per SM usable by programs, in KiB">,
    Option<"minEfficiency", "min-efficiency", "double", /*default=*/"0.85",
           "Fraction of the best wave efficiency the chosen split count "
           "must reach (FA2: 0.85; 1.0 takes the best)">,
    Option<"fullWaveShortcut", "full-wave-shortcut", "bool",
           /*default=*/"false",
           "FA2's S = 1 when the programs fill >= 80 % of one wave">,
  ];
  let statistics = [
    Statistic<"numSplit", "num-split", "Attentions split">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"
  ];
}

def FlashTile : Pass<"flash-tile"> {
  let summary = "Tile flash.attention into the FlashAttention-2 grid and KV "
                "loop";
  let description = [{
    Rewrites each `flash.attention` (memref form; the tensor form is first
    moved onto buffers) into FA2's structure:

    * the grid: a `flash.grid` over (Q row block, query head, batch[,
      split]), one program per point, carrying the `#flash.config`; each
      program reads its Q block once (`flash.tile_load`);
    * per program, `flash.kv_loop` runs over K/V blocks of the config's
      BlockN whose bounds are clipped: causal/right-window blocks right of
      the diagonal and left-window blocks left of the band are never
      visited;
    * the blocks that need an element mask (the causal/window diagonal band,
      `ceil(BlockM/BlockN) + 1` blocks iterated right to left, the ragged
      last block of a sequence, the left window edge) are peeled into their
      own runs (`role` `masked_right` / `masked_left`) of
      `flash.tile_update {masked}`; the `main` run's updates carry no mask
      at all;
    * tails are masked, not padded by the caller: blocks past a sequence end
      are read zero-padded and masked, tail rows are not stored;
    * the epilogue `flash.tile_finalize` and the store of O (and LSE).

    * a mask_mod whose own IR bounds the keys (and/or of tests `k < t`,
      `k <= t`, `k > t`, `k >= t` of k = j, j + x, j - x or x - j, with x
      and t monotone in the query row, e.g. a
      prefix-LM, causal or sliding-window mask written as a mask_mod; see
      `MaskKeys.h`) is tiled as if it came with the `block_mask` hint its
      tests prove: per program, its bounds are evaluated at the first and
      the last valid row, blocks it masks whole are not visited and blocks
      it keeps whole run no mask_mod. A wrap in that arithmetic between the
      two rows (checked per program) falls back to masking every block.
      The config's `key_bounds = false` (flash-plan's `key-bounds=false`)
      turns this off (every block then runs the mask_mod, as without a
      hint).
    * without a hint, a mask_mod with a conjunct `F(b, h, i) == G(b, h, j)`
      (F not reading j, G not reading i: a document mask `doc[i] ==
      doc[j]`) has its blocks decided in the program (`UniformBlocks.h`):
      F's minimum and maximum over the program's rows once, then one scan
      of G over the program's keys (an `scf.for` over chunks of keys
      before the KV loops) gives the program's hint from the data: the
      runs skip the keys before the first and after the last key whose G
      lies in [min, max]. When the conjunct is the whole mask_mod, the
      keys between run with no mask where the rows share one F and every
      such key has it; otherwise an `scf.if` on each block's G values
      decides it: all outside [min, max] skips the block (the update is not
      run), all equal to the rows' one value runs the update without the
      conjunct; the rest run the mask_mod. Exact for any ids (sorted or
      not). Only when the config says `uniform_blocks = true` (flash-plan's
      `uniform-blocks`, on in both named pipelines).

    The ops must carry a `#flash.config` (run `flash-plan` first). For
    static shapes the grid carries `masked_iterations` and
    `unmasked_iterations`, the same counts as the statistics (which
    no-assert LLVM builds compile out; not given with a hint or with key
    bounds, whose blocks depend on data).
  }];
  let statistics = [
    Statistic<"numTiled", "num-tiled", "flash.attention ops tiled">,
    Statistic<"numMaskedLoops", "num-masked-loops",
              "KV loops whose updates apply an element mask">,
    Statistic<"numUnmaskedLoops", "num-unmasked-loops",
              "KV loops whose updates carry no mask">,
    Statistic<"numMaskedIterations", "masked-iterations",
              "Masked KV iterations over the whole grid (static shapes only)">,
    Statistic<"numUnmaskedIterations", "unmasked-iterations",
              "Unmasked KV iterations over the whole grid (static shapes "
              "only)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashOnlineSoftmax : Pass<"flash-online-softmax"> {
  let summary = "Expand tile updates into the explicit online softmax";
  let description = [{
    Rewrites `flash.tile_update` and `flash.tile_finalize` into two tile
    GEMMs and the online-softmax steps of FlashAttention-2 on tensors
    (linalg, arith, math), each step under its formula:
    S = Q K^T; mask; m_new = max(m, rowmax S);
    P = exp2(S * scale * log2e - m_new * scale * log2e) (one multiply-add);
    alpha = exp2((m - m_new) * scale * log2e); l = l * alpha + rowsum P;
    acc = acc * alpha + P V; and the epilogue O = acc / l,
    LSE = m * scale + log l. Rows that saw no key give O = 0, LSE = -inf.
  }];
  let statistics = [
    Statistic<"numUpdates", "num-updates", "Tile updates expanded">,
    Statistic<"numMasked", "num-masked-updates",
              "Expanded updates that apply an element mask">,
    Statistic<"numFinalized", "num-finalized", "Epilogues expanded">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashBackwardRecompute : Pass<"flash-backward-recompute"> {
  let summary = "Expand the backward's tile steps into FlashAttention-2's "
                "recomputation";
  let description = [{
    Rewrites each `flash.tile_grad` into FlashAttention-2's backward step on
    tensors (linalg, arith, math), each step under its formula. The
    probabilities are recomputed from the forward's saved LSE instead of
    being stored: S = Q K^T; s = scale * S; (s', s'_s) = the score_mod
    region and its derivative (ModDerivative.h; the identity without one);
    mask; P = exp2(s' * log2e - LSE * log2e) (0 on a row with LSE = -inf);
    dV += P^T dO; dP = dO V^T; dS = scale * P * (dP - D) * s'_s;
    dK += dS^T Q; and dQ's part dS K. The same expansion runs before the CPU
    loops and the GPU kernels, as flash-online-softmax's does.
  }];
  let statistics = [
    Statistic<"numSteps", "num-steps", "Backward tile steps expanded">,
    Statistic<"numMasked", "num-masked-steps",
              "Expanded steps that apply an element mask">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashAssignLayouts : Pass<"flash-assign-layouts"> {
  let summary = "Assign a GPU fragment layout to every tile value of each "
                "attention grid";
  let description = [{
    The GPU pipeline's stage between `flash-online-softmax` and
    `flash-to-gpu`: every tile value of each attention `flash.grid` (op
    results, `flash.kv_loop` iter_args and results, the `tensor.empty`
    shapes of the linalg and KV loop inits) gets a `#flash.frag` layout as
    its tensor encoding, which `flash-to-gpu` reads instead of deciding:

    * a `flash.tile_load` result (Q, K, V) lives in swizzled shared memory:
      `#flash.frag<smem, K>`;
    * any other 2-D tile (GEMM results, element-wise tiles, P, O) is an MMA
      accumulator: `#flash.frag<acc, K>`;
    * a 1-D tile is a row vector, `#flash.frag<row>`, or an f32
      `#flash.frag<row_partial>` thread-partial sum (below), unless it meets
      no 2-D tile and no row vector (a row or key id vector reduced to a
      scalar): then `#flash.frag<spread>` (every warp holds it all), or
      `#flash.frag<cta>` (each element in one thread of the program) when
      an `scf.for` of the grid carries it (a scan before the KV loops) and
      its length is a multiple of the program's threads;
    * a 0-d tile (a reduction of those) is `#flash.frag<uniform>`;

    where K is `wgmma` when the grid's `#flash.config` has `wgmma = true`,
    else `mma_sync`. P's C-to-A reuse is the layouts' rule (a 16-bit `acc`
    tile is its GEMM's A fragment as it is), not a conversion.

    Row partial sums: a row vector that is only ever summed into and scaled
    (FA2's `l = l * alpha + rowsum(P)`) stays a thread-partial sum, each
    lane of the quad that owns the row holding its own part, so that the
    quad shuffles of the sum are paid once in the epilogue instead of at
    every KV block. Values whose types must be equal (a linalg op's init and
    result, a KV loop's init, iter_arg, yielded value and result) form
    classes; the partial classes are the greatest fixed point of: a class
    stays partial while each of its definitions is a zero fill, a row-sum
    reduction (`arith.addf`) of a tile into the class, an element-wise
    product of the class's value with an input, or a KV loop's state.

    A tile the rules do not cover (a rank-3 tensor, a tile made by an op
    that is not a linalg op, tile load, KV loop, scf.if or scf.for, a
    shared-memory tile
    updated in place) is an error at its op. Combine grids and ops outside
    grids are left alone; running the pass twice changes nothing.
  }];
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

def FlashPipelineKV : Pass<"flash-pipeline-kv"> {
  let summary = "Write the software pipeline of the K/V blocks into each "
                "attention grid";
  let description = [{
    The GPU pipeline's stage between `flash-assign-layouts` and
    `flash-to-gpu`: the schedule of the K/V copies, which `flash-to-gpu`
    lowers op by op instead of deciding, from the grid's `#flash.config`
    (`stages`, `producer`), as the `flash.pipeline_*` ops:

    * cp.async (FA2): `flash.pipeline_prologue` before the KV loops puts
      the first `stages - 1` blocks in flight; each iteration begins with
      `flash.pipeline_wait` (its block landed: `pending = stages - 2`, then
      a barrier) and `flash.pipeline_prefetch` (the block `distance =
      stages - 1` ahead, into the slot read last iteration);
    * producer warpgroup (FA3, `producer = true`): `flash.pipeline_producer`
      before the loops streams every block through a ring of `stages`
      slots; each iteration begins with `flash.pipeline_acquire` (wait on
      `full[slot]` at the phase parity) and ends with
      `flash.pipeline_release` (arrive on `empty[slot]`);
    * both: `flash.pipeline_advance` gives the next slot (and phase), which
      every `flash.kv_loop` carries as trailing iter_args (slot, then
      phase) from the start op's results through all of flash-tile's peeled
      loops, whose blocks form one run; the K/V `flash.tile_load`s name the
      slot they read (`slot(%s)`); `flash.pipeline_drain` after the last
      loop frees shared memory for the epilogue.

    A grid that already has pipeline ops is left as it is (running the pass
    twice changes nothing); combine grids and grids without KV loops too.
    A config of fewer than 2 stages, or a KV loop without K/V tile loads,
    is an error at the op. Canonicalize and cse between this pass and the
    next change nothing (the pipeline ops have memory effects; only the
    advance is pure, and the loops yield it).
  }];
}

def FlashPingpong : Pass<"flash-pingpong"> {
  let summary = "Write FA3's ping-pong turns of two consumer warpgroups";
  let description = [{
    The GPU pipeline's stage after `flash-pipeline-kv`, for a grid whose
    `#flash.config` has `pingpong = true` (a producer warpgroup and two
    consumer warpgroups): the consumers take turns at the tensor cores, so
    that one warpgroup's softmax (and score or mask modification) runs while
    the other's GEMMs do. A turn is {O += P V of the previous block, S = Q
    K^T of this one}:

    * `flash.pipeline_turn_start` before the first KV loop (warpgroup 0
      takes the first turn);
    * in every KV loop, `flash.pipeline_turn_pass` right after the score
      GEMM (the matmul whose left operand is a shared-memory tile, Q) and
      `flash.pipeline_turn_wait` right before the P V GEMM (the matmul whose
      left operand is in registers, P);
    * `flash.pipeline_turn_end` after the last KV loop, which balances
      warpgroup 1's last wait.

    Other grids are left as they are, and so is a grid that has turn ops
    already (running the pass twice is running it once). A `pingpong` grid
    whose K/V pipeline was not written yet, or a KV loop without exactly one
    GEMM of each kind, is an error at the op. Canonicalize and cse between
    this pass and the next change nothing (the turn ops have memory
    effects).
  }];
}

def FlashCheckLowered : Pass<"flash-check-lowered", "::mlir::ModuleOp"> {
  let summary = "Fail at the first op a lowering to the LLVM dialect left";
  let description = [{
    The last step of `flash-lower-to-cpu` and `flash-lower-to-gpu`: every op
    of the module must be in the LLVM dialect, or be a `gpu.binary` (the
    compiled kernels) or a `gpu.launch_func` on LLVM values (both translated
    by the GPU dialect's LLVM IR translation). The first op that is not (preferably not an
    `unrealized_conversion_cast`, which only hints at the op that produced
    it) gets an error at its location and the pipeline fails, so that a
    half-lowered module (say, a tensor function whose results feed ops the
    GPU pipeline does not bufferize) never leaves with exit code 0.
  }];
}

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD
