// RUN: flash-opt %s --flash-lower-to-gpu="chip=sm_90 format=isa" | FileCheck %s
// RUN: flash-opt %s --flash-lower-to-gpu="chip=sm_90a format=isa" | FileCheck %s

// A score_mod that widens a bf16 capture with arith.extf (which carries no
// fastmath flags unless written) compiles on both MMA paths: the register
// clone of a region op adds `contract` to whatever flags the op has, none
// included (it used to dereference the missing attribute and crash).
// CHECK: gpu.binary @flash_kernels
// CHECK-SAME: cvt.f32.bf16
!T = memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>
func.func @bias(%q: !T, %k: !T, %v: !T, %w: memref<?xbf16>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%w : memref<?xbf16>)
      outs(%o, %lse : !T, !L) score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %c: memref<?xbf16>):
        %wh = memref.load %c[%h] : memref<?xbf16>
        %wf = arith.extf %wh : bf16 to f32
        %r = arith.addf %s, %wf : f32
        flash.yield %r : f32
      }
  return
}
