// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-backward-recompute --flash-assign-layouts | FileCheck %s
// No tile is left without a layout.
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-backward-recompute --flash-assign-layouts | FileCheck %s --check-prefix=ALL
// ALL-NOT: {{tensor<[0-9x]+(f16|bf16|f32)>}}
// Canonicalize and cse after the pass keep every layout (they are types).
// RUN: flash-opt %s --flash-tile --flash-online-softmax --flash-backward-recompute --flash-assign-layouts --canonicalize --cse | FileCheck %s
// Without flash-backward-recompute the step is one op, with no layout rule.
// RUN: not flash-opt %s --flash-tile --flash-online-softmax --flash-assign-layouts 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: error: 'flash.tile_grad' op flash-assign-layouts: run flash-backward-recompute first

// The backward's grids: a tile load that only matmuls read is a shared-memory
// GEMM operand (the KV program's K, V, Q and dO); the others are read
// straight into registers in the layout of the tiles they meet: O and dO of
// D = rowsum(dO * O) and the f32 dQ workspace as accumulator tiles, the LSE
// and D rows as row vectors. P and dS, which the transposed GEMMs read, are
// accumulator tiles like every computed tile (flash-to-gpu stages them).

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

// CHECK-LABEL: func.func @causal
// CHECK: flash.grid {{.*}}backward = #flash<backward_step delta>
// CHECK: flash.tile_load o {{.*}} -> tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_load do {{.*}} -> tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_store delta {{.*}} : tensor<64xf32, #flash.frag<row>>
// CHECK: flash.grid {{.*}}backward = #flash<backward_step kv>
// CHECK: flash.tile_load k {{.*}} -> tensor<64x64xbf16, #flash.frag<smem, mma_sync>>
// CHECK: flash.tile_load v {{.*}} -> tensor<64x64xbf16, #flash.frag<smem, mma_sync>>
// CHECK: scf.for {{.*}} -> (tensor<64x64xf32, #flash.frag<acc, mma_sync>>, tensor<64x64xf32, #flash.frag<acc, mma_sync>>)
// CHECK: flash.tile_load q {{.*}} -> tensor<64x64xbf16, #flash.frag<smem, mma_sync>>
// CHECK: flash.tile_load do {{.*}} -> tensor<64x64xbf16, #flash.frag<smem, mma_sync>>
// CHECK: flash.tile_load lse {{.*}} -> tensor<64xf32, #flash.frag<row>>
// CHECK: flash.tile_load delta {{.*}} -> tensor<64xf32, #flash.frag<row>>
// P, rounded for the GEMMs, and dS: accumulator tiles.
// CHECK: arith.truncf
// CHECK-NEXT: linalg.yield
// CHECK-NEXT: } -> tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_accumulate dq {{.*}} : tensor<64x64xf32, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_store dk {{.*}} : tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_store dv {{.*}} : tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
// CHECK: flash.grid {{.*}}backward = #flash<backward_step dq>
// CHECK: flash.tile_load dq {{.*}} -> tensor<64x64xf32, #flash.frag<acc, mma_sync>>
// CHECK: flash.tile_store dq {{.*}} : tensor<64x64xbf16, #flash.frag<acc, mma_sync>>
func.func @causal(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L, %do: !T, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T, !L, !T)
      outs(%dq, %dk, %dv : !T, !T, !T)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>}
  return
}
