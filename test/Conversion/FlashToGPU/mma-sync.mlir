// RUN: flash-opt %S/Inputs/mma-sync.mlir -split-input-file --flash-to-gpu | FileCheck %s
// RUN: flash-opt %S/Inputs/mma-sync.mlir -split-input-file --flash-to-gpu | FileCheck %s --check-prefix=VBASE

// A small causal f16 kernel (2 warps, 32 x 16 tiles, head dim 32), so that
// the structure of the generated FA2 kernel stays readable.

// @causal (Inputs/mma-sync.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !T, !T, !T) outs(%o, %lse : !T, !L)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 2>}
// CHECK-LABEL: func.func @causal
// CHECK-SAME: attributes {llvm.emit_c_interface}
// The grid is gone: one program per (Q block, head, batch), 64 threads and
// Q + 2 stages of K and V in dynamic shared memory (32*32 + 4*16*32) * 2 B.
// CHECK-NOT: scf.parallel
// CHECK: %[[MB:.*]] = arith.ceildivsi
// CHECK: gpu.launch_func @flash_kernels::@causal_kernel blocks in (%[[MB]], %{{.*}}, %{{.*}}) threads in (%{{.*}}, %{{.*}}, %{{.*}}) dynamic_shared_memory_size %{{.*}} args(
// CHECK: gpu.module @flash_kernels [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK: llvm.mlir.global external @flash_smem() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<0 x i8>
// CHECK: gpu.func @causal_kernel(%{{.*}}: !llvm.ptr, {{.*}}) kernel attributes {known_block_size = array<i32: 64, 1, 1>}
// Under a causal mask block x runs Q row block gridDim.x - 1 - x: the
// longest programs first (FA3's LPT order; a paged grid keeps block x,
// @paged_causal below).
// CHECK: %[[BX:.*]] = gpu.block_id x
// CHECK-NEXT: %[[NX:.*]] = gpu.grid_dim x
// CHECK: %[[LAST:.*]] = arith.subi %[[NX]], %{{.*}} : index
// CHECK-NEXT: %[[RB:.*]] = arith.subi %[[LAST]], %[[BX]] : index
// CHECK-NEXT: gpu.block_id y
// CHECK-NEXT: gpu.block_id z
// Prologue: Q and the first K/V block in flight, zero-filled past the ends.
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK: nvvm.cp.async.commit.group
// The masked diagonal band: wait, barrier, the next block's copy, then the
// two GEMMs (ldmatrix + mma.sync), the mask and the online softmax.
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.mma.sync A[{{.*}}]  B[{{.*}}]  C[{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: arith.cmpi sle
// CHECK: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: arith.select
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32
// CHECK: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// P is packed to f16 in registers and V read with ldmatrix.trans (col).
// CHECK: arith.truncf %{{.*}} : vector<2xf32> to vector<2xf16>
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK: } {flash.kv_loop = "masked_right"}
// The main loop has the same body without the mask.
// CHECK: scf.for
// CHECK-NOT: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK: } {flash.kv_loop = "main"}
// Epilogue: O through Q's shared memory, 16-byte stores; LSE from one lane.
// CHECK: llvm.call_intrinsic "llvm.nvvm.lg2.approx.f"
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xi32>
// CHECK: llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xi32>, !llvm.ptr<1>
// CHECK: gpu.return
// The artifact describes itself to the runtime (llvm::json: keys sorted).
// CHECK: llvm.mlir.global external constant @causal_flash_abi("{\22arch\22:\22sm_90\22,\22block_m\22:32,\22block_n\22:16,\22causal\22:true,\22dtype\22:\22f16\22,\22func\22:\22causal\22,\22head_dim\22:32,\22head_dim_v\22:32,{{.*}}\22lse\22:true,{{.*}}\22scale\22:0.17677669{{[0-9]*}},\22smem_bytes\22:6144,{{.*}}\22stages\22:2,\22warps\22:2,\22window\22:[-1,-1]}\00")

// bf16 uses nvvm.mma.sync with i32-packed operands (nvgpu.mma.sync does not
// lower bf16 in MLIR 22); no LSE output means no LSE store.
// @bf16 (Inputs/mma-sync.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !B, !B, !B) outs(%o : !B)
//       {config = #flash.config<block_m = 64, block_n = 32, warps = 4, stages = 2>}
// CHECK-LABEL: func.func @bf16
// CHECK: gpu.func @bf16_kernel
// Not causal: every program does the same work, block x is row block x.
// CHECK-NOT: gpu.grid_dim
// CHECK: nvvm.mma.sync {{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>{{.*}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK: } {flash.kv_loop = "main"}
// CHECK-NOT: lg2.approx
// CHECK: gpu.return

// A 3-stage ring: two K/V blocks in flight (two prologue groups), each
// iteration waits until at most one group is pending, refills the stage
// read last iteration with the block two ahead; smem = (32*32 + 2*3*16*32)*2.
// @three_stages (Inputs/mma-sync.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !S, !S, !S) outs(%o : !S)
//       {causal, config = #flash.config<block_m = 32, block_n = 16, warps = 2, stages = 3>}
// CHECK-LABEL: func.func @three_stages
// CHECK: dynamic_shared_memory_size %c8192_i32
// CHECK: gpu.func @three_stages_kernel
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.commit.group
// CHECK: scf.for
// CHECK: nvvm.cp.async.wait.group 1
// CHECK: gpu.barrier
// CHECK: arith.subi %{{.*}}, %c32
// CHECK: nvvm.cp.async.commit.group
// CHECK: } {flash.kv_loop = "masked_right"}

// A paged causal grid (decode from a KV cache: a row block or two, nothing
// to order) keeps block x as its row block: the reversed id cost the d64
// paged decode chunk 4 bytes of spills (test/PTX/decode-variants.test).
// @paged_causal (Inputs/mma-sync.mlir) is flash-pipeline-kv's output of
//   flash.attention ins(%q, %k, %v : !Q, !P, !P) kv_lens(%lens : memref<?xi32>)
//       block_table(%table : memref<?x?xi32>) outs(%o : !Q)
//       {causal, config = #flash.config<block_m = 16, block_n = 64, warps = 1, stages = 2>}
// CHECK-LABEL: func.func @paged_causal
// CHECK: gpu.func @paged_causal_kernel
// CHECK-NOT: gpu.grid_dim
// CHECK: gpu.block_id x
// CHECK-NEXT: gpu.block_id y
// CHECK-NEXT: gpu.block_id z
// CHECK: gpu.return

// The V tile's ldmatrix (.trans: mma_layout<col>) reads the slot's V stage at
// SmemMap's V offset: after the 32-row Q block and the 2 K stages of 16
// rows, 64-byte rows (head dim 32), 2048 + 2 * 1024 = 4096, plus the slot
// times one 1024-byte stage; no copy or other ldmatrix in between.
// VBASE-LABEL: func.func @causal
// VBASE: nvvm.ldmatrix {{.*}}mma_layout<row>
// VBASE: %[[VOFF:.+]] = arith.constant 4096 : index
// VBASE-NEXT: %[[VB:.+]] = arith.addi %[[VOFF]], %{{.+}} : index
// VBASE-NOT: nvvm.ldmatrix
// VBASE-NOT: nvvm.cp.async
// VBASE: arith.addi %[[VB]], %{{.+}} : index
// VBASE-NOT: nvvm.ldmatrix
// VBASE: nvvm.ldmatrix {{.*}}mma_layout<col>
