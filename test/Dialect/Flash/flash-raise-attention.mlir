// RUN: flash-opt %s -split-input-file --flash-raise-attention | FileCheck %s

// Attention written as frontends write it becomes one flash.attention, with
// the scale made explicit (the product of every constant factor), `causal`
// for a materialised j <= i mask, and fewer KV heads where K/V heads were
// repeated. Every op of the decomposed chain is gone.

// torch-mlir's decomposition of SDPA(is_causal=True): transpose(K), a
// [B*H, S, D] batch_matmul between reshapes, mul by the scale, the mask
// masked_fill(zeros, not(tril(ones)), -inf) added with a broadcast, the
// stable softmax (amax keepdim, sub, exp, sum keepdim, div), P·V.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @torch_causal
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x4x16x32xf32>, %[[K:.*]]: tensor<2x4x16x32xf32>, %[[V:.*]]: tensor<2x4x16x32xf32>)
// CHECK-NEXT:    %[[O:.*]] = flash.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>, tensor<2x4x16x32xf32>) {causal, scale = 0.176776692 : f32} -> tensor<2x4x16x32xf32>
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
// CHECK-NEXT:    %[[E:.*]] = tensor.expand_shape %[[C]]
// CHECK-NEXT:    return %[[E]]
func.func @torch_causal(%q: tensor<2x4x16x32xf32>, %k: tensor<2x4x16x32xf32>, %v: tensor<2x4x16x32xf32>) -> tensor<2x4x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.176776695 : f32
  %true = arith.constant true
  %false = arith.constant false
  // S = Q Kᵀ.
  %kt0 = tensor.empty() : tensor<2x4x32x16xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x16x32xf32>) outs(%kt0 : tensor<2x4x32x16xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x32x16xf32> into tensor<8x32x16xf32>
  %s0 = tensor.empty() : tensor<8x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x16x32xf32>, tensor<8x32x16xf32>) outs(%sz : tensor<8x16x16xf32>) -> tensor<8x16x16xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 16] : tensor<8x16x16xf32> into tensor<2x4x16x16xf32>
  %e4 = tensor.empty() : tensor<2x4x16x16xf32>
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x4x16x16xf32>) outs(%e4 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x4x16x16xf32>
  // mask = masked_fill(zeros, not(tril(ones)), -inf).
  %b0 = tensor.empty() : tensor<16x16xi1>
  %ones = linalg.fill ins(%true : i1) outs(%b0 : tensor<16x16xi1>) -> tensor<16x16xi1>
  %tril = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ones : tensor<16x16xi1>) outs(%b0 : tensor<16x16xi1>) {
  ^bb0(%a: i1, %o: i1):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i64
    %jj = arith.index_cast %j : index to i64
    %d = arith.subi %jj, %ii : i64
    %c0 = arith.constant 0 : i64
    %keep = arith.cmpi sle, %d, %c0 : i64
    %r = arith.select %keep, %a, %false : i1
    linalg.yield %r : i1
  } -> tensor<16x16xi1>
  %not = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%tril : tensor<16x16xi1>) outs(%b0 : tensor<16x16xi1>) {
  ^bb0(%a: i1, %o: i1):
    %r = arith.xori %a, %true : i1
    linalg.yield %r : i1
  } -> tensor<16x16xi1>
  %f0 = tensor.empty() : tensor<16x16xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%f0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %mask = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%not, %zeros : tensor<16x16xi1>, tensor<16x16xf32>) outs(%f0 : tensor<16x16xf32>) {
  ^bb0(%c: i1, %z: f32, %o: f32):
    %r = arith.select %c, %ninf, %z : f32
    linalg.yield %r : f32
  } -> tensor<16x16xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #mask, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %mask : tensor<2x4x16x16xf32>, tensor<16x16xf32>) outs(%e4 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  // softmax(dim=-1).
  %r0 = tensor.empty() : tensor<2x4x16x1xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x4x16x16xf32>) outs(%mx0 : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x1xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e4 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x4x16x16xf32>) outs(%e4 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x4x16x1xf32>) -> tensor<2x4x16x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<2x4x16x16xf32>) outs(%sm0 : tensor<2x4x16x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x4x16x16xf32>, tensor<2x4x16x1xf32>) outs(%e4 : tensor<2x4x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x16x16xf32>
  // O = P V.
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x16x16xf32> into tensor<8x16x16xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x16x32xf32> into tensor<8x16x32xf32>
  %o0 = tensor.empty() : tensor<8x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x16x16xf32>, tensor<8x16x32xf32>) outs(%oz : tensor<8x16x32xf32>) -> tensor<8x16x32xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 16, 32] : tensor<8x16x32xf32> into tensor<2x4x16x32xf32>
  return %o : tensor<2x4x16x32xf32>
}

// -----

// Rank-4 contractions as generics (K read transposed by the indexing map),
// dynamic batch and sequence lengths, a divide by sqrt(D), linalg.softmax;
// the result is cast back to the function's static-head type.
#q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#k = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#s = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
#p = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#v = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @generic_softmax
// CHECK-SAME:    (%[[Q:.*]]: tensor<?x8x?x64xf16>, %[[K:.*]]: tensor<?x8x?x64xf16>, %[[V:.*]]: tensor<?x8x?x64xf16>, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK-NEXT:    %[[O:.*]] = flash.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>) {scale = 1.250000e-01 : f32} -> tensor<?x8x?x64xf16>
// CHECK-NEXT:    return %[[O]]
func.func @generic_softmax(%q: tensor<?x8x?x64xf16>, %k: tensor<?x8x?x64xf16>, %v: tensor<?x8x?x64xf16>, %b: index, %sq: index, %sk: index) -> tensor<?x8x?x64xf16> {
  %zero = arith.constant 0.0 : f16
  %eight = arith.constant 8.0 : f16
  %s0 = tensor.empty(%b, %sq, %sk) : tensor<?x8x?x?xf16>
  %sz = linalg.fill ins(%zero : f16) outs(%s0 : tensor<?x8x?x?xf16>) -> tensor<?x8x?x?xf16>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<?x8x?x64xf16>, tensor<?x8x?x64xf16>) outs(%sz : tensor<?x8x?x?xf16>) {
  ^bb0(%a: f16, %c: f16, %acc: f16):
    %m = arith.mulf %a, %c : f16
    %r = arith.addf %acc, %m : f16
    linalg.yield %r : f16
  } -> tensor<?x8x?x?xf16>
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<?x8x?x?xf16>) outs(%s0 : tensor<?x8x?x?xf16>) {
  ^bb0(%a: f16, %o: f16):
    %r = arith.divf %a, %eight : f16
    linalg.yield %r : f16
  } -> tensor<?x8x?x?xf16>
  %p = linalg.softmax dimension(3) ins(%scaled : tensor<?x8x?x?xf16>) outs(%s0 : tensor<?x8x?x?xf16>) -> tensor<?x8x?x?xf16>
  %o0 = tensor.empty(%b, %sq) : tensor<?x8x?x64xf16>
  %oz = linalg.fill ins(%zero : f16) outs(%o0 : tensor<?x8x?x64xf16>) -> tensor<?x8x?x64xf16>
  %o = linalg.generic {indexing_maps = [#p, #v, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<?x8x?x?xf16>, tensor<?x8x?x64xf16>) outs(%oz : tensor<?x8x?x64xf16>) {
  ^bb0(%a: f16, %c: f16, %acc: f16):
    %m = arith.mulf %a, %c : f16
    %r = arith.addf %acc, %m : f16
    linalg.yield %r : f16
  } -> tensor<?x8x?x64xf16>
  return %o : tensor<?x8x?x64xf16>
}

// -----

// Rank-3 [B*H, S, D] batch_matmuls, Q·Kᵀ through transposed indexing_maps,
// the scale on Q, a select mask built in the scores' own generic
// (select(j <= i, s, -inf)), linalg.softmax. Raised with batch 1.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @rank3_select
// CHECK-SAME:    (%[[Q:.*]]: tensor<6x32x16xbf16>, %[[K:.*]]: tensor<6x32x16xbf16>, %[[V:.*]]: tensor<6x32x16xbf16>)
// CHECK-DAG:     %[[Q4:.*]] = tensor.expand_shape %[[Q]] {{\[}}[0, 1], [2], [3]] output_shape [1, 6, 32, 16]
// CHECK-DAG:     %[[K4:.*]] = tensor.expand_shape %[[K]] {{\[}}[0, 1], [2], [3]] output_shape [1, 6, 32, 16]
// CHECK-DAG:     %[[V4:.*]] = tensor.expand_shape %[[V]] {{\[}}[0, 1], [2], [3]] output_shape [1, 6, 32, 16]
// CHECK:         %[[O:.*]] = flash.attention ins(%[[Q4]], %[[K4]], %[[V4]] : tensor<1x6x32x16xbf16>, tensor<1x6x32x16xbf16>, tensor<1x6x32x16xbf16>) {causal, scale = 2.500000e-01 : f32} -> tensor<1x6x32x16xbf16>
// CHECK-NEXT:    %[[C:.*]] = tensor.collapse_shape %[[O]] {{\[}}[0, 1], [2], [3]] : tensor<1x6x32x16xbf16> into tensor<6x32x16xbf16>
// CHECK-NEXT:    return %[[C]]
func.func @rank3_select(%q: tensor<6x32x16xbf16>, %k: tensor<6x32x16xbf16>, %v: tensor<6x32x16xbf16>) -> tensor<6x32x16xbf16> {
  %zero = arith.constant 0.0 : bf16
  %quarter = arith.constant 0.25 : bf16
  %ninf = arith.constant 0xFF80 : bf16
  %qe = tensor.empty() : tensor<6x32x16xbf16>
  %qs = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%q : tensor<6x32x16xbf16>) outs(%qe : tensor<6x32x16xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %r = arith.mulf %quarter, %a : bf16
    linalg.yield %r : bf16
  } -> tensor<6x32x16xbf16>
  %s0 = tensor.empty() : tensor<6x32x32xbf16>
  %sz = linalg.fill ins(%zero : bf16) outs(%s0 : tensor<6x32x32xbf16>) -> tensor<6x32x32xbf16>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%qs, %k : tensor<6x32x16xbf16>, tensor<6x32x16xbf16>) outs(%sz : tensor<6x32x32xbf16>) -> tensor<6x32x32xbf16>
  %masked = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x32x32xbf16>) outs(%s0 : tensor<6x32x32xbf16>) {
  ^bb0(%a: bf16, %o: bf16):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %a, %ninf : bf16
    linalg.yield %r : bf16
  } -> tensor<6x32x32xbf16>
  %p = linalg.softmax dimension(2) ins(%masked : tensor<6x32x32xbf16>) outs(%s0 : tensor<6x32x32xbf16>) -> tensor<6x32x32xbf16>
  %o0 = tensor.empty() : tensor<6x32x16xbf16>
  %oz = linalg.fill ins(%zero : bf16) outs(%o0 : tensor<6x32x16xbf16>) -> tensor<6x32x16xbf16>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xbf16>, tensor<6x32x16xbf16>) outs(%oz : tensor<6x32x16xbf16>) -> tensor<6x32x16xbf16>
  return %o : tensor<6x32x16xbf16>
}

// -----

// GQA 8:2: K repeated as torch's repeat_interleave lowers (unsqueeze,
// broadcast generic, flatten), V by linalg.broadcast; exp(x - max) fused in
// one generic. flash.attention takes the unrepeated K and V.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#kt = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#s = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
// CHECK-LABEL: func.func @gqa
// CHECK-SAME:    (%[[Q:.*]]: tensor<1x8x16x32xf32>, %[[K:.*]]: tensor<1x2x16x32xf32>, %[[V:.*]]: tensor<1x2x16x32xf32>)
// CHECK-NEXT:    %[[O:.*]] = flash.attention ins(%[[Q]], %[[K]], %[[V]] : tensor<1x8x16x32xf32>, tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) {scale = 1.000000e+00 : f32} -> tensor<1x8x16x32xf32>
// CHECK-NEXT:    return %[[O]]
func.func @gqa(%q: tensor<1x8x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x8x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %k5 = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [1, 2, 1, 16, 32] : tensor<1x2x16x32xf32> into tensor<1x2x1x16x32xf32>
  %kb0 = tensor.empty() : tensor<1x2x4x16x32xf32>
  %kb = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k5 : tensor<1x2x1x16x32xf32>) outs(%kb0 : tensor<1x2x4x16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x2x4x16x32xf32>
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<1x2x4x16x32xf32> into tensor<1x8x16x32xf32>
  %vb = linalg.broadcast ins(%v : tensor<1x2x16x32xf32>) outs(%kb0 : tensor<1x2x4x16x32xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<1x2x4x16x32xf32> into tensor<1x8x16x32xf32>
  // Kᵀ by a generic transpose, then a [.., k, n] contraction.
  %kt0 = tensor.empty() : tensor<1x8x32x16xf32>
  %kt = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d3, d2)>, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%kr : tensor<1x8x16x32xf32>) outs(%kt0 : tensor<1x8x32x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<1x8x32x16xf32>
  %s0 = tensor.empty() : tensor<1x8x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x8x16x16xf32>) -> tensor<1x8x16x16xf32>
  %s = linalg.generic {indexing_maps = [#q, #kt, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kt : tensor<1x8x16x32xf32>, tensor<1x8x32x16xf32>) outs(%sz : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  // Row max and sum without keepdim (linalg.reduce and a generic).
  %r0 = tensor.empty() : tensor<1x8x16xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %mx = linalg.reduce ins(%s : tensor<1x8x16x16xf32>) outs(%mx0 : tensor<1x8x16xf32>) dimensions = [3]
    (%a: f32, %acc: f32) {
      %r = arith.maxnumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %exp = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mx : tensor<1x8x16x16xf32>, tensor<1x8x16xf32>) outs(%s0 : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1x8x16xf32>) -> tensor<1x8x16xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<1x8x16x16xf32>) outs(%sm0 : tensor<1x8x16xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %acc, %a : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<1x8x16x16xf32>, tensor<1x8x16xf32>) outs(%s0 : tensor<1x8x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x16xf32>
  %o0 = tensor.empty() : tensor<1x8x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x8x16x32xf32>) -> tensor<1x8x16x32xf32>
  %o = linalg.generic {indexing_maps = [#q, #kt, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %vr : tensor<1x8x16x16xf32>, tensor<1x8x16x32xf32>) outs(%oz : tensor<1x8x16x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x8x16x32xf32>
  return %o : tensor<1x8x16x32xf32>
}

// -----

// A causal mask from a dense constant (a frontend that folded tril), added
// before the scale; the attention weights P are also returned, so the
// decomposed softmax stays for them while O comes from flash.attention.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#mask = affine_map<(d0, d1, d2, d3) -> (0, 0, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
// CHECK-LABEL: func.func @dense_mask_weights_used
// CHECK:         linalg.batch_matmul
// CHECK:         %[[O:.*]] = flash.attention ins(%arg0, %arg1, %arg2 : {{.*}}) {causal, scale = 5.000000e-01 : f32} -> tensor<1x1x4x8xf32>
// CHECK-NEXT:    return %[[O]], %{{.*}} :
func.func @dense_mask_weights_used(%q: tensor<1x1x4x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> (tensor<1x1x4x8xf32>, tensor<1x1x4x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %ninf = arith.constant -3.40282347E+38 : f32
  %maskc = arith.constant dense<[[[[0.0, -3.40282347E+38, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, -3.40282347E+38, -3.40282347E+38], [0.0, 0.0, 0.0, -3.40282347E+38], [0.0, 0.0, 0.0, 0.0]]]]> : tensor<1x1x4x4xf32>
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<1x1x4x8xf32> into tensor<1x4x8xf32>
  %k3 = tensor.collapse_shape %k [[0, 1], [2], [3]] : tensor<1x1x4x8xf32> into tensor<1x4x8xf32>
  %s0 = tensor.empty() : tensor<1x4x4xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %s3 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%q3, %k3 : tensor<1x4x8xf32>, tensor<1x4x8xf32>) outs(%sz : tensor<1x4x4xf32>) -> tensor<1x4x4xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [1, 1, 4, 4] : tensor<1x4x4xf32> into tensor<1x1x4x4xf32>
  %e4 = tensor.empty() : tensor<1x1x4x4xf32>
  %x = linalg.generic {indexing_maps = [#id4, #mask, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %maskc : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) outs(%e4 : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %t = arith.addf %m, %a : f32
    %r = arith.mulf %t, %half : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x4xf32>
  %r0 = tensor.empty() : tensor<1x1x4x1xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<1x1x4x1xf32>) -> tensor<1x1x4x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<1x1x4x4xf32>) outs(%mx0 : tensor<1x1x4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %c = arith.cmpf ogt, %a, %acc : f32
    %r = arith.select %c, %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x1xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<1x1x4x4xf32>, tensor<1x1x4x1xf32>) outs(%e4 : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x4xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1x1x4x1xf32>) -> tensor<1x1x4x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<1x1x4x4xf32>) outs(%sm0 : tensor<1x1x4x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<1x1x4x4xf32>, tensor<1x1x4x1xf32>) outs(%e4 : tensor<1x1x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x4xf32>
  %o0 = tensor.empty() : tensor<1x1x4x8xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x1x4x8xf32>) -> tensor<1x1x4x8xf32>
  %o = linalg.generic {indexing_maps = [affine_map<(b, h, m, n, k) -> (b, h, m, k)>, affine_map<(b, h, m, n, k) -> (b, h, k, n)>, affine_map<(b, h, m, n, k) -> (b, h, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x1x4x4xf32>, tensor<1x1x4x8xf32>) outs(%oz : tensor<1x1x4x8xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x1x4x8xf32>
  return %o, %p : tensor<1x1x4x8xf32>, tensor<1x1x4x4xf32>
}

// -----

// Causal with dynamic sequence lengths shown equal: Q and K are copied
// into tensors of one SSA length %s, so the value bounds prove Sq == Sk;
// the scale comes after the mask.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @causal_dynamic_proven
// CHECK:         flash.attention {{.*}} {causal, scale = 5.000000e-01 : f32} -> tensor<1x6x?x16xf32>
// CHECK-NOT:     linalg.softmax
func.func @causal_dynamic_proven(%qa: tensor<6x?x16xf32>, %ka: tensor<6x?x16xf32>, %v: tensor<6x?x16xf32>, %s: index) -> tensor<6x?x16xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty(%s) : tensor<6x?x16xf32>
  %q = linalg.copy ins(%qa : tensor<6x?x16xf32>) outs(%e : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  %k = linalg.copy ins(%ka : tensor<6x?x16xf32>) outs(%e : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  %s0 = tensor.empty(%s, %s) : tensor<6x?x?xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %sc = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x?x16xf32>, tensor<6x?x16xf32>) outs(%sz : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%sc : tensor<6x?x?xf32>) outs(%s0 : tensor<6x?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi sge, %i, %j : index
    %m = arith.select %vis, %a, %ninf : f32
    %r = arith.mulf %m, %half : f32
    linalg.yield %r : f32
  } -> tensor<6x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x?x?xf32>) outs(%s0 : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %o0 = tensor.empty(%s) : tensor<6x?x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x?x?xf32>, tensor<6x?x16xf32>) outs(%oz : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  return %o : tensor<6x?x16xf32>
}
