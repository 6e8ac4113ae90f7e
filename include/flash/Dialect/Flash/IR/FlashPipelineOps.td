//===- FlashPipelineOps.td - flash K/V software pipeline ops -*- tablegen -*-===//
//
// The software pipeline of the K/V blocks as ops, written into an attention
// grid by flash-pipeline-kv and lowered by flash-to-gpu: which blocks are in
// flight before the KV loops, what each iteration waits for, which block it
// prefetches into which shared-memory slot, how the slot (and, with FA3's
// producer warpgroup, the mbarrier phase) advances across the peeled KV
// loops, and the drain before the epilogue reuses shared memory. The
// schedule is decided where these ops are written; the GPU lowering only
// maps each op onto cp.async / wait_group / barrier or mbarrier wait / arrive.
//
// Every op reads the pipeline depth (`stages`) and the producer flag from
// the #flash.config of its attention grid, and its verifier refuses an op
// of the other mode, so the ops and the config cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHPIPELINEOPS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHPIPELINEOPS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

/// A pipeline op: it orders shared-memory traffic, so it reads and writes
/// memory (canonicalize and cse keep it where it is).
class Flash_PipelineOp<string mnemonic, list<Trait> traits = []>
    : Flash_Op<"pipeline_" # mnemonic,
               !listconcat(traits, [MemoryEffects<[MemRead, MemWrite]>])> {
  let hasVerifier = 1;
}

def Flash_PipelinePrologueOp : Flash_PipelineOp<"prologue",
    [HasParent<"GridOp">]> {
  let summary = "The K/V blocks in flight before the KV loops (cp.async)";
  let description = [{
    Puts the first `stages - 1` K/V blocks of the program's run (flash-tile's
    KV loops visit one contiguous descending sequence of blocks) in flight
    into slots `0 .. stages - 2`, one cp.async group each; the Q tile joins
    the first group. The result is the slot of the run's first block (0),
    the first KV loop's initial `slot` iter_arg. `stages` must be the grid
    config's, at least 2, and the config must have no producer warpgroup.

    ```mlir
    %slot0 = flash.pipeline_prologue stages 2
    ```
  }];
  let arguments = (ins I64Attr:$stages);
  let results = (outs Index:$slot);
  let assemblyFormat = "`stages` $stages attr-dict";
}

def Flash_PipelineProducerOp : Flash_PipelineOp<"producer",
    [HasParent<"GridOp">]> {
  let summary = "FA3's producer warpgroup filling a ring of K/V slots";
  let description = [{
    A warpgroup of 128 threads, after the consumer warps, streams every K/V
    block of the program's run into a ring of `stages` slots: block i into
    slot `i % stages`, after waiting on `empty[slot]` for the consumers'
    release of round `i / stages - 1`, and publishes it on `full[slot]` once
    it has landed. The consumers load Q themselves. The results are the
    first block's slot (0) and the parity of its `full` phase (0): the
    first KV loop's initial `slot` and `phase` iter_args. Only in a grid
    whose config has `producer = true`; `stages` must be the config's.

    ```mlir
    %slot0, %phase0 = flash.pipeline_producer stages 2
    ```
  }];
  let arguments = (ins I64Attr:$stages);
  let results = (outs Index:$slot, Index:$phase);
  let assemblyFormat = "`stages` $stages attr-dict";
}

def Flash_PipelineWaitOp : Flash_PipelineOp<"wait", [HasParent<"KVLoopOp">]> {
  let summary = "Top of a KV iteration: this block has landed (cp.async)";
  let description = [{
    Waits until the block of this iteration (in `slot`) has landed: at most
    `pending` later cp.async groups may still be in flight (`stages - 2`:
    the groups of the blocks issued after it), then every thread of the
    program meets, which publishes the block and tells the prefetch that
    follows that every warp is done with the slot it overwrites. With wgmma
    the landed writes are fenced into the async proxy before the barrier.

    ```mlir
    flash.pipeline_wait %slot pending 0
    ```
  }];
  let arguments = (ins Index:$slot, I64Attr:$pending);
  let assemblyFormat = "$slot `pending` $pending attr-dict";
}

def Flash_PipelinePrefetchOp : Flash_PipelineOp<"prefetch",
    [HasParent<"KVLoopOp">]> {
  let summary = "Issues the K/V block `distance` ahead (cp.async)";
  let description = [{
    Issues the copy of the block `distance` blocks after this iteration's
    (along the run, across the peeled loops) into slot
    `(slot + distance) % stages`, as one cp.async group (empty when the run
    has no such block). With `distance = stages - 1` that is the slot read
    by the previous iteration, which the preceding `flash.pipeline_wait`
    freed. `distance` is in `[1, stages - 1]`.

    ```mlir
    flash.pipeline_prefetch %slot distance 1
    ```
  }];
  let arguments = (ins Index:$slot, I64Attr:$distance);
  let assemblyFormat = "$slot `distance` $distance attr-dict";
}

def Flash_PipelineAcquireOp : Flash_PipelineOp<"acquire",
    [HasParent<"KVLoopOp">]> {
  let summary = "Waits on the producer's full barrier of a slot";
  let description = [{
    Top of a KV iteration with a producer warpgroup: waits until phase
    `phase` (parity 0 or 1) of `full[slot]` completed, i.e. the producer's
    block in `slot` has landed and was fenced into the async proxy.

    ```mlir
    flash.pipeline_acquire %slot phase %phase
    ```
  }];
  let arguments = (ins Index:$slot, Index:$phase);
  let assemblyFormat = "$slot `phase` $phase attr-dict";
}

def Flash_PipelineReleaseOp : Flash_PipelineOp<"release",
    [HasParent<"KVLoopOp">]> {
  let summary = "Hands a slot back to the producer";
  let description = [{
    End of a KV iteration with a producer warpgroup: every consumer thread
    arrives on `empty[slot]` once both GEMMs have read the slot, so the
    producer may refill it.

    ```mlir
    flash.pipeline_release %slot
    ```
  }];
  let arguments = (ins Index:$slot);
  let assemblyFormat = "$slot attr-dict";
}

def Flash_PipelineAdvanceOp : Flash_Op<"pipeline_advance", [
    Pure, HasParent<"KVLoopOp">]> {
  let summary = "The next iteration's slot (and full-barrier phase)";
  let description = [{
    `(slot + 1) % stages`, the slot of the next block; with a producer
    warpgroup (`phase` given) also the parity of the next block's `full`
    phase, which flips each time the slot wraps to 0. The KV loop yields
    the results as its `slot` (and `phase`) iter_args, so the ring's
    position carries across the peeled loops.

    ```mlir
    %next = flash.pipeline_advance %slot
    %next_slot, %next_phase = flash.pipeline_advance %slot phase %phase
    ```
  }];
  let arguments = (ins Index:$slot, Optional<Index>:$phase);
  let results = (outs Variadic<Index>:$next);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let builders = [OpBuilder<(ins "Value":$slot, CArg<"Value", "{}">:$phase)>];
}

def Flash_PipelineDrainOp : Flash_PipelineOp<"drain", [HasParent<"GridOp">]> {
  let summary = "Every K/V copy landed and every consumer done with it";
  let description = [{
    After the KV loops: no copy into shared memory is still in flight and
    every consumer thread is past its reads of the K/V slots and of Q, so
    the epilogue may reuse the shared memory (O is staged where Q was). The
    GPU lowering places it right before the epilogue's first shared-memory
    write.

    ```mlir
    flash.pipeline_drain
    ```
  }];
  let assemblyFormat = "attr-dict";
}

//===----------------------------------------------------------------------===//
// FA3's ping-pong schedule of two consumer warpgroups (`pingpong = true`)
//===----------------------------------------------------------------------===//

/// A turn op: the consumer warpgroups take turns at the tensor cores, so one
/// issues its GEMMs while the other runs its softmax. Warpgroup g waits for
/// its turn on named barrier 2 + g, which the other warpgroup arrives on
/// when it passes the turn; both count 256 threads (one warpgroup syncs, the
/// other arrives).
class Flash_PipelineTurnOp<string mnemonic, string parent>
    : Flash_PipelineOp<"turn_" # mnemonic, [HasParent<parent>]> {
  let assemblyFormat = "attr-dict";
}

def Flash_PipelineTurnStartOp : Flash_PipelineTurnOp<"start", "GridOp"> {
  let summary = "Warpgroup 0 takes the first turn";
  let description = [{
    Before the first KV loop: warpgroup 1 passes the first turn to warpgroup
    0, then each waits for its own turn, so warpgroup 0 issues the first
    score GEMM. Needs a grid config with `pingpong = true`.

    ```mlir
    flash.pipeline_turn_start
    ```
  }];
}

def Flash_PipelineTurnPassOp : Flash_PipelineTurnOp<"pass", "KVLoopOp"> {
  let summary = "Hands the tensor cores to the other warpgroup";
  let description = [{
    After this warpgroup issued its score GEMM (the GPU lowering places the
    arrive before the GEMM's wait, so the other warpgroup issues while these
    scores are computed). A warpgroup's turn is {O += P V of the previous
    block, S = Q K^T of this one}.

    ```mlir
    flash.pipeline_turn_pass
    ```
  }];
}

def Flash_PipelineTurnWaitOp : Flash_PipelineTurnOp<"wait", "KVLoopOp"> {
  let summary = "Waits until the other warpgroup passed the turn";
  let description = [{
    Before this warpgroup's P V GEMM: its softmax is done, and it waits
    until the other warpgroup has issued its GEMMs.

    ```mlir
    flash.pipeline_turn_wait
    ```
  }];
}

def Flash_PipelineTurnEndOp : Flash_PipelineTurnOp<"end", "GridOp"> {
  let summary = "Warpgroup 0 passes once more after the KV loops";
  let description = [{
    Balances the turns: warpgroup 1's last wait (before its last P V GEMM)
    needs one more pass from warpgroup 0, which has no next score GEMM to
    pass after. Both warpgroups run the same blocks, so every other wait has
    its pass.

    ```mlir
    flash.pipeline_turn_end
    ```
  }];
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHPIPELINEOPS_TD
