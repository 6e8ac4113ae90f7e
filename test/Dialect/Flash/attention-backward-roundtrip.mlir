// RUN: flash-opt %s -split-input-file | flash-opt -split-input-file | FileCheck %s
// RUN: flash-opt %s -split-input-file -mlir-print-op-generic | flash-opt -split-input-file | FileCheck %s

// Every form of flash.attention_backward prints and parses back to itself
// (the second RUN goes through the generic form).

// CHECK-LABEL: func.func @tensor_gqa_causal
// CHECK: %{{.+}}:3 = flash.attention_backward ins(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x16x?x64xbf16>, tensor<2x16x?xf32>, tensor<2x16x?x64xbf16>)
// CHECK-SAME: {causal, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 128, 0>}
// CHECK-SAME: -> tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>
func.func @tensor_gqa_causal(%q: tensor<2x16x?x64xbf16>, %k: tensor<2x4x?x64xbf16>,
    %v: tensor<2x4x?x64xbf16>, %o: tensor<2x16x?x64xbf16>,
    %lse: tensor<2x16x?xf32>, %do: tensor<2x16x?x64xbf16>)
    -> (tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>) {
  %dq, %dk, %dv = flash.attention_backward
      ins(%q, %k, %v, %o, %lse, %do : tensor<2x16x?x64xbf16>,
          tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x16x?x64xbf16>,
          tensor<2x16x?xf32>, tensor<2x16x?x64xbf16>)
      {causal, scale = 0.125 : f32, softcap = 30.0 : f32,
       window = array<i64: 128, 0>}
      -> tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>
  return %dq, %dk, %dv
      : tensor<2x16x?x64xbf16>, tensor<2x4x?x64xbf16>, tensor<2x4x?x64xbf16>
}

// -----

// The memref form with ALiBi, varlen, captures and both regions.
// CHECK-LABEL: func.func @memref_mods
// CHECK: flash.attention_backward ins(
// CHECK-SAME: alibi(%{{.+}} : memref<8xf32>) cu_seqlens(%{{.+}}, %{{.+}} : memref<?xi32>, memref<?xi32>) captures(%{{.+}} : memref<?xi32>)
// CHECK-SAME: outs(%{{.+}}, %{{.+}}, %{{.+}} : memref<1x8x?x32xf16>, memref<1x8x?x32xf16>, memref<1x8x?x32xf16>)
// CHECK: score_mod {
// CHECK: arith.mulf
// CHECK: mask_mod {
// CHECK: memref.load
!T = memref<1x8x?x32xf16>
func.func @memref_mods(%q: !T, %k: !T, %v: !T, %o: !T, %lse: memref<1x8x?xf32>,
    %do: !T, %slopes: memref<8xf32>, %cuq: memref<?xi32>, %cuk: memref<?xi32>,
    %doc: memref<?xi32>, %dq: !T, %dk: !T, %dv: !T) {
  flash.attention_backward ins(%q, %k, %v, %o, %lse, %do : !T, !T, !T, !T,
                               memref<1x8x?xf32>, !T)
      alibi(%slopes : memref<8xf32>)
      cu_seqlens(%cuq, %cuk : memref<?xi32>, memref<?xi32>)
      captures(%doc : memref<?xi32>)
      outs(%dq, %dk, %dv : !T, !T, !T)
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %d: memref<?xi32>):
        %two = arith.constant 2.0 : f32
        %r = arith.mulf %s, %two : f32
        flash.yield %r : f32
      }
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?xi32>):
        %di = memref.load %d[%i] : memref<?xi32>
        %dj = memref.load %d[%j] : memref<?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
