// RUN: flash-opt %s -split-input-file --flash-tile -canonicalize -cse | FileCheck %s

// flash-tile builds FA2's grid and KV loop: one program per (Q row block,
// head, batch); the causal bound clipped at the diagonal; the masked band
// (ceil(BM/BN) + 1 = 3 blocks here) peeled and iterated right to left; a
// main loop whose updates carry no mask.

!Q = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!K = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>

// CHECK-LABEL: func.func @causal
// CHECK-SAME: (%[[Q:[^:]+]]: memref<{{.+}}>, %[[K:[^:]+]]: memref<{{.+}}>, %[[V:[^:]+]]: memref<{{.+}}>, %[[O:[^:]+]]: memref<{{.+}}>, %[[LSE:[^:]+]]: memref<?x?x?xf32>)
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C32:.+]] = arith.constant 32 : index
// CHECK-DAG: %[[C3:.+]] = arith.constant 3 : index
// CHECK-DAG: %[[B:.+]] = memref.dim %[[Q]], %c0
// CHECK-DAG: %[[HQ:.+]] = memref.dim %[[Q]], %c1
// CHECK-DAG: %[[SQ:.+]] = memref.dim %[[Q]], %c2
// CHECK-DAG: %[[SK:.+]] = memref.dim %[[K]], %c2
// CHECK-DAG: %[[HKV:.+]] = memref.dim %[[K]], %c1
// CHECK-DAG: %[[GROUP:.+]] = arith.divui %[[HQ]], %[[HKV]]
// CHECK-DAG: %[[NMB:.+]] = arith.ceildivsi %[[SQ]], %c64
// The grid: (m block, head, batch), an op with its verified config.
// CHECK: flash.grid (%[[MB:.+]], %[[H:.+]], %[[BI:.+]]) in (%[[NMB]], %[[HQ]], %[[B]]) attributes {causal, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.250000e-01 : f32}
// GQA: KV head = h / (Hq / Hkv).
// CHECK: %[[KVH:.+]] = arith.divui %[[H]], %[[GROUP]]
// CHECK: %[[ROW0:.+]] = arith.muli %[[MB]], %c64
// The Q block is read once (zero-padded to 64 rows past Sq).
// CHECK: %[[QT:.+]] = flash.tile_load q %[[Q]][%[[BI]], %[[H]], %[[ROW0]]] limit %[[SQ]] : {{.+}} -> tensor<64x64xf32>
// State: acc = 0, m = -inf, l = 0.
// CHECK: %[[M0:.+]] = linalg.fill ins(%[[NINF]] : f32) outs(%{{.+}} : tensor<64xf32>)
// Causal upper bound clipped at the diagonal: min(Sk, row0 + (Sk - Sq) + BM).
// CHECK: %[[OFF:.+]] = arith.subi %[[SK]], %[[SQ]]
// CHECK: %[[DIAG:.+]] = arith.addi %[[ROW0]], %[[OFF]]
// CHECK: %[[HI0:.+]] = arith.addi %[[DIAG]], %c64
// CHECK: %[[HI:.+]] = arith.minsi %[[SK]], %[[HI0]]
// CHECK: %[[NMAX0:.+]] = arith.ceildivsi %[[HI]], %[[C32]]
// CHECK: %[[NMAX:.+]] = arith.maxsi %[[NMAX0]], %c0
// The masked band: the last 3 blocks below the clipped bound, right to left.
// CHECK: %[[NMIN:.+]] = arith.minsi %[[NMAX]], %c0
// CHECK: %[[R0:.+]] = arith.subi %[[NMAX]], %[[C3]]
// CHECK: %[[RSTART:.+]] = arith.maxsi %[[NMIN]], %[[R0]]
// CHECK: %[[MASKED:.+]]:3 = flash.kv_loop masked_right %[[BLK:.+]] = %[[RSTART]] to %[[NMAX]] reversed iter_args(%{{.+}} = %{{.+}}, %{{.+}} = %[[M0]], %{{.+}} = %{{.+}}) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>)
// CHECK: %[[COL0:.+]] = arith.muli %[[BLK]], %[[C32]]
// CHECK: flash.tile_load k %[[K]][%[[BI]], %[[KVH]], %[[COL0]]] limit %[[SK]] : {{.+}} -> tensor<32x64xf32>
// CHECK: flash.tile_load v %[[V]][%[[BI]], %[[KVH]], %[[COL0]]] limit %[[SK]]
// CHECK: flash.tile_update {{.+}} at(%[[ROW0]], %[[COL0]]) bounds(%[[SQ]], %[[SK]]) {causal, masked, scale = 1.250000e-01 : f32}
// CHECK: flash.yield
// The main loop: blocks [nMin, rStart), no mask.
// CHECK: %[[MAIN:.+]]:3 = flash.kv_loop main %{{.+}} = %[[NMIN]] to %[[RSTART]] reversed iter_args(%{{.+}} = %[[MASKED]]#0, %{{.+}} = %[[MASKED]]#1, %{{.+}} = %[[MASKED]]#2) -> ({{.+}})
// CHECK-NOT: masked
// CHECK: flash.tile_update {{.+}} {causal, scale = 1.250000e-01 : f32}
// CHECK-NOT: masked
// CHECK: flash.yield
// Epilogue, and only the rows that exist are stored.
// CHECK: %[[OUT:.+]], %[[OLSE:.+]] = flash.tile_finalize %[[MAIN]]#0, %[[MAIN]]#1, %[[MAIN]]#2 {scale = 1.250000e-01 : f32}
// CHECK: %[[TAIL:.+]] = arith.subi %[[SQ]], %[[ROW0]]
// CHECK: %[[ROWS:.+]] = arith.minsi %[[TAIL]], %c64
// CHECK: flash.tile_store o %[[OUT]], %[[O]][%[[BI]], %[[H]], %[[ROW0]]] rows %[[ROWS]] : tensor<64x64xf32> -> memref<{{.+}}>
// CHECK: flash.tile_store lse %[[OLSE]], %[[LSE]][%[[BI]], %[[H]], %[[ROW0]]] rows %[[ROWS]] : tensor<64xf32> -> memref<?x?x?xf32>
// CHECK-NOT: flash.attention
func.func @causal(%q: !Q, %k: !K, %v: !K, %o: !Q, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : !Q, !K, !K) outs(%o, %lse : !Q, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>}
  return
}

// -----

// Not causal: the loop runs to ceil(Sk / BN) and only a ragged last block
// (Sk % BN != 0, decided at run time) is masked. Sliding window: both sides
// clipped, and the left edge gets its own masked loop.

// CHECK-LABEL: func.func @window
// CHECK: flash.grid
// CHECK: arith.minsi
// CHECK: arith.ceildivsi
// Left bound: max(0, row0 + off - 100), in blocks.
// CHECK: %[[LO0:.+]] = arith.subi %{{.+}}, %c100
// CHECK: %[[LO:.+]] = arith.maxsi %[[LO0]], %c0
// CHECK: arith.floordivsi %[[LO]], %c32
// CHECK: flash.kv_loop masked_right
// CHECK: flash.kv_loop main
// CHECK: flash.kv_loop masked_left
// CHECK: flash.tile_update {{.+}} {masked, scale = 1.250000e-01 : f32, window = array<i64: 100, 20>}
func.func @window(%q: memref<2x4x?x64xf32>, %k: memref<2x4x?x64xf32>, %v: memref<2x4x?x64xf32>, %o: memref<2x4x?x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<2x4x?x64xf32>, memref<2x4x?x64xf32>, memref<2x4x?x64xf32>) outs(%o : memref<2x4x?x64xf32>)
      {window = array<i64: 100, 20>, config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>}
  return
}

// -----

// CHECK-LABEL: func.func @ragged
// CHECK: %[[REM:.+]] = arith.remsi %{{.+}}, %c64
// CHECK: %[[RAGGED:.+]] = arith.cmpi ne, %[[REM]], %c0
func.func @ragged(%q: memref<1x1x?x64xf32>, %k: memref<1x1x?x64xf32>, %v: memref<1x1x?x64xf32>, %o: memref<1x1x?x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x1x?x64xf32>, memref<1x1x?x64xf32>, memref<1x1x?x64xf32>) outs(%o : memref<1x1x?x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// Static shapes: the grid records how many KV iterations are masked.
// Causal 256 x 256, BM = BN = 64: row blocks see 1, 2, 3, 4 blocks, of
// which min(2, n) are on the diagonal band: 7 masked, 3 unmasked per
// (batch, head), times 2 x 2.
// CHECK-LABEL: func.func @counts
// CHECK: flash.grid {{.+}} attributes {causal, config = #flash.config<{{.*}}>, masked_iterations = 28 : i64, scale = {{.+}}, unmasked_iterations = 12 : i64}
func.func @counts(%q: memref<2x2x256x64xf32>, %k: memref<2x2x256x64xf32>, %v: memref<2x2x256x64xf32>, %o: memref<2x2x256x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<2x2x256x64xf32>, memref<2x2x256x64xf32>, memref<2x2x256x64xf32>) outs(%o : memref<2x2x256x64xf32>)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// Non-causal 128 x 100 over 2 batches x 3 heads, BM = BN = 64: per row
// block one full block and one ragged (masked) one: 2 x 2 x 6 = 12 / 12.
// CHECK-LABEL: func.func @counts_ragged
// CHECK: flash.grid {{.+}} attributes {config = #flash.config<{{.*}}>, masked_iterations = 12 : i64, scale = {{.+}}, unmasked_iterations = 12 : i64}
func.func @counts_ragged(%q: memref<2x3x128x64xf32>, %k: memref<2x3x100x64xf32>, %v: memref<2x3x100x64xf32>, %o: memref<2x3x128x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<2x3x128x64xf32>, memref<2x3x100x64xf32>, memref<2x3x100x64xf32>) outs(%o : memref<2x3x128x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}

// -----

// The tensor form is moved onto buffers first.
// CHECK-LABEL: func.func @tensor_form
// CHECK: bufferization.to_buffer
// CHECK: memref.alloc
// CHECK: flash.grid
// CHECK: bufferization.to_tensor %{{.+}} restrict writable
func.func @tensor_form(%q: tensor<1x2x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>) -> tensor<1x2x?x64xf32> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>} -> tensor<1x2x?x64xf32>
  return %o : tensor<1x2x?x64xf32>
}

// -----

// Serving lengths bound the KV loops: kv_lens is the grid's operand (a later
// pass reads it there), and the body reads kv_lens[b], clamped to the cache.
// CHECK-LABEL: func.func @kv_lens
// CHECK-SAME: %[[LENS:[^:]+]]: memref<?xi32>
// CHECK: flash.grid (%{{.+}}, %{{.+}}, %[[B:.+]]) in ({{[^)]*}}) kv_lens(%[[LENS]] : memref<?xi32>) attributes
// CHECK: %[[LEN:.+]] = memref.load %[[LENS]][%[[B]]] : memref<?xi32>
// CHECK: arith.index_cast %[[LEN]] : i32 to index
func.func @kv_lens(%q: memref<?x?x?x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %lens: memref<?xi32>, %o: memref<?x?x?x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) kv_lens(%lens : memref<?xi32>) outs(%o : memref<?x?x?x64xf32>)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}
