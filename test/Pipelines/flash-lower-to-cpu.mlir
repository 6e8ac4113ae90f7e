// RUN: flash-opt %s --flash-lower-to-cpu | FileCheck %s

// The named CPU pipeline takes flash.attention all the way to the LLVM
// dialect: nothing of flash, linalg, scf, tensor or memref is left, and the
// tile buffers are freed.

// CHECK-LABEL: llvm.func @attention
// CHECK-NOT: flash.
// CHECK-NOT: linalg.
// CHECK-NOT: scf.
// CHECK-NOT: tensor.
// CHECK-NOT: memref.
// CHECK: llvm.intr.exp2
// CHECK: llvm.call @free
!T = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @attention(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T) {causal}
  return
}
