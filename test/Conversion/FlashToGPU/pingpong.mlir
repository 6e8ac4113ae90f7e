// RUN: flash-opt %S/Inputs/pingpong.mlir --flash-to-gpu="chip=sm_90a" | FileCheck %s
// Without flash-pingpong's turns, with a KV loop that does not wait for its
// turn, or with the turns not ended: refused.
// RUN: sed -e '/flash.pipeline_turn/d' %S/Inputs/pingpong.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=NOTURNS
// RUN: sed -e '0,/flash.pipeline_turn_wait/{/flash.pipeline_turn_wait/d}' %S/Inputs/pingpong.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=NOWAIT
// RUN: sed -e '/flash.pipeline_turn_end/d' %S/Inputs/pingpong.mlir \
// RUN:   | not flash-opt --flash-to-gpu="chip=sm_90a" 2>&1 | FileCheck %s --check-prefix=NOTURNS
// NOTURNS: error: 'flash.kv_loop' op flash-to-gpu: a pingpong grid starts its turns (flash.pipeline_turn_start) between the pipeline's start and the first KV loop and ends them (flash.pipeline_turn_end) between the last KV loop and the drain: run flash-pingpong
// NOWAIT: error: 'flash.kv_loop' op flash-to-gpu: with pingpong, a KV loop passes the turn once (flash.pipeline_turn_pass) and then waits for it once (flash.pipeline_turn_wait): run flash-pingpong

// flash-to-gpu's lowering of flash-pingpong's turns onto named barriers
// (consumer warpgroup g = warp / 4 waits on barrier 2 + g; 1 is the
// consumers' own): warpgroup 1 passes the first turn to warpgroup 0 (an
// arrive on barrier 2), then each waits for its turn; in the loop the pass
// (an arrive on the other's barrier, 3 - g) sits between the score GEMM's
// commit and its wait, and the wait before the P V GEMM's fence; after the
// loops warpgroup 0 arrives on barrier 3 once more.
// @pingpong (Inputs/pingpong.mlir) is flash-pingpong's output of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
//       {config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true, pingpong = true>}

// CHECK-LABEL: gpu.func @pingpong_kernel
// CHECK: nvvm.setmaxregister  increase 216
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: %[[G:.*]] = arith.divui %{{.*}}, %c4{{.*}} : index
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[G]], %c1
// CHECK-NEXT: scf.if %[[ONE]] {
// CHECK: %[[B2:.*]] = arith.addi %c0{{.*}}, %c2
// CHECK: %[[ID2:.*]] = arith.index_cast %[[B2]]
// CHECK: nvvm.barrier.arrive id = %[[ID2]] number_of_threads = %c256
// CHECK: }
// CHECK: %[[MINE:.*]] = arith.addi %[[G]], %c2
// CHECK: %[[MYID:.*]] = arith.index_cast %[[MINE]]
// CHECK: nvvm.barrier id = %[[MYID]] number_of_threads = %c256
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: %[[OTHER:.*]] = arith.subi %c1{{.*}}, %{{.*}} : index
// CHECK: %[[B:.*]] = arith.addi %[[OTHER]], %c2
// CHECK: %[[ID:.*]] = arith.index_cast %[[B]]
// CHECK: nvvm.barrier.arrive id = %[[ID]] number_of_threads = %c256
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256
// CHECK-NOT: nvvm.wgmma.mma_async
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm
// CHECK: nvvm.mbarrier.arrive
// CHECK: } {flash.kv_loop = "masked_right"}
// CHECK: } {flash.kv_loop = "main"}
// CHECK: %[[G0:.*]] = arith.divui %{{.*}}, %c4{{.*}} : index
// CHECK: %[[ZERO:.*]] = arith.cmpi eq, %[[G0]], %c0
// CHECK-NEXT: scf.if %[[ZERO]] {
// CHECK: %[[B3:.*]] = arith.addi %c1{{.*}}, %c2
// CHECK: %[[ID3:.*]] = arith.index_cast %[[B3]]
// CHECK: nvvm.barrier.arrive id = %[[ID3]] number_of_threads = %c256
// CHECK: gpu.return
