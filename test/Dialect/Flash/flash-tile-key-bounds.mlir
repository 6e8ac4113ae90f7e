// RUN: flash-opt %s --flash-tile --canonicalize --cse | FileCheck %s
// RUN: sed -e "s/stages = 2>/stages = 2, key_bounds = false>/" %s | flash-opt --flash-tile | FileCheck %s --check-prefix=OFF
// RUN: flash-opt %s --flash-tile --canonicalize --cse --flash-online-softmax | FileCheck %s --check-prefix=SOFTMAX

// flash-tile's key bounds (MaskKeys.h): a mask_mod that is and/or of tests
// of j against bounds monotone in the row i is tiled as if it came with the
// block_mask hint those tests prove. Per program (BlockM = 64, BlockN = 32)
// each bound is evaluated at the first row (row0) and the last valid row
// (min(row0 + 63, Sq - 1)); an upper bound's visible keys use its value at
// the last row and its full keys the first, a lower bound the other way
// round, and a decreasing bound swaps them. The keys then narrow the ranges
// as a hint's do (applyBlockMask) and the loops are the hint's runs: only
// the main loop's updates have no mask_mod. A row-dependent add / sub is
// checked for a wrap at both rows; on one the keys claim nothing (every
// block visited, none full). A mask_mod that bounds no key (the document
// mask) and key-bounds=false keep the unhinted loops. A test of j + x, j - x
// or x - j is read as one of j (FlexAttention's `q_idx - kv_idx <= W`), in
// index or in any integer type (casts range-checked where they may narrow).

!T = memref<?x?x?x32xf32>

// Prefix-LM as written (flash-simplify-mods not run): j < p[b] or j <= i.
// CHECK-LABEL: func.func @prefix_lm
// CHECK-SAME: %[[PF:[^:]+]]: memref<?xi32>
// CHECK: flash.grid (%{{.+}}, %{{.+}}, %[[B:.+]]) in
// CHECK-NOT: masked_iterations
// CHECK: %[[ROW0:.+]] = arith.muli
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %{{.+}} : index
// CHECK: %[[LASTROW:.+]] = arith.minsi %[[END]], %{{.+}} : index
// The capture is read once per program, at the region's own index.
// CHECK: %[[P:.+]] = memref.load %[[PF]][%[[B]]] : memref<?xi32>
// CHECK: %[[PI:.+]] = arith.index_cast %[[P]] : i32 to index
// j < p: [0, max(min(p, Sk), 0)), visible and full alike.
// CHECK: %[[PMIN:.+]] = arith.minsi %[[PI]], %[[SK:.+]] : index
// CHECK: %[[PHI:.+]] = arith.maxsi %[[PMIN]], %{{.+}} : index
// j <= i: visible up to the last row's i, full up to the first row's.
// CHECK: %[[SKM1:.+]] = arith.subi %[[SK]], %{{.+}} : index
// CHECK: %[[VL:.+]] = arith.minsi %[[LASTROW]], %[[SKM1]] : index
// CHECK: %[[VL1:.+]] = arith.maxsi %[[VL]], %{{.+}} : index
// CHECK: %[[VHI2:.+]] = arith.addi %[[VL1]], %{{.+}} : index
// CHECK: %[[FL:.+]] = arith.minsi %[[ROW0]], %[[SKM1]] : index
// CHECK: %[[FL1:.+]] = arith.maxsi %[[FL]], %{{.+}} : index
// CHECK: %[[FHI2:.+]] = arith.addi %[[FL1]], %{{.+}} : index
// or: the visible hull, the full union (the two prefixes meet).
// CHECK: %[[VHI:.+]] = arith.maxsi %[[PHI]], %[[VHI2]] : index
// CHECK: %[[UNION:.+]] = arith.maxsi %[[PHI]], %[[FHI2]] : index
// CHECK: %[[FHI0:.+]] = arith.select %{{.+}}, %[[UNION]], %[[PHI]] : index
// CHECK: %[[FHI:.+]] = arith.select %{{.+}}, %[[FHI2]], %[[FHI0]] : index
// CHECK: arith.ceildivsi %[[VHI]], %{{.+}} : index
// CHECK: arith.floordivsi %[[FHI]], %{{.+}} : index
// CHECK: flash.kv_loop
// CHECK: flash.tile_update {{.*}} mask_mod {
// CHECK: flash.kv_loop
// CHECK: flash.tile_update {{.*}} mask_mod {
// CHECK: flash.kv_loop
// CHECK: flash.tile_update {{.*}}, tensor<64xf32>{{$}}
// CHECK-NEXT: flash.yield
// CHECK: flash.kv_loop
// CHECK: flash.tile_update {{.*}} mask_mod {
// OFF-LABEL: func.func @prefix_lm
// OFF-NOT: flash.kv_loop mask_mod
// OFF: flash.kv_loop main
// OFF-NOT: flash.kv_loop mask_mod
// OFF-LABEL: func.func @window_mod
// After flash-online-softmax the main loop has no select of the mask.
// SOFTMAX-LABEL: func.func @prefix_lm
// SOFTMAX: flash.kv_loop mask_mod
// SOFTMAX: flash.kv_loop main
// SOFTMAX-NOT: arith.cmpi
// SOFTMAX: flash.kv_loop mask_mod
func.func @prefix_lm(%q: !T, %k: !T, %v: !T, %prefix: memref<?xi32>, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%prefix : memref<?xi32>) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %pf: memref<?xi32>):
        %p = memref.load %pf[%b] : memref<?xi32>
        %pi = arith.index_cast %p : i32 to index
        %in = arith.cmpi slt, %j, %pi : index
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return
}

// A sliding window as a mask_mod, i - 8 < j <= i: i - 8 is evaluated at
// both rows and checked for a wrap there (the sign rule: x - y wraps iff
// (x ^ y) & (x ^ r) < 0); the keys fall back to [0, Sk) visible, none full.
// CHECK-LABEL: func.func @window_mod
// CHECK: %[[ROW0:.+]] = arith.muli
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.minsi %[[END]], %{{.+}} : index
// CHECK: %[[LO0:.+]] = arith.subi %[[ROW0]], %[[C8:.+]] : index
// CHECK: %[[LO1:.+]] = arith.subi %[[LAST]], %[[C8]] : index
// CHECK-DAG: arith.xori %[[ROW0]], %[[C8]] : index
// CHECK-DAG: arith.xori %[[ROW0]], %[[LO0]] : index
// CHECK: %[[OK0:.+]] = arith.cmpi sge, %{{.+}}, %{{.+}} : index
// CHECK-DAG: arith.xori %[[LAST]], %[[C8]] : index
// CHECK-DAG: arith.xori %[[LAST]], %[[LO1]] : index
// CHECK: %[[OK1:.+]] = arith.cmpi sge, %{{.+}}, %{{.+}} : index
// CHECK: %[[OK:.+]] = arith.andi %[[OK0]], %[[OK1]] : i1
// j > i - 8: visible from the first row's bound, full from the last's.
// CHECK: arith.minsi %[[LO0]], %[[SK:.+]] : index
// CHECK: arith.minsi %[[LO1]], %[[SK]] : index
// and: the intervals intersect (visible from the greater low to the lesser
// high; a hull here would visit every block).
// CHECK: %[[VLO:.+]] = arith.maxsi %{{.+}}, %c0 : index
// CHECK: %[[VHI:.+]] = arith.minsi %{{.+}}, %[[SK]] : index
// CHECK: arith.select %[[OK]], %[[VLO]], %{{.+}} : index
// CHECK: arith.select %[[OK]], %[[VHI]], %[[SK]] : index
// CHECK: arith.select %[[OK]], %{{.+}}, %{{.+}} : index
// CHECK: arith.select %[[OK]], %{{.+}}, %{{.+}} : index
// CHECK: flash.kv_loop masked_right
// CHECK: flash.kv_loop mask_mod
// CHECK: flash.kv_loop main
func.func @window_mod(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c8 = arith.constant 8 : index
        %lo = arith.subi %i, %c8 : index
        %le = arith.cmpi sle, %j, %i : index
        %gt = arith.cmpi sgt, %j, %lo : index
        %vis = arith.andi %le, %gt : i1
        flash.yield %vis : i1
      }
  return
}

// A decreasing bound, j >= 40 - i: its least value is at the last row, so
// the visible keys start at max(40 - last, 0) and the full ones at
// max(40 - row0, 0).
// CHECK-LABEL: func.func @anti
// CHECK: %[[ROW0:.+]] = arith.muli
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.minsi %[[END]], %{{.+}} : index
// CHECK: %[[T0:.+]] = arith.subi %[[C40:.+]], %[[ROW0]] : index
// CHECK: %[[T1:.+]] = arith.subi %[[C40]], %[[LAST]] : index
// CHECK: %[[V:.+]] = arith.maxsi %[[T1]], %[[ZERO:.+]] : index
// CHECK: arith.minsi %[[V]], %{{.+}} : index
// CHECK: %[[F:.+]] = arith.maxsi %[[T0]], %[[ZERO]] : index
// CHECK: arith.minsi %[[F]], %{{.+}} : index
// CHECK: flash.kv_loop main
func.func @anti(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c40 = arith.constant 40 : index
        %t = arith.subi %c40, %i : index
        %ge = arith.cmpi sge, %j, %t : index
        flash.yield %ge : i1
      }
  return
}

// FlexAttention's form, a test of a key expression: i - j <= 8 is
// j >= i - 8, valid where neither i - j at the last key (i - (Sk - 1)) nor
// i - 8 wraps, both checked at both rows; the visible keys start at the
// first row's i - 8, the full ones at the last row's.
// CHECK-LABEL: func.func @flex_window
// CHECK: %[[ROW0:.+]] = arith.muli
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.minsi %[[END]], %{{.+}} : index
// CHECK: %[[LASTKEY:.+]] = arith.subi %[[SK:.+]], %{{.+}} : index
// CHECK: arith.subi %[[ROW0]], %[[LASTKEY]] : index
// CHECK: %[[B0:.+]] = arith.subi %[[ROW0]], %[[C8:.+]] : index
// CHECK: arith.subi %[[LAST]], %[[LASTKEY]] : index
// CHECK: %[[B1:.+]] = arith.subi %[[LAST]], %[[C8]] : index
// CHECK: %[[OK:.+]] = arith.andi %{{.+}}, %{{.+}} : i1
// CHECK: arith.maxsi %[[B0]], %{{.+}} : index
// CHECK: arith.maxsi %[[B1]], %{{.+}} : index
// CHECK: arith.select %[[OK]]
// CHECK: flash.kv_loop main
func.func @flex_window(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c8 = arith.constant 8 : index
        %d = arith.subi %i, %j : index
        %near = arith.cmpi sle, %d, %c8 : index
        flash.yield %near : i1
      }
  return
}

// The same window in i32, as an embedder writes FlexAttention's int32
// indices: each cast that may narrow is range-checked (index_cast to i32 at
// both rows and at the last key, compared in i64: a cast back would fold
// away), k = i - j is checked for an i32 wrap at the last key, and the
// bound is then the index form's.
// CHECK-LABEL: func.func @flex_window_i32
// CHECK: %[[ROW0:.+]] = arith.muli
// CHECK: %[[END:.+]] = arith.addi %[[ROW0]], %{{.+}} : index
// CHECK: %[[LAST:.+]] = arith.minsi %[[END]], %{{.+}} : index
// CHECK: %[[R0:.+]] = arith.index_cast %[[ROW0]] : index to i32
// CHECK: %[[R0W:.+]] = arith.index_cast %[[ROW0]] : index to i64
// CHECK: arith.cmpi sle, %[[R0W]], %[[MAX:.+]] : i64
// CHECK: arith.cmpi sge, %[[R0W]], %[[MIN:.+]] : i64
// CHECK: %[[LW:.+]] = arith.index_cast %[[LAST]] : index to i64
// CHECK: arith.cmpi sle, %[[LW]], %[[MAX]] : i64
// CHECK: %[[LASTKEY:.+]] = arith.subi %[[SK:.+]], %{{.+}} : index
// CHECK: %[[K32:.+]] = arith.index_cast %[[LASTKEY]] : index to i32
// CHECK: %[[KW:.+]] = arith.index_cast %[[LASTKEY]] : index to i64
// CHECK: arith.cmpi sle, %[[KW]], %[[MAX]] : i64
// CHECK: arith.subi %[[R0]], %[[K32]] : i32
// CHECK: arith.subi %[[ROW0]], %[[C8:.+]] : index
// CHECK: flash.kv_loop main
func.func @flex_window_i32(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c8 = arith.constant 8 : i32
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %d = arith.subi %ii, %jj : i32
        %near = arith.cmpi sle, %d, %c8 : i32
        flash.yield %near : i1
      }
  return
}

// A key cast to i8 holds keys up to 127 only: the keys are valid where
// Sk - 1 fits (checked in i64), else they claim nothing.
// CHECK-LABEL: func.func @key_i8
// The rows' trunci, at the first and the last row:
// CHECK: arith.cmpi sle, %{{.+}}, %c127_i64 : i64
// CHECK: arith.cmpi sle, %{{.+}}, %c127_i64 : i64
// The key's cast at the last key:
// CHECK: %[[KW:.+]] = arith.index_cast %{{.+}} : index to i64
// CHECK-NEXT: arith.cmpi sle, %[[KW]], %c127_i64 : i64
// CHECK-NEXT: arith.cmpi sge, %[[KW]], %c-128_i64 : i64
// CHECK: flash.kv_loop main
func.func @key_i8(%q: !T, %k: !T, %v: !T, %o: !T) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o : !T)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %i64 = arith.index_cast %i : index to i64
        %i8 = arith.trunci %i64 : i64 to i8
        %j8 = arith.index_cast %j : index to i8
        %le = arith.cmpi sle, %j8, %i8 : i8
        flash.yield %le : i1
      }
  return
}

// The document mask bounds no key (its test reads a load at j): the
// unhinted runs, each with the mask_mod, and the static counts are kept.
// CHECK-LABEL: func.func @docmask
// CHECK: masked_iterations = 8 : i64
// CHECK-NOT: flash.kv_loop mask_mod
// CHECK: flash.kv_loop main
// CHECK: flash.tile_update {{.*}} mask_mod {
// CHECK-NOT: flash.kv_loop mask_mod
// CHECK: return
!S = memref<2x2x100x32xf32>
func.func @docmask(%q: !S, %k: !S, %v: !S, %doc: memref<2x100xi32>, %o: !S) {
  flash.attention ins(%q, %k, %v : !S, !S, !S) captures(%doc : memref<2x100xi32>) outs(%o : !S)
      {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<2x100xi32>):
        %di = memref.load %d[%b, %i] : memref<2x100xi32>
        %dj = memref.load %d[%b, %j] : memref<2x100xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
