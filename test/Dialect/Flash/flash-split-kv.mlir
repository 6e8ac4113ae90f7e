// RUN: flash-opt %s -split-input-file --flash-split-kv -verify-diagnostics | FileCheck %s
// RUN: flash-opt %s -split-input-file --flash-split-kv=full-wave-shortcut -verify-diagnostics | FileCheck %s --check-prefix=SHORT
// RUN: flash-opt %s -split-input-file --flash-split-kv --flash-tile -verify-diagnostics | FileCheck %s --check-prefix=TILE

// A fixed split count: scratch O_part/LSE_part (f32, leading split dim),
// the partial attention writing them, and the combine into O and LSE.

!t = memref<?x?x?x64xf16, strided<[?, ?, ?, 1], offset: ?>>
!l = memref<?x?x?xf32>
// CHECK-LABEL: func.func @fixed
// CHECK:       %[[OP:.*]] = flash.workspace({{.*}}) : memref<3x?x?x?x64xf32>
// CHECK:       %[[LP:.*]] = flash.workspace({{.*}}) : memref<3x?x?x?xf32>
// CHECK:       flash.attention ins(%arg0, %arg1, %arg2 : {{.*}}) outs(%[[OP]], %[[LP]] : memref<3x?x?x?x64xf32>, memref<3x?x?x?xf32>)
// CHECK-SAME:    splits = 3
// CHECK:       flash.combine ins(%[[OP]], %[[LP]] : memref<3x?x?x?x64xf32>, memref<3x?x?x?xf32>) outs(%arg3, %arg4 :
// CHECK-NOT:   flash.attention
// TILE-LABEL: func.func @fixed
// The partial grid gains the split axis (its bound is O_part's dim 0);
// every KV range is clipped to the split's run of blocks.
// TILE:       flash.grid (%{{.*}}, %[[H:.*]], %[[B:.*]], %[[S:.*]]) in ({{.*}}, {{.*}}, {{.*}}, %[[NS:.*]]) attributes {{{.*}}config = #flash.config<{{.*}}splits = 3>, scale = {{.+}}}
// TILE:         %[[PER:.*]] = arith.ceildivsi %{{.*}}, %[[NS]]
// TILE:         arith.muli %[[S]], %[[PER]]
// TILE:         flash.tile_update {{.*}} {causal, masked
// TILE:         flash.tile_finalize {{.*}} -> tensor<16x64xf32>, tensor<16xf32>
// The partial outputs are written at (split, batch, head, row).
// TILE:         flash.tile_store o %{{.*}}, %{{.*}}[%[[S]], %[[B]], %[[H]], %{{.*}}] rows %{{.*}} : tensor<16x64xf32> -> memref<3x?x?x?x64xf32>
// The combine grid: (row, head, batch) with the head-dim loop inside.
// TILE:       flash.grid ({{.*}}) in ({{.*}}) attributes {combine} {
// TILE:         scf.for {{.*}} -> (f32)
// TILE:           arith.maxnumf
// TILE:         math.log
// TILE:         memref.store {{.*}} : memref<?x?x?xf32>
// TILE:         scf.parallel
// TILE:           math.exp
// TILE:           math.fma
// TILE:           arith.truncf {{.*}} f32 to f16
// TILE:       }
func.func @fixed(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 3>}
  return
}

// -----

// splits = 0: FA2's num_splits_heuristic on the call's sizes (work =
// B * Hq * m-blocks against num-sms * ctas-per-sm slots), and the unsplit
// attention behind scf.if for S = 1. With full-wave-shortcut, FA2's
// "S = 1 from 80 % of a wave" too.

!q = memref<?x8x1x128xbf16>
!kv = memref<?x8x?x128xbf16>
// CHECK-LABEL: func.func @auto
// 3 programs of 69632 bytes fit in 227 KiB: 132 * 3 = 396 slots.
// CHECK:       %[[N:.*]] = arith.ceildivsi %{{.*}}, %c64
// CHECK:       arith.minsi %c128, %c396
// CHECK:       scf.for {{.*}} -> (f32)
// CHECK:         arith.ceildivsi %[[N]]
// CHECK:         math.ceil
// CHECK:         arith.maximumf
// CHECK:       arith.mulf %{{.*}}, %cst{{.*}} : f32
// CHECK:       scf.for {{.*}} -> (index)
// CHECK:       } 
// CHECK-NEXT:  %{{.*}} = arith.constant 1 : index
// CHECK-NEXT:  %[[S:.*]] = arith.maxsi %{{.*}}, %c1{{.*}} : index
// CHECK:       %[[ONE:.*]] = arith.cmpi eq, %[[S]], %c1
// CHECK:       scf.if %[[ONE]] {
// CHECK:         flash.attention {{.*}} outs(%arg3 : memref<?x8x1x128xbf16>) {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2>
// CHECK:       } else {
// CHECK:         flash.workspace(%[[S]], {{.*}}) : memref<?x?x8x1x128xf32>
// CHECK:         flash.combine
// SHORT-LABEL: func.func @auto
// SHORT:       %[[FULL:.*]] = arith.cmpi sge, %{{.*}}, %c1584
// SHORT:       arith.select %[[FULL]], %c1{{.*}}, %{{.*}} : index
func.func @auto(%q: !q, %k: !kv, %v: !kv, %o: !q) {
  flash.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o : !q)
      {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 0>}
  return
}

// -----

// Tensor form: not split, a diagnostic.
func.func @tensor(%q: tensor<1x8x1x64xf16>) -> tensor<1x8x1x64xf16> {
  // expected-error @+1 {{flash-split-kv: the tensor form is not split; bufferize first (memref form)}}
  %o = flash.attention ins(%q, %q, %q : tensor<1x8x1x64xf16>, tensor<1x8x1x64xf16>, tensor<1x8x1x64xf16>)
      {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 2>} -> tensor<1x8x1x64xf16>
  return %o : tensor<1x8x1x64xf16>
}
