// Dv != D with no explicit scale: the default scale is 1/sqrt(D) of Q and K
// (here 1/sqrt(32)), not of V's head dim. flash-run derives it from the
// types itself, not through the op accessor the lowering uses.

// RUN: flash-run %s --seed=16 --func=d32v64 --tol=1e-5 \
// RUN:   --shapes='1,4,2,17,113;2,2,1,64,64;1,1,1,1,200' | FileCheck %s
// RUN: flash-run %s --seed=16 --func=d64v32 --tol=1e-5 --layout=bshd \
// RUN:   --shapes='1,4,2,17,113;2,2,1,64,64;1,1,1,1,200' | FileCheck %s
// CHECK-NOT: FAIL
// CHECK: flash-run: 3/3 cases passed

func.func @d32v64(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 4, stages = 2>}
  return
}
func.func @d64v32(%q: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 4, stages = 2>}
  return
}
