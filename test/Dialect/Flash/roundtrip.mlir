// RUN: flash-opt %s -split-input-file | flash-opt -split-input-file | FileCheck %s
// RUN: flash-opt %s -split-input-file -mlir-print-op-generic | flash-opt -split-input-file | FileCheck %s

// Every form of flash.attention prints and parses back to itself (the second
// RUN goes through the generic form, so the custom printer must agree with
// the generic one).

// CHECK-LABEL: func.func @basic
// CHECK: %[[O:.+]] = flash.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16>
func.func @basic(%q: tensor<2x8x128x64xf16>, %k: tensor<2x8x128x64xf16>,
                 %v: tensor<2x8x128x64xf16>) -> tensor<2x8x128x64xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<2x8x128x64xf16>,
                           tensor<2x8x128x64xf16>, tensor<2x8x128x64xf16>)
       -> tensor<2x8x128x64xf16>
  return %o : tensor<2x8x128x64xf16>
}

// -----

// CHECK-LABEL: func.func @all_attrs_lse
// CHECK: flash.attention ins(%{{.+}}, %{{.+}}, %{{.+}} : tensor<?x32x?x128xbf16>, tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
// CHECK-SAME: {causal, scale = 1.250000e-01 : f32, softcap = 3.000000e+01 : f32, window = array<i64: 256, 0>}
// CHECK-SAME: -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
func.func @all_attrs_lse(%q: tensor<?x32x?x128xbf16>, %k: tensor<?x8x?x128xbf16>,
                         %v: tensor<?x8x?x128xbf16>)
    -> (tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : tensor<?x32x?x128xbf16>,
                                 tensor<?x8x?x128xbf16>, tensor<?x8x?x128xbf16>)
       {causal, scale = 0.125 : f32, window = array<i64: 256, 0>,
        softcap = 30.0 : f32}
       -> tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
  return %o, %lse : tensor<?x32x?x128xbf16>, tensor<?x32x?xf32>
}

// -----

// MQA, V head dim different from Q/K's, f32 (CPU path).
// CHECK-LABEL: func.func @mqa_dv
// CHECK: flash.attention ins({{.*}} : tensor<1x4x17x32xf32>, tensor<1x1x33x32xf32>, tensor<1x1x33x48xf32>) -> tensor<1x4x17x48xf32>
func.func @mqa_dv(%q: tensor<1x4x17x32xf32>, %k: tensor<1x1x33x32xf32>,
                  %v: tensor<1x1x33x48xf32>) -> tensor<1x4x17x48xf32> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x4x17x32xf32>,
                           tensor<1x1x33x32xf32>, tensor<1x1x33x48xf32>)
       -> tensor<1x4x17x48xf32>
  return %o : tensor<1x4x17x48xf32>
}

// -----

// Memref form on FA2's [batch, seq, heads, dim] storage viewed as
// [batch, heads, seq, dim] (strides, no copy), with outs for O and LSE.
// CHECK-LABEL: func.func @memref_bshd
// CHECK: flash.attention ins({{.*}} : memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>, memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>, memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>)
// CHECK-SAME: outs(%{{.+}}, %{{.+}} : memref<?x16x?x64xf16>, memref<?x16x?xf32>) {causal}
// CHECK-NOT: ->
func.func @memref_bshd(%q: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %k: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %v: memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                       %o: memref<?x16x?x64xf16>, %lse: memref<?x16x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                      memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>,
                      memref<?x16x?x64xf16, strided<[?, 64, 1024, 1]>>)
      outs(%o, %lse : memref<?x16x?x64xf16>, memref<?x16x?xf32>) {causal}
  return
}

// -----

// KV cache: per-sequence lengths, paged K/V with a block table, ALiBi.
// CHECK-LABEL: func.func @paged_cache
// CHECK: flash.attention ins({{.*}}) alibi(%{{.+}} : tensor<32xf32>) kv_lens(%{{.+}} : tensor<4xi32>) block_table(%{{.+}} : tensor<4x?xi32>) {causal} -> tensor<4x32x1x128xbf16>
func.func @paged_cache(%q: tensor<4x32x1x128xbf16>, %k: tensor<?x8x16x128xbf16>,
                       %v: tensor<?x8x16x128xbf16>, %slopes: tensor<32xf32>,
                       %lens: tensor<4xi32>, %table: tensor<4x?xi32>)
    -> tensor<4x32x1x128xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<4x32x1x128xbf16>,
                           tensor<?x8x16x128xbf16>, tensor<?x8x16x128xbf16>)
       alibi(%slopes : tensor<32xf32>) kv_lens(%lens : tensor<4xi32>)
       block_table(%table : tensor<4x?xi32>) {causal}
       -> tensor<4x32x1x128xbf16>
  return %o : tensor<4x32x1x128xbf16>
}

// -----

// Varlen batch packed along seq, per-batch ALiBi slopes.
// CHECK-LABEL: func.func @varlen
// CHECK: flash.attention ins({{.*}}) alibi(%{{.+}} : tensor<3x8xf32>) cu_seqlens(%{{.+}}, %{{.+}} : tensor<4xi32>, tensor<4xi32>) -> tensor<1x8x?x64xf16>, tensor<1x8x?xf32>
func.func @varlen(%q: tensor<1x8x?x64xf16>, %k: tensor<1x8x?x64xf16>,
                  %v: tensor<1x8x?x64xf16>, %slopes: tensor<3x8xf32>,
                  %cuq: tensor<4xi32>, %cuk: tensor<4xi32>)
    -> (tensor<1x8x?x64xf16>, tensor<1x8x?xf32>) {
  %o, %lse = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xf16>,
                                 tensor<1x8x?x64xf16>, tensor<1x8x?x64xf16>)
       alibi(%slopes : tensor<3x8xf32>) cu_seqlens(%cuq, %cuk : tensor<4xi32>, tensor<4xi32>)
       -> tensor<1x8x?x64xf16>, tensor<1x8x?xf32>
  return %o, %lse : tensor<1x8x?x64xf16>, tensor<1x8x?xf32>
}

// -----

// A kernel configuration written by hand (flash-plan writes the same).
// CHECK-LABEL: func.func @config
// CHECK: {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>}
// CHECK: {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, splits = 8>}
// CHECK: {config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
// CHECK: {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, splits = 2, wgmma = true>}
// CHECK: {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
func.func @config(%q: tensor<1x8x128x64xf16>, %k: tensor<1x8x128x64xf16>,
                  %v: tensor<1x8x128x64xf16>) -> tensor<1x8x128x64xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>}
       -> tensor<1x8x128x64xf16>
  %o2 = flash.attention ins(%q, %k, %o : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 64, block_n = 128, warps = 4, stages = 2, splits = 8>}
       -> tensor<1x8x128x64xf16>
  %o3 = flash.attention ins(%q, %k, %o2 : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
       -> tensor<1x8x128x64xf16>
  // The optional keys in either order; printed splits first.
  %o4 = flash.attention ins(%q, %k, %o3 : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true, splits = 2>}
       -> tensor<1x8x128x64xf16>
  %o5 = flash.attention ins(%q, %k, %o4 : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, producer = true, wgmma = true>}
       -> tensor<1x8x128x64xf16>
  return %o5 : tensor<1x8x128x64xf16>
}

// -----

// The split-KV pair: a partial attention (f32 O_part/LSE_part with a leading
// split dimension) and the combine; splits = 0 (chosen at run time).
// CHECK-LABEL: func.func @split_kv
// CHECK: flash.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : memref<2x8x1x64xf16>, memref<2x8x?x64xf16>, memref<2x8x?x64xf16>) kv_lens(%{{.*}} : memref<2xi32>) outs(%{{.*}}, %{{.*}} : memref<?x2x8x1x64xf32>, memref<?x2x8x1xf32>) {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 0>}
// CHECK: flash.combine ins(%{{.*}}, %{{.*}} : memref<?x2x8x1x64xf32>, memref<?x2x8x1xf32>) outs(%{{.*}}, %{{.*}} : memref<2x8x1x64xf16>, memref<2x8x1xf32>)
func.func @split_kv(%q: memref<2x8x1x64xf16>, %k: memref<2x8x?x64xf16>,
                    %lens: memref<2xi32>, %op: memref<?x2x8x1x64xf32>,
                    %lp: memref<?x2x8x1xf32>, %o: memref<2x8x1x64xf16>,
                    %lse: memref<2x8x1xf32>) {
  flash.attention ins(%q, %k, %k : memref<2x8x1x64xf16>, memref<2x8x?x64xf16>, memref<2x8x?x64xf16>)
      kv_lens(%lens : memref<2xi32>) outs(%op, %lp : memref<?x2x8x1x64xf32>, memref<?x2x8x1xf32>)
      {config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 0>}
  flash.combine ins(%op, %lp : memref<?x2x8x1x64xf32>, memref<?x2x8x1xf32>)
      outs(%o, %lse : memref<2x8x1x64xf16>, memref<2x8x1xf32>)
  return
}
