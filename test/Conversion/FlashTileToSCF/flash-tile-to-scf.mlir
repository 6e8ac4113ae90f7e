// RUN: flash-opt %s -split-input-file --flash-tile-to-scf | FileCheck %s

// flash-tile-to-scf lowers the tile-level structure for the CPU: the grid to
// an scf.parallel, a reversed KV loop to an scf.for whose block index is
// ub - 1 - iv, tile reads to subviews zero-padded to the tile, tile writes
// to the first rows materialised into the output's subview.

!T = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
// CHECK-LABEL: func.func @structure
// CHECK-SAME: (%[[Q:[^:]+]]: memref<{{.+}}>, %[[K:[^:]+]]: memref<{{.+}}>, %[[O:[^:]+]]: memref<{{.+}}>, %[[LSE:[^:]+]]: memref<?x?x?xf32>, %[[NM:[^:]+]]: index, %[[NH:[^:]+]]: index, %[[NB:[^:]+]]: index, %[[LO:[^:]+]]: index, %[[HI:[^:]+]]: index, %[[SQ:[^:]+]]: index, %[[SK:[^:]+]]: index)
// CHECK: scf.parallel (%[[M:.+]], %[[H:.+]], %[[B:.+]]) = (%{{.+}}, %{{.+}}, %{{.+}}) to (%[[NM]], %[[NH]], %[[NB]]) step
// CHECK: %[[ROW:.+]] = arith.muli %[[M]], %c64
// Q: min(64, Sq - row) rows, padded with zeros to 64.
// CHECK: %[[QREM:.+]] = arith.subi %[[SQ]], %[[ROW]]
// CHECK: %[[QN:.+]] = arith.minsi %{{.+}}, %[[QREM]]
// CHECK: %[[QV:.+]] = memref.subview %[[Q]][%[[B]], %[[H]], %[[ROW]], 0] [1, 1, %[[QN]], 64] [1, 1, 1, 1]
// CHECK: %[[QD:.+]] = bufferization.to_tensor %[[QV]] restrict
// CHECK: tensor.pad %[[QD]] low[0, 0] high[%{{.+}}, 0]
// CHECK: tensor.yield %{{.+}} : f32
// CHECK: } : tensor<?x64xf32> to tensor<64x64xf32>
// The KV loop: trip count hi - lo, block = hi - 1 - iv.
// CHECK: %[[TRIPS:.+]] = arith.subi %[[HI]], %[[LO]]
// CHECK: scf.for %[[IV:.+]] = %{{.+}} to %[[TRIPS]] step %{{.+}} iter_args
// CHECK: %[[LAST:.+]] = arith.subi %[[HI]], %c1
// CHECK: %[[BLK:.+]] = arith.subi %[[LAST]], %[[IV]]
// CHECK: %[[COL:.+]] = arith.muli %[[BLK]], %c32
// CHECK: memref.subview %[[K]][%[[B]], %[[H]], %[[COL]], 0]
// CHECK: scf.yield
// O: the first `rows` rows into the output plane.
// CHECK: %[[ROWS:.+]] = arith.subi %[[SQ]], %[[ROW]]
// CHECK: %[[OV:.+]] = memref.subview %[[O]][%[[B]], %[[H]], %[[ROW]], 0] [1, 1, %[[ROWS]], 64] [1, 1, 1, 1]
// CHECK: %[[OS:.+]] = tensor.extract_slice %{{.+}}[0, 0] [%[[ROWS]], 64] [1, 1]
// CHECK: bufferization.materialize_in_destination %[[OS]] in restrict writable %[[OV]]
// CHECK: memref.subview %[[LSE]][%[[B]], %[[H]], %[[ROW]]] [1, 1, %[[ROWS]]] [1, 1, 1]
// CHECK: tensor.extract_slice %{{.+}}[0] [%[[ROWS]]] [1] : tensor<64xf32> to tensor<?xf32>
// CHECK-NOT: flash.
func.func @structure(%q: !T, %k: !T, %o: !T, %lse: memref<?x?x?xf32>, %nm: index, %nh: index, %nb: index, %lo: index, %hi: index, %sq: index, %sk: index) {
  flash.grid (%m, %h, %b) in (%nm, %nh, %nb) attributes {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %c32 = arith.constant 32 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load q %q[%b, %h, %row] limit %sq : !T -> tensor<64x64xf32>
    %r = flash.kv_loop main %j = %lo to %hi reversed iter_args(%acc = %qt) -> (tensor<64x64xf32>) {
      %col = arith.muli %j, %c32 : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk : !T -> tensor<32x64xf32>
      %s = tensor.insert_slice %kt into %acc[0, 0] [32, 64] [1, 1] : tensor<32x64xf32> into tensor<64x64xf32>
      flash.yield %s : tensor<64x64xf32>
    }
    %rows = arith.subi %sq, %row : index
    flash.tile_store o %r, %o[%b, %h, %row] rows %rows : tensor<64x64xf32> -> !T
    %l = tensor.empty() : tensor<64xf32>
    flash.tile_store lse %l, %lse[%b, %h, %row] rows %rows : tensor<64xf32> -> memref<?x?x?xf32>
  }
  return
}

// -----

// A paged read gathers row by row through the block table; rows at or past
// the limit read key 0's slot and are zeroed. A forward loop visits lo + iv.
// Split-KV's partial outputs lead with the split index.

!P = memref<?x?x?x64xf32>
// CHECK-LABEL: func.func @paged_split
// CHECK-SAME: (%[[K:[^:]+]]: memref<?x?x?x64xf32>, %[[TABLE:[^:]+]]: memref<?x?xi32>, %[[OP:[^:]+]]: memref<?x?x?x?x64xf32>
// CHECK: scf.parallel (%[[M:.+]], %[[H:.+]], %[[B:.+]], %[[S:.+]]) =
// CHECK: scf.for %[[IV:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: %[[BLK:.+]] = arith.addi %{{.+}}, %[[IV]]
// CHECK: %[[PS:.+]] = memref.dim %[[K]], %c2
// CHECK: tensor.generate
// CHECK: %[[J:.+]] = arith.addi %{{.+}}, %{{.+}}
// CHECK: %[[VALID:.+]] = arith.cmpi slt, %[[J]], %{{.+}}
// CHECK: %[[JC:.+]] = arith.select %[[VALID]], %[[J]], %{{.+}}
// CHECK: %[[PAGEIDX:.+]] = arith.divui %[[JC]], %[[PS]]
// CHECK: %[[ENTRY:.+]] = memref.load %[[TABLE]][%[[B]], %[[PAGEIDX]]]
// CHECK: %[[PAGE:.+]] = arith.index_cast %[[ENTRY]]
// CHECK: %[[SLOT:.+]] = arith.remui %[[JC]], %[[PS]]
// CHECK: memref.load %[[K]][%[[PAGE]], %[[H]], %[[SLOT]], %{{.+}}]
// CHECK: memref.subview %[[OP]][%[[S]], %[[B]], %[[H]], %{{.+}}, 0] [1, 1, 1, %{{.+}}, 64]
func.func @paged_split(%k: !P, %table: memref<?x?xi32>, %op: memref<?x?x?x?x64xf32>, %nm: index, %nh: index, %nb: index, %ns: index, %lo: index, %hi: index, %sk: index) {
  flash.grid (%m, %h, %b, %s) in (%nm, %nh, %nb, %ns) attributes {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 0>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %init = tensor.empty() : tensor<64x64xf32>
    %r = flash.kv_loop main %j = %lo to %hi iter_args(%acc = %init) -> (tensor<64x64xf32>) {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load k %k[%b, %h, %col] limit %sk pages(%table : memref<?x?xi32>) : !P -> tensor<64x64xf32>
      flash.yield %kt : tensor<64x64xf32>
    }
    flash.tile_store o %r, %op[%s, %b, %h, %m] rows %c64 : tensor<64x64xf32> -> memref<?x?x?x?x64xf32>
  }
  return
}

// -----

// Split-KV's workspace is host memory on the CPU: a memref.alloc of the
// same type and sizes (the bufferization deallocation pipeline frees it).
// CHECK-LABEL: func.func @workspace
// CHECK-SAME: (%[[S:.+]]: index, %[[N:.+]]: index)
// CHECK: %[[W:.+]] = memref.alloc(%[[S]], %[[N]]) : memref<?x2x?x8x64xf32>
// CHECK-NOT: flash.workspace
// CHECK: return %[[W]]
func.func @workspace(%s: index, %n: index) -> memref<?x2x?x8x64xf32> {
  %w = flash.workspace(%s, %n) : memref<?x2x?x8x64xf32>
  return %w : memref<?x2x?x8x64xf32>
}
