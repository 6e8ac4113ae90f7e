// Hardening (issue #14), class "sizes": a window bound of INT64_MAX (or any
// bound >= 2^62) means unbounded, as -1. `i + Sk - Sq + right` used to wrap,
// masking every key (max |dO| = 0.57, LSE = inf). flash-run compares with
// the double reference, which clamps the bounds to the sequence lengths.

// RUN: flash-run %s --func=right_max --tol=1e-5 --seed=3 \
// RUN:   --shapes='1,2,1,17,33;2,2,2,64,64;1,1,1,1,100;1,2,1,100,7' | FileCheck %s
// RUN: flash-run %s --func=both_max --tol=1e-5 --seed=3 \
// RUN:   --shapes='1,2,1,17,33;2,2,2,64,64;1,1,1,1,100;1,2,1,100,7' | FileCheck %s
// RUN: flash-run %s --func=causal_left_max --tol=1e-5 --seed=3 \
// RUN:   --shapes='1,2,1,17,33;2,2,2,64,64;1,1,1,1,100;1,2,1,100,7' | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: flash-run: 4/4 cases passed

// What the structured fuzzer found (fuzz/run_fuzz.py seed 24, WRONG with
// max|dO| = 0.75 before the fix): causal with both bounds INT64_MAX, Sq = 1.
// RUN: flash-run %s --func=fuzz_seed24 --shapes=1,1,1,1,16 --tol=1e-4 --seed=1 \
// RUN:   | FileCheck %s --check-prefix=SEED24
// SEED24: flash-run: 1/1 cases passed

// The bounds survive flash-tile into the tile ops unchanged (the lowerings
// read them through getWindowBounds).
// RUN: flash-opt %s --flash-plan --flash-split-kv --flash-tile | FileCheck %s --check-prefix=TILE
// TILE: flash.tile_update {{.*}}window = array<i64: -1, 9223372036854775807>

func.func @right_max(%q: memref<?x?x?x32xf32>, %k: memref<?x?x?x32xf32>, %v: memref<?x?x?x32xf32>, %o: memref<?x?x?x32xf32>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32>, memref<?x?x?x32xf32>, memref<?x?x?x32xf32>) outs(%o, %lse : memref<?x?x?x32xf32>, memref<?x?x?xf32>)
      {window = array<i64: -1, 9223372036854775807>, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
  return
}

func.func @both_max(%q: memref<?x?x?x32xf32>, %k: memref<?x?x?x32xf32>, %v: memref<?x?x?x32xf32>, %o: memref<?x?x?x32xf32>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32>, memref<?x?x?x32xf32>, memref<?x?x?x32xf32>) outs(%o, %lse : memref<?x?x?x32xf32>, memref<?x?x?xf32>)
      {window = array<i64: 9223372036854775807, 4611686018427387904>, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
  return
}

func.func @causal_left_max(%q: memref<?x?x?x32xf32>, %k: memref<?x?x?x32xf32>, %v: memref<?x?x?x32xf32>, %o: memref<?x?x?x32xf32>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32>, memref<?x?x?x32xf32>, memref<?x?x?x32xf32>) outs(%o, %lse : memref<?x?x?x32xf32>, memref<?x?x?xf32>)
      {causal, window = array<i64: 9223372036854775807, -1>, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2>}
  return
}

func.func @fuzz_seed24(%q: memref<?x1x1x64xf32>, %k: memref<?x?x?x64xf32>, %v: memref<?x?x?x64xf32>, %o: memref<?x1x1x64xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x1x1x64xf32>, memref<?x?x?x64xf32>, memref<?x?x?x64xf32>) outs(%o : memref<?x1x1x64xf32>) {causal, window = array<i64: 9223372036854775807, 9223372036854775807>, scale = 3.000000e+00 : f32}
  return
}
