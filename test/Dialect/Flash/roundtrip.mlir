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
// CHECK: {config = #flash.config<block_m = 128, block_n = 128, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true, producer_regs = 40>}
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
  %o6 = flash.attention ins(%q, %k, %o5 : tensor<1x8x128x64xf16>,
                           tensor<1x8x128x64xf16>, tensor<1x8x128x64xf16>)
       {config = #flash.config<block_m = 128, block_n = 128, warps = 8, stages = 3, producer_regs = 40, wgmma = true, pingpong = true, producer = true>}
       -> tensor<1x8x128x64xf16>
  return %o6 : tensor<1x8x128x64xf16>
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

// -----

// score_mod and mask_mod regions with captures (memref form): the regions
// print last, the captures after the serving operands.
// CHECK-LABEL: func.func @mods_memref
// CHECK: flash.attention ins({{.*}}) alibi({{.*}} : memref<8xf32>) captures(%{{.+}}, %{{.+}} : memref<?x?xi32>, memref<8xf32>) outs({{.*}}) {causal} score_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: index, %[[H:.+]]: index, %{{.+}}: index, %{{.+}}: index, %{{.+}}: memref<?x?xi32>, %[[BIAS:.+]]: memref<8xf32>):
// CHECK: memref.load %[[BIAS]][%[[H]]] : memref<8xf32>
// CHECK: flash.yield %{{.+}} : f32
// CHECK-NEXT: } mask_mod {
// CHECK-NEXT: ^bb0(%[[B:.+]]: index, %{{.+}}: index, %[[I:.+]]: index, %[[J:.+]]: index, %[[DOC:.+]]: memref<?x?xi32>, %{{.+}}: memref<8xf32>):
// CHECK: memref.load %[[DOC]][%[[B]], %[[I]]]
// CHECK: flash.yield %{{.+}} : i1
func.func @mods_memref(%q: memref<?x8x?x64xf16>, %k: memref<?x2x?x64xf16>,
                       %v: memref<?x2x?x64xf16>, %slopes: memref<8xf32>,
                       %doc: memref<?x?xi32>, %bias: memref<8xf32>,
                       %o: memref<?x8x?x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xf16>, memref<?x2x?x64xf16>,
                                   memref<?x2x?x64xf16>)
      alibi(%slopes : memref<8xf32>)
      captures(%doc, %bias : memref<?x?xi32>, memref<8xf32>)
      outs(%o : memref<?x8x?x64xf16>) {causal}
      score_mod {
      ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
           %d: memref<?x?xi32>, %t: memref<8xf32>):
        %w = memref.load %t[%h] : memref<8xf32>
        %r = arith.addf %s, %w : f32
        flash.yield %r : f32
      }
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>,
           %t: memref<8xf32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// -----

// Tensor form: captures are tensors, read with tensor.extract.
// CHECK-LABEL: func.func @mods_tensor
// CHECK: flash.attention ins({{.*}}) captures(%{{.+}} : tensor<4xi32>) -> tensor<1x4x16x32xf32> mask_mod {
// CHECK: tensor.extract
func.func @mods_tensor(%q: tensor<1x4x16x32xf32>, %prefix: tensor<4xi32>)
    -> tensor<1x4x16x32xf32> {
  %o = flash.attention ins(%q, %q, %q : tensor<1x4x16x32xf32>,
                           tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>)
      captures(%prefix : tensor<4xi32>) -> tensor<1x4x16x32xf32>
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %p: tensor<4xi32>):
        %n = tensor.extract %p[%h] : tensor<4xi32>
        %ni = arith.index_cast %n : i32 to index
        %in = arith.cmpi slt, %j, %ni : index
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return %o : tensor<1x4x16x32xf32>
}

// -----

// The tile-level form: tile_update's regions take (s, i, j) / (i, j).
// CHECK-LABEL: func.func @tile_mods
// CHECK: flash.tile_update {{.*}} {logits, scale = 1.250000e-01 : f32} : {{.*}} score_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: f32, %{{.+}}: index, %{{.+}}: index):
// CHECK: } mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index):
// CHECK: flash.tile_finalize {{.*}} {logits, scale = 1.250000e-01 : f32}
func.func @tile_mods(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>,
                     %acc: tensor<64x32xf32>, %m: tensor<64xf32>,
                     %l: tensor<64xf32>, %i: index) -> tensor<64xf32> {
  %a, %mx, %s = flash.tile_update %q, %k, %k, %acc, %m, %l at(%i, %i)
      bounds(%i, %i) {scale = 0.125 : f32, logits}
      : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>,
        tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
      score_mod {
      ^bb0(%x: f32, %r: index, %c: index):
        flash.yield %x : f32
      }
      mask_mod {
      ^bb0(%r: index, %c: index):
        %le = arith.cmpi sle, %c, %r : index
        flash.yield %le : i1
      }
  %o, %lse = flash.tile_finalize %a, %mx, %s {scale = 0.125 : f32, logits}
      : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
      -> tensor<64x32xf32>, tensor<64xf32>
  return %lse : tensor<64xf32>
}

// -----

// The block-mask hint (memref and tensor forms): after the serving operands,
// before the captures; block_mask_rows in the attribute dictionary.
// CHECK-LABEL: func.func @block_mask_memref
// CHECK: flash.attention ins({{.*}}) kv_lens(%{{.+}} : memref<?xi32>) block_mask(%{{.+}} : memref<?x1x?x4xi32>) captures(%{{.+}} : memref<?x?xi32>) outs({{.*}}) {block_mask_rows = 64 : i64, causal} mask_mod {
func.func @block_mask_memref(%q: memref<?x8x?x64xf16>, %k: memref<?x2x?x64xf16>,
                             %v: memref<?x2x?x64xf16>, %lens: memref<?xi32>,
                             %hint: memref<?x1x?x4xi32>, %doc: memref<?x?xi32>,
                             %o: memref<?x8x?x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xf16>, memref<?x2x?x64xf16>,
                                   memref<?x2x?x64xf16>)
      kv_lens(%lens : memref<?xi32>)
      block_mask(%hint : memref<?x1x?x4xi32>)
      captures(%doc : memref<?x?xi32>)
      outs(%o : memref<?x8x?x64xf16>) {causal, block_mask_rows = 64 : i64}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// -----

// CHECK-LABEL: func.func @block_mask_tensor
// CHECK: flash.attention ins({{.*}}) block_mask(%{{.+}} : tensor<1x4x2x4xi32>) captures(%{{.+}} : tensor<4xi32>) {block_mask_rows = 8 : i64} -> tensor<1x4x16x32xf32> mask_mod {
func.func @block_mask_tensor(%q: tensor<1x4x16x32xf32>, %hint: tensor<1x4x2x4xi32>,
                             %prefix: tensor<4xi32>) -> tensor<1x4x16x32xf32> {
  %o = flash.attention ins(%q, %q, %q : tensor<1x4x16x32xf32>,
                           tensor<1x4x16x32xf32>, tensor<1x4x16x32xf32>)
      block_mask(%hint : tensor<1x4x2x4xi32>)
      captures(%prefix : tensor<4xi32>) {block_mask_rows = 8 : i64}
      -> tensor<1x4x16x32xf32>
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %p: tensor<4xi32>):
        %n = tensor.extract %p[%h] : tensor<4xi32>
        %ni = arith.index_cast %n : i32 to index
        %in = arith.cmpi slt, %j, %ni : index
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return %o : tensor<1x4x16x32xf32>
}
