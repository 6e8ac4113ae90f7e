// RUN: flash-opt %s --flash-split-kv --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv -split-input-file | FileCheck %s
// Running the pass twice is running it once (a pipelined grid is left as
// it is).
// RUN: flash-opt %s --flash-split-kv --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv -split-input-file -o %t.once.mlir
// RUN: flash-opt %t.once.mlir --flash-pipeline-kv -split-input-file -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// canonicalize and cse after the pass change nothing of its ops (they have
// memory effects, the advance is yielded): cleaning up after it is
// cleaning up before it (canonicalize alone is not idempotent on the
// window mask's conjunctions, so both sides clean up twice).
// RUN: flash-opt %s --flash-split-kv --flash-tile --flash-online-softmax --flash-assign-layouts --canonicalize --cse --flash-pipeline-kv --canonicalize --cse -split-input-file -o %t.a.mlir
// RUN: flash-opt %s --flash-split-kv --flash-tile --flash-online-softmax --flash-assign-layouts --canonicalize --cse --canonicalize --cse --flash-pipeline-kv -split-input-file -o %t.b.mlir
// RUN: diff %t.a.mlir %t.b.mlir

// flash-pipeline-kv writes the K/V copy schedule of each attention grid as
// ops, from its #flash.config. cp.async (FA2): the prologue puts
// stages - 1 blocks in flight; each iteration waits until at most
// stages - 2 later groups are pending, prefetches the block stages - 1
// ahead and advances the slot, which the K/V loads read and every peeled
// loop carries (its last iter_arg) into the next; the drain follows the
// last loop.

!F = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @double_buffer
// CHECK: flash.grid
// CHECK: %[[K:.+]] = flash.tile_load q %arg0
// CHECK: %[[S0:.+]] = flash.pipeline_prologue stages 2
// CHECK-NEXT: %[[R1:.+]]:4 = flash.kv_loop masked_right %{{.+}} iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %{{.+}} = %{{.+}}, %[[SLOT:arg[0-9]+]] = %[[S0]]) -> ({{.*}}, index)
// CHECK-NEXT: flash.pipeline_wait %[[SLOT]] pending 0
// CHECK-NEXT: flash.pipeline_prefetch %[[SLOT]] distance 1
// CHECK-NEXT: %[[NEXT:.+]] = flash.pipeline_advance %[[SLOT]]
// CHECK: flash.tile_load {{[qkv]}} %arg1[{{.*}}] limit %{{.+}} slot(%[[SLOT]])
// CHECK-NEXT: flash.tile_load {{[qkv]}} %arg2[{{.*}}] limit %{{.+}} slot(%[[SLOT]])
// CHECK: flash.yield %{{.+}}, %{{.+}}, %{{.+}}, %[[NEXT]] :
// CHECK: flash.kv_loop main {{.*}} iter_args({{.*}}, %[[SLOT2:arg[0-9]+]] = %[[R1]]#3) -> ({{.*}}, index)
// CHECK-NEXT: flash.pipeline_wait %[[SLOT2]] pending 0
// CHECK-NEXT: flash.pipeline_prefetch %[[SLOT2]] distance 1
// CHECK-NEXT: %[[NEXT2:.+]] = flash.pipeline_advance %[[SLOT2]]
// CHECK: flash.tile_load {{[qkv]}} %arg1[{{.*}}] limit %{{.+}} slot(%[[SLOT2]])
// CHECK-NEXT: flash.tile_load {{[qkv]}} %arg2[{{.*}}] limit %{{.+}} slot(%[[SLOT2]])
// CHECK: flash.yield %{{.+}}, %{{.+}}, %{{.+}}, %[[NEXT2]] :
// CHECK-NEXT: }
// CHECK-NEXT: flash.pipeline_drain
// CHECK-NOT: flash.pipeline
// CHECK: flash.tile_store
func.func @double_buffer(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// Causal with a left window: flash-tile's three peeled loops (the diagonal
// band, the mask-free middle, the left edge) are one run of blocks, so the
// slot goes from each loop into the next. Three stages: two blocks in
// flight, one pending group allowed at the wait, the block two ahead.
!F = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @three_loops
// CHECK: %[[S0:.+]] = flash.pipeline_prologue stages 3
// CHECK-NEXT: %[[R1:.+]]:4 = flash.kv_loop masked_right {{.*}}, %[[A:arg[0-9]+]] = %[[S0]]) ->
// CHECK-NEXT: flash.pipeline_wait %[[A]] pending 1
// CHECK-NEXT: flash.pipeline_prefetch %[[A]] distance 2
// CHECK-NEXT: flash.pipeline_advance %[[A]]
// CHECK: %[[R2:.+]]:4 = flash.kv_loop main {{.*}}, %[[B:arg[0-9]+]] = %[[R1]]#3) ->
// CHECK-NEXT: flash.pipeline_wait %[[B]] pending 1
// CHECK-NEXT: flash.pipeline_prefetch %[[B]] distance 2
// CHECK: flash.kv_loop masked_left {{.*}}, %[[C:arg[0-9]+]] = %[[R2]]#3) ->
// CHECK-NEXT: flash.pipeline_wait %[[C]] pending 1
// CHECK-NEXT: flash.pipeline_prefetch %[[C]] distance 2
// CHECK-NEXT: flash.pipeline_advance %[[C]]
// CHECK: flash.pipeline_drain
func.func @three_loops(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {causal, window = array<i64: 256, 0>, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 3>}
  return
}

// -----

// A producer warpgroup (FA3): the producer op streams the ring; each
// iteration acquires its slot at the phase parity it carries and releases
// it after the body; slot and phase are the last two iter_args.
!F = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @producer
// CHECK: %[[S0:.+]], %[[P0:.+]] = flash.pipeline_producer stages 3
// CHECK-NOT: flash.pipeline_prologue
// CHECK-NEXT: %[[R1:.+]]:5 = flash.kv_loop {{.*}}, %[[S:arg[0-9]+]] = %[[S0]], %[[P:arg[0-9]+]] = %[[P0]]) -> ({{.*}}, index, index)
// CHECK-NEXT: flash.pipeline_acquire %[[S]] phase %[[P]]
// CHECK-NEXT: %[[N:.+]]:2 = flash.pipeline_advance %[[S]] phase %[[P]]
// CHECK-NOT: flash.pipeline_wait
// CHECK: flash.tile_load {{[qkv]}} %arg1[{{.*}}] limit %{{.+}} slot(%[[S]])
// CHECK-NEXT: flash.tile_load {{[qkv]}} %arg2[{{.*}}] limit %{{.+}} slot(%[[S]])
// CHECK: flash.pipeline_release %[[S]]
// CHECK-NEXT: flash.yield %{{.+}}, %{{.+}}, %{{.+}}, %[[N]]#0, %[[N]]#1 :
// CHECK: flash.kv_loop {{.*}}, %{{arg[0-9]+}} = %[[R1]]#3, %{{arg[0-9]+}} = %[[R1]]#4)
// CHECK: flash.pipeline_release
// CHECK: flash.pipeline_drain
func.func @producer(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
  return
}

// -----

// Combine grids (split-KV's merge) have no K/V loads: left alone.
// CHECK-LABEL: func.func @decode
// CHECK: flash.pipeline_prologue
// CHECK: flash.grid {{.*}}combine
// CHECK-NOT: flash.pipeline
// CHECK: return
!D = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @decode(%q: memref<1x8x1x128xbf16>, %k: !D, %v: !D, %o: memref<1x8x1x128xbf16>) {
  flash.attention ins(%q, %k, %v : memref<1x8x1x128xbf16>, !D, !D) outs(%o : memref<1x8x1x128xbf16>)
      {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, splits = 4>}
  return
}
