//===- FlashTileOps.td - flash tile-level structure ops ----*- tablegen -*-===//
//
// The structure of a tiled attention as ops: the grid of programs, the KV
// block loops and the tile reads and writes. flash-tile produces them; every
// target lowers them (flash-tile-to-scf for the CPU, flash-to-gpu for NVIDIA
// GPUs). They carry their meaning in their operands and verified
// attributes, so canonicalize/cse between any two passes changes nothing a
// later pass relies on (an scf.parallel with a discardable config, say, loses
// both when a unit dimension is folded).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHTILEOPS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHTILEOPS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "flash/Dialect/Flash/IR/FlashAttrs.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Flash_GridOp : Flash_Op<"grid", [
    SingleBlockImplicitTerminator<"YieldOp">, RecursiveMemoryEffects,
    AttrSizedOperandSegments]> {
  let summary = "The grid of independent programs of a tiled attention";
  let description = [{
    Runs its body once for every point of `[0, ub_0) x ... x [0, ub_n)`, in
    any order and in parallel; the block arguments are the point. It is
    FlashAttention-2's launch grid: an attention grid (`config` present)
    has the axes (Q row block, query head, batch[, split]) and each program
    handles `config.block_m` query rows of one head; a `combine` grid has the
    axes (query row, head, batch) of `flash.combine`.

    An attention grid also names what it computes, for the compiled
    artifact's ABI record (the runtime checks calls against it): `causal`,
    `window` (left, right), `scale` and `softcap`, flash.attention's
    attributes, and `block_mask_rows` when a block_mask hint bounds its KV
    loops (the hint is then an argument the runtime passes). The ops inside
    the grid are the computation itself; nothing lowers these attributes.

    The memrefs that bound the KV loops rather than feed the math are
    operands, so a later pass reads them from the grid instead of finding
    them by data flow: `kv_lens` (i32 [batch], the serving lengths the
    body's K/V ranges read) and `block_mask` (i32 [B|1, Hq|1, R, 4], the
    hint the body's KV loop bounds read; present iff `block_mask_rows`).
    The body reads them by the same SSA values.

    A grid of flash.attention_backward names its step in `backward` (a
    `BackwardStep`): `delta` (axes Q row block, query head, batch: D =
    rowsum(dO * O) of its rows), `kv` (axes KV block, KV head, batch:
    FA2's backward program, which keeps one K/V block and its dK/dV on chip
    and loops over the Q row blocks of every query head of the group) or
    `dq` (axes Q row block, query head, batch: the f32 dQ accumulator
    converted to dQ's element type).

    The optional `masked_iterations` / `unmasked_iterations` record the KV
    iterations of the whole grid with and without an element mask when the
    shape is static (pass statistics are compiled out of Debian's LLVM).

    ```mlir
    flash.grid (%m, %h, %b) in (%nm, %nh, %nb) kv_lens(%lens : memref<?xi32>)
        attributes {config = #flash.config<block_m = 128, block_n = 64,
                                           warps = 4, stages = 2>} {
      ...
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$upper_bounds,
                       Optional<MemRefRankOf<[I32], [1]>>:$kv_lens,
                       Optional<MemRefRankOf<[I32], [4]>>:$block_mask,
                       OptionalAttr<Flash_ConfigAttr>:$config,
                       UnitAttr:$combine,
                       OptionalAttr<I64Attr>:$masked_iterations,
                       OptionalAttr<I64Attr>:$unmasked_iterations,
                       UnitAttr:$causal,
                       OptionalAttr<DenseI64ArrayAttr>:$window,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<F32Attr>:$softcap,
                       OptionalAttr<I64Attr>:$block_mask_rows,
                       OptionalAttr<Flash_BackwardStepAttr>:$backward);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "ValueRange":$upperBounds,
                                CArg<"Value", "{}">:$kvLens,
                                CArg<"Value", "{}">:$blockMask)>];
  let extraClassDeclaration = [{
    /// The program's coordinates (the body's block arguments).
    ::mlir::Block::BlockArgListType getInductionVars() {
      return getBody().front().getArguments();
    }
    /// Split-KV's partial attention: the fourth axis is the split.
    bool isPartial() { return !getCombine() && getUpperBounds().size() == 4; }
  }];
}

def Flash_KVLoopOp : Flash_Op<"kv_loop", [
    RecursiveMemoryEffects, AllTypesMatch<["inits", "results"]>]> {
  let summary = "One run of FlashAttention-2's KV block loop";
  let description = [{
    Visits the KV blocks `[lower, upper)` one after another, descending
    with `reversed`, threading `iter_args` (the online-softmax state)
    through the body; the body's first argument is the block index and its
    `flash.yield` gives the next state. An empty range returns the inits.

    `role` (a `KVLoopRole`, written after the op name) names the run in
    flash-tile's peeling: `masked_right` (the
    causal/window diagonal band or the ragged last block), `main` (blocks
    proved fully visible: no element mask), `mask_mod` (blocks a block-mask
    hint leaves partial that causal, window and the key bound keep whole:
    the mask_mod only) or `masked_left` (the left window edge). flash-tile's runs of one program visit one contiguous descending
    sequence of blocks, which lets the GPU prefetch "the next block" across
    them: flash-pipeline-kv threads the K/V pipeline's slot (and phase) as
    the last iter_args (index) through every run.

    ```mlir
    %acc, %m, %l = flash.kv_loop main %j = %lo to %hi reversed
        iter_args(%a = %acc0, %mx = %m0, %s = %l0)
        -> (tensor<64x128xf32>, tensor<64xf32>, tensor<64xf32>)
        { ... flash.yield ... }
    ```
  }];
  let arguments = (ins Index:$lower, Index:$upper, Variadic<AnyType>:$inits,
                       Flash_KVLoopRole:$role, UnitAttr:$reversed);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Value getBlockIndex() { return getBody().front().getArgument(0); }
    ::mlir::Block::BlockArgListType getRegionIterArgs() {
      return getBody().front().getArguments().drop_front();
    }
  }];
}

def Flash_YieldOp : Flash_Op<"yield", [
    Pure, Terminator, ReturnLike,
    ParentOneOf<["GridOp", "KVLoopOp", "AttentionOp", "AttentionBackwardOp",
                "TileUpdateOp", "TileGradOp"]>]> {
  let summary = "Terminates a grid program, gives a KV loop's next state or "
                "a score_mod / mask_mod region's value";
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

def Flash_TileLoadOp : Flash_Op<"tile_load", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>,
    AttrSizedOperandSegments]> {
  let summary = "Reads a [rows, dim] block of one (batch, head) plane";
  let description = [{
    Reads rows `start .. start + R` of the `[seq, dim]` plane `(batch, head)`
    of a `[B, H, S, D]` memref (any strides) as a static `[R, D]` tile; rows
    at or past `limit` read as zero (tails are padded on chip, not by the
    caller).

    With `pages(%table)` the source is a paged KV cache
    `[num_pages, H, page_size, D]`: row `j` of sequence `batch` is slot
    `j % page_size` of page `table[batch, j / page_size]`.

    `role` says which operand the tile is: `q` (the program's query rows),
    `k` or `v` (a KV block of a `flash.kv_loop`). Later passes read it
    instead of telling K from V by how a matmul indexes the tile. In a
    backward grid (`backward` set) the roles are the backward's: `q`, `do`
    and `o` row blocks, `k` and `v` the program's KV block, `dq` the f32
    accumulator's rows, and the row vectors `lse` and `delta`, read from a
    `[B, H, S]` memref as a `[R]` tile.

    With `slot(%s)` (written by flash-pipeline-kv, K/V loads in a KV loop
    only) the tile is the one the K/V pipeline put into shared-memory slot
    `%s` (see FlashPipelineOps.td): the GPU lowering reads it there instead
    of issuing the copy.

    ```mlir
    %k = flash.tile_load k %key[%b, %kvh, %col] limit %seq_k slot(%s)
        : memref<?x8x?x128xbf16> -> tensor<64x128xbf16>
    ```
  }];
  let arguments = (ins Flash_TileRole:$role, AnyMemRef:$source,
                       Index:$batch, Index:$head,
                       Index:$start, Index:$limit,
                       Optional<AnyMemRef>:$block_table,
                       Optional<Index>:$slot);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = [{
    $role $source `[` $batch `,` $head `,` $start `]` `limit` $limit
    (`pages` `(` $block_table^ `:` type($block_table) `)`)?
    (`slot` `(` $slot^ `)`)?
    attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Flash_TileStoreOp : Flash_Op<"tile_store", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Writes the first rows of a tile into one (batch, head) plane";
  let description = [{
    Writes rows `0 .. count` of `tile` (`[R, D]` for O, `[R]` for LSE) to
    rows `start .. start + count` of the plane `([split,] batch, head)` of
    `dest`: `[B, H, S, D]` / `[B, H, S]`, or with a leading split index the
    partial outputs `[S, B, H, Sq, Dv]` / `[S, B, H, Sq]` of split-KV.
    `role` is `o` for the output rows and `lse` for the log-sum-exp; in a
    backward grid `delta` (`[R]`), `dq`, `dk` or `dv` (`[R, D]`).

    ```mlir
    flash.tile_store o %o, %out[%b, %h, %row] rows %n
        : tensor<64x128xbf16> -> memref<?x32x?x128xbf16>
    ```
  }];
  let arguments = (ins Flash_TileRole:$role, AnyRankedTensor:$tile,
                       AnyMemRef:$dest,
                       Variadic<Index>:$indices, Index:$count);
  let assemblyFormat = [{
    $role $tile `,` $dest `[` $indices `]` `rows` $count attr-dict `:`
      type($tile) `->` type($dest)
  }];
  let hasVerifier = 1;
}

def Flash_TileAccumulateOp : Flash_Op<"tile_accumulate", [
    DeclareOpInterfaceMethods<MemoryEffectsOpInterface>]> {
  let summary = "Adds the first rows of an f32 tile into one (batch, head) "
                "plane";
  let description = [{
    Adds rows `0 .. count` of the f32 `[R, D]` tile to rows `start .. start +
    count` of the plane `(batch, head)` of the f32 `[B, H, S, D]` memref
    `dest`. Programs of one grid may add into the same rows concurrently:
    every target makes each element's addition atomic (the CPU's loops run
    one program's additions at a time), so the sum is complete when the grid
    is, in some order. `role` is `dq`: the backward's query gradient, which
    every KV block's program contributes to.

    ```mlir
    flash.tile_accumulate dq %part, %dq_acc[%b, %h, %row] rows %n
        : tensor<64x128xf32> -> memref<?x32x?x128xf32>
    ```
  }];
  let arguments = (ins Flash_TileRole:$role, RankedTensorOf<[F32]>:$tile,
                       MemRefRankOf<[F32], [4]>:$dest, Index:$batch,
                       Index:$head, Index:$start, Index:$count);
  let assemblyFormat = [{
    $role $tile `,` $dest `[` $batch `,` $head `,` $start `]` `rows` $count
      attr-dict `:` type($tile) `->` type($dest)
  }];
  let hasVerifier = 1;
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHTILEOPS_TD
