// RUN: flash-opt %s --flash-tile -split-input-file -verify-diagnostics | FileCheck %s

// flash-tile writes FlashAttention-2's backward as three grids: D =
// rowsum(dO * O) into a workspace; one program per (KV block, KV head,
// batch) that keeps K, V and their gradients on chip and loops over the
// group's query heads and the Q blocks that see its keys, each step a
// flash.tile_grad whose dQ part is added into a zeroed f32 workspace; and
// that workspace converted to dQ's type. Softcap and ALiBi join the
// score_mod region, softcap first.

!Q = memref<2x8x?x64xbf16>
!K = memref<2x2x?x64xbf16>
!L = memref<2x8x?xf32>
// CHECK-LABEL: func.func @gqa_causal
// CHECK-SAME: (%[[Q:[^:]+]]: memref<2x8x?x64xbf16>, %[[K:[^:]+]]: memref<2x2x?x64xbf16>, %[[V:[^:]+]]: memref<2x2x?x64xbf16>, %[[O:[^:]+]]: memref<2x8x?x64xbf16>, %[[LSE:[^:]+]]: memref<2x8x?xf32>, %[[DO:[^:]+]]: memref<2x8x?x64xbf16>, %[[S:[^:]+]]: memref<8xf32>, %[[DQ:[^:]+]]: memref<2x8x?x64xbf16>, %[[DK:[^:]+]]: memref<2x2x?x64xbf16>, %[[DV:[^:]+]]: memref<2x2x?x64xbf16>)
// CHECK: %[[D:.+]] = flash.workspace(%{{.+}}) : memref<2x8x?xf32>
// CHECK: %[[ACC:.+]] = flash.workspace(%{{.+}}) {zeroed} : memref<2x8x?x64xf32>
// The delta grid.
// CHECK: flash.grid (%[[M:.+]], %[[H:.+]], %[[B:.+]]) in
// CHECK-SAME: backward = #flash<backward_step delta>
// CHECK: flash.tile_load o %[[O]]
// CHECK: flash.tile_load do %[[DO]]
// CHECK: linalg.generic
// CHECK: flash.tile_store delta %{{.+}}, %[[D]]
// The KV programs: a grid over (KV block, KV head, batch).
// CHECK: flash.grid (%[[N:.+]], %[[HK:.+]], %[[B2:.+]]) in
// CHECK-SAME: backward = #flash<backward_step kv>
// CHECK: flash.tile_load k %[[K]][%[[B2]], %[[HK]], %[[COL:.+]]] limit
// CHECK: flash.tile_load v %[[V]][%[[B2]], %[[HK]], %[[COL]]] limit
// The group's query heads, then the row blocks from the first that sees
// the block under causal (bottom-right): the masked band first.
// CHECK: scf.for %[[G:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: scf.for %[[MB:.+]] = %{{.+}} to %{{.+}} step %{{.+}} iter_args
// CHECK: flash.tile_load q %[[Q]]
// CHECK: flash.tile_load do %[[DO]]
// CHECK: flash.tile_load lse %[[LSE]]
// CHECK: flash.tile_load delta %[[D]]
// CHECK: %[[NDK:[^ ,]+]], %[[NDV:[^ ,]+]], %[[PART:[^ ,]+]] = flash.tile_grad
// CHECK-SAME: {causal, masked, scale = 1.250000e-01 : f32}
// CHECK-SAME: score_mod {
// CHECK: math.tanh
// CHECK: memref.load %[[S]]
// CHECK: flash.yield
// CHECK: flash.tile_accumulate dq %[[PART]], %[[ACC]]
// CHECK: scf.yield %[[NDK]], %[[NDV]]
// The blocks below the band see every key of this one: unmasked steps.
// CHECK: flash.tile_grad
// CHECK-SAME: {causal, scale = 1.250000e-01 : f32}
// CHECK: flash.tile_accumulate dq
// The other side of the band (empty under causal alone), masked.
// CHECK: flash.tile_grad
// CHECK-SAME: {causal, masked, scale = 1.250000e-01 : f32}
// CHECK: flash.tile_accumulate dq
// CHECK: flash.tile_store dk %{{.+}}, %[[DK]][%[[B2]], %[[HK]], %[[COL]]]
// CHECK: flash.tile_store dv %{{.+}}, %[[DV]][%[[B2]], %[[HK]], %[[COL]]]
// The dQ conversion.
// CHECK: flash.grid
// CHECK-SAME: backward = #flash<backward_step dq>
// CHECK: flash.tile_load dq %[[ACC]]
// CHECK: arith.truncf
// CHECK: flash.tile_store dq %{{.+}}, %[[DQ]]
// CHECK-NOT: flash.attention_backward
func.func @gqa_causal(%q: !Q, %k: !K, %v: !K, %o: !Q, %lse: !L, %do: !Q,
                      %slopes: memref<8xf32>, %dq: !Q, %dk: !K, %dv: !K) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !Q, !K, !K, !Q, !L, !Q)
      alibi(%slopes : memref<8xf32>) outs(%dq, %dk, %dv : !Q, !K, !K)
      {causal, softcap = 30.0 : f32,
       config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>}
  return
}

// -----

// The tensor form goes onto buffers first, as the forward does.
!T = tensor<1x2x100x32xf32>
!L = tensor<1x2x100xf32>
// CHECK-LABEL: func.func @tensor_form
// CHECK-COUNT-3: memref.alloc
// CHECK: flash.grid
// CHECK: flash.grid
// CHECK: flash.tile_grad
// CHECK: flash.grid
// CHECK-COUNT-3: bufferization.to_tensor
func.func @tensor_form(%q: !T, %o: !T, %lse: !L) -> (!T, !T, !T) {
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T)
      {config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 1>} -> !T, !T, !T
  return %a#0, %a#1, %a#2 : !T, !T, !T
}

// -----

// The backward needs score_mod': an op on the logit's path without a
// derivative is reported at that op, before anything else.
!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @no_derivative(%q: !T, %o: !T, %lse: !L) -> (!T, !T, !T) {
  // expected-note @+1 {{the score_mod of this op}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T)
      {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>} -> !T, !T, !T
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index):
        %c = arith.constant 2.0 : f32
        %x = arith.mulf %s, %c : f32
        // expected-error @+1 {{'math.atan' has no derivative with respect to the logit}}
        %y = math.atan %x : f32
        flash.yield %y : f32
      }
  return %a#0, %a#1, %a#2 : !T, !T, !T
}

// -----

!T = tensor<2x8x128x64xf16>
!L = tensor<2x8x128xf32>
func.func @no_config(%q: !T, %o: !T, %lse: !L) -> (!T, !T, !T) {
  // expected-error @+1 {{has no #flash.config: run flash-plan first}}
  %a:3 = flash.attention_backward ins(%q, %q, %q, %o, %lse, %o : !T, !T, !T, !T, !L, !T) -> !T, !T, !T
  return %a#0, %a#1, %a#2 : !T, !T, !T
}
