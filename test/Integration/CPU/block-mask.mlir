// flash.attention's block_mask hint (FlexAttention's BlockMask as key
// intervals) on the CPU path, with the masks it is combined with: flash-run
// derives the tightest sound hint of each case from the mask_mod
// (--block-mask=tight, CpuMods.h) and checks the kernel against the double
// reference, which evaluates the mask_mod alone and never sees the hint.
// Document masks (independent sorted ids for queries and keys, so some rows
// and some whole programs see no key: no iteration, O = 0, LSE = -inf)
// under causal, split-KV (carried through flash-split-kv) and a window with
// kv_lens, and a prefix-LM mask; both layouts, GQA and MQA (Hq:Hkv 4:2, 8:1,
// 2:1), ragged Sq / Sk. --block-mask=loose (sound, nothing full) masks
// every block. block-mask-rows.mlir has the rows a hint entry covers and
// the unsound hint.

// flash-run compiles the whole module it is given: each function is run
// from a module of its own (every other symbol made private and dropped),
// which makes each run's compilation one function's.
// DEFINE: %{shapes} = 2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;2,4,2,200,300;1,2,1,150,161
// DEFINE: %{docs} = --capture=docs:3@BxSq --capture=docs:3@BxSk
// DEFINE: %{flash_run} = flash-run --seed=7 --tol=1e-5 --shapes='%{shapes}'
// RUN: flash-opt %s --symbol-privatize=exclude=causal_docmask_bm --symbol-dce -o %t.causal_docmask_bm.mlir
// RUN: %{flash_run} %t.causal_docmask_bm.mlir --func=causal_docmask_bm --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.causal_docmask_bm.mlir --func=causal_docmask_bm --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.causal_docmask_bm.mlir --func=causal_docmask_bm --layout=bhsd --block-mask=loose %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=prefix_lm_bm --symbol-dce -o %t.prefix_lm_bm.mlir
// RUN: %{flash_run} %t.prefix_lm_bm.mlir --func=prefix_lm_bm --layout=bhsd --capture=randint:0,40@B | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.prefix_lm_bm.mlir --func=prefix_lm_bm --layout=bshd --capture=randint:0,40@B | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm_split --symbol-dce -o %t.docmask_bm_split.mlir
// RUN: %{flash_run} %t.docmask_bm_split.mlir --func=docmask_bm_split --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.docmask_bm_split.mlir --func=docmask_bm_split --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm_window_kv_lens --symbol-dce -o %t.docmask_bm_window_kv_lens.mlir
// RUN: %{flash_run} %t.docmask_bm_window_kv_lens.mlir --func=docmask_bm_window_kv_lens --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.docmask_bm_window_kv_lens.mlir --func=docmask_bm_window_kv_lens --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9

// ALL9-NOT: FAIL
// ALL9: flash-run: 9/9 cases passed

func.func @causal_docmask_bm(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, block_mask_rows = 16 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @prefix_lm_bm(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %prefix: memref<?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%prefix : memref<?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {block_mask_rows = 16 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
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

func.func @docmask_bm_split(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {causal, block_mask_rows = 16 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_bm_window_kv_lens(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lens: memref<?xi32>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) kv_lens(%lens : memref<?xi32>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {window = array<i64: 40, 3>, block_mask_rows = 8 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
