// RUN: flash-opt %s -split-input-file --flash-plan | FileCheck %s
// RUN: flash-opt %s -split-input-file --flash-plan="sm=80 smem-kb=163" | FileCheck %s --check-prefix=SM80
// RUN: flash-opt %s -split-input-file --flash-plan="wgmma=true" | FileCheck %s --check-prefix=WG
// RUN: flash-opt %s -split-input-file --flash-plan="wgmma=true long-causal-rows=0" | FileCheck %s --check-prefix=NOLONG
// RUN: flash-opt %s -split-input-file --flash-plan="wgmma=true uniform-blocks=true" | FileCheck %s --check-prefix=UB
// RUN: flash-opt %s -split-input-file --flash-plan="key-bounds=false uniform-blocks=true" | FileCheck %s --check-prefix=ANALYSES

// flash-plan records FA2's launch configuration per head dim, keeps a
// hand-written one, and picks 64 x 64 for head dim 256 when the Q block plus
// two stages of K/V would not fit the target's shared memory.

// CHECK-LABEL: func.func @d64
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// sm_90a (wgmma): the tiles of the H200 sweeps (flash-plan's table).
// WG-LABEL: func.func @d64
// WG: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>
// Every planned config carries the mask analyses flash-tile is to run.
// ANALYSES-LABEL: func.func @d64
// ANALYSES: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2, key_bounds = false, uniform_blocks = true>
func.func @d64(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x8x?x64xbf16>, %v: tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// -----

// Head dim 128: 128 x 64, except causal, where 64 x 64 measured faster.
// CHECK-LABEL: func.func @d128
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// CHECK: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
// WG-LABEL: func.func @d128
// WG: config = #flash.config<block_m = 192, block_n = 96, warps = 12, stages = 2, wgmma = true>
// WG: config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>
func.func @d128(%q: tensor<1x8x?x128xbf16>, %k: tensor<1x8x?x128xbf16>, %v: tensor<1x8x?x128xbf16>) -> tensor<1x8x?x128xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) -> tensor<1x8x?x128xbf16>
  %c = flash.attention ins(%q, %k, %o : tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>, tensor<1x8x?x128xbf16>) {causal} -> tensor<1x8x?x128xbf16>
  return %c : tensor<1x8x?x128xbf16>
}

// -----

// A mask_mod at head dim 128 under wgmma: FA3's producer warpgroup (its
// consumers overlap one another's mask work with their GEMMs), with
// ping-pong turns unless a block_mask hint takes the mask off most blocks;
// a hinted causal mask keeps 64 x 96. Without wgmma the mask_mod changes
// nothing.
// CHECK-LABEL: func.func @d128_mask_mod
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// CHECK: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// CHECK: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
// With uniform-blocks (flash-tile decides a document mask's blocks in the
// program), causal or not, it runs without turns; hinted ones are
// unchanged.
// UB-LABEL: func.func @d128_mask_mod
// UB: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, uniform_blocks = true>
// UB: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, uniform_blocks = true>
// UB: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, uniform_blocks = true>
// UB: config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true, uniform_blocks = true>
// WG-LABEL: func.func @d128_mask_mod
// WG: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>
// WG: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>
// WG: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>
// WG: config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>
func.func @d128_mask_mod(%q: memref<?x8x?x128xbf16>, %k: memref<?x8x?x128xbf16>, %v: memref<?x8x?x128xbf16>, %doc: memref<?x?xi32>, %hint: memref<?x8x?x4xi32>, %o: memref<?x8x?x128xbf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>)
      captures(%doc : memref<?x?xi32>) outs(%o : memref<?x8x?x128xbf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  flash.attention ins(%q, %k, %v : memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>)
      captures(%doc : memref<?x?xi32>) outs(%o : memref<?x8x?x128xbf16>) {causal}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  flash.attention ins(%q, %k, %v : memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>)
      block_mask(%hint : memref<?x8x?x4xi32>) captures(%doc : memref<?x?xi32>)
      outs(%o : memref<?x8x?x128xbf16>) {block_mask_rows = 128 : i64}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  flash.attention ins(%q, %k, %v : memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>)
      block_mask(%hint : memref<?x8x?x4xi32>) captures(%doc : memref<?x?xi32>)
      outs(%o : memref<?x8x?x128xbf16>) {block_mask_rows = 64 : i64, causal}
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  return
}

// -----

// A mask_mod without a document conjunct takes FA3's turns; uniform-blocks
// then stays out of its config (the two do not go together).
// UB-LABEL: func.func @d128_opaque_mask
// UB: config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>
func.func @d128_opaque_mask(%q: memref<?x8x?x128xbf16>, %k: memref<?x8x?x128xbf16>, %v: memref<?x8x?x128xbf16>, %o: memref<?x8x?x128xbf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>, memref<?x8x?x128xbf16>)
      outs(%o : memref<?x8x?x128xbf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index):
        %s = arith.addi %i, %j : index
        %c3 = arith.constant 3 : index
        %r = arith.remui %s, %c3 : index
        %c0 = arith.constant 0 : index
        %keep = arith.cmpi ne, %r, %c0 : index
        flash.yield %keep : i1
      }
  return
}

// -----

// Head dim 96 takes head dim 128's mma.sync tiles, also under wgmma (no
// 128-byte panels to split it into); 128 x 64 measured 0.90-0.96x FA2 and
// 64 x 64 0.85-0.91x (bench/results/2026-11-29-h200-mma-sync-tile-sweep.txt).
// CHECK-LABEL: func.func @d96
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
// WG-LABEL: func.func @d96
// WG: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
func.func @d96(%q: tensor<1x8x?x96xbf16>, %k: tensor<1x8x?x96xbf16>, %v: tensor<1x8x?x96xbf16>) -> tensor<1x8x?x96xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x96xbf16>, tensor<1x8x?x96xbf16>, tensor<1x8x?x96xbf16>) -> tensor<1x8x?x96xbf16>
  return %o : tensor<1x8x?x96xbf16>
}

// -----

// CHECK-LABEL: func.func @d192
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2>
// WG-LABEL: func.func @d192
// WG: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true>
func.func @d192(%q: tensor<1x8x?x192xf16>, %k: tensor<1x8x?x192xf16>, %v: tensor<1x8x?x192xf16>) -> tensor<1x8x?x192xf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x192xf16>, tensor<1x8x?x192xf16>, tensor<1x8x?x192xf16>) -> tensor<1x8x?x192xf16>
  return %o : tensor<1x8x?x192xf16>
}

// -----

// CHECK-LABEL: func.func @d256
// CHECK: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2>
// SM80-LABEL: func.func @d256
// SM80: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2>
// WG-LABEL: func.func @d256
// WG: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true>
func.func @d256(%q: tensor<1x8x?x256xbf16>, %k: tensor<1x8x?x256xbf16>, %v: tensor<1x8x?x256xbf16>) -> tensor<1x8x?x256xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x256xbf16>, tensor<1x8x?x256xbf16>, tensor<1x8x?x256xbf16>) -> tensor<1x8x?x256xbf16>
  return %o : tensor<1x8x?x256xbf16>
}

// -----

// A configuration written by hand keeps its tiles; flash-tile's mask
// analyses are still flash-plan's options, written into it.
// CHECK-LABEL: func.func @kept
// CHECK: config = #flash.config<block_m = 64, block_n = 32, warps = 2, stages = 3>
// ANALYSES-LABEL: func.func @kept
// ANALYSES: config = #flash.config<block_m = 64, block_n = 32, warps = 2, stages = 3, key_bounds = false, uniform_blocks = true>
func.func @kept(%q: tensor<1x8x?x64xbf16>, %k: tensor<1x8x?x64xbf16>, %v: tensor<1x8x?x64xbf16>) -> tensor<1x8x?x64xbf16> {
  %o = flash.attention ins(%q, %k, %v : tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>, tensor<1x8x?x64xbf16>)
       {config = #flash.config<block_m = 64, block_n = 32, warps = 2, stages = 3>} -> tensor<1x8x?x64xbf16>
  return %o : tensor<1x8x?x64xbf16>
}

// -----

// Decode (static Sq <= 64) keeps the mma.sync split-KV tiles under wgmma,
// and head dim 32 (no 128-byte panel) stays on mma.sync.
// WG-LABEL: func.func @decode
// WG: config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2, splits = 0>
// WG: config = #flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>
func.func @decode(%q: memref<2x8x1x128xbf16>, %k: memref<2x8x?x128xbf16>, %v: memref<2x8x?x128xbf16>,
                  %o: memref<2x8x1x128xbf16>, %q32: memref<2x8x?x32xbf16>, %o32: memref<2x8x?x32xbf16>) {
  flash.attention ins(%q, %k, %v : memref<2x8x1x128xbf16>, memref<2x8x?x128xbf16>, memref<2x8x?x128xbf16>)
      outs(%o : memref<2x8x1x128xbf16>)
  flash.attention ins(%q32, %q32, %q32 : memref<2x8x?x32xbf16>, memref<2x8x?x32xbf16>, memref<2x8x?x32xbf16>)
      outs(%o32 : memref<2x8x?x32xbf16>)
  return
}

// -----

// Plain causal at head dim 128 under wgmma picks its config by Sq
// (long-causal-rows = 2048): a static Sq one config, a dynamic Sq on
// memrefs both, behind scf.if Sq >= 2048 (the producer config first); the
// tensor form, a mask_mod and ALiBi keep one. long-causal-rows=0: 64 x 96.
// WG-LABEL: func.func @long_causal
// WG: %[[SQ:.+]] = memref.dim %arg0, %c2
// WG: %[[LONG:.+]] = arith.cmpi sge, %[[SQ]], %c2048
// WG: scf.if %[[LONG]] {
// WG-NEXT: flash.attention {{.*}}config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
// WG-NEXT: } else {
// WG-NEXT: flash.attention {{.*}}config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
// WG-NEXT: }
// WG: flash.attention {{.*}}config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
// WG: flash.attention {{.*}}config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
// WG-NOT: scf.if
// WG: flash.attention {{.*}}config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
// WG: flash.attention {{.*}}alibi{{.*}}config = #flash.config<block_m = 64, block_n = 96, warps = 4, stages = 2, wgmma = true>}
// WG: return
// NOLONG-LABEL: func.func @long_causal
// NOLONG-NOT: scf.if
// NOLONG-NOT: block_m = 128
// NOLONG: return
!D = memref<?x?x?x128xbf16>
!L = memref<2x16x4096x128xbf16>
!H = memref<2x16x1024x128xbf16>
func.func @long_causal(%q: !D, %k: !D, %v: !D, %o: !D, %ql: !L, %ol: !L, %qh: !H, %oh: !H,
                       %t: tensor<?x?x?x128xbf16>, %s: memref<?xf32>) -> tensor<?x?x?x128xbf16> {
  flash.attention ins(%q, %k, %v : !D, !D, !D) outs(%o : !D) {causal}
  flash.attention ins(%ql, %ql, %ql : !L, !L, !L) outs(%ol : !L) {causal}
  flash.attention ins(%qh, %qh, %qh : !H, !H, !H) outs(%oh : !H) {causal}
  %r = flash.attention ins(%t, %t, %t : tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>, tensor<?x?x?x128xbf16>) {causal} -> tensor<?x?x?x128xbf16>
  flash.attention ins(%q, %k, %v : !D, !D, !D) alibi(%s : memref<?xf32>) outs(%o : !D) {causal}
  return %r : tensor<?x?x?x128xbf16>
}

// -----

// Head dim 64 with a document mask: 64 x 64 as unmasked, 128 x 64 on two
// warpgroups with uniform-blocks (a program's block decisions serve 128
// rows); a mask_mod without an F(i) == G(j) conjunct keeps 64 x 64.
// WG-LABEL: func.func @d64_docmask
// WG: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>
// WG: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true>
// UB-LABEL: func.func @d64_docmask
// UB: config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true, uniform_blocks = true>
// UB: config = #flash.config<block_m = 64, block_n = 64, warps = 4, stages = 2, wgmma = true, uniform_blocks = true>
func.func @d64_docmask(%q: memref<?x8x?x64xbf16>, %k: memref<?x8x?x64xbf16>, %v: memref<?x8x?x64xbf16>, %doc: memref<?x?xi32>, %o: memref<?x8x?x64xbf16>) {
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>)
      captures(%doc : memref<?x?xi32>) outs(%o : memref<?x8x?x64xbf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %di = memref.load %d[%b, %i] : memref<?x?xi32>
        %dj = memref.load %d[%b, %j] : memref<?x?xi32>
        %same = arith.cmpi eq, %di, %dj : i32
        flash.yield %same : i1
      }
  flash.attention ins(%q, %k, %v : memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>, memref<?x8x?x64xbf16>)
      captures(%doc : memref<?x?xi32>) outs(%o : memref<?x8x?x64xbf16>)
      mask_mod {
      ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
        %p = memref.load %d[%b, %i] : memref<?x?xi32>
        %jj = arith.index_cast %j : index to i32
        %vis = arith.cmpi slt, %jj, %p : i32
        flash.yield %vis : i1
      }
  return
}
