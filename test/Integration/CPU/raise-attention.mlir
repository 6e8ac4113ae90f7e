// A CPU numerics test of flash-raise-attention: attention written as
// frontends write it (torch-mlir's decomposition of SDPA, plain linalg on
// tensors between a memref ABI) is run by flash-run twice, lowered as it
// is (the decomposed linalg, through flash-lower-to-cpu's bufferization
// and loops) and raised first (flash.attention, through the flash
// pipeline), each compared with the double reference on fresh random
// inputs. Both must agree with the reference, so with each other; the
// flash-opt line checks that the second run did compute with flash.attention.

// @causal: static [2, 4, 64, 32], is_causal (tril mask), scale 1/sqrt(32).
// RUN: flash-run %s --func=causal --seed=7 --tol=1e-5 --shapes='2,4,4,64,64' \
// RUN:   --reference-attrs=causal=1,scale=0.176776695 | FileCheck %s --check-prefix=CAUSAL
// RUN: flash-run %s --func=causal --seed=7 --tol=1e-5 --shapes='2,4,4,64,64' \
// RUN:   --reference-attrs=causal=1,scale=0.176776695 \
// RUN:   --pipeline='builtin.module(flash-raise-attention,flash-lower-to-cpu)' | FileCheck %s --check-prefix=CAUSAL

// @gqa: dynamic batch and sequence lengths, GQA 8:2 by repeated K/V heads,
// a divide by 4, every (Sq, Sk) pair of {1, 17, 100}.
// DEFINE: %{gqa} = 1,8,2,1,1;1,8,2,1,17;1,8,2,1,100;2,8,2,17,1;2,8,2,17,17;2,8,2,17,100;1,8,2,100,1;1,8,2,100,17;3,8,2,100,100
// RUN: flash-run %s --func=gqa --seed=7 --tol=1e-5 --shapes='%{gqa}' \
// RUN:   --reference-attrs=scale=0.25 | FileCheck %s --check-prefix=GQA
// RUN: flash-run %s --func=gqa --seed=7 --tol=1e-5 --shapes='%{gqa}' \
// RUN:   --reference-attrs=scale=0.25 \
// RUN:   --pipeline='builtin.module(flash-raise-attention,flash-lower-to-cpu)' | FileCheck %s --check-prefix=GQA
// RUN: flash-opt %s --flash-raise-attention | FileCheck %s --check-prefix=RAISED

// CAUSAL-NOT: FAIL
// CAUSAL:     flash-run: 1/1 cases passed
// GQA-NOT: FAIL
// GQA:     flash-run: 9/9 cases passed

// RAISED-LABEL: func.func @causal
// RAISED-NOT:   linalg.batch_matmul
// RAISED:       flash.attention {{.*}} {causal, scale = 0.176776692 : f32}
// RAISED-NOT:   linalg.batch_matmul
// RAISED-LABEL: func.func @gqa
// RAISED-NOT:   linalg.generic
// RAISED:       flash.attention ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<?x8x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>) {scale = 2.500000e-01 : f32}
// RAISED-NOT:   linalg.generic

!c = memref<2x4x64x32xf32>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, 0)>
#row3 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#mask = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#rep = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, 0, d3, d4)>
#cq = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#ck = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#cv = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#cs = affine_map<(b, h, m, n, k) -> (b, h, m, n)>

func.func @causal(%qm: !c, %km: !c, %vm: !c, %om: !c) {
  %q = bufferization.to_tensor %qm restrict : !c to tensor<2x4x64x32xf32>
  %k = bufferization.to_tensor %km restrict : !c to tensor<2x4x64x32xf32>
  %v = bufferization.to_tensor %vm restrict : !c to tensor<2x4x64x32xf32>
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %scale = arith.constant 0.176776695 : f32
  %true = arith.constant true
  %false = arith.constant false
  // S = Q Kᵀ.
  %kt0 = tensor.empty() : tensor<2x4x32x64xf32>
  %kt = linalg.transpose ins(%k : tensor<2x4x64x32xf32>) outs(%kt0 : tensor<2x4x32x64xf32>) permutation = [0, 1, 3, 2]
  %q3 = tensor.collapse_shape %q [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %kt3 = tensor.collapse_shape %kt [[0, 1], [2], [3]] : tensor<2x4x32x64xf32> into tensor<8x32x64xf32>
  %s0 = tensor.empty() : tensor<8x64x64xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s3 = linalg.batch_matmul ins(%q3, %kt3 : tensor<8x64x32xf32>, tensor<8x32x64xf32>) outs(%sz : tensor<8x64x64xf32>) -> tensor<8x64x64xf32>
  %s = tensor.expand_shape %s3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 64] : tensor<8x64x64xf32> into tensor<2x4x64x64xf32>
  %e4 = tensor.empty() : tensor<2x4x64x64xf32>
  %scaled = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<2x4x64x64xf32>) outs(%e4 : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.mulf %a, %scale : f32
    linalg.yield %m : f32
  } -> tensor<2x4x64x64xf32>
  // mask = masked_fill(zeros, not(tril(ones)), -inf).
  %b0 = tensor.empty() : tensor<64x64xi1>
  %ones = linalg.fill ins(%true : i1) outs(%b0 : tensor<64x64xi1>) -> tensor<64x64xi1>
  %tril = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ones : tensor<64x64xi1>) outs(%b0 : tensor<64x64xi1>) {
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
  } -> tensor<64x64xi1>
  %not = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%tril : tensor<64x64xi1>) outs(%b0 : tensor<64x64xi1>) {
  ^bb0(%a: i1, %o: i1):
    %r = arith.xori %a, %true : i1
    linalg.yield %r : i1
  } -> tensor<64x64xi1>
  %f0 = tensor.empty() : tensor<64x64xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%f0 : tensor<64x64xf32>) -> tensor<64x64xf32>
  %mask = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%not, %zeros : tensor<64x64xi1>, tensor<64x64xf32>) outs(%f0 : tensor<64x64xf32>) {
  ^bb0(%c: i1, %z: f32, %o: f32):
    %r = arith.select %c, %ninf, %z : f32
    linalg.yield %r : f32
  } -> tensor<64x64xf32>
  %masked = linalg.generic {indexing_maps = [#id4, #mask, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%scaled, %mask : tensor<2x4x64x64xf32>, tensor<64x64xf32>) outs(%e4 : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  // softmax(dim=-1).
  %r0 = tensor.empty() : tensor<2x4x64x1xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<2x4x64x1xf32>) -> tensor<2x4x64x1xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%masked : tensor<2x4x64x64xf32>) outs(%mx0 : tensor<2x4x64x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x1xf32>
  %sub = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%masked, %mx : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%e4 : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.subf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sub : tensor<2x4x64x64xf32>) outs(%e4 : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = math.exp %a : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<2x4x64x1xf32>) -> tensor<2x4x64x1xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<2x4x64x64xf32>) outs(%sm0 : tensor<2x4x64x1xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x1xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<2x4x64x64xf32>, tensor<2x4x64x1xf32>) outs(%e4 : tensor<2x4x64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<2x4x64x64xf32>
  // O = P V.
  %p3 = tensor.collapse_shape %p [[0, 1], [2], [3]] : tensor<2x4x64x64xf32> into tensor<8x64x64xf32>
  %v3 = tensor.collapse_shape %v [[0, 1], [2], [3]] : tensor<2x4x64x32xf32> into tensor<8x64x32xf32>
  %o0 = tensor.empty() : tensor<8x64x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %o3 = linalg.batch_matmul ins(%p3, %v3 : tensor<8x64x64xf32>, tensor<8x64x32xf32>) outs(%oz : tensor<8x64x32xf32>) -> tensor<8x64x32xf32>
  %o = tensor.expand_shape %o3 [[0, 1], [2], [3]] output_shape [2, 4, 64, 32] : tensor<8x64x32xf32> into tensor<2x4x64x32xf32>
  bufferization.materialize_in_destination %o in restrict writable %om : (tensor<2x4x64x32xf32>, !c) -> ()
  return
}

!q = memref<?x8x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
!kv = memref<?x2x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
func.func @gqa(%qm: !q, %km: !kv, %vm: !kv, %om: !q) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %four = arith.constant 4.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %q = bufferization.to_tensor %qm restrict : !q to tensor<?x8x?x32xf32>
  %k = bufferization.to_tensor %km restrict : !kv to tensor<?x2x?x32xf32>
  %v = bufferization.to_tensor %vm restrict : !kv to tensor<?x2x?x32xf32>
  %b = tensor.dim %q, %c0 : tensor<?x8x?x32xf32>
  %sq = tensor.dim %q, %c2 : tensor<?x8x?x32xf32>
  %sk = tensor.dim %k, %c2 : tensor<?x2x?x32xf32>
  // repeat_interleave(K, 4, dim=1): unsqueeze, expand, flatten; V likewise
  // through linalg.broadcast.
  %k5 = tensor.expand_shape %k [[0], [1, 2], [3], [4]] output_shape [%b, 2, 1, %sk, 32] : tensor<?x2x?x32xf32> into tensor<?x2x1x?x32xf32>
  %kb0 = tensor.empty(%b, %sk) : tensor<?x2x4x?x32xf32>
  %kb = linalg.generic {indexing_maps = [#rep, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%k5 : tensor<?x2x1x?x32xf32>) outs(%kb0 : tensor<?x2x4x?x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  } -> tensor<?x2x4x?x32xf32>
  %kr = tensor.collapse_shape %kb [[0], [1, 2], [3], [4]] : tensor<?x2x4x?x32xf32> into tensor<?x8x?x32xf32>
  %vb = linalg.broadcast ins(%v : tensor<?x2x?x32xf32>) outs(%kb0 : tensor<?x2x4x?x32xf32>) dimensions = [2]
  %vr = tensor.collapse_shape %vb [[0], [1, 2], [3], [4]] : tensor<?x2x4x?x32xf32> into tensor<?x8x?x32xf32>
  %s0 = tensor.empty(%b, %sq, %sk) : tensor<?x8x?x?xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32>
  %s = linalg.generic {indexing_maps = [#cq, #ck, #cs], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %kr : tensor<?x8x?x32xf32>, tensor<?x8x?x32xf32>) outs(%sz : tensor<?x8x?x?xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<?x8x?x?xf32>) outs(%s0 : tensor<?x8x?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.divf %a, %four : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?x?xf32>
  %r0 = tensor.empty(%b, %sq) : tensor<?x8x?xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  %mx = linalg.generic {indexing_maps = [#id4, #row3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x : tensor<?x8x?x?xf32>) outs(%mx0 : tensor<?x8x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?xf32>
  %exp = linalg.generic {indexing_maps = [#id4, #row3, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x, %mx : tensor<?x8x?x?xf32>, tensor<?x8x?xf32>) outs(%s0 : tensor<?x8x?x?xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?x?xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<?x8x?xf32>) -> tensor<?x8x?xf32>
  %sum = linalg.generic {indexing_maps = [#id4, #row3], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%exp : tensor<?x8x?x?xf32>) outs(%sm0 : tensor<?x8x?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?xf32>
  %p = linalg.generic {indexing_maps = [#id4, #row3, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<?x8x?x?xf32>, tensor<?x8x?xf32>) outs(%s0 : tensor<?x8x?x?xf32>) {
  ^bb0(%a: f32, %l: f32, %o: f32):
    %r = arith.divf %a, %l : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?x?xf32>
  %o0 = tensor.empty(%b, %sq) : tensor<?x8x?x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<?x8x?x32xf32>) -> tensor<?x8x?x32xf32>
  %o = linalg.generic {indexing_maps = [#cq, #cv, #cs], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %vr : tensor<?x8x?x?xf32>, tensor<?x8x?x32xf32>) outs(%oz : tensor<?x8x?x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x8x?x32xf32>
  bufferization.materialize_in_destination %o in restrict writable %om : (tensor<?x8x?x32xf32>, !q) -> ()
  return
}
