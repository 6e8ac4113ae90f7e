// RUN: flash-opt %s -split-input-file -verify-diagnostics

// The numeric domain of flash.attention, #flash.config and the tile ops
// (issue #14, sizes near the integer limits): zero head dims and page sizes,
// sizes no target can address, scale/softcap factors that are not normal
// f32, configs at the integer limits (each of which used to crash, hang or
// wrap a size later in the pipeline). invalid.mlir has the plain rules.

// -----

func.func @head_dim_0(%q: tensor<2x8x128x0xf16>, %k: tensor<2x8x128x0xf16>, %v: tensor<2x8x128x0xf16>) {
  // expected-error @+1 {{head dims must be at least 1, got D = 0 and Dv = 0}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x0xf16>, tensor<2x8x128x0xf16>, tensor<2x8x128x0xf16>)  -> tensor<2x8x128x0xf16>
  return
}

// -----

func.func @head_dim_v_0(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x0xf16>) {
  // expected-error @+1 {{head dims must be at least 1, got D = 64 and Dv = 0}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x0xf16>)  -> tensor<2x8x128x0xf16>
  return
}

// -----

func.func @page_size_0(%q: tensor<2x8x128x64xf16>, %k: tensor<?x8x0x64xf16>, %v: tensor<?x8x0x64xf16>, %t: tensor<2x4xi32>) {
  // expected-error @+1 {{paged key/value must have a page size (dim 2) of at least 1, got 0}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<?x8x0x64xf16>, tensor<?x8x0x64xf16>) block_table(%t : tensor<2x4xi32>) -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @seq_huge(%q: tensor<2x8x4611686018427387904x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{'operand #0' 'tensor<2x8x4611686018427387904x64xf16>' has 2^62 bytes or more: no target can address it}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x4611686018427387904x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>)  -> tensor<2x8x4611686018427387904x64xf16>
  return
}

// -----

func.func @scale_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be in [2^-125, 2^16]: the kernels compute exp2(scale * log2(e) * (s - max)) in f32 with the max product rounded, whose error overflows exp2 (NaN) at larger scales; got 1.000000e+09}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = 1.0e+09 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @scale_denormal(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale must be in [2^-125, 2^16]}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = 1.0e-40 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @softcap_tiny(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{scale / softcap must be a normal f32 (the kernels compute tanh(s * scale / softcap) in f32)}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {scale = 1.0e+04 : f32, softcap = 1.0e-35 : f32} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @block_n_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{block_m and block_n must be in [1, 65536], got 64 and 72057594037927936}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 72057594037927936, warps = 4, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @block_m_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{block_m and block_n must be in [1, 65536], got 131072 and 64}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 131072, block_n = 64, warps = 4, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @warps_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{warps must be in [1, 32] (a CUDA block has at most 1024 threads), got 1024}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 1024, stages = 2>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @stages_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{stages must be in [1, 64], got 4611686018427387904}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 4611686018427387904>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @splits_huge(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>, %v: tensor<2x8x128x64xf16>) {
  // expected-error @+1 {{splits must be in [0, 65536] (0 = chosen at run time), got 2305843009213693952}}
  %r = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, splits = 2305843009213693952>} -> tensor<2x8x128x64xf16>
  return
}

// -----

func.func @tile_window_empty(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{window must have two values [left, right], got 0}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {masked, scale = 1.0 : f32, window = array<i64>} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @tile_int_elements(%q: tensor<64x32xi32>, %k: tensor<16x32xi32>, %v: tensor<16x32xi32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{tile element type must be f16, bf16 or f32, got 'i32'}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {masked, scale = 1.0 : f32} : tensor<64x32xi32>, tensor<16x32xi32>, tensor<16x32xi32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @tile_scale_zero(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>, %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>, %i: index) {
  // expected-error @+1 {{scale must be a positive finite number, got 0}}
  %a, %b, %c = flash.tile_update %q, %k, %v, %acc, %m, %l at(%i, %i) bounds(%i, %i) {scale = 0.0 : f32} : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return
}

// -----

func.func @tile_finalize_int(%acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>) {
  // expected-error @+1 {{out element type must be f16, bf16 or f32, got 'i32'}}
  %o, %lse = flash.tile_finalize %acc, %m, %l {scale = 0.125 : f32} : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x32xi32>, tensor<64xf32>
  return
}
