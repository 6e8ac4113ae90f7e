// RUN: flash-opt %s -split-input-file -verify-diagnostics --flash-assign-layouts

// flash-assign-layouts refuses, at the op, a tile it has no layout for
// (invalid-frag.mlir has the layouts' own verifier).

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @rank3(%q: !T, %n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x64x64xf32>
    // expected-error @+1 {{flash-assign-layouts: no layout for a rank-3 tile}}
    %t = linalg.fill ins(%zero : f32) outs(%e : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @smem_in_place(%q: !T, %n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    %zero = arith.constant 0.0 : bf16
    %qt = flash.tile_load q %q[%b, %h, %m] limit %n : !T -> tensor<64x64xbf16>
    // expected-error @+1 {{flash-assign-layouts: tiles that must share a type need layouts #flash.frag<smem, mma_sync> and #flash.frag<acc, mma_sync> (a shared-memory tile cannot be updated in place)}}
    %t = linalg.fill ins(%zero : bf16) outs(%qt : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  }
  return
}

// -----

!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
func.func @unknown_producer(%q: !T, %n: index) {
  flash.grid (%m, %h, %b) in (%n, %n, %n) attributes {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>, scale = 1.250000e-01 : f32} {
    // expected-error @+1 {{flash-assign-layouts: no layout rule for a tile made by this op}}
    %c = arith.constant dense<0.0> : tensor<64xf32>
  }
  return
}
