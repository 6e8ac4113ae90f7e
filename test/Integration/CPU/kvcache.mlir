// KV-cache attention: kv_lens (per-sequence used length, which also sets the
// causal/window offset Sk_b - Sq) and block_table (paged K/V), for chunked
// prefill (Sq > 1) and decode (Sq = 1). Each function is compiled once by
// flash-lower-to-cpu and serves every shape. flash-run draws kv_lens per
// case as Sk, 0, 1, then uniform in [0, Sk] (the full lengths Sk are odd in
// most shapes), pages K/V through a fresh random permutation of a pool with
// 3 spare pages, fills every K/V row that holds no live key (past kv_lens,
// the tail of a partly used page, spare pages) with NaN, and compares with
// the double reference (max abs error <= 1e-5). Rows that see no key must
// give O = 0 and LSE = -inf. The 16x16 blocks make KV blocks cross pages.

// (a) kv_lens on unpaged K/V [B, Hkv, Sk, D], GQA 4:2.
// RUN: flash-run %s --seed=16 --func=lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,5,100;5,4,2,5,113;4,4,2,1,113;5,4,2,1,100;1,4,2,5,1;3,4,2,5,17;2,4,2,17,256;5,4,2,64,65;4,4,2,1,1' \
// RUN:   | FileCheck %s --check-prefix=LENS
// LENS-NOT: FAIL
// LENS: flash-run: 9/9 cases passed

// RUN: flash-run %s --seed=16 --func=lens_causal --layout=bshd --tol=1e-5 \
// RUN:   --shapes='5,4,2,5,100;5,4,2,5,113;4,4,2,1,113;5,4,2,1,100;1,4,2,5,1;3,4,2,5,17;2,4,2,17,256;5,4,2,64,65;4,4,2,1,1;4,4,2,40,33' \
// RUN:   | FileCheck %s --check-prefix=LENSCAUSAL
// LENSCAUSAL-NOT: FAIL
// LENSCAUSAL: flash-run: 10/10 cases passed

// RUN: flash-run %s --seed=16 --func=lens_causal --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,5,100;4,4,2,1,257;5,4,2,33,47' \
// RUN:   | FileCheck %s --check-prefix=LENSCAUSAL2
// LENSCAUSAL2-NOT: FAIL
// LENSCAUSAL2: flash-run: 3/3 cases passed

// (b) Paged K/V [num_pages, Hkv, page_size, D] with static page sizes,
// causal, Sq = 3 (chunked prefill) and Sq = 1 (decode); Sk is the capacity.
// RUN: flash-run %s --seed=16 --func=paged1_lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,7;4,4,2,3,1;5,4,2,1,33;1,4,2,3,3' \
// RUN:   | FileCheck %s --check-prefix=PAGED1
// PAGED1-NOT: FAIL
// PAGED1: flash-run: 4/4 cases passed

// RUN: flash-run %s --seed=16 --func=paged16 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='4,4,2,3,64;5,4,2,3,48;1,4,2,3,16;3,4,2,1,160;2,4,2,3,32' \
// RUN:   | FileCheck %s --check-prefix=PAGED16
// PAGED16-NOT: FAIL
// PAGED16: flash-run: 5/5 cases passed

// RUN: flash-run %s --seed=16 --func=paged16_lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='4,4,2,3,64;5,4,2,3,48;1,4,2,3,16;5,4,2,1,160;4,4,2,3,16' \
// RUN:   | FileCheck %s --check-prefix=PAGED16LENS
// PAGED16LENS-NOT: FAIL
// PAGED16LENS: flash-run: 5/5 cases passed

// RUN: flash-run %s --seed=16 --func=paged16_lens --layout=bshd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,80;4,4,2,1,32' \
// RUN:   | FileCheck %s --check-prefix=PAGED16LENSBSHD
// PAGED16LENSBSHD-NOT: FAIL
// PAGED16LENSBSHD: flash-run: 2/2 cases passed

// RUN: flash-run %s --seed=16 --func=paged256_lens --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,256;4,4,2,3,512;1,4,2,1,256;5,4,2,1,512' \
// RUN:   | FileCheck %s --check-prefix=PAGED256LENS
// PAGED256LENS-NOT: FAIL
// PAGED256LENS: flash-run: 4/4 cases passed

// RUN: flash-run %s --seed=16 --func=paged256 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='2,4,2,3,256;1,4,2,3,512;3,4,2,1,256' \
// RUN:   | FileCheck %s --check-prefix=PAGED256
// PAGED256-NOT: FAIL
// PAGED256: flash-run: 3/3 cases passed

// (c) A dynamic page size, given by --page-size: one compiled kernel serves
// page sizes that are multiples of the 16-key block, divide it, or neither.
// RUN: flash-run %s --seed=16 --func=paged_dyn --page-size=8 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,64;4,4,2,1,40;1,4,2,3,8' \
// RUN:   | FileCheck %s --check-prefix=DYN8
// DYN8-NOT: FAIL
// DYN8: flash-run: 3/3 cases passed

// RUN: flash-run %s --seed=16 --func=paged_dyn --page-size=48 --layout=bshd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,96;4,4,2,1,144;2,4,2,5,48' \
// RUN:   | FileCheck %s --check-prefix=DYN48
// DYN48-NOT: FAIL
// DYN48: flash-run: 3/3 cases passed

// RUN: flash-run %s --seed=16 --func=paged_dyn --page-size=5 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,35;4,4,2,1,5' \
// RUN:   | FileCheck %s --check-prefix=DYN5
// DYN5-NOT: FAIL
// DYN5: flash-run: 2/2 cases passed

// A causal sliding window on a paged cache: its offset is kv_lens[b] - Sq.
// RUN: flash-run %s --seed=16 --func=paged_dyn_window --page-size=16 --layout=bhsd --tol=1e-5 \
// RUN:   --shapes='5,4,2,3,96;4,4,2,1,64;5,4,2,20,48' \
// RUN:   | FileCheck %s --check-prefix=DYNWIN
// DYNWIN-NOT: FAIL
// DYNWIN: flash-run: 3/3 cases passed

!t = memref<?x?x?x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!p1 = memref<?x?x1x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!p16 = memref<?x?x16x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!p256 = memref<?x?x256x64xf32, strided<[?, ?, ?, 1], offset: ?>>
!lse = memref<?x?x?xf32>
!lens = memref<?xi32>
!tab = memref<?x?xi32>

func.func @lens(%q: !t, %k: !t, %v: !t, %lens: !lens, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : !lens)
      outs(%o, %lse : !t, !lse)
      {config = #flash.config<block_m = 16, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @lens_causal(%q: !t, %k: !t, %v: !t, %lens: !lens, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : !lens)
      outs(%o, %lse : !t, !lse) {causal}
  return
}

func.func @paged1_lens(%q: !t, %k: !p1, %v: !p1, %lens: !lens, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !p1, !p1) kv_lens(%lens : !lens)
      block_table(%tab : !tab) outs(%o, %lse : !t, !lse)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @paged16(%q: !t, %k: !p16, %v: !p16, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !p16, !p16) block_table(%tab : !tab)
      outs(%o, %lse : !t, !lse)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @paged16_lens(%q: !t, %k: !p16, %v: !p16, %lens: !lens, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !p16, !p16) kv_lens(%lens : !lens)
      block_table(%tab : !tab) outs(%o, %lse : !t, !lse) {causal}
  return
}

func.func @paged256_lens(%q: !t, %k: !p256, %v: !p256, %lens: !lens, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !p256, !p256) kv_lens(%lens : !lens)
      block_table(%tab : !tab) outs(%o, %lse : !t, !lse)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 4, stages = 2>}
  return
}

// Without LSE.
func.func @paged256(%q: !t, %k: !p256, %v: !p256, %tab: !tab, %o: !t) {
  flash.attention ins(%q, %k, %v : !t, !p256, !p256) block_table(%tab : !tab)
      outs(%o : !t) {causal}
  return
}

func.func @paged_dyn(%q: !t, %k: !t, %v: !t, %lens: !lens, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : !lens)
      block_table(%tab : !tab) outs(%o, %lse : !t, !lse)
      {causal, config = #flash.config<block_m = 16, block_n = 16, warps = 4, stages = 2>}
  return
}

func.func @paged_dyn_window(%q: !t, %k: !t, %v: !t, %lens: !lens, %tab: !tab, %o: !t, %lse: !lse) {
  flash.attention ins(%q, %k, %v : !t, !t, !t) kv_lens(%lens : !lens)
      block_table(%tab : !tab) outs(%o, %lse : !t, !lse)
      {causal, window = array<i64: 24, -1>}
  return
}
