// RUN: flash-opt %S/Inputs/wgmma.mlir -split-input-file --flash-to-gpu="chip=sm_90a" | FileCheck %s

// The sm_90a warpgroup-MMA kernel of a `wgmma = true` configuration: one
// warpgroup (4 warps) per 64 rows.
//  * shared memory gets 1 KiB of slack: the base is aligned up to 1024 bytes
//    at run time, as wgmma's 128-byte swizzle is a function of the address;
//  * each iteration fences the landed cp.async writes into the async proxy
//    before the barrier that publishes them;
//  * S = Q K^T is d/16 nvvm.wgmma.mma_async m64 n(BN) k16 from two K-major
//    shared-memory descriptors (layout 1 = 128-byte swizzle in bits 62-63,
//    SBO = 1024 bytes = 64 in bits 32-45, LBO = 1 unused), the first with
//    D zeroed; then commit and wait;
//  * O += P V is BN/16 wgmma m64 n(D) k16 with P from registers (one inline
//    PTX instruction each: MLIR 22's op takes A only from shared memory) and
//    V MN-major ("transposed", imm-trans-b = 1; LBO = 32 * 128 bytes between
//    64-column panels = 256 in bits 16-29).
// @wg (Inputs/wgmma.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !B, !B, !B) outs(%o : !B)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2, wgmma = true>}
// CHECK-LABEL: func.func @wg
// CHECK: gpu.launch_func @flash_kernels::@wg_kernel {{.*}} threads in (%c128,
// CHECK-SAME: dynamic_shared_memory_size %c25600_i32
// CHECK: gpu.func @wg_kernel
// CHECK-NOT: gpu.grid_dim
// CHECK: llvm.ptrtoint %{{.*}} : !llvm.ptr<3> to i32
// CHECK: arith.andi %{{.*}}, %c1023_i32 : i32
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: arith.constant 4611686293305360384 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <zero>], A[<bf16>, <one>, <row>], B[<bf16>, <one>, <col>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 32, k = 16>, D[<f32>, <one>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: arith.constant 4611686293322072064 : i64
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-NEXT: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {$0, {{.*}}, $31}, {$32, $33, $34, $35}, $36, p, 1, 1, 1;
// CHECK: llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async.sync.aligned.m64n64k16
// CHECK-NOT: wgmma.mma_async.sync.aligned.m64n64k16
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: } {flash.kv_loop = "main"}
// CHECK: gpu.return

// f16, two warpgroups (rows 0-63 and 64-127: the Q descriptor starts at the
// warpgroup's 64-row slice of each panel).
// Causal: the longest programs first (FA3's LPT order), block x runs Q row
// block gridDim.x - 1 - x; not causal (@wg above) block x.
// @wg_f16 (Inputs/wgmma.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !F, !F, !F) outs(%o : !F)
//       {causal, config = #flash.config<block_m = 128, block_n = 64, warps = 8, stages = 2, wgmma = true>}
// CHECK-LABEL: func.func @wg_f16
// CHECK: threads in (%c256,
// CHECK: gpu.func @wg_f16_kernel
// CHECK-DAG: %[[BX:.*]] = gpu.block_id x
// CHECK-DAG: %[[NX:.*]] = gpu.grid_dim x
// CHECK: %[[LAST:.*]] = arith.subi %[[NX]], %c1{{.*}} : index
// CHECK-NEXT: %[[MB:.*]] = arith.subi %[[LAST]], %[[BX]] : index
// CHECK: arith.divui %{{.*}}, %c4 : index
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <zero>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-COUNT-7: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>
// CHECK: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16
