// flash-to-gpu lowers flash-pipeline-kv's ops and decides no schedule of
// its own: a grid whose KV loops' K/V loads have no pipeline ops is
// refused, and so are ops that do not fit together (checkPipeline): a
// prefetch other than stages - 1 ahead, a loop body not opened by its wait,
// a K/V load that reads no slot, a missing or second drain. Each case
// mutates the pass's output; each is an error at the op and exit code 1.
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv -o %t.mlir
// RUN: flash-opt %t.mlir --flash-to-gpu -o /dev/null
// RUN: sed -e 's/distance 2/distance 1/' %t.mlir \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=DISTANCE
// RUN: sed -e '/flash.pipeline_wait/d' %t.mlir \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=TOP
// RUN: sed -e 's/ slot(%arg[0-9]*)//' %t.mlir \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=SLOT
// RUN: sed -e '/flash.pipeline_drain/d' %t.mlir \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=DRAIN
// RUN: sed -e 's/^\( *\)flash.pipeline_drain$/&\n\1flash.pipeline_drain/' %t.mlir \
// RUN:   | not flash-opt --flash-to-gpu 2>&1 | FileCheck %s --check-prefix=TWICE

// MISSING: error: 'flash.kv_loop' op flash-to-gpu: the K/V loads of the KV loops are not pipelined (no flash.pipeline_prologue or flash.pipeline_producer in the grid): run flash-pipeline-kv first
// DISTANCE: error: 'flash.pipeline_prefetch' op flash-to-gpu: a prefetch distance of 1 is not lowered; the block stages - 1 = 2 ahead refills the slot the wait freed
// TOP: error: 'flash.kv_loop' op flash-to-gpu: a KV loop's body must begin with flash.pipeline_wait, flash.pipeline_prefetch, flash.pipeline_advance
// SLOT: error: 'flash.tile_load' op flash-to-gpu: a K/V tile load must read its KV loop's pipeline slot
// DRAIN: error: 'flash.kv_loop' op flash-to-gpu: the K/V pipeline must be drained (flash.pipeline_drain) after the last KV loop and before the epilogue's stores
// TWICE: error: 'flash.pipeline_drain' op flash-to-gpu: an attention grid drains its K/V pipeline once

!S = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @three_stages(%q: !S, %k: !S, %v: !S, %o: !S) {
  flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
      {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 3>}
  return
}
