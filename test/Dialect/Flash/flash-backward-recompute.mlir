// RUN: flash-opt %s --flash-backward-recompute -split-input-file -verify-diagnostics | FileCheck %s

// flash-backward-recompute writes FA2's backward step as tile math: S =
// Q K^T, the scaled logit with the score_mod's value and derivative in one
// generic, P recomputed from the saved LSE by one FMA and exp2, then the
// four GEMMs with their transposed operands: dV += P^T dO, dP = dO V^T,
// dK += dS^T Q, dQ's part dS K.

!T = tensor<16x32xbf16>
!R = tensor<16xf32>
!A = tensor<16x32xf32>
// CHECK-LABEL: func.func @step
// CHECK-SAME: (%[[Q:[^:]+]]: tensor<16x32xbf16>, %[[K:[^:]+]]: tensor<16x32xbf16>, %[[V:[^:]+]]: tensor<16x32xbf16>, %[[DO:[^:]+]]: tensor<16x32xbf16>, %[[LSE:[^:]+]]: tensor<16xf32>, %[[D:[^:]+]]: tensor<16xf32>, %[[DK:[^:]+]]: tensor<16x32xf32>, %[[DV:[^:]+]]: tensor<16x32xf32>
// S = Q K^T
// CHECK: %[[S:.+]] = linalg.matmul indexing_maps = [#{{.+}}, #[[KT:.+]], #{{.+}}] ins(%[[Q]], %[[K]] : {{.*}}) outs(%{{.+}} : tensor<16x16xf32>)
// The logit, its score_mod (here 2 tanh(s / 2)) and the derivative
// 1 - tanh^2 (times the chain's other factors), masked to -inf.
// CHECK: %[[MOD:.+]]:2 = linalg.generic {{.*}} outs(%[[S]], %{{.+}} : tensor<16x16xf32>, tensor<16x16xf32>)
// CHECK: %[[X:.+]] = arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: %[[TH:.+]] = math.tanh
// CHECK: arith.mulf %[[TH]], %[[TH]]
// CHECK: arith.select
// CHECK: linalg.yield
// lse2 = LSE log2e, +inf on an empty row.
// CHECK: %[[L2:.+]] = linalg.generic {{.*}} ins(%[[LSE]] : tensor<16xf32>)
// CHECK: arith.cmpf oeq
// CHECK: arith.select
// P = exp2(s' log2e - lse2)
// CHECK: %[[P:.+]] = linalg.generic {{.*}} ins(%[[L2]] : tensor<16xf32>) outs(%[[MOD]]#0 : tensor<16x16xf32>)
// CHECK: math.fma
// CHECK: math.exp2
// dV += P^T dO, P in bf16
// CHECK: %[[PB:.+]] = linalg.generic {{.*}} ins(%[[P]] : tensor<16x16xf32>) outs(%{{.+}} : tensor<16x16xbf16>)
// CHECK: %[[NDV:.+]] = linalg.matmul indexing_maps = [#[[AT:.+]], #{{.+}}, #{{.+}}] ins(%[[PB]], %[[DO]] : {{.*}}) outs(%[[DV]] : tensor<16x32xf32>)
// dP = dO V^T
// CHECK: %[[DP:.+]] = linalg.matmul indexing_maps = [#{{.+}}, #[[KT]], #{{.+}}] ins(%[[DO]], %[[V]] : {{.*}})
// dS = scale P (dP - D) s'_s, 0 where P is
// CHECK: %[[DS:.+]] = linalg.generic {{.*}} ins(%[[P]], %[[D]], %[[MOD]]#1 : tensor<16x16xf32>, tensor<16xf32>, tensor<16x16xf32>) outs(%[[DP]] : tensor<16x16xf32>)
// CHECK: arith.subf
// CHECK: arith.select
// CHECK: %[[DSB:.+]] = linalg.generic {{.*}} ins(%[[DS]] : tensor<16x16xf32>)
// dK += dS^T Q, dQ = dS K
// CHECK: %[[NDK:.+]] = linalg.matmul indexing_maps = [#[[AT]], #{{.+}}, #{{.+}}] ins(%[[DSB]], %[[Q]] : {{.*}}) outs(%[[DK]] : tensor<16x32xf32>)
// CHECK: %[[DQ:.+]] = linalg.matmul ins(%[[DSB]], %[[K]] : {{.*}})
// CHECK: return %[[NDK]], %[[NDV]], %[[DQ]]
func.func @step(%q: !T, %k: !T, %v: !T, %do: !T, %lse: !R, %d: !R, %dk: !A, %dv: !A,
                %row: index, %col: index, %sq: index, %sk: index) -> (!A, !A, !A) {
  %g:3 = flash.tile_grad %q, %k, %v, %do, %lse, %d, %dk, %dv at (%row, %col)
      bounds (%sq, %sk) {causal, masked, scale = 0.25 : f32}
      : !T, !T, !T, !T, !R, !R, !A, !A -> !A
      score_mod {
      ^bb0(%s: f32, %i: index, %j: index):
        %two = arith.constant 2.0 : f32
        %x = arith.divf %s, %two : f32
        %t = math.tanh %x : f32
        %y = arith.mulf %t, %two : f32
        flash.yield %y : f32
      }
  return %g#0, %g#1, %g#2 : !A, !A, !A
}

// -----

// Without a score_mod the derivative is 1 and an unmasked step has no
// select: every entry is visible.
!T = tensor<16x32xf32>
!R = tensor<16xf32>
// CHECK-LABEL: func.func @plain
// CHECK: %[[MOD:.+]]:2 = linalg.generic
// CHECK-NOT: arith.select
// CHECK: linalg.yield %{{.+}}, %{{.+}} : f32, f32
func.func @plain(%q: !T, %lse: !R, %row: index) -> (!T, !T, !T) {
  %g:3 = flash.tile_grad %q, %q, %q, %q, %lse, %lse, %q, %q at (%row, %row)
      bounds (%row, %row) {scale = 0.25 : f32}
      : !T, !T, !T, !T, !R, !R, !T, !T -> !T
  return %g#0, %g#1, %g#2 : !T, !T, !T
}
