// RUN: flash-opt %S/Inputs/pingpong-mask.mlir --flash-to-gpu="chip=sm_90a" | FileCheck %s

// A document mask on the ping-pong config (FA3's producer warpgroup and
// turns) and on the same config without turns. Both issue the mask_mod's id
// loads above the score GEMM's wgmma wait; with turns the id compares (which
// read no score) go there too, so the predicates are ready when S lands
// (H200: the causal document mask 0.967x the time). Without turns they stay
// below the wait (on the one-warpgroup d64 kernel, predicates live across
// the wait made it 1.16x slower;
// bench/results/2026-12-02-h200-mask-compares-above-wait.log).

// @turns (Inputs/pingpong-mask.mlir) is flash-pingpong's output of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
//       {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         flash.yield %same : i1
//       }
// CHECK-LABEL: gpu.func @turns_kernel
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NOT: nvvm.wgmma.wait.group.sync.aligned
// CHECK-COUNT-48: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK-NOT: arith.select
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0

// @no_turns (Inputs/pingpong-mask.mlir) is flash-pingpong's output of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) captures(%doc : memref<?x?xi32>) outs(%o : !F)
//       {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
//       mask_mod {
//       ^bb0(%b: index, %h: index, %i: index, %j: index, %d: memref<?x?xi32>):
//         %di = memref.load %d[%b, %i] : memref<?x?xi32>
//         %dj = memref.load %d[%b, %j] : memref<?x?xi32>
//         %same = arith.cmpi eq, %di, %dj : i32
//         flash.yield %same : i1
//       }
// CHECK-LABEL: gpu.func @no_turns_kernel
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: llvm.load %{{.*}} invariant {alignment = 4 : i64} : !llvm.ptr<1> -> i32
// CHECK-NOT: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-COUNT-48: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
