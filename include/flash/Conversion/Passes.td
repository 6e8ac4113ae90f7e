//===- Passes.td - flash conversion passes -----------------*- tablegen -*-===//
//
// Conversions out of the flash dialect's tile level, one directory per
// target family under lib/Conversion (as upstream's Conversion/AToB).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_PASSES_TD
#define FLASH_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashTileToSCF : Pass<"flash-tile-to-scf"> {
  let summary = "Lower the tile-level structure ops to scf, memref and tensor";
  let description = [{
    For targets that run a tiled attention as loops (the CPU pipeline, after
    `flash-online-softmax`): `flash.grid` becomes an `scf.parallel` over its
    axes, `flash.kv_loop` an `scf.for` over its block range (the block index
    `ub - 1 - iv` when reversed), `flash.tile_load` a `memref.subview` read as
    a tensor and zero-padded to the tile (paged: a `tensor.generate`
    gathering through the block table), and `flash.tile_store` a
    `tensor.extract_slice` of the first rows materialised into the output's
    subview.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashToGpu : Pass<"flash-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower flash-tile's grids to FlashAttention-2 kernels "
                "(mma.sync, or wgmma on sm_90a) and their launches";
  let description = [{
    Turns each `flash.grid` that `flash-tile` produced, after
    `flash-online-softmax` expanded its tile updates and
    `flash-assign-layouts` gave each tile value its `#flash.frag` layout
    (a grid with a tile without one is refused) and `flash-pipeline-kv`
    wrote the K/V copy schedule as `flash.pipeline_*` ops (a grid whose KV
    loops have K/V loads but no pipeline ops, or ops that do not fit
    together, is refused), into a `gpu.func` in
    the `gpu.module @flash_kernels` (with an `#nvvm.target`) and replaces
    the grid by a `gpu.launch_func` with one program per grid iteration (x =
    Q row block, y = query head, z = batch) and `32 * warps` threads (plus
    128 for a producer warpgroup).

    The kernel is the grid's own IR lowered op by op onto the layouts the
    tiles carry (FA2's register layouts); its math is exactly what `flash-online-softmax` wrote, the
    statement the CPU pipeline runs too:

    * `flash.tile_load`: Q and a ring of `stages` K/V slots in dynamic
      shared memory, written by 16-byte `cp.async` copies into an
      XOR-swizzled layout; tail rows are zero-filled; a K/V load reads the
      slot it names;
    * the pipeline ops: `flash.pipeline_prologue` as the cp.async groups of
      Q and the first `stages - 1` blocks, `flash.pipeline_wait` as
      `cp.async.wait_group pending` and a barrier, `flash.pipeline_prefetch`
      as the copy of the block `stages - 1` ahead (also across the peeled
      `flash.kv_loop`s) into the slot read last, in flight while the
      current block's two GEMMs run; `flash.pipeline_advance` as the next
      slot (the loops' scf.for carries it); `flash.pipeline_drain` as
      `wait_group 0` and a barrier before O is staged;
    * `linalg.matmul`: by its accumulator's layout, S = Q K^T and
      O += P V with `mma.sync.m16n8k16` (f32
      accumulation), Q and K fragments by `ldmatrix`, V by `ldmatrix.trans`;
      P stays in registers (packed to bf16/f16 pairs, the A operand of the
      second MMA);
    * element-wise `linalg.generic`: the body cloned per accumulator
      register (`linalg.index` = the register's row/column), `math.exp2` as
      `ex2.approx.ftz`, `math.tanh` as `tanh.approx`, `math.log` via
      `lg2.approx`; a final `arith.truncf` per register pair;
    * row-reduction `linalg.generic`: an in-thread pairwise tree and two quad
      shuffles, none into a `#flash.frag<row_partial>` row sum (FA2's l),
      which is reduced once, where a use reads it as an input;
    * `flash.tile_store`: O staged through the shared memory that Q used and
      written with 16-byte stores (split-KV's f32 partial O from registers),
      LSE by one lane per row.

    A `wgmma = true` configuration (chip `sm_90a` only) gets the Hopper
    variant of the same kernel: each warpgroup's two GEMMs are
    `wgmma.mma_async` (S from K-major shared-memory descriptors, O += P V
    with P from registers and V read MN-major), the tiles use wgmma's
    128-byte-swizzle canonical layout, and landed `cp.async` writes are
    fenced into the async proxy before each iteration's barrier.
    With `producer = true` as well, one more warpgroup only loads K/V
    (FA3's warp specialization, `flash.pipeline_producer`): an mbarrier
    full/empty ring per stage (`flash.pipeline_acquire` /
    `flash.pipeline_release`) replaces the per-iteration barrier, the
    consumers synchronise among
    themselves with a named barrier, and `setmaxnreg` moves the producer's
    registers to the consumers (`.minnctapersm 1` so ptxas knows the count
    at entry; `producer-regs` sets the split). With `pingpong = true`,
    flash-pingpong's turns become named barriers 2 and 3 (warpgroup g waits
    on 2 + g; the other arrives on it to pass the turn, right after its
    score GEMM's commit).

    The host function gets `llvm.emit_c_interface` and an exported
    `<func>_flash_abi` string describing the compiled kernel for the runtime.
    What is not supported yet (other element types, head dims that are not
    multiples of 16 from 32 to 256, Dv != D, stages outside 2-4, wgmma off
    sm_90a or with a head dim not a multiple of 64) is refused with a
    diagnostic.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target SM (sm_80, sm_90, sm_90a, ...), recorded in the "
           "#nvvm.target; wgmma configurations need sm_90a">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features of the #nvvm.target">,
    Option<"smemLimitKB", "smem-kb", "int64_t", /*default=*/"227",
           "Shared memory one program may use, in KiB">,
    Option<"producerRegs", "producer-regs", "int64_t", /*default=*/"64",
           "setmaxnreg of the producer warpgroup beside 8 consumer warps: a "
           "multiple of 8 in [24, 168]; the consumers take the rest of the "
           "384 x 168 registers at launch, rounded down to a multiple of 8 "
           "(64: 216, 56: 224, 40: 232)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

def FlashOccupancy : Pass<"flash-occupancy", "::mlir::ModuleOp"> {
  let summary = "Ask ptxas for more programs an SM where that costs no spills";
  let description = [{
    Runs after `flash-to-gpu`'s kernels reached the LLVM dialect, just before
    `gpu-module-to-binary`. ptxas sizes a kernel's registers for its own
    schedule; when that leaves fewer programs an SM than shared memory,
    threads and the block limit allow, the kernel runs with less latency
    hidden than it could (a head-dim-64 prefix-LM kernel: 112 registers, 4
    programs an SM where shared memory holds 5). For each kernel launched
    with a constant block and dynamic shared memory size, this pass
    serializes its `gpu.module` to PTX through the module's own
    `#nvvm.target`, runs `ptxas -v` on it, and where the register count
    allows fewer programs than the rest of the SM, runs ptxas again with
    `.minnctapersm N` (N: the most programs shared memory, threads and the
    block limit allow, then N - 1, ... above the current count) and keeps,
    as `nvvm.minctasm = N`, the highest N at which ptxas spills nothing.
    Kernels that already have `nvvm.minctasm` (the producer warpgroup's
    setmaxnreg needs 1) are left alone. The ptxas is `ptxas-path`, else
    the one gpu-module-to-binary runs next (`ptxas` on PATH, else the CUDA
    toolkit's, `NVVM::getCUDAToolkitPath`); without one, or if it fails, the
    pass fails with a diagnostic.
  }];
  let options = [
    Option<"ptxasPath", "ptxas-path", "std::string", /*default=*/"\"\"",
           "The ptxas to ask (default: the CUDA toolkit's, else PATH's)">,
  ];
}

#endif // FLASH_CONVERSION_PASSES_TD
