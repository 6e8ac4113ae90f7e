// RUN: flash-opt %s -split-input-file --flash-online-softmax -canonicalize | FileCheck %s

// flash-online-softmax expands one KV step into FA2's online softmax: two
// tile GEMMs, the mask (only in masked updates), the running max, the
// exponent with the scale folded into one multiply-add, the rescale of l and
// acc by exp2(m_old - m_new), and the epilogue O = acc / l, LSE = m + log l.

// CHECK-DAG: #[[QK_Q:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[QK_K:.+]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[QK_S:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @masked_update
// CHECK-SAME: (%[[Q:.+]]: tensor<64x32xbf16>, %[[K:.+]]: tensor<16x32xbf16>, %[[V:.+]]: tensor<16x32xbf16>, %[[ACC:.+]]: tensor<64x32xf32>, %[[M:.+]]: tensor<64xf32>, %[[L:.+]]: tensor<64xf32>
// scale * log2e = 0.125 * 1.4427 = 0.180337
// CHECK-DAG: %[[SL2E:.+]] = arith.constant 0.180336878 : f32
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// S = Q K^T, accumulated in f32.
// CHECK: %[[S:.+]] = linalg.matmul indexing_maps = [#[[QK_Q]], #[[QK_K]], #[[QK_S]]] ins(%[[Q]], %[[K]] : tensor<64x32xbf16>, tensor<16x32xbf16>) outs(%{{.+}} : tensor<64x16xf32>)
// The mask: causal with bottom-right alignment and the seq_k tail.
// CHECK: %[[SM:.+]] = linalg.generic {{.+}} outs(%[[S]] : tensor<64x16xf32>)
// CHECK: linalg.index 0
// CHECK: linalg.index 1
// CHECK: arith.cmpi slt
// CHECK: arith.cmpi sle
// CHECK: arith.select %{{.+}}, %{{.+}}, %[[NINF]] : f32
// m_new = max(m, rowmax S).
// CHECK: %[[MNEW:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[SM]] : tensor<64x16xf32>) outs(%[[M]] : tensor<64xf32>)
// CHECK: arith.maxnumf
// ms = m_new * scale * log2e (0 while the row is empty).
// CHECK: %[[MS:.+]] = linalg.generic {{.+}} ins(%[[MNEW]] : tensor<64xf32>)
// CHECK: arith.mulf %{{.+}}, %[[SL2E]] : f32
// P = exp2(fma(S, scale * log2e, -ms)).
// CHECK: %[[P:.+]] = linalg.generic {{.+}} ins(%[[MS]] : tensor<64xf32>) outs(%[[SM]] : tensor<64x16xf32>)
// CHECK: %[[NEG:.+]] = arith.negf
// CHECK: %[[X:.+]] = math.fma %{{.+}}, %[[SL2E]], %[[NEG]] : f32
// CHECK: math.exp2 %[[X]] : f32
// alpha = exp2(fma(m_old, scale * log2e, -ms)).
// CHECK: %[[ALPHA:.+]] = linalg.generic {{.+}} ins(%[[M]], %[[MS]] : tensor<64xf32>, tensor<64xf32>)
// CHECK: math.fma
// CHECK: math.exp2
// l = l * alpha + rowsum P.
// CHECK: %[[LS:.+]] = linalg.generic {{.+}} ins(%[[ALPHA]] : tensor<64xf32>) outs(%[[L]] : tensor<64xf32>)
// CHECK: %[[LNEW:.+]] = linalg.generic {{.+}} iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<64x16xf32>) outs(%[[LS]] : tensor<64xf32>)
// CHECK: arith.addf
// acc = acc * alpha; P converted to bf16; acc += P V.
// CHECK: %[[ACCS:.+]] = linalg.generic {{.+}} ins(%[[ALPHA]] : tensor<64xf32>) outs(%[[ACC]] : tensor<64x32xf32>)
// CHECK: %[[PB:.+]] = linalg.generic {{.+}} ins(%[[P]] : tensor<64x16xf32>) outs(%{{.+}} : tensor<64x16xbf16>)
// CHECK: arith.truncf %{{.+}} : f32 to bf16
// CHECK: %[[ACCN:.+]] = linalg.matmul ins(%[[PB]], %[[V]] : tensor<64x16xbf16>, tensor<16x32xbf16>) outs(%[[ACCS]] : tensor<64x32xf32>)
// CHECK: return %[[ACCN]], %[[MNEW]], %[[LNEW]]
func.func @masked_update(%q: tensor<64x32xbf16>, %k: tensor<16x32xbf16>, %v: tensor<16x32xbf16>,
                         %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>,
                         %row: index, %col: index, %sq: index, %sk: index)
    -> (tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a, %mm, %ll = flash.tile_update %q, %k, %v, %acc, %m, %l at(%row, %col) bounds(%sq, %sk)
      {causal, masked, scale = 0.125 : f32}
      : tensor<64x32xbf16>, tensor<16x32xbf16>, tensor<16x32xbf16>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return %a, %mm, %ll : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// The main loop's update: no mask at all, f32 (no P conversion).
// CHECK-LABEL: func.func @unmasked_update
// CHECK: linalg.matmul
// CHECK-NOT: linalg.index
// CHECK-NOT: arith.cmpi
// CHECK-NOT: arith.truncf
// CHECK: math.exp2
// CHECK: linalg.matmul
// CHECK: return
func.func @unmasked_update(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>,
                           %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>,
                           %row: index, %col: index, %sq: index, %sk: index)
    -> (tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a, %mm, %ll = flash.tile_update %q, %k, %v, %acc, %m, %l at(%row, %col) bounds(%sq, %sk)
      {causal, scale = 0.125 : f32}
      : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return %a, %mm, %ll : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// Softcap: S = cap * tanh(S * scale / cap) and the exponent's factor is
// log2e alone (the scale is inside the cap). Sliding window bounds.
// CHECK-LABEL: func.func @softcap_window
// CHECK-DAG: %[[L2E:.+]] = arith.constant 1.44269502 : f32
// CHECK-DAG: %[[SC:.+]] = arith.constant 2.500000e-03 : f32
// CHECK-DAG: %[[CAP:.+]] = arith.constant 5.000000e+01 : f32
// CHECK: linalg.matmul
// CHECK: arith.mulf %{{.+}}, %[[SC]]
// CHECK: math.tanh
// CHECK: arith.mulf %{{.+}}, %[[CAP]]
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi sge
// CHECK: math.fma %{{.+}}, %[[L2E]]
func.func @softcap_window(%q: tensor<64x32xf32>, %k: tensor<16x32xf32>, %v: tensor<16x32xf32>,
                          %acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>,
                          %row: index, %col: index, %sq: index, %sk: index)
    -> (tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>) {
  %a, %mm, %ll = flash.tile_update %q, %k, %v, %acc, %m, %l at(%row, %col) bounds(%sq, %sk)
      {masked, scale = 0.125 : f32, softcap = 50.0 : f32, window = array<i64: 8, 4>}
      : tensor<64x32xf32>, tensor<16x32xf32>, tensor<16x32xf32>, tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
  return %a, %mm, %ll : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32>
}

// -----

// The epilogue: O = acc * (l == 0 ? 0 : 1 / l), LSE = l == 0 ? -inf : m * scale + log l.
// CHECK-LABEL: func.func @finalize
// CHECK-DAG: %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: %[[O:.+]] = linalg.generic
// CHECK: %[[EMPTY:.+]] = arith.cmpf oeq, %{{.+}}, %[[ZERO]] : f32
// CHECK: %[[INV:.+]] = arith.divf
// CHECK: arith.select %[[EMPTY]], %[[ZERO]], %[[INV]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
// CHECK: %[[LSE:.+]] = linalg.generic
// CHECK: arith.cmpf oeq
// CHECK: arith.mulf %{{.+}}, %{{.+}} : f32
// CHECK: math.log
// CHECK: arith.select %{{.+}}, %[[NINF]], %{{.+}} : f32
// CHECK: return %[[O]], %[[LSE]]
func.func @finalize(%acc: tensor<64x32xf32>, %m: tensor<64xf32>, %l: tensor<64xf32>)
    -> (tensor<64x32xf16>, tensor<64xf32>) {
  %o, %lse = flash.tile_finalize %acc, %m, %l {scale = 0.125 : f32}
      : tensor<64x32xf32>, tensor<64xf32>, tensor<64xf32> -> tensor<64x32xf16>, tensor<64xf32>
  return %o, %lse : tensor<64x32xf16>, tensor<64xf32>
}
