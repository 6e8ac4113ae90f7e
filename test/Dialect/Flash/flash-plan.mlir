// RUN: flash-opt %s -split-input-file --flash-plan | FileCheck %s
// RUN: flash-opt %s -split-input-file --flash-plan="sm=80 smem-kb=163" | FileCheck %s --check-prefix=SM80

// flash-plan records FA2's launch configuration per head dim, keeps a
// hand-written one, and picks 64 x 64 for head dim 256 when the Q block plus
// two stages of K/V would not fit the target's shared memory.

// CHECK-LABEL: func.func @d64
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
func.func @d64(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x8x?x64xbf16>, %v: tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// -----

// Head dim 128: 128 x 64, except causal, where 64 x 64 measured faster.
// CHECK-LABEL: func.func @d128
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// CHECK: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
func.func @d128(%q: tensor<1x8x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>) -> tensor<1x8x?x128xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) -> tensor<1x8x?x128xbf16>
  %c = flash.attention ins(%q, %k, %o : tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) {causal} -> tensor<1x8x?x128xbf16>
  return %c : tensor<1x8x?x128xbf16>
}

// -----

// CHECK-LABEL: func.func @d192
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2>
func.func @d192(%q: tensor<1x8x?x192xf16>, %k: tensor<1x8x?x192xf16>, %v: tensor<1x8x?x192xf16>) -> tensor<1x8x?x192xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x192xf16>, tensor<1x8x?x192xf16>, tensor<1x8x?x192xf16>) -> tensor<1x8x?x192xf16>
  return %o : tensor<1x8x?x192xf16>
}

// -----

// CHECK-LABEL: func.func @d256
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2>
// SM80-LABEL: func.func @d256
// SM80: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
func.func @d256(%q: tensor<1x8x?x256xbf16>, %k: tensor<1x8x?x256xbf16>, %v: tensor<1x8x?x256xbf16>) -> tensor<1x8x?x256xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x256xbf16>, tensor<1x8x?x256xbf16>, tensor<1x8x?x256xbf16>) -> tensor<1x8x?x256xbf16>
  return %o : tensor<1x8x?x256xbf16>
}

// -----

// A configuration written by hand is kept.
// CHECK-LABEL: func.func @kept
// CHECK: config = #flash.config<block_m = 64, block_n = 32, warps = 2, stages = 3>
func.func @kept(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x8x?x64xbf16>, %v: tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>)
       {config = #flash.config<block_m = 64, block_n = 32, warps = 2, stages = 3>} -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}
