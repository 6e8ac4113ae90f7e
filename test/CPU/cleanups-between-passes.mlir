// The flash passes meet at ops and verified attributes, so an embedder's
// cleanups between any two of them change no result: every function below
// is lowered with canonicalize and cse after each flash pass and checked
// against the double reference, on static shapes (which is where
// canonicalize folds most: unit batch and head dims, single-block and
// empty KV loops, Sq = 1) and on dynamic ones. (The ops of the tile level,
// flash.grid and flash.kv_loop, keep their structure; the scf.parallel and
// discardable attributes they replaced lost it here.)

// RUN: flash-run %s --func=unit_causal --tol=1e-5 --pipeline="%cleanups" \
// RUN:   --shapes='1,4,4,128,128' | FileCheck %s --check-prefix=ONE
// RUN: flash-run %s --func=one_block --tol=1e-5 --pipeline="%cleanups" \
// RUN:   --shapes='1,1,1,17,64' | FileCheck %s --check-prefix=ONE
// RUN: flash-run %s --func=decode_gqa --tol=1e-5 --pipeline="%cleanups" \
// RUN:   --shapes='3,8,2,1,300' | FileCheck %s --check-prefix=ONE
// RUN: flash-run %s --func=split --tol=1e-5 --pipeline="%cleanups" \
// RUN:   --shapes='2,4,2,1,1;2,4,2,1,300;2,4,2,17,1000' | FileCheck %s --check-prefix=THREE
// RUN: flash-run %s --func=window_lens --tol=1e-5 --pipeline="%cleanups" \
// RUN:   --shapes='2,4,2,1,100;3,4,2,17,113;2,4,2,64,65' | FileCheck %s --check-prefix=THREE
// ONE-NOT: FAIL
// ONE: flash-run: 1/1 cases passed
// THREE-NOT: FAIL
// THREE: flash-run: 3/3 cases passed

func.func @unit_causal(%q: memref<1x4x128x64xf32>, %k: memref<1x4x128x64xf32>, %v: memref<1x4x128x64xf32>, %o: memref<1x4x128x64xf32>, %lse: memref<1x4x128xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x4x128x64xf32>, memref<1x4x128x64xf32>, memref<1x4x128x64xf32>) outs(%o, %lse : memref<1x4x128x64xf32>, memref<1x4x128xf32>) {causal}
  return
}

func.func @one_block(%q: memref<1x1x17x32xf32>, %k: memref<1x1x64x32xf32>, %v: memref<1x1x64x32xf32>, %o: memref<1x1x17x32xf32>, %lse: memref<1x1x17xf32>) {
  flash.attention ins(%q, %k, %v : memref<1x1x17x32xf32>, memref<1x1x64x32xf32>, memref<1x1x64x32xf32>) outs(%o, %lse : memref<1x1x17x32xf32>, memref<1x1x17xf32>) {causal, softcap = 20.0 : f32}
  return
}

func.func @decode_gqa(%q: memref<3x8x1x64xf32>, %k: memref<3x2x300x64xf32>, %v: memref<3x2x300x64xf32>, %o: memref<3x8x1x64xf32>, %lse: memref<3x8x1xf32>) {
  flash.attention ins(%q, %k, %v : memref<3x8x1x64xf32>, memref<3x2x300x64xf32>, memref<3x2x300x64xf32>) outs(%o, %lse : memref<3x8x1x64xf32>, memref<3x8x1xf32>)
  return
}

func.func @split(%q: memref<?x4x?x64xf32>, %k: memref<?x2x?x64xf32>, %v: memref<?x2x?x64xf32>, %o: memref<?x4x?x64xf32>, %lse: memref<?x4x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x4x?x64xf32>, memref<?x2x?x64xf32>, memref<?x2x?x64xf32>) outs(%o, %lse : memref<?x4x?x64xf32>, memref<?x4x?xf32>)
      {causal, config = #flash.config<block_m = 16, block_n = 32, warps = 1, stages = 2, splits = 3>}
  return
}

func.func @window_lens(%q: memref<?x4x?x64xf32>, %k: memref<?x2x?x64xf32>, %v: memref<?x2x?x64xf32>, %lens: memref<?xi32>, %o: memref<?x4x?x64xf32>, %lse: memref<?x4x?xf32>) {
  flash.attention ins(%q, %k, %v : memref<?x4x?x64xf32>, memref<?x2x?x64xf32>, memref<?x2x?x64xf32>) kv_lens(%lens : memref<?xi32>) outs(%o, %lse : memref<?x4x?x64xf32>, memref<?x4x?xf32>)
      {window = array<i64: 20, 5>, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2>}
  return
}
