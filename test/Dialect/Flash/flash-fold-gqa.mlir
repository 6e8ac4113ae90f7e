// RUN: flash-opt %s -split-input-file --flash-fold-gqa | FileCheck %s

// Decode with GQA 32:8: Q, O and LSE [B, 32, 1, ...] become [B, 8, 4, ...]
// views of the same storage (head h = 4 * kv + g is row g of KV head kv:
// the head stride is scaled by 4 and becomes the row stride). causal is
// dropped (one query sees every key), the scale made explicit.

!q = memref<?x32x1x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!kv = memref<?x8x?x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
!l = memref<?x32x1xf32>
// CHECK-LABEL: func.func @gqa
// CHECK:       memref.reinterpret_cast %arg4 to offset: [0], sizes: [%{{.*}}, 8, 4], strides: [32, 4, 1]
// CHECK:       %[[B:.*]], %[[OFF:.*]], %[[SZ:.*]]:4, %[[ST:.*]]:4 = memref.extract_strided_metadata %arg0
// CHECK:       %[[HS:.*]] = arith.muli %c4{{.*}}, %[[ST]]#1
// CHECK:       %[[QV:.*]] = memref.reinterpret_cast %arg0 to offset: [%[[OFF]]], sizes: [%[[SZ]]#0, 8, 4, 128], strides: [%[[ST]]#0, %[[HS]], %[[ST]]#1, 1]
// CHECK-SAME:    to memref<?x8x4x128xbf16, strided<[?, ?, ?, 1], offset: ?>>
// CHECK:       flash.attention ins(%[[QV]], %arg1, %arg2 : memref<?x8x4x128xbf16, {{.*}}>, {{.*}}) outs(%{{.*}}, %{{.*}} : memref<?x8x4x128xbf16, {{.*}}>, memref<?x8x4xf32, strided<[32, 4, 1]>>) {scale = 0.0883883461 : f32}
func.func @gqa(%q: !q, %k: !kv, %v: !kv, %o: !q, %lse: !l) {
  flash.attention ins(%q, %k, %v : !q, !kv, !kv) outs(%o, %lse : !q, !l) {causal}
  return
}

// -----

// Not folded: a window (its bounds are per row), no GQA, dynamic heads,
// more than one query.
// CHECK-LABEL: func.func @kept
// CHECK-NOT:   memref.reinterpret_cast
// CHECK:       flash.attention {{.*}} {window = array<i64: 16, 0>}
// CHECK:       flash.attention {{.*}} {causal}
// CHECK:       flash.attention {{.*}} {causal}
// CHECK:       flash.attention {{.*}} {causal}
!q1 = memref<2x32x1x64xf16>
!k1 = memref<2x8x?x64xf16>
!q2 = memref<2x8x1x64xf16>
!qd = memref<2x?x1x64xf16>
!kd = memref<2x?x?x64xf16>
!q3 = memref<2x32x2x64xf16>
func.func @kept(%q1: !q1, %k1: !k1, %q2: !q2, %qd: !qd, %kd: !kd, %q3: !q3) {
  flash.attention ins(%q1, %k1, %k1 : !q1, !k1, !k1) outs(%q1 : !q1) {window = array<i64: 16, 0>}
  flash.attention ins(%q2, %k1, %k1 : !q2, !k1, !k1) outs(%q2 : !q2) {causal}
  flash.attention ins(%qd, %kd, %kd : !qd, !kd, !kd) outs(%qd : !qd) {causal}
  flash.attention ins(%q3, %k1, %k1 : !q3, !k1, !k1) outs(%q3 : !q3) {causal}
  return
}
