// Causal attention, bottom-right aligned: Sq < Sk and Sq > Sk (top rows see
// no key: O = 0, LSE = -inf), every (Sq, Sk) pair of {1, 17, 113, 128,
// 255, 1000}, the diagonal band peeled (ceil(BM/BN) + 1 blocks), tiles
// with BM > BN, BM < BN and BM = BN, GQA 4:1 and MQA.
// Each function is compiled once by flash-lower-to-cpu and serves every
// shape (batch and sequence lengths are run-time values); flash-run draws
// fresh random inputs, poisons O and LSE, and compares with the double
// reference in f32 (max abs error <= 1e-5), exiting 1 on any mismatch.

// RUN: flash-run %s --seed=16 --func=d32 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,8,2,1,1;1,8,2,1,17;1,8,2,1,113;1,8,2,1,128;1,8,2,1,255;1,8,2,1,1000;1,8,2,17,1;1,8,2,17,17;1,8,2,17,113;1,8,2,17,128;1,8,2,17,255;1,8,2,17,1000;1,8,2,113,1;1,8,2,113,17;1,8,2,113,113;1,8,2,113,128;1,8,2,113,255;1,8,2,113,1000;1,8,2,128,1;1,8,2,128,17;1,8,2,128,113;1,8,2,128,128;1,8,2,128,255;1,8,2,128,1000;1,8,2,255,1;1,8,2,255,17;1,8,2,255,113;1,8,2,255,128;1,8,2,255,255;1,8,2,255,1000;1,8,2,1000,1;1,8,2,1000,17;1,8,2,1000,113;1,8,2,1000,128;1,8,2,1000,255;1,8,2,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=D32
// D32-NOT: FAIL
// D32: flash-run: 36/36 cases passed

// RUN: flash-run %s --seed=16 --func=d64 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='1,4,1,1,1;1,4,1,1,17;1,4,1,1,113;1,4,1,1,128;1,4,1,1,255;1,4,1,1,1000;1,4,1,17,1;1,4,1,17,17;1,4,1,17,113;1,4,1,17,128;1,4,1,17,255;1,4,1,17,1000;1,4,1,113,1;1,4,1,113,17;1,4,1,113,113;1,4,1,113,128;1,4,1,113,255;1,4,1,113,1000;1,4,1,128,1;1,4,1,128,17;1,4,1,128,113;1,4,1,128,128;1,4,1,128,255;1,4,1,128,1000;1,4,1,255,1;1,4,1,255,17;1,4,1,255,113;1,4,1,255,128;1,4,1,255,255;1,4,1,255,1000;1,4,1,1000,1;1,4,1,1000,17;1,4,1,1000,113;1,4,1,1000,128;1,4,1,1000,255;1,4,1,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=D64
// D64-NOT: FAIL
// D64: flash-run: 36/36 cases passed

// RUN: flash-run %s --seed=16 --func=d128 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,4,1,1,1;1,4,1,1,17;1,4,1,1,113;1,4,1,1,128;1,4,1,1,255;1,4,1,1,1000;1,4,1,17,1;1,4,1,17,17;1,4,1,17,113;1,4,1,17,128;1,4,1,17,255;1,4,1,17,1000;1,4,1,113,1;1,4,1,113,17;1,4,1,113,113;1,4,1,113,128;1,4,1,113,255;1,4,1,113,1000;1,4,1,128,1;1,4,1,128,17;1,4,1,128,113;1,4,1,128,128;1,4,1,128,255;1,4,1,128,1000;1,4,1,255,1;1,4,1,255,17;1,4,1,255,113;1,4,1,255,128;1,4,1,255,255;1,4,1,255,1000;1,4,1,1000,1;1,4,1,1000,17;1,4,1,1000,113;1,4,1,1000,128;1,4,1,1000,255;1,4,1,1000,1000' \
// RUN:   | FileCheck %s --check-prefix=D128
// D128-NOT: FAIL
// D128: flash-run: 36/36 cases passed

func.func @d32(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 64, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @d64(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 32, block_n = 64, warps = 4, stages = 2>}
  return
}

func.func @d128(%q: memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x128xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>}
  return
}
