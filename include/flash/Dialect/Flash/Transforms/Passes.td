//===- Passes.td - flash dialect passes --------------------*- tablegen -*-===//
//
// The stages of the FlashAttention pipeline. Each runs alone in flash-opt and
// reads only what the previous stage wrote (the #flash.config attribute, the
// tile loops), never re-deciding it.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD
#define FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FlashPlan : Pass<"flash-plan"> {
  let summary = "Choose the kernel configuration of each flash.attention";
  let description = [{
    Records a `#flash.config` (BlockM, BlockN, warps, pipeline stages) on
    every `flash.attention` that has none, from the head dim, the element
    type and a target description. A configuration written by hand is kept.
    The choice starts from FlashAttention-2's launch templates (sm80/sm90),
    with one measured change: for head dims <= 64, FA2's 128 x 128 makes our
    kernel spill, and 128 x 64 ran 1.06x FA2 on the H200 (128 x 128: 0.93x).

    | head dim | BlockM x BlockN | warps |
    | --- | --- | --- |
    | <= 64 | 128 x 64 | 4 |
    | <= 128 | 128 x 64 | 4 |
    | <= 192 | 128 x 64 | 8 |
    | <= 256 | 128 x 64 (8 warps) if Q + 2 stages of K/V fit in shared memory, else 64 x 64 (4 warps) |

    Targets without `cp.async` (sm < 80) get one stage.
  }];
  let options = [
    Option<"smVersion", "sm", "int64_t", /*default=*/"90",
           "Target SM version (80 = A100, 90 = H100/H200)">,
    Option<"numSMs", "num-sms", "int64_t", /*default=*/"132",
           "Number of SMs of the target (read by the split-KV choice, not "
           "yet by any configuration)">,
    Option<"smemPerBlockKB", "smem-kb", "int64_t", /*default=*/"227",
           "Shared memory one program may use, in KiB (227 on sm90, 163 on "
           "sm80)">,
  ];
  let statistics = [
    Statistic<"numPlanned", "num-planned", "Configurations chosen">,
    Statistic<"numKept", "num-kept", "Hand-written configurations kept">,
  ];
  let dependentDialects = ["::mlir::flash::FlashDialect"];
}

def FlashTile : Pass<"flash-tile"> {
  let summary = "Tile flash.attention into the FlashAttention-2 grid and KV "
                "loop";
  let description = [{
    Rewrites each `flash.attention` (memref form; the tensor form is first
    moved onto buffers) into FA2's structure:

    * the grid: an `scf.parallel` over (Q row block, query head, batch), one
      program per iteration, reading its Q block once;
    * per program, loops over K/V blocks of `#flash.config`'s BlockN whose
      bounds are clipped: causal/right-window blocks right of the diagonal
      and left-window blocks left of the band are never visited;
    * the blocks that need an element mask (the causal/window diagonal band,
      `ceil(BlockM/BlockN) + 1` blocks iterated right to left, the ragged
      last block of a sequence, the left window edge) are peeled into their
      own loops of `flash.tile_update {masked}`; the main loop's updates
      carry no mask at all;
    * tails are masked, not padded by the caller: blocks past a sequence end
      are read zero-padded and masked, tail rows are not stored;
    * the epilogue `flash.tile_finalize` and the store of O (and LSE).

    The ops must carry a `#flash.config` (run `flash-plan` first). For
    static shapes the grid carries `flash.masked_iterations` and
    `flash.unmasked_iterations`, the same counts as the statistics (which
    no-assert LLVM builds compile out).
  }];
  let statistics = [
    Statistic<"numTiled", "num-tiled", "flash.attention ops tiled">,
    Statistic<"numMaskedLoops", "num-masked-loops",
              "KV loops whose updates apply an element mask">,
    Statistic<"numUnmaskedLoops", "num-unmasked-loops",
              "KV loops whose updates carry no mask">,
    Statistic<"numMaskedIterations", "masked-iterations",
              "Masked KV iterations over the whole grid (static shapes only)">,
    Statistic<"numUnmaskedIterations", "unmasked-iterations",
              "Unmasked KV iterations over the whole grid (static shapes "
              "only)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashOnlineSoftmax : Pass<"flash-online-softmax"> {
  let summary = "Expand tile updates into the explicit online softmax";
  let description = [{
    Rewrites `flash.tile_update` and `flash.tile_finalize` into two tile
    GEMMs and the online-softmax steps of FlashAttention-2 on tensors
    (linalg, arith, math), each step under its formula:
    S = Q K^T; mask; m_new = max(m, rowmax S);
    P = exp2(S * scale * log2e - m_new * scale * log2e) (one multiply-add);
    alpha = exp2((m - m_new) * scale * log2e); l = l * alpha + rowsum P;
    acc = acc * alpha + P V; and the epilogue O = acc / l,
    LSE = m * scale + log l. Rows that saw no key give O = 0, LSE = -inf.
  }];
  let statistics = [
    Statistic<"numUpdates", "num-updates", "Tile updates expanded">,
    Statistic<"numMasked", "num-masked-updates",
              "Expanded updates that apply an element mask">,
    Statistic<"numFinalized", "num-finalized", "Epilogues expanded">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect", "::mlir::tensor::TensorDialect"
  ];
}

def FlashToGpu : Pass<"flash-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower flash-tile's grids to FlashAttention-2 mma.sync "
                "kernels and their launches";
  let description = [{
    Turns each grid that `flash-tile` produced into a `gpu.func` in the
    `gpu.module @flash_kernels` (with an `#nvvm.target`) and replaces the
    grid by a `gpu.launch_func` with one program per grid iteration (x = Q
    row block, y = query head, z = batch) and `32 * warps` threads.

    The kernel is FA2's forward kernel, built from the tiled IR (its KV
    loops, their bounds and block starts, the tile ops' attributes):

    * Q and a 2-stage ring of K/V blocks in dynamic shared memory, written
      by 16-byte `cp.async` copies into an XOR-swizzled layout; the copy of
      the next KV block (also across the peeled loops) is in flight while
      the current block's two GEMMs run; tail rows are zero-filled;
    * S = Q K^T and O += P V with `mma.sync.m16n8k16` (f32 accumulation),
      Q and K fragments by `ldmatrix`, V by `ldmatrix.trans`;
    * S and P stay in registers: P is converted to bf16/f16 in registers and
      used as the A operand of the second MMA;
    * row max and row sum by quad shuffles; exp2 with the scale folded into
      one FFMA; the element mask only in the loops flash-tile masked;
    * the epilogue O = acc / l, LSE = m * c + log l, O staged through the
      shared memory that Q used and written with 16-byte stores.

    The host function gets `llvm.emit_c_interface` and an exported
    `<func>_flash_abi` string describing the compiled kernel for the runtime.
    What is not supported yet (other element types, head dims, Dv != D,
    more than 2 stages) is refused with a diagnostic.
  }];
  let options = [
    Option<"chip", "chip", "std::string", /*default=*/"\"sm_90\"",
           "Target SM (sm_80, sm_90, ...), recorded in the #nvvm.target">,
    Option<"features", "features", "std::string", /*default=*/"\"+ptx80\"",
           "PTX features of the #nvvm.target">,
    Option<"smemLimitKB", "smem-kb", "int64_t", /*default=*/"227",
           "Shared memory one program may use, in KiB">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
    "::mlir::math::MathDialect", "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect"
  ];
}

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_PASSES_TD
