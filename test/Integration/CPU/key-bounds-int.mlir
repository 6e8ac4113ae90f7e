// flash-tile's key bounds (MaskKeys.h) on mask_mods written in i32 / i64 /
// i8 arithmetic, as an embedder lowers FlexAttention's int32 q_idx / kv_idx:
// the casts of i and j, extsi of a captured i32, and the test's own type.
// flash-run checks each against the double reference, which evaluates the
// mask_mod at every (i, j) in the region's own types. Programs of 32 rows
// over key blocks of 16 (16 x 16 for the split). The Flex window in i32 and
// prefix-LM in i64 are read as their index forms are; three i8 masks wrap
// where the keys would be wrong unless a check catches it: trunc_row_mod
// (trunci of i + 100 wraps from row 28 on: the first program's rows 0-27
// see keys, 28-31 none), add_i8_mod (the same wrap in an i8 addi), and
// narrow_key_mod (j cast to i8 wraps from key 128 on, so those keys are
// visible to every row: the check of the key's cast at the last key must
// fall back). And the reference's own integer widths: product_i8_mod
// (i * j in i8 >= 0, no key bound, applied element-wise) and
// extui_i8_mod (j's i8 bits read unsigned), which pass only if the double
// reference wraps each integer op at its type's width, as the kernels do.

// RUN: flash-run %s --seed=11 --func=flex_window_i32 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=flex_window_i32 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=prefix_lm_i64 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=prefix_lm_i64 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=prefix_lm_i64_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,40@B \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=trunc_row_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,128;1,2,1,150,120' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=add_i8_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,128;1,2,1,150,120' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=narrow_key_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,120,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=narrow_key_mod --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,120,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=product_i8_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=extui_i8_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8

// ALL8-NOT: FAIL
// ALL8: flash-run: 8/8 cases passed

!T = memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

func.func @flex_window_i32(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c8 = arith.constant 8 : i32
        %ii = arith.index_cast %i : index to i32
        %jj = arith.index_cast %j : index to i32
        %d = arith.subi %ii, %jj : i32
        %near = arith.cmpi sle, %d, %c8 : i32
        %past = arith.cmpi sge, %ii, %jj : i32
        %vis = arith.andi %near, %past : i1
        flash.yield %vis : i1
      }
  return
}

func.func @prefix_lm_i64(%q: !T, %k: !T, %v: !T, %prefix: memref<?xi32>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%prefix : memref<?xi32>) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %pf: memref<?xi32>):
        %p = memref.load %pf[%b] : memref<?xi32>
        %p64 = arith.extsi %p : i32 to i64
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %in = arith.cmpi slt, %jj, %p64 : i64
        %le = arith.cmpi sle, %jj, %ii : i64
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return
}

func.func @prefix_lm_i64_split(%q: !T, %k: !T, %v: !T, %prefix: memref<?xi32>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%prefix : memref<?xi32>) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %pf: memref<?xi32>):
        %p = memref.load %pf[%b] : memref<?xi32>
        %p64 = arith.extsi %p : i32 to i64
        %ii = arith.index_cast %i : index to i64
        %jj = arith.index_cast %j : index to i64
        %in = arith.cmpi slt, %jj, %p64 : i64
        %le = arith.cmpi sle, %jj, %ii : i64
        %vis = arith.ori %in, %le : i1
        flash.yield %vis : i1
      }
  return
}

func.func @trunc_row_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c100 = arith.constant 100 : i64
        %ii = arith.index_cast %i : index to i64
        %t = arith.addi %ii, %c100 : i64
        %t8 = arith.trunci %t : i64 to i8
        %j8 = arith.index_cast %j : index to i8
        %le = arith.cmpi sle, %j8, %t8 : i8
        flash.yield %le : i1
      }
  return
}

func.func @add_i8_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c100 = arith.constant 100 : i8
        %i8 = arith.index_cast %i : index to i8
        %t8 = arith.addi %i8, %c100 : i8
        %j8 = arith.index_cast %j : index to i8
        %le = arith.cmpi sle, %j8, %t8 : i8
        flash.yield %le : i1
      }
  return
}

func.func @narrow_key_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %i8 = arith.index_cast %i : index to i8
        %j8 = arith.index_cast %j : index to i8
        %le = arith.cmpi sle, %j8, %i8 : i8
        flash.yield %le : i1
      }
  return
}

func.func @product_i8_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c0 = arith.constant 0 : i8
        %i8 = arith.index_cast %i : index to i8
        %j8 = arith.index_cast %j : index to i8
        %p = arith.muli %i8, %j8 : i8
        %vis = arith.cmpi sge, %p, %c0 : i8
        flash.yield %vis : i1
      }
  return
}

func.func @extui_i8_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c3 = arith.constant 3 : i64
        %i64 = arith.index_cast %i : index to i64
        %j8 = arith.index_cast %j : index to i8
        %u = arith.extui %j8 : i8 to i64
        %t = arith.muli %i64, %c3 : i64
        %vis = arith.cmpi sle, %u, %t : i64
        flash.yield %vis : i1
      }
  return
}
