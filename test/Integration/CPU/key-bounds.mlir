// flash-tile's key bounds (MaskKeys.h) on the CPU path: mask_mods whose own
// key tests bound the keys are tiled as if they came with the block_mask
// hint those tests prove (blocks masked whole skipped, blocks kept whole run
// no mask_mod), and flash-run checks each against the double reference,
// which evaluates the mask_mod at every (i, j) and knows nothing of blocks.
// Programs of 32 rows over key blocks of 16 (16 x 16 for the split), so
// most programs hold skipped, full and partial blocks: causal, a sliding
// window and a decreasing bound written as mask_mods, i / 2, a per-head
// bound (an invariant h * 7 + 3) or'ed with j <= i + 3, a select on the
// batch, a wrap (i + (2^63 - 8) wraps for i >= 8, so rows from 8 on see no
// key: the per-program wrap check must fall back to masking every block),
// constant true (every block full) and false (no block), an opaque document
// test and'ed with causal (narrows the visible blocks, none full) or or'ed
// with a prefix (nothing narrowed), split-KV and kv_lens; and tests of a
// key expression (FlexAttention's sliding window `i - j <= 8 and i >= j`,
// `j + 5 >= i and j - 3 <= i`, and `j + (2^63 - 4) >= i`, which wraps for
// j >= 4 so that those keys are masked: the check of k at the last key
// must fall back).

// RUN: flash-run %s --seed=11 --func=causal_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=causal_mod --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=window_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=window_mod --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=window_mod_split --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=anti_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=half_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=head_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=select_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=wrap_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=wrap_mod --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=true_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=false_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=causal_docmask_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=causal_docmask_mod --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=prefix_or_doc --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' --capture=randint:0,40@B --capture=docs:3@BxSq --capture=docs:3@BxSk \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=causal_mod_kv_lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=flex_window --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=flex_window --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=shifted_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8
// RUN: flash-run %s --seed=11 --func=key_wrap_mod --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;1,2,1,150,161' \
// RUN:   | FileCheck %s --check-prefix=ALL8

// ALL8-NOT: FAIL
// ALL8: flash-run: 8/8 cases passed

!T = memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>
!L = memref<?x?x?xf32>

func.func @causal_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %le = arith.cmpi sle, %j, %i : index
        flash.yield %le : i1
      }
  return
}

func.func @window_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
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

func.func @window_mod_split(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>} mask_mod {
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

func.func @anti_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c40 = arith.constant 40 : index
        %t = arith.subi %c40, %i : index
        %ge = arith.cmpi sge, %j, %t : index
        flash.yield %ge : i1
      }
  return
}

func.func @half_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c2 = arith.constant 2 : index
        %t = arith.divsi %i, %c2 : index
        %le = arith.cmpi sge, %t, %j : index
        flash.yield %le : i1
      }
  return
}

func.func @head_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c7 = arith.constant 7 : index
        %c3 = arith.constant 3 : index
        %h7 = arith.muli %h, %c7 : index
        %t = arith.addi %h7, %c3 : index
        %lt = arith.cmpi slt, %j, %t : index
        %u = arith.addi %i, %c3 : index
        %le = arith.cmpi sle, %j, %u : index
        %vis = arith.ori %lt, %le : i1
        flash.yield %vis : i1
      }
  return
}

func.func @select_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c0 = arith.constant 0 : index
        %c5 = arith.constant 5 : index
        %first = arith.cmpi eq, %b, %c0 : index
        %sh = arith.subi %i, %c5 : index
        %t = arith.select %first, %i, %sh : index
        %m = arith.maxsi %t, %c5 : index
        %le = arith.cmpi sle, %j, %m : index
        flash.yield %le : i1
      }
  return
}

func.func @wrap_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %big = arith.constant 9223372036854775800 : index
        %t = arith.addi %i, %big : index
        %le = arith.cmpi sle, %j, %t : index
        flash.yield %le : i1
      }
  return
}

func.func @true_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %t = arith.constant true
        flash.yield %t : i1
      }
  return
}

func.func @false_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %f = arith.constant false
        flash.yield %f : i1
      }
  return
}

func.func @causal_docmask_mod(%q: !T, %k: !T, %v: !T, %c0: memref<?x?xi32>, %c1: memref<?x?xi32>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%c0, %c1 : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?x?xi32>, %r1: memref<?x?xi32>):
        %di = memref.load %r0[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r1[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        %le = arith.cmpi sle, %j, %i : index
        %vis = arith.andi %same, %le : i1
        flash.yield %vis : i1
      }
  return
}

func.func @prefix_or_doc(%q: !T, %k: !T, %v: !T, %c0: memref<?xi32>, %c1: memref<?x?xi32>, %c2: memref<?x?xi32>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%c0, %c1, %c2 : memref<?xi32>, memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %r0: memref<?xi32>, %r1: memref<?x?xi32>, %r2: memref<?x?xi32>):
        %p = memref.load %r0[%b] : memref<?xi32>
        %pi = arith.index_cast %p : i32 to index
        %in = arith.cmpi slt, %j, %pi : index
        %di = memref.load %r1[%b, %i] : memref<?x?xi32>
        %dj = memref.load %r2[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        %vis = arith.ori %in, %same : i1
        flash.yield %vis : i1
      }
  return
}

func.func @causal_mod_kv_lens(%q: !T, %k: !T, %v: !T, %lens: memref<?xi32>, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) kv_lens(%lens : memref<?xi32>) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %le = arith.cmpi sle, %j, %i : index
        flash.yield %le : i1
      }
  return
}

func.func @flex_window(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c8 = arith.constant 8 : index
        %d = arith.subi %i, %j : index
        %near = arith.cmpi sle, %d, %c8 : index
        %past = arith.cmpi sge, %i, %j : index
        %vis = arith.andi %near, %past : i1
        flash.yield %vis : i1
      }
  return
}

func.func @shifted_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %c5 = arith.constant 5 : index
        %c3 = arith.constant 3 : index
        %up = arith.addi %c5, %j : index
        %lo = arith.cmpi sge, %up, %i : index
        %dn = arith.subi %j, %c3 : index
        %hi = arith.cmpi sle, %dn, %i : index
        %vis = arith.andi %lo, %hi : i1
        flash.yield %vis : i1
      }
  return
}

func.func @key_wrap_mod(%q: !T, %k: !T, %v: !T, %o: !T, %lse: !L) {
  flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
      {config = #flash.config<block_m = 32, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %big = arith.constant 9223372036854775803 : index
        %k2 = arith.addi %j, %big : index
        %ge = arith.cmpi sge, %k2, %i : index
        flash.yield %ge : i1
      }
  return
}
