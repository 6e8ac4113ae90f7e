// RUN: flash-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tile-level ops flash-tile emits.

func.func @case0(%q: tensor<?x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{query, key, value and acc must be static rank-2 tiles}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<?x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @case1(%q: tensor<64x32xf32>, %k: tensor<16x16xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{query and key tiles must have the same head_dim}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x16xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @case2(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<8x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{key and value tiles must have the same rows}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<8x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @case3(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x16xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{acc must be [BM, Dv]}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x16xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @case4(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<32xf32>, %l: tensor<32xf32>, %i: index) {
  // expected-error @+1 {{max and sum must be [BM]}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<32xf32>, tensor<32xf32>
  return
}

// -----

func.func @case5(%q: tensor<64x32xf32>, %k: tensor<16x32xf16>, %v: tensor<16x32xf16>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{query, key and value tiles must have one element type}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<16x32xf16>, tensor<16x32xf16>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @case6(%acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>) {
  // expected-error @+1 {{out must have the shape of acc}}
  %o, %s = flash.tile_finalize %acc, %m, %l {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<32x32xf32>, tensor<64xf32>
  return
}

// -----

func.func @case7(%acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>) {
  // expected-error @+1 {{max, sum and lse must be [BM]}}
  %o, %s = flash.tile_finalize %acc, %m, %l {scale = 1.0 : f32} : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x32xf32>, tensor<32xf32>
  return
}
