// Softcap (S = cap * tanh(S * scale / cap), the LSE in logit units), a
// scale that is not 1/sqrt(D), and the default configuration that flash-plan
// chooses (128 x 128 for head dim 64).
// Each function is compiled once by flash-lower-to-cpu and serves every
// shape (batch and sequence lengths are run-time values); flash-run draws
// fresh random inputs, poisons O and LSE, and compares with the double
// reference in f32 (max abs error <= 1e-5), exiting 1 on any mismatch.

// RUN: flash-run %s --seed=16 --func=cap --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,4,1,1,1;1,4,1,1,17;1,4,1,1,113;1,4,1,1,128;1,4,1,1,255;1,4,1,1,1000;1,4,1,17,1;1,4,1,17,17;1,4,1,17,113;1,4,1,17,128;1,4,1,17,255;1,4,1,17,1000;1,4,1,113,1;1,4,1,113,17;1,4,1,113,113;1,4,1,113,128;1,4,1,113,255;1,4,1,113,1000;1,4,1,128,1;1,4,1,128,17;1,4,1,128,113;1,4,1,128,128;1,4,1,128,255;1,4,1,128,1000;1,4,1,255,1;1,4,1,255,17;1,4,1,255,113;1,4,1,255,128;1,4,1,255,255;1,4,1,255,1000;1,4,1,1000,1;1,4,1,1000,17;1,4,1,1000,113;1,4,1,1000,128;1,4,1,1000,255;1,4,1,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=CAP
// CAP-NOT: FAIL
// CAP: flash-run: 36/36 cases passed

// RUN: flash-run %s --seed=16 --func=capcausal --layout=bshd --tol=1e-5 \
// RUN:   --shapes='1,8,2,1,1;1,8,2,1,17;1,8,2,1,113;1,8,2,1,128;1,8,2,1,255;1,8,2,1,1000;1,8,2,17,1;1,8,2,17,17;1,8,2,17,113;1,8,2,17,128;1,8,2,17,255;1,8,2,17,1000;1,8,2,113,1;1,8,2,113,17;1,8,2,113,113;1,8,2,113,128;1,8,2,113,255;1,8,2,113,1000;1,8,2,128,1;1,8,2,128,17;1,8,2,128,113;1,8,2,128,128;1,8,2,128,255;1,8,2,128,1000;1,8,2,255,1;1,8,2,255,17;1,8,2,255,113;1,8,2,255,128;1,8,2,255,255;1,8,2,255,1000;1,8,2,1000,1;1,8,2,1000,17;1,8,2,1000,113;1,8,2,1000,128;1,8,2,1000,255;1,8,2,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=CAPCAUSAL
// CAPCAUSAL-NOT: FAIL
// CAPCAUSAL: flash-run: 36/36 cases passed

// RUN: flash-run %s --seed=16 --func=planned --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,2,1,1,1;1,2,1,1,17;1,2,1,1,113;1,2,1,1,128;1,2,1,1,255;1,2,1,1,1000;1,2,1,17,1;1,2,1,17,17;1,2,1,17,113;1,2,1,17,128;1,2,1,17,255;1,2,1,17,1000;1,2,1,113,1;1,2,1,113,17;1,2,1,113,113;1,2,1,113,128;1,2,1,113,255;1,2,1,113,1000;1,2,1,128,1;1,2,1,128,17;1,2,1,128,113;1,2,1,128,128;1,2,1,128,255;1,2,1,128,1000;1,2,1,255,1;1,2,1,255,17;1,2,1,255,113;1,2,1,255,128;1,2,1,255,255;1,2,1,255,1000;1,2,1,1000,1;1,2,1,1000,17;1,2,1,1000,113;1,2,1,1000,128;1,2,1,1000,255;1,2,1,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=PLANNED
// PLANNED-NOT: FAIL
// PLANNED: flash-run: 36/36 cases passed

func.func @cap(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {softcap = 5.0 : f32, scale = 0.5 : f32, config = #flash.config<block_m = 32, block_n = 32, warps = 4, stages = 2>}
  return
}

func.func @capcausal(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, softcap = 30.0 : f32, config = #flash.config<block_m = 64, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @planned(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {scale = 0.2 : f32}
  return
}
