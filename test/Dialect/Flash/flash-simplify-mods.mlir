// RUN: flash-opt %s --flash-simplify-mods --split-input-file | FileCheck %s
// RUN: python3 %S/Inputs/join-bounds-model.py | FileCheck %s --check-prefix=MODEL

// flash-simplify-mods: two signed bounds on one value joined by or / and
// become one compare against the max / min of the bounds. Mixed strictness:
// `or` makes both inclusive (x < t -> x <= t - 1), `and` both strict
// (x <= t -> x < t + 1), keeping t where the +/- 1 wraps. The model
// (Inputs/join-bounds-model.py) checks that rule exhaustively at 6 bits.
// MODEL: mismatches 0

// Prefix-LM (j <= i or j < p): j <= max(i, p - 1).
// CHECK-LABEL: func.func @prefix_lm
// CHECK: mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index, %[[I:.+]]: index, %[[J:.+]]: index, %[[P:.+]]: memref<?xi32>):
// CHECK-DAG: %[[ONE:.+]] = arith.constant 1 : index
// CHECK: %[[PI:.+]] = arith.index_cast
// CHECK: %[[DEC:.+]] = arith.subi %[[PI]], %[[ONE]] : index
// CHECK: %[[WRAP:.+]] = arith.cmpi sgt, %[[DEC]], %[[PI]] : index
// CHECK: %[[T:.+]] = arith.select %[[WRAP]], %[[PI]], %[[DEC]] : index
// CHECK: %[[MAX:.+]] = arith.maxsi %[[I]], %[[T]] : index
// CHECK: %[[V:.+]] = arith.cmpi sle, %[[J]], %[[MAX]] : index
// CHECK-NOT: arith.ori
// CHECK: flash.yield %[[V]] : i1
func.func @prefix_lm(%q: memref<?x8x?x64xf16>, %k: memref<?x8x?x64xf16>,
                     %v: memref<?x8x?x64xf16>, %pre: memref<?xi32>,
                     %o: memref<?x8x?x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xf16>, memref<?x8x?x64xf16>,
                                   memref<?x8x?x64xf16>)
      captures(%pre : memref<?xi32>)
      outs(%o : memref<?x8x?x64xf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %c: memref<?xi32>):
        %p = memref.load %c[%b] : memref<?xi32>
        %prefix = arith.index_cast %p : i32 to index
        %past = arith.cmpi sle, %j, %i : index
        %inside = arith.cmpi slt, %j, %prefix : index
        %visible = arith.ori %past, %inside : i1
        flash.yield %visible : i1
      }
  return
}

// -----

// Both strict, x on the right of one (a > j is j < a), `and`: j < min(a, b),
// no +/- 1. A window written as a mask_mod, i - 4 <= j and j <= i (lower
// bounds and upper bounds do not join), is left alone, as are unsigned
// compares and bounds on different values.
// CHECK-LABEL: func.func @others
// CHECK: mask_mod {
// CHECK-NEXT: ^bb0(%{{.+}}: index, %{{.+}}: index, %[[I:.+]]: index, %[[J:.+]]: index):
// CHECK: %[[MIN:.+]] = arith.minsi %[[I]], %{{.+}} : index
// CHECK-NEXT: %[[A:.+]] = arith.cmpi slt, %[[J]], %[[MIN]] : index
// CHECK: %[[LO:.+]] = arith.cmpi sge, %[[J]], %{{.+}} : index
// CHECK-NEXT: %[[HI:.+]] = arith.cmpi sle, %[[J]], %[[I]] : index
// CHECK-NEXT: %[[W:.+]] = arith.andi %[[LO]], %[[HI]] : i1
// CHECK-NEXT: %[[U1:.+]] = arith.cmpi ult, %[[J]], %[[I]] : index
// CHECK-NEXT: %[[U2:.+]] = arith.cmpi ult, %[[J]], %{{.+}} : index
// CHECK-NEXT: %[[U:.+]] = arith.ori %[[U1]], %[[U2]] : i1
// CHECK-NEXT: %[[D1:.+]] = arith.cmpi slt, %[[J]], %{{.+}} : index
// CHECK-NEXT: %[[D2:.+]] = arith.cmpi slt, %[[I]], %{{.+}} : index
// CHECK-NEXT: %[[D:.+]] = arith.ori %[[D1]], %[[D2]] : i1
func.func @others(%q: memref<?x8x?x64xf16>, %k: memref<?x8x?x64xf16>,
                  %v: memref<?x8x?x64xf16>, %o: memref<?x8x?x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xf16>, memref<?x8x?x64xf16>,
                                   memref<?x8x?x64xf16>)
      outs(%o : memref<?x8x?x64xf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c4 = arith.constant 4 : index
        %c100 = arith.constant 100 : index
        %lt = arith.cmpi slt, %j, %i : index
        %gt = arith.cmpi sgt, %c100, %j : index
        %a = arith.andi %lt, %gt : i1
        %lo_bound = arith.subi %i, %c4 : index
        %lo = arith.cmpi sge, %j, %lo_bound : index
        %hi = arith.cmpi sle, %j, %i : index
        %w = arith.andi %lo, %hi : i1
        %u1 = arith.cmpi ult, %j, %i : index
        %u2 = arith.cmpi ult, %j, %c100 : index
        %u = arith.ori %u1, %u2 : i1
        %d1 = arith.cmpi slt, %j, %c100 : index
        %d2 = arith.cmpi slt, %i, %c4 : index
        %d = arith.ori %d1, %d2 : i1
        %x = arith.andi %a, %w : i1
        %y = arith.andi %u, %d : i1
        %r = arith.andi %x, %y : i1
        flash.yield %r : i1
      }
  return
}

// -----

// Lower bounds, mixed, `or` (j >= a or j > b): inclusive, j >= min(a, b + 1)
// with b + 1 kept at b where it wraps.
// CHECK-LABEL: func.func @lower_or
// CHECK: %[[INC:.+]] = arith.addi %[[B:.+]], %{{.+}} : index
// CHECK-NEXT: %[[WRAP:.+]] = arith.cmpi slt, %[[INC]], %[[B]] : index
// CHECK-NEXT: %[[T:.+]] = arith.select %[[WRAP]], %[[B]], %[[INC]] : index
// CHECK-NEXT: %[[MIN:.+]] = arith.minsi %{{.+}}, %[[T]] : index
// CHECK-NEXT: %[[V:.+]] = arith.cmpi sge, %{{.+}}, %[[MIN]] : index
// CHECK-NEXT: flash.yield %[[V]] : i1
func.func @lower_or(%q: memref<?x8x?x64xf16>, %k: memref<?x8x?x64xf16>,
                    %v: memref<?x8x?x64xf16>, %o: memref<?x8x?x64xf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xf16>, memref<?x8x?x64xf16>,
                                   memref<?x8x?x64xf16>)
      outs(%o : memref<?x8x?x64xf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c7 = arith.constant 7 : index
        %bound = arith.muli %i, %c7 : index
        %ge = arith.cmpi sge, %j, %i : index
        %gt = arith.cmpi sgt, %j, %bound : index
        %r = arith.ori %ge, %gt : i1
        flash.yield %r : i1
      }
  return
}
