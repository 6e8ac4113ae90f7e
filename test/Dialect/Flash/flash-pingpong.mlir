// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --flash-pingpong -split-input-file | FileCheck %s

// Running the pass twice is running it once; canonicalize and cse around it
// change nothing (the turn ops have memory effects and stay where they are).
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --flash-pingpong -split-input-file -o %t.once.mlir
// RUN: flash-opt %t.once.mlir --flash-pingpong -split-input-file -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --canonicalize --cse --flash-pingpong --canonicalize --cse -split-input-file -o %t.a.mlir
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --canonicalize --cse --canonicalize --cse --flash-pingpong -split-input-file -o %t.b.mlir
// RUN: diff %t.a.mlir %t.b.mlir

// Without the K/V pipeline there is nothing to take turns in.
// RUN: not flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --flash-pingpong -split-input-file 2>&1 | FileCheck %s --check-prefix=NOPIPE
// NOPIPE: error: 'flash.kv_loop' op flash-pingpong: the turns are taken within the producer warpgroup's K/V pipeline; run flash-pipeline-kv first

// FA3's ping-pong (pingpong = true): warpgroup 0 takes the first turn
// before the first KV loop; in every loop (flash-tile's peeled ones too) the
// turn is passed right after the score GEMM (Q from shared memory) and
// waited for right before the P V GEMM (P in registers); one more pass
// after the last loop, before the drain.
!F = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @pingpong
// CHECK: flash.pipeline_producer stages 3
// CHECK-NEXT: flash.pipeline_turn_start
// CHECK-NEXT: flash.kv_loop masked_right
// CHECK: linalg.matmul {{.*}}ins(%{{.*}}, %{{.*}} : tensor<128x128xbf16, #flash.frag<smem, wgmma>>
// CHECK-NEXT: flash.pipeline_turn_pass
// CHECK-NOT: flash.pipeline_turn
// CHECK: flash.pipeline_turn_wait
// CHECK-NEXT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<128x96xbf16, #flash.frag<acc, wgmma>>
// CHECK-NEXT: flash.pipeline_release
// CHECK: flash.kv_loop main
// CHECK: linalg.matmul
// CHECK-NEXT: flash.pipeline_turn_pass
// CHECK-NOT: flash.pipeline_turn
// CHECK: flash.pipeline_turn_wait
// CHECK-NEXT: linalg.matmul
// CHECK-NEXT: flash.pipeline_release
// CHECK-NEXT: flash.yield
// CHECK-NEXT: }
// CHECK-NEXT: flash.pipeline_turn_end
// CHECK-NEXT: flash.pipeline_drain
func.func @pingpong(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>}
  return
}

// -----

// The producer config without pingpong takes no turns.
!F = memref<?x?x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @producer
// CHECK-NOT: flash.pipeline_turn
// CHECK: return
func.func @producer(%q: !F, %k: !F, %v: !F, %o: !F) {
  flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
      {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
  return
}
