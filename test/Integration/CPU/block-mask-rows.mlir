// flash.attention's block_mask hint (FlexAttention's BlockMask as key
// intervals) on the CPU path, by the rows a hint entry covers: flash-run
// derives the tightest sound hint of each case from the mask_mod
// (--block-mask=tight, CpuMods.h) and checks the kernel against the double
// reference, which evaluates the mask_mod alone and never sees the hint. A
// document mask (independent sorted ids for queries and keys, so some rows
// and some whole programs see no key: no iteration, O = 0, LSE = -inf),
// both layouts, GQA and MQA (Hq:Hkv 4:2, 8:1, 2:1), ragged Sq / Sk, hint
// rows QB smaller than, equal to and larger than BlockM (4 and 1 below it,
// 16, 40) and broadcast (a static 1) or per-head hints.
// --block-mask=unsound-full (every key claimed visible) must fail: the
// kernel really skips the mask_mod where the hint says so. block-mask.mlir
// has the masks a hint is combined with.

// flash-run compiles the whole module it is given: each function is run
// from a module of its own (every other symbol made private and dropped),
// which makes each run's compilation one function's.
// DEFINE: %{shapes} = 2,4,2,1,1;2,4,2,1,77;2,4,2,17,17;2,4,2,37,100;1,4,2,100,37;3,4,2,64,64;1,8,1,33,129;2,4,2,200,300;1,2,1,150,161
// DEFINE: %{docs} = --capture=docs:3@BxSq --capture=docs:3@BxSk
// DEFINE: %{flash_run} = flash-run --seed=7 --tol=1e-5 --shapes='%{shapes}'
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm --symbol-dce -o %t.docmask_bm.mlir
// RUN: %{flash_run} %t.docmask_bm.mlir --func=docmask_bm --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.docmask_bm.mlir --func=docmask_bm --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm_qb4 --symbol-dce -o %t.docmask_bm_qb4.mlir
// RUN: %{flash_run} %t.docmask_bm_qb4.mlir --func=docmask_bm_qb4 --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.docmask_bm_qb4.mlir --func=docmask_bm_qb4 --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm_qb40 --symbol-dce -o %t.docmask_bm_qb40.mlir
// RUN: %{flash_run} %t.docmask_bm_qb40.mlir --func=docmask_bm_qb40 --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: %{flash_run} %t.docmask_bm_qb40.mlir --func=docmask_bm_qb40 --layout=bshd %{docs} | FileCheck %s --check-prefix=ALL9
// RUN: flash-opt %s --symbol-privatize=exclude=docmask_bm_qb1 --symbol-dce -o %t.docmask_bm_qb1.mlir
// RUN: %{flash_run} %t.docmask_bm_qb1.mlir --func=docmask_bm_qb1 --layout=bhsd %{docs} | FileCheck %s --check-prefix=ALL9

// RUN: not flash-run %t.docmask_bm.mlir --seed=7 --func=docmask_bm --layout=bhsd --tol=1e-5 --block-mask=unsound-full \
// RUN:   --shapes='3,4,2,64,64;2,4,2,200,300' %{docs} | FileCheck %s --check-prefix=UNSOUND
// UNSOUND: FAIL
// UNSOUND: FAIL
// UNSOUND: flash-run: 0/2 cases passed

// ALL9-NOT: FAIL
// ALL9: flash-run: 9/9 cases passed

func.func @docmask_bm(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {block_mask_rows = 16 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_bm_qb4(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x?x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x?x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {block_mask_rows = 4 : i64, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_bm_qb40(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {block_mask_rows = 40 : i64, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

func.func @docmask_bm_qb1(%q: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %hint: memref<?x1x?x4xi32>, %dq: memref<?x?xi32>, %dk: memref<?x?xi32>, %o: memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x?x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>) block_mask(%hint : memref<?x1x?x4xi32>) captures(%dq, %dk : memref<?x?xi32>, memref<?x?xi32>) outs(%o, %lse : memref<?x?x?x32xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x?xf32>)
      {block_mask_rows = 1 : i64, config = #flash.config<block_m = 8, block_n = 16, warps = 1, stages = 2>} mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
        %di = memref.load %qd[%b, %i] : memref<?x?xi32>
        %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}
