// RUN: flash-opt %S/Inputs/backward.mlir --flash-to-gpu | FileCheck %s
// RUN: flash-opt %S/Inputs/backward.mlir --flash-to-gpu | FileCheck %s --check-prefix=KV
// RUN: flash-opt %S/Inputs/backward.mlir --flash-to-gpu | FileCheck %s --check-prefix=ABI

// flash-to-gpu on the backward's three grids (Inputs/backward.mlir: f16,
// head dim 32, causal, 64 x 64 tiles, 4 warps): three kernels launched in
// order on the stream, the f32 dQ workspace zeroed before them.

// CHECK-LABEL: func.func @causal
// CHECK-SAME: attributes {llvm.emit_c_interface}
// D's workspace, then dQ's, cleared in stream order before the first launch.
// CHECK: gpu.alloc async {{.*}} : memref<?x?x?xf32>
// CHECK: %[[DQWS:.*]], %[[T:.*]] = gpu.alloc async {{.*}} : memref<?x?x?x32xf32>
// CHECK: %[[SET:.*]] = gpu.memset async [%[[T]]] %[[DQWS]], %{{.*}} : memref<?x?x?x32xf32>, f32
// CHECK: gpu.wait [%[[SET]]]
// No shared memory for D = rowsum(dO * O) and the dQ conversion; the KV
// program's [K | V | Q | dO] (64 x 32 f16 each) and [P | dS] (64 x 64 f16).
// CHECK: gpu.launch_func @flash_kernels::@causal_delta {{.*}} threads in (%c128{{.*}}) dynamic_shared_memory_size %c0_i32
// CHECK: gpu.launch_func @flash_kernels::@causal_backward_kv {{.*}} dynamic_shared_memory_size %c32768_i32
// CHECK: gpu.launch_func @flash_kernels::@causal_backward_dq {{.*}} dynamic_shared_memory_size %c0_i32
// CHECK: gpu.dealloc async
// CHECK: gpu.dealloc async

// The KV program: K and V copied once, then per Q block Q and dO by
// cp.async (a barrier first: the previous block's reads of the buffers),
// the LSE and D rows by plain loads, the wait and a barrier before the
// first GEMM reads them.
// KV-LABEL: gpu.func @causal_backward_kv
// KV-COUNT-2: nvvm.cp.async.shared.global
// KV-NEXT: nvvm.cp.async.commit.group
// KV: nvvm.cp.async.wait.group 0
// KV-NEXT: gpu.barrier
// KV: scf.for
// KV: scf.for
// KV: gpu.barrier
// KV-COUNT-2: nvvm.cp.async.shared.global
// KV-NEXT: nvvm.cp.async.commit.group
// KV-COUNT-2: nvvm.cp.async.shared.global
// KV-NEXT: nvvm.cp.async.commit.group
// KV: llvm.load {{.*}} : !llvm.ptr<1> -> f32
// KV: nvvm.cp.async.wait.group 0
// KV-NEXT: gpu.barrier
// S = Q K^T: Q and K fragments by ldmatrix, from zero.
// KV: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<row>
// KV: nvvm.mma.sync {{.*}} C[%[[Z:.*]], %[[Z]], %[[Z]], %[[Z]]]
// P^T for dV += P^T dO: the warps write P row-major into shared memory
// (32-bit pairs), a barrier, then ldmatrix.trans reads it transposed and
// dO (B stored [k][n]) transposed too.
// KV: llvm.store {{.*}} : i32, !llvm.ptr<3>
// KV: gpu.barrier
// KV-NEXT: arith.constant
// KV: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// KV: nvvm.ldmatrix {{.*}}layout = #nvvm.mma_layout<col>
// KV: nvvm.mma.sync
// dS^T for dK += dS^T Q, through the other scratch buffer.
// KV: llvm.store {{.*}} : i32, !llvm.ptr<3>
// KV: gpu.barrier
// dQ's block added into the workspace, row by row within the tail.
// KV: scf.if
// KV: llvm.atomicrmw fadd {{.*}} monotonic : !llvm.ptr<1>, f32
// After the Q blocks: dK and dV rounded and stored.
// KV: llvm.store {{.*}} : i32, !llvm.ptr<1>
// KV: gpu.return

// The entry's ABI record says it is a backward entry and the role of each
// argument.
// ABI: llvm.mlir.global external constant @causal_flash_abi
// ABI-SAME: \22args\22:[\22q\22,\22k\22,\22v\22,\22o\22,\22lse\22,\22do\22,\22dq\22,\22dk\22,\22dv\22]
// ABI-SAME: \22role\22:\22delta\22
// ABI-SAME: \22role\22:\22backward_kv\22
// ABI-SAME: \22role\22:\22backward_dq\22
// ABI-SAME: \22kind\22:\22backward\22
