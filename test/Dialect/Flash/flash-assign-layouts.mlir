// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts -split-input-file | FileCheck %s
// No tile is left without a layout.
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts -split-input-file | FileCheck %s --check-prefix=ALL
// ALL-NOT: {{tensor<[0-9x]+(f16|bf16|f32)>}}
// Canonicalize and cse after the pass keep every layout (they are types).
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts --canonicalize --cse -split-input-file | FileCheck %s
// Running the pass twice changes nothing.
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts -split-input-file -o %t.once.mlir
// RUN: flash-opt %t.once.mlir --flash-assign-layouts -split-input-file -o %t.twice.mlir
// RUN: diff %t.once.mlir %t.twice.mlir

// flash-assign-layouts gives every tile value of an attention grid its
// #flash.frag layout (the encoding of its tensor type): the Q/K/V tile
// loads live in swizzled shared memory, 2-D tiles in the MMA accumulator
// layout, row vectors in its rows; FA2's row sum l, only ever scaled and
// summed into, stays a thread-partial sum (row_partial), the running max m
// does not (row).

!T = memref<?x?x?x32xf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @mma_sync
// CHECK: flash.grid
// CHECK: %[[Q:.*]] = flash.tile_load {{.*}} -> tensor<32x32xf16, #flash.frag<smem, mma_sync>>
// CHECK: %[[ACC0:.*]] = linalg.fill {{.*}} -> tensor<32x32xf32, #flash.frag<acc, mma_sync>>
// CHECK: %[[M0:.*]] = linalg.fill {{.*}} -> tensor<32xf32, #flash.frag<row>>
// CHECK: %[[L0:.*]] = linalg.fill {{.*}} -> tensor<32xf32, #flash.frag<row_partial>>
// The state: acc, m (row), l (row_partial), through every KV loop.
// CHECK: flash.kv_loop {{.*}} iter_args(%[[A:.*]] = %[[ACC0]], %[[M:.*]] = %[[M0]], %[[L:.*]] = %[[L0]]) -> (tensor<32x32xf32, #flash.frag<acc, mma_sync>>, tensor<32xf32, #flash.frag<row>>, tensor<32xf32, #flash.frag<row_partial>>)
// CHECK: %[[K:.*]] = flash.tile_load {{.*}} -> tensor<16x32xf16, #flash.frag<smem, mma_sync>>
// CHECK: %[[V:.*]] = flash.tile_load {{.*}} -> tensor<16x32xf16, #flash.frag<smem, mma_sync>>
// CHECK: %[[S:.*]] = linalg.matmul {{.*}} ins(%[[Q]], %[[K]] : tensor<32x32xf16, #flash.frag<smem, mma_sync>>, tensor<16x32xf16, #flash.frag<smem, mma_sync>>) outs(%{{.*}} : tensor<32x16xf32, #flash.frag<acc, mma_sync>>)
// m_new = max(m, rowmax S) is a row.
// CHECK: linalg.generic {{.*}} outs(%[[M]] : tensor<32xf32, #flash.frag<row>>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.maxnumf
// l * alpha, then + rowsum P: partial.
// CHECK: %[[LA:.*]] = linalg.generic {{.*}} outs(%[[L]] : tensor<32xf32, #flash.frag<row_partial>>)
// CHECK: linalg.generic {{.*}} outs(%[[LA]] : tensor<32xf32, #flash.frag<row_partial>>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.addf
// P in V's type keeps the accumulator layout: the C -> A reuse.
// CHECK: %[[P:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x16xf16, #flash.frag<acc, mma_sync>>)
// CHECK: linalg.matmul ins(%[[P]], %[[V]] : tensor<32x16xf16, #flash.frag<acc, mma_sync>>, tensor<16x32xf16, #flash.frag<smem, mma_sync>>) outs(%{{.*}} : tensor<32x32xf32, #flash.frag<acc, mma_sync>>)
// CHECK: flash.yield {{.*}} : tensor<32x32xf32, #flash.frag<acc, mma_sync>>, tensor<32xf32, #flash.frag<row>>, tensor<32xf32, #flash.frag<row_partial>>
// The epilogue reads l as an input (its total): O and LSE.
// CHECK: %[[O:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x32xf16, #flash.frag<acc, mma_sync>>)
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32xf32, #flash.frag<row>>)
// CHECK: flash.tile_store {{o|lse}} %[[O]]
// CHECK: flash.tile_store {{o|lse}} %[[LSE]]
// CHECK: return
func.func @mma_sync(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
  return
}

// -----

// A wgmma configuration: the accumulators and shared-memory tiles are
// wgmma's.
!W = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @wgmma
// CHECK: flash.tile_load {{.*}} -> tensor<64x64xbf16, #flash.frag<smem, wgmma>>
// CHECK: flash.kv_loop {{.*}} -> (tensor<64x64xf32, #flash.frag<acc, wgmma>>, tensor<64xf32, #flash.frag<row>>, tensor<64xf32, #flash.frag<row_partial>>)
// CHECK: linalg.matmul {{.*}} -> tensor<64x64xf32, #flash.frag<acc, wgmma>>
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<64x64xbf16, #flash.frag<acc, wgmma>>, tensor<64x64xbf16, #flash.frag<smem, wgmma>>)
func.func @wgmma(%q: !W, %k: !W, %v: !W, %o: !W) {
  flash.attention ins(%q, %k, %v : !W, !W, !W) outs(%o : !W)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>}
  return
}
