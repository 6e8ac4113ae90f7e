// RUN: flash-opt %S/Inputs/producer.mlir --flash-to-gpu="chip=sm_90a" | FileCheck %s

// `producer = true` (FA3's warp specialization, with wgmma): one more
// warpgroup (threads 256-383) loads K/V into a 3-stage ring guarded by
// mbarriers, so the 8 consumer warps never barrier with each other:
//  * thread 0 initialises full[s] (count 128: the producer's threads) and
//    empty[s] (count 256: the consumers) after the V stages; smem =
//    (128 * 128 + 2 * 3 * 96 * 128) * 2 + 1024 (alignment) + 6 * 8;
//  * the producer gives registers away (setmaxnreg 64), waits on empty for
//    a stage's second round on, and publishes a block only after its
//    cp.async group landed and was fenced into the async proxy;
//  * the consumers take 216 registers, load Q themselves, wait on full with
//    the phase parity they carry, release the stage on empty after both
//    GEMMs, and synchronise among themselves with named barrier 1.
// @ws (Inputs/producer.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
//       {causal, config = #flash.config<block_m = 128, block_n = 96, warps = 8, stages = 3, wgmma = true, producer = true>}
// CHECK-LABEL: func.func @ws
// CHECK: threads in (%c384,
// CHECK-SAME: dynamic_shared_memory_size %c181296_i32
// CHECK: gpu.func @ws_kernel
// CHECK-SAME: nvvm.minctasm = 1 : i32
// CHECK-COUNT-3: nvvm.mbarrier.init %{{.*}}, %c{{.*}} : !llvm.ptr<3>, i32
// CHECK: nvvm.fence.mbarrier.init
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK: scf.if
// CHECK-NEXT: nvvm.setmaxregister  decrease 64
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 1
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK: nvvm.mbarrier.arrive
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy
// CHECK: nvvm.mbarrier.arrive
// CHECK: } else {
// CHECK-NEXT: nvvm.setmaxregister  increase 216
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: scf.for
// CHECK: nvvm.mbarrier.try_wait.parity
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.wgmma.mma_async
// CHECK: nvvm.mbarrier.arrive
// CHECK: } {flash.kv_loop = "masked_right"}
// CHECK: } {flash.kv_loop = "main"}
// CHECK-NOT: gpu.barrier
// CHECK: nvvm.barrier id = %{{.*}} number_of_threads = %c256_i32
// CHECK: gpu.return
