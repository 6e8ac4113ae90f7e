// RUN: flash-opt %s -split-input-file --flash-online-softmax --flash-assign-layouts --flash-pipeline-kv --flash-to-gpu=chip=sm_90 -verify-diagnostics
// RUN: not flash-opt %s -split-input-file --flash-to-gpu=chip=sm_90 2>&1 | FileCheck %s --check-prefix=UNEXPANDED

// flash-to-gpu reads the tile-level ops and refuses, at the op, what it
// would otherwise lower wrongly or drop: K/V tiles that are not tile reads,
// a second Q tile, an op with effects of its own in the grid or a KV loop,
// a store of something other than the epilogue's outputs, a scalar op with
// no register-level lowering, a reduction across the rows; and a grid whose online softmax was not
// expanded by flash-online-softmax (the math it lowers is that pass's).

// UNEXPANDED: error: 'flash.tile_update' op flash-to-gpu: run flash-online-softmax first

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @k_not_loaded(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %acc0 = tensor.empty() : tensor<64x64xf32>
    %m0 = tensor.empty() : tensor<64xf32>
    // expected-error @+1 {{flash-to-gpu: a KV loop must read one K tile (S = Q K^T) and one V tile (O += P V)}}
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = tensor.empty() : tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @store_other(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    // expected-error @+1 {{flash-to-gpu: an operand is not a tile in registers}}
    flash.tile_store %qt, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @store_in_grid(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %acc0 = tensor.empty() : tensor<64x64xf32>
    %m0 = tensor.empty() : tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    %f = arith.constant 0.0 : f32
    // expected-error @+1 {{flash-to-gpu: unexpected op in an attention grid}}
    memref.store %f, %x[%n] : memref<?xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @two_q_tiles(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    // expected-error @+1 {{flash-to-gpu: an attention grid reads one Q tile}}
    %qt2 = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @store_in_loop(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      %f = arith.constant 0.0 : f32
      // expected-error @+1 {{flash-to-gpu: unexpected op with memory effects in a KV loop}}
      memref.store %f, %x[%n] : memref<?xf32>
      flash.yield %a2, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @unselected_math(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} outs(%a2 : tensor<64x64xf32>) {
      ^bb0(%o1: f32):
        // expected-error @+1 {{flash-to-gpu: no register-level lowering for this op in a tile computation}}
        %y = math.sin %o1 : f32
        linalg.yield %y : f32
      } -> tensor<64x64xf32>
      flash.yield %s, %m2, %l2 : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @column_reduction(%q: !T, %k: !T, %v: !T, %o: !T, %n: index, %lo: index, %hi: index, %x: memref<?xf32>) {
   flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %c64 = arith.constant 64 : index
    %row = arith.muli %m, %c64 : index
    %qt = flash.tile_load %q[%b, %h, %row] limit %n : !T -> tensor<64x64xbf16>
    %zero = arith.constant 0.0 : f32
    %e2 = tensor.empty() : tensor<64x64xf32>
    %acc0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x64xf32>) -> tensor<64x64xf32>
    %e1 = tensor.empty() : tensor<64xf32>
    %m0 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64xf32>) -> tensor<64xf32>
    %r:3 = flash.kv_loop %j = %lo to %hi reversed iter_args(%acc = %acc0, %mx = %m0, %l = %m0) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>) attributes {role = "main"} {
      %col = arith.muli %j, %c64 : index
      %kt = flash.tile_load %k[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %vt = flash.tile_load %v[%b, %h, %col] limit %n : !T -> tensor<64x64xbf16>
      %a2, %m2, %l2 = flash.tile_update %qt, %kt, %vt, %acc, %mx, %l at(%row, %col) bounds(%n, %n) {scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
      // expected-error @+1 {{flash-to-gpu: only reductions of a [block_m, n] tile along its rows into a [block_m] vector are lowered}}
      %cr = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%a2 : tensor<64x64xf32>) outs(%l2 : tensor<64xf32>) {
      ^bb0(%i1: f32, %o1: f32):
        %y = arith.addf %i1, %o1 : f32
        linalg.yield %y : f32
      } -> tensor<64xf32>
      flash.yield %a2, %m2, %cr : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>
    }
    %out, %lse = flash.tile_finalize %r#0, %r#1, %r#2 {scale = 1.250000e-01 : f32} : tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x64xbf16>, tensor<64xf32>
    flash.tile_store %out, %o[%b, %h, %row] rows %n : tensor<64x64xbf16> -> !T
  }
  return
}
