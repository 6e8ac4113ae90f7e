// Split-KV (flash-split-kv + flash.combine) on the CPU: splits 1, 2, 3, 7
// and 64 (more splits than KV blocks, so some splits are empty and must
// weigh nothing), with causal, window and softcap, GQA, both layouts; and
// the decode path where fold-gqa and the run-time split count act. Each
// function is compiled once and serves every shape; flash-run draws fresh
// inputs, poisons O and LSE and compares with the f64 reference.

// RUN: flash-run %s --seed=16 --func=s1 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,4,2,1,1;1,4,2,1,17;1,4,2,1,113;1,4,2,1,255;1,4,2,1,1000;1,4,2,17,1;1,4,2,17,17;1,4,2,17,113;1,4,2,17,255;1,4,2,17,1000;1,4,2,113,1;1,4,2,113,17;1,4,2,113,113;1,4,2,113,255;1,4,2,113,1000' \
// RUN:   | FileCheck %s --check-prefix=S1
// S1-NOT: FAIL
// S1: flash-run: 15/15 cases passed

// RUN: flash-run %s --seed=16 --func=s2 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,1,1,1;2,4,1,1,17;2,4,1,1,113;2,4,1,1,255;2,4,1,1,1000;2,4,1,17,1;2,4,1,17,17;2,4,1,17,113;2,4,1,17,255;2,4,1,17,1000;2,4,1,113,1;2,4,1,113,17;2,4,1,113,113;2,4,1,113,255;2,4,1,113,1000' \
// RUN:   | FileCheck %s --check-prefix=S2
// S2-NOT: FAIL
// S2: flash-run: 15/15 cases passed

// RUN: flash-run %s --seed=16 --func=s3 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,4,2,1,1;1,4,2,1,17;1,4,2,1,113;1,4,2,1,255;1,4,2,1,1000;1,4,2,17,1;1,4,2,17,17;1,4,2,17,113;1,4,2,17,255;1,4,2,17,1000;1,4,2,113,1;1,4,2,113,17;1,4,2,113,113;1,4,2,113,255;1,4,2,113,1000' \
// RUN:   | FileCheck %s --check-prefix=S3
// S3-NOT: FAIL
// S3: flash-run: 15/15 cases passed

// RUN: flash-run %s --seed=16 --func=s7 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='1,2,2,1,1;1,2,2,1,17;1,2,2,1,113;1,2,2,1,255;1,2,2,1,1000;1,2,2,17,1;1,2,2,17,17;1,2,2,17,113;1,2,2,17,255;1,2,2,17,1000;1,2,2,113,1;1,2,2,113,17;1,2,2,113,113;1,2,2,113,255;1,2,2,113,1000' \
// RUN:   | FileCheck %s --check-prefix=S7
// S7-NOT: FAIL
// S7: flash-run: 15/15 cases passed

// RUN: flash-run %s --seed=16 --func=s64 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='1,4,4,1,1;1,4,4,1,17;1,4,4,1,113;1,4,4,1,255;1,4,4,1,1000;1,4,4,17,1;1,4,4,17,17;1,4,4,17,113;1,4,4,17,255;1,4,4,17,1000;1,4,4,113,1;1,4,4,113,17;1,4,4,113,113;1,4,4,113,255;1,4,4,113,1000' \
// RUN:   | FileCheck %s --check-prefix=S64
// S64-NOT: FAIL
// S64: flash-run: 15/15 cases passed

// RUN: flash-run %s --seed=16 --func=decode --layout=bshd --tol=1e-5 \
// RUN:   --shapes='1,8,2,1,1;1,8,2,1,63;1,8,2,1,64;1,8,2,1,65;1,8,2,1,1000;1,8,2,1,4097;3,8,2,1,1;3,8,2,1,63;3,8,2,1,64;3,8,2,1,65;3,8,2,1,1000;3,8,2,1,4097;300,8,2,1,1;300,8,2,1,63;300,8,2,1,64;300,8,2,1,65;300,8,2,1,1000;300,8,2,1,4097' \
// RUN:   | FileCheck %s --check-prefix=DECODE
// DECODE-NOT: FAIL
// DECODE: flash-run: 18/18 cases passed

// Split-KV with the KV cache: kv_lens and paged K/V (pages 1, 16, 256),
// where splits own runs of blocks of each sequence's own length.
// RUN: flash-run %s --seed=16 --func=lens_s2 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='5,4,2,5,100;4,4,2,1,113;3,4,2,17,256;4,4,2,40,33' | FileCheck %s --check-prefix=LENS_S2
// LENS_S2-NOT: FAIL
// LENS_S2: flash-run: 4/4 cases passed

// RUN: flash-run %s --seed=16 --func=page1_s3 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='4,4,2,1,37;3,4,2,5,64;2,4,2,3,1' | FileCheck %s --check-prefix=PAGE1_S3
// PAGE1_S3-NOT: FAIL
// PAGE1_S3: flash-run: 3/3 cases passed

// RUN: flash-run %s --seed=16 --func=page16_s7 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='4,4,2,1,160;3,4,2,5,64;2,4,2,3,16;5,4,2,1,512' | FileCheck %s --check-prefix=PAGE16_S7
// PAGE16_S7-NOT: FAIL
// PAGE16_S7: flash-run: 4/4 cases passed

// RUN: flash-run %s --seed=16 --func=page256_s3 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='3,4,2,3,256;2,4,2,1,512' | FileCheck %s --check-prefix=PAGE256_S3
// PAGE256_S3-NOT: FAIL
// PAGE256_S3: flash-run: 2/2 cases passed

!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!l = memref<?x?x?xf32>

func.func @s1(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 1>}
  return
}

func.func @s2(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 2>}
  return
}

func.func @s3(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>}
  return
}

func.func @s7(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {window = array<i64: 50, 10>, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 7>}
  return
}

func.func @s64(%q: !t, %k: !t, %v: !t, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) outs(%o, %lse : !t, !l)
      {causal, softcap = 5.0 : f32, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 64>}
  return
}

// Decode: flash-fold-gqa makes the 4 query heads of each KV head 4 rows,
// flash-plan picks 16 x 64 and splits = 0, flash-split-kv chooses S at run
// time (1 for the large batch, more for the small ones).
func.func @decode(%q: memref<?x8x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %k: memref<?x2x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x2x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %o: memref<?x8x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lse: memref<?x8x1xf32, strided<[?, ?, 1], offset: ?>>) {
  flash.attention ins(%q, %k, %v : memref<?x8x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x2x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x2x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>) outs(%o, %lse : memref<?x8x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x8x1xf32, strided<[?, ?, 1], offset: ?>>) {causal}
  return
}

func.func @lens_s2(%q: !t, %k: !t, %v: !t, %lens: memref<?xi32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : memref<?xi32>) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 2>}
  return
}

func.func @page1_s3(%q: !t, %k: memref<?x?x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lens: memref<?xi32>, %tab: memref<?x?xi32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, memref<?x?x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>) kv_lens(%lens : memref<?xi32>) block_table(%tab : memref<?x?xi32>) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>}
  return
}

func.func @page16_s7(%q: !t, %k: memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lens: memref<?xi32>, %tab: memref<?x?xi32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>) kv_lens(%lens : memref<?xi32>) block_table(%tab : memref<?x?xi32>) outs(%o, %lse : !t, !l)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 7>}
  return
}

func.func @page256_s3(%q: !t, %k: memref<?x?x256x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %v: memref<?x?x256x64xf32, strided<[?, ?, ?, 1], offset: ?>>, %lens: memref<?xi32>, %tab: memref<?x?xi32>, %o: !t, %lse: !l) {
  flash.attention ins(%q, %k, %v : !t, memref<?x?x256x64xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x?x256x64xf32, strided<[?, ?, ?, 1], offset: ?>>) kv_lens(%lens : memref<?xi32>) block_table(%tab : memref<?x?xi32>) outs(%o, %lse : !t, !l)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 1, stages = 2, splits = 3>}
  return
}
