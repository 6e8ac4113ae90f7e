// RUN: flash-opt %S/Inputs/column-compare.mlir --flash-to-gpu="chip=sm_90a" --canonicalize --cse | FileCheck %s
// RUN: sed -e 's/, wgmma = true//' -e 's/wgmma>/mma_sync>/g' %S/Inputs/column-compare.mlir \
// RUN:   | flash-opt --flash-to-gpu --canonicalize --cse | FileCheck %s --check-prefix=MMA

// flash-to-gpu's column compares on the wgmma path: in the KV loop's main
// blocks (no clamp), a mask_mod's test of the key position j = J + k (J
// the thread's first column, k the register's constant) against a bound t
// is k against max(t, -1) - J (TileArith.h's keyTestBound), so each
// register compares its constant with one value per row instead of adding
// k first. Written with j on the right (`i >= j`, `p > j`), the order is
// mirrored (j <= i, j < p). canonicalize then puts the constant on the
// right: bound >= k, bound > k. (flash-simplify-mods, not run here, would
// first merge a prefix-LM's two bounds into one.) The input was tiled with
// key_bounds = false, so that every block runs the mask_mod and the main
// loop's compares are there to check (with key bounds the main loop of these
// masks runs none: flash-tile-key-bounds.mlir).

// @prefix_lm (Inputs/column-compare.mlir) is flash-pipeline-kv's output (key_bounds = false in the config) of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %causal = arith.cmpi sge, %i, %j : index
//         %pre = arith.cmpi sgt, %pbi, %j : index
//         %vis = arith.ori %causal, %pre : i1
//         flash.yield %vis : i1
//       }
// CHECK-LABEL: gpu.func @prefix_lm_kernel(
// The last block (j clamped into the keys, min(J + k, Sk - 1)): compared
// as written.
// CHECK: scf.for
// CHECK: %[[PI0:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: arith.cmpi sge, %{{.*}}, %{{.*}} : index
// CHECK-NEXT: arith.cmpi sgt, %[[PI0]], %{{.*}} : index
// The main blocks:
// CHECK: scf.for
// CHECK: %[[PI:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[IC:.*]] = arith.maxsi %[[I:.*]], %c-1 : index
// CHECK-NEXT: %[[IB:.*]] = arith.subi %[[IC]], %[[J:.*]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sge, %[[IB]], %c0 : index
// CHECK-NEXT: %[[PC:.*]] = arith.maxsi %[[PI]], %c-1 : index
// CHECK-NEXT: %[[PB:.*]] = arith.subi %[[PC]], %[[J]] : index
// CHECK-NEXT: %[[PRE:.*]] = arith.cmpi sgt, %[[PB]], %c0 : index
// CHECK-NEXT: arith.ori %[[CAUSAL]], %[[PRE]] : i1
// The next register: the same bounds, its own constant.
// CHECK-NEXT: arith.select
// CHECK-NEXT: arith.cmpi sge, %[[IB]], %c1 : index
// CHECK-NEXT: arith.cmpi sgt, %[[PB]], %c1 : index
// mma.sync keeps j = J + k (its kernels sit at 255 registers, where the
// bounds' live ranges spilled).
// MMA-LABEL: gpu.func @prefix_lm_kernel(
// MMA-NOT: %c-1
// MMA: gpu.func @window_kernel(

// A position that something else reads (here j - i) stays J + k: the
// bound would cost a sub per row on top of the adds.
// @window (Inputs/column-compare.mlir) is flash-pipeline-kv's output (key_bounds = false in the config) of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index):
//         %d = arith.subi %j, %i : index
//         %c4 = arith.constant 4 : index
//         %near = arith.cmpi sle, %d, %c4 : index
//         %c0 = arith.constant 0 : index
//         %lo = arith.cmpi sle, %j, %c0 : index
//         %vis = arith.ori %near, %lo : i1
//         flash.yield %vis : i1
//       }
// CHECK-LABEL: gpu.func @window_kernel(
// CHECK: scf.for
// CHECK: %[[D:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NOT: %c-1
// CHECK: arith.select

// Each order and equality its own compare (a constant bound folds: 7 - J).
// @lower_or (Inputs/column-compare.mlir) is flash-pipeline-kv's output (key_bounds = false in the config) of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %c7 = arith.constant 7 : index
//         %late = arith.cmpi sge, %j, %i : index
//         %far = arith.cmpi sgt, %j, %c7 : index
//         %vis = arith.ori %late, %far : i1
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %at = arith.cmpi eq, %j, %pbi : index
//         %past = arith.cmpi sle, %j, %i : index
//         %either = arith.ori %at, %past : i1
//         %all = arith.andi %vis, %either : i1
//         flash.yield %all : i1
//       }
// CHECK-LABEL: gpu.func @lower_or_kernel(
// CHECK: scf.for
// CHECK: scf.for
// CHECK: %[[I:.*]] = arith.minsi
// CHECK-NEXT: %[[IC:.*]] = arith.maxsi %[[I]], %c-1 : index
// CHECK-NEXT: %[[IB:.*]] = arith.subi %[[IC]], %[[J:.*]] : index
// CHECK-NEXT: %[[LATE:.*]] = arith.cmpi sle, %[[IB]], %c0 : index
// CHECK-NEXT: %[[SB:.*]] = arith.subi %c7, %[[J]] : index
// CHECK-NEXT: %[[FAR:.*]] = arith.cmpi slt, %[[SB]], %c0 : index
// CHECK-NEXT: %[[VIS:.*]] = arith.ori %[[LATE]], %[[FAR]] : i1
// CHECK-NEXT: %[[P:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[PC:.*]] = arith.maxsi %[[P]], %c-1 : index
// CHECK-NEXT: %[[PB:.*]] = arith.subi %[[PC]], %[[J]] : index
// CHECK-NEXT: %[[AT:.*]] = arith.cmpi eq, %[[PB]], %c0 : index
// CHECK-NEXT: %[[PAST:.*]] = arith.cmpi sge, %[[IB]], %c0 : index
// CHECK-NEXT: %[[EITHER:.*]] = arith.ori %[[AT]], %[[PAST]] : i1
// CHECK-NEXT: arith.andi %[[VIS]], %[[EITHER]] : i1

// A test alone: j < p as p' - J > k. In the masked band (the last block,
// j clamped into the keys) it is compared as written, and so is the key
// end's j < Sk of the ragged block: a band runs a few blocks a program at
// most, where the fold measured slower
// (bench/results/2026-12-03-h200-column-fold.log).
// @lone (Inputs/column-compare.mlir) is flash-pipeline-kv's output (key_bounds = false in the config) of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) captures(%p : memref<?xi32>)
//       outs(%o, %lse : !T, !L)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %pr: memref<?xi32>):
//         %pb = memref.load %pr[%b] : memref<?xi32>
//         %pbi = arith.index_cast %pb : i32 to index
//         %inside = arith.cmpi slt, %j, %pbi : index
//         flash.yield %inside : i1
//       }
// CHECK-LABEL: gpu.func @lone_kernel(
// CHECK: scf.for
// CHECK-NOT: %c-1
// CHECK: scf.for
// CHECK: %[[P:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK-NEXT: %[[PC:.*]] = arith.maxsi %[[P]], %c-1 : index
// CHECK-NEXT: %[[PB:.*]] = arith.subi %[[PC]], %[[J:.*]] : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi sgt, %[[PB]], %c0 : index
// CHECK-NEXT: arith.select %[[IN]]
// CHECK-NEXT: %[[IN1:.*]] = arith.cmpi sgt, %[[PB]], %c1 : index
// CHECK-NEXT: arith.select %[[IN1]]
