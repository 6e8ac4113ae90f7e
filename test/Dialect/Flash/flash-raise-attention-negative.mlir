// RUN: flash-opt %s -split-input-file --flash-raise-attention | FileCheck %s
// The IR is unchanged, not only free of flash.attention:
// RUN: flash-opt %s -split-input-file > %t.before
// RUN: flash-opt %s -split-input-file --flash-raise-attention > %t.after
// RUN: diff %t.before %t.after

// Near-misses of attention: each is left exactly as it was (the pass is a
// pattern: no match, no change, no diagnostic). Every case differs from a
// raised form of flash-raise-attention.mlir in one point.

#q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#k = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#v = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#s = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
// Softmax over the query axis (dimension 2).
// CHECK-LABEL: func.func @softmax_wrong_axis
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax dimension(2)
func.func @softmax_wrong_axis(%q: tensor<1x2x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<1x2x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) outs(%sz : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<1x2x16x16xf32>) outs(%s0 : tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %o0 = tensor.empty() : tensor<1x2x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32>
  %o = linalg.generic {indexing_maps = [#q, #v, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x32xf32>) outs(%oz : tensor<1x2x16x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x32xf32>
  return %o : tensor<1x2x16x32xf32>
}

// -----

// The decomposed softmax whose sum reduces the query dim (dim 2) while its
// max reduces the key dim.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#row = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
#col = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#q = affine_map<(b, h, m, n, k) -> (b, h, m, k)>
#k = affine_map<(b, h, m, n, k) -> (b, h, n, k)>
#v = affine_map<(b, h, m, n, k) -> (b, h, k, n)>
#s = affine_map<(b, h, m, n, k) -> (b, h, m, n)>
// CHECK-LABEL: func.func @sum_wrong_dim
// CHECK-NOT:   flash.attention
// CHECK:       math.exp
func.func @sum_wrong_dim(%q: tensor<1x2x16x32xf32>, %k: tensor<1x2x16x32xf32>, %v: tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<1x2x16x16xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
  %s = linalg.generic {indexing_maps = [#q, #k, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%q, %k : tensor<1x2x16x32xf32>, tensor<1x2x16x32xf32>) outs(%sz : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %r0 = tensor.empty() : tensor<1x2x16xf32>
  %mx0 = linalg.fill ins(%ninf : f32) outs(%r0 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %mx = linalg.reduce ins(%s : tensor<1x2x16x16xf32>) outs(%mx0 : tensor<1x2x16xf32>) dimensions = [3]
    (%a: f32, %acc: f32) {
      %r = arith.maximumf %a, %acc : f32
      linalg.yield %r : f32
    }
  %exp = linalg.generic {indexing_maps = [#id4, #row, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s, %mx : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%s0 : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %sm0 = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1x2x16xf32>) -> tensor<1x2x16xf32>
  %sum = linalg.reduce ins(%exp : tensor<1x2x16x16xf32>) outs(%sm0 : tensor<1x2x16xf32>) dimensions = [2]
    (%a: f32, %acc: f32) {
      %r = arith.addf %a, %acc : f32
      linalg.yield %r : f32
    }
  %p = linalg.generic {indexing_maps = [#id4, #col, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%exp, %sum : tensor<1x2x16x16xf32>, tensor<1x2x16xf32>) outs(%s0 : tensor<1x2x16x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x16xf32>
  %o0 = tensor.empty() : tensor<1x2x16x32xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<1x2x16x32xf32>) -> tensor<1x2x16x32xf32>
  %o = linalg.generic {indexing_maps = [#q, #v, #s], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%p, %v : tensor<1x2x16x16xf32>, tensor<1x2x16x32xf32>) outs(%oz : tensor<1x2x16x32xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<1x2x16x32xf32>
  return %o : tensor<1x2x16x32xf32>
}

// -----

// The scale is a function argument, not a constant.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @scale_not_constant
// CHECK-NOT:   flash.attention
// CHECK:       arith.mulf %{{.*}}, %arg3
func.func @scale_not_constant(%q: tensor<6x32x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>, %scale: f32) -> tensor<6x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %scale : f32
    linalg.yield %r : f32
  } -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o0 = tensor.empty() : tensor<6x32x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xf32>, tensor<6x32x16xf32>) outs(%oz : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  return %o : tensor<6x32x16xf32>
}

// -----

// A strict mask, j < i: the diagonal is masked too, which is not causal.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @strict_mask
// CHECK-NOT:   flash.attention
// CHECK:       arith.cmpi ult
func.func @strict_mask(%q: tensor<6x32x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>) -> tensor<6x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ult, %j, %i : index
    %r = arith.select %vis, %a, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o0 = tensor.empty() : tensor<6x32x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xf32>, tensor<6x32x16xf32>) outs(%oz : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  return %o : tensor<6x32x16xf32>
}

// -----

// The mask is a function argument (an arbitrary mask tensor).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#m2 = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func.func @argument_mask
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @argument_mask(%q: tensor<6x32x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>, %mask: tensor<32x32xf32>) -> tensor<6x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #m2, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s, %mask : tensor<6x32x32xf32>, tensor<32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.addf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o0 = tensor.empty() : tensor<6x32x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xf32>, tensor<6x32x16xf32>) outs(%oz : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  return %o : tensor<6x32x16xf32>
}

// -----

// A causal (tril) mask with Sq = 16 != Sk = 32: top-left aligned, which
// flash's bottom-right causal is not.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @causal_sq_ne_sk
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @causal_sq_ne_sk(%q: tensor<6x16x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>) -> tensor<6x16x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty() : tensor<6x16x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x16x32xf32>) -> tensor<6x16x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x16x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x16x32xf32>) -> tensor<6x16x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x16x32xf32>) outs(%s0 : tensor<6x16x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %a, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6x16x32xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x16x32xf32>) outs(%s0 : tensor<6x16x32xf32>) -> tensor<6x16x32xf32>
  %o0 = tensor.empty() : tensor<6x16x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x16x16xf32>) -> tensor<6x16x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x16x32xf32>, tensor<6x32x16xf32>) outs(%oz : tensor<6x16x16xf32>) -> tensor<6x16x16xf32>
  return %o : tensor<6x16x16xf32>
}

// -----

// P on the wrong side of the second matmul: V' · P (shapes agree since
// S = D = 32).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @pv_wrong_operand
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @pv_wrong_operand(%q: tensor<6x32x32xf32>, %k: tensor<6x32x32xf32>, %v: tensor<6x32x32xf32>) -> tensor<6x32x32xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x32xf32>, tensor<6x32x32xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o = linalg.batch_matmul ins(%v, %p : tensor<6x32x32xf32>, tensor<6x32x32xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  return %o : tensor<6x32x32xf32>
}

// -----

// P·V accumulates into a non-zero tensor (O = C + P V, not attention).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @pv_accumulates
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @pv_accumulates(%q: tensor<6x32x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>, %c: tensor<6x32x16xf32>) -> tensor<6x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%s : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xf32>, tensor<6x32x16xf32>) outs(%c : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  return %o : tensor<6x32x16xf32>
}

// -----

// A negative scale (after a -inf mask it would unmask).
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @negative_scale
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @negative_scale(%q: tensor<6x32x16xf32>, %k: tensor<6x32x16xf32>, %v: tensor<6x32x16xf32>) -> tensor<6x32x16xf32> {
  %zero = arith.constant 0.0 : f32
  %c = arith.constant -0.5 : f32
  %s0 = tensor.empty() : tensor<6x32x32xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x32x16xf32>, tensor<6x32x16xf32>) outs(%sz : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.mulf %a, %c : f32
    linalg.yield %r : f32
  } -> tensor<6x32x32xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x32x32xf32>) outs(%s0 : tensor<6x32x32xf32>) -> tensor<6x32x32xf32>
  %o0 = tensor.empty() : tensor<6x32x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x32x32xf32>, tensor<6x32x16xf32>) outs(%oz : tensor<6x32x16xf32>) -> tensor<6x32x16xf32>
  return %o : tensor<6x32x16xf32>
}

// -----

// Causal with dynamic Sq and Sk that nothing shows equal: tril(ones) is
// top-left aligned, flash's causal bottom-right, so no raise.
#bq = affine_map<(b, m, n, k) -> (b, m, k)>
#bk = affine_map<(b, m, n, k) -> (b, n, k)>
#bs = affine_map<(b, m, n, k) -> (b, m, n)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @causal_dynamic_unproven
// CHECK-NOT:   flash.attention
// CHECK:       linalg.softmax
func.func @causal_dynamic_unproven(%q: tensor<6x?x16xf32>, %k: tensor<6x?x16xf32>, %v: tensor<6x?x16xf32>, %sq: index, %sk: index) -> tensor<6x?x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %s0 = tensor.empty(%sq, %sk) : tensor<6x?x?xf32>
  %sz = linalg.fill ins(%zero : f32) outs(%s0 : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %s = linalg.batch_matmul indexing_maps = [#bq, #bk, #bs] ins(%q, %k : tensor<6x?x16xf32>, tensor<6x?x16xf32>) outs(%sz : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %x = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s : tensor<6x?x?xf32>) outs(%s0 : tensor<6x?x?xf32>) {
  ^bb0(%a: f32, %o: f32):
    %i = linalg.index 1 : index
    %j = linalg.index 2 : index
    %vis = arith.cmpi ule, %j, %i : index
    %r = arith.select %vis, %a, %ninf : f32
    linalg.yield %r : f32
  } -> tensor<6x?x?xf32>
  %p = linalg.softmax dimension(2) ins(%x : tensor<6x?x?xf32>) outs(%s0 : tensor<6x?x?xf32>) -> tensor<6x?x?xf32>
  %o0 = tensor.empty(%sq) : tensor<6x?x16xf32>
  %oz = linalg.fill ins(%zero : f32) outs(%o0 : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  %o = linalg.batch_matmul ins(%p, %v : tensor<6x?x?xf32>, tensor<6x?x16xf32>) outs(%oz : tensor<6x?x16xf32>) -> tensor<6x?x16xf32>
  return %o : tensor<6x?x16xf32>
}
