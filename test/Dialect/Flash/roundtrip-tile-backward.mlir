// RUN: flash-opt %s | flash-opt | FileCheck %s
// RUN: flash-opt %s --mlir-print-op-generic | flash-opt | FileCheck %s

// The backward's tile-level ops print and parse back: a kv grid (its step
// named), the row-vector loads of LSE and D, flash.tile_grad with its
// regions, the dQ accumulation, the dK store, and the zeroed workspace.

#cfg = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 1>
!Q = memref<?x?x?x64xbf16>
!R = memref<?x?x?xf32>
!A = memref<?x?x?x64xf32>
// CHECK-LABEL: func.func @kv_program
// CHECK: flash.workspace(%{{.+}}, %{{.+}}, %{{.+}}) {zeroed} : memref<?x?x?x64xf32>
// CHECK: flash.grid (%[[N:.+]], %[[H:.+]], %[[B:.+]]) in
// CHECK-SAME: backward = #flash<backward_step kv>
// CHECK: flash.tile_load k
// CHECK: flash.tile_load lse %{{.+}}[%[[B]], %[[H]], %{{.+}}] limit %{{.+}} : memref<?x?x?xf32> -> tensor<64xf32>
// CHECK: flash.tile_load delta
// CHECK: %[[DK:.+]], %{{.+}}, %[[DQ:.+]] = flash.tile_grad %{{.+}} at(%{{.+}}, %{{.+}}) bounds(%{{.+}}, %{{.+}}) {causal, masked, scale = 1.250000e-01 : f32} : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64xf32>, tensor<64xf32>, tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32> score_mod {
// CHECK: math.tanh
// CHECK: } mask_mod {
// CHECK: flash.tile_accumulate dq %[[DQ]], %{{.+}}[%[[B]], %[[H]], %{{.+}}] rows %{{.+}} : tensor<64x64xf32> -> memref<?x?x?x64xf32>
// CHECK: flash.tile_store dk %[[DK]]
func.func @kv_program(%q: !Q, %lse: !R, %dk: !A, %nb: index, %nh: index,
                      %nn: index, %sq: index, %sk: index) {
  %ws = flash.workspace(%nb, %nh, %sq) {zeroed} : !A
  %delta = flash.workspace(%nb, %nh, %sq) : !R
  flash.grid (%n, %h, %b) in (%nn, %nh, %nb) attributes {config = #cfg,
      scale = 0.125 : f32, backward = #flash<backward_step kv>} {
    %c64 = arith.constant 64 : index
    %col = arith.muli %n, %c64 : index
    %k = flash.tile_load k %q[%b, %h, %col] limit %sk : !Q -> tensor<64x64xbf16>
    %qt = flash.tile_load q %q[%b, %h, %col] limit %sq : !Q -> tensor<64x64xbf16>
    %l = flash.tile_load lse %lse[%b, %h, %col] limit %sq : !R -> tensor<64xf32>
    %d = flash.tile_load delta %delta[%b, %h, %col] limit %sq : !R -> tensor<64xf32>
    %z = tensor.empty() : tensor<64x64xf32>
    %g:3 = flash.tile_grad %qt, %k, %k, %qt, %l, %d, %z, %z at (%col, %col)
        bounds (%sq, %sk) {causal, masked, scale = 0.125 : f32}
        : tensor<64x64xbf16>, tensor<64x64xbf16>, tensor<64x64xbf16>,
          tensor<64x64xbf16>, tensor<64xf32>, tensor<64xf32>,
          tensor<64x64xf32>, tensor<64x64xf32> -> tensor<64x64xf32>
        score_mod {
        ^bb0(%s: f32, %i: index, %j: index):
          %cap = arith.constant 30.0 : f32
          %x = arith.divf %s, %cap : f32
          %t = math.tanh %x : f32
          %y = arith.mulf %t, %cap : f32
          flash.yield %y : f32
        } mask_mod {
        ^bb0(%i: index, %j: index):
          %v = arith.cmpi sle, %j, %i : index
          flash.yield %v : i1
        }
    flash.tile_accumulate dq %g#2, %ws[%b, %h, %col] rows %sq : tensor<64x64xf32> -> !A
    flash.tile_store dk %g#0, %dk[%b, %h, %col] rows %sk : tensor<64x64xf32> -> !A
  }
  return
}
