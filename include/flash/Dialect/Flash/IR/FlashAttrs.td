//===- FlashAttrs.td - flash dialect attributes ------------*- tablegen -*-===//
//
// `#flash.config`: the kernel configuration that `flash-plan` chooses (or a
// user writes by hand) and that every later pass reads instead of deciding
// again. `#flash.frag`: where a tile value of a GPU kernel lives (a register
// fragment layout or a swizzled shared-memory tile), which
// flash-assign-layouts decides and flash-to-gpu reads.
//
// The layout is the *encoding* of the tile's RankedTensorType (as Triton's
// layout encodings are), not an attribute on the defining op: a type is
// carried by every use, block argument and result alike, so canonicalize
// and cse keep it (an op attribute is dropped by any pattern that rebuilds
// the op), tensors of different layouts are never merged by cse, and the
// verifiers that already require equal types (a linalg op's init and
// result, flash.kv_loop's inits, iter_args, yields and results) make the
// layouts of a loop-carried value agree for free. The encoding is verified
// against the tensor's shape (VerifiableTensorEncoding).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/TensorEncoding.td"

def Flash_ConfigAttr : Flash_Attr<"Config", "config"> {
  let summary = "Kernel configuration of one flash.attention";
  let description = [{
    Tile sizes and launch shape of the FlashAttention-2 kernel for one
    `flash.attention`:

    | parameter | meaning |
    | --- | --- |
    | `block_m` | query rows per program (a Q row block, FA2's kBlockM) |
    | `block_n` | keys per iteration of the KV loop (FA2's kBlockN) |
    | `warps`   | warps per program; each warp owns block_m / warps rows |
    | `stages`  | depth of the K/V shared-memory pipeline (2 = double buffer) |
    | `splits`  | KV splits (Flash-Decoding); 1 = no split (default), 0 = chosen at run time by flash-split-kv |
    | `wgmma`   | sm_90a only: each warpgroup (4 warps) runs its 64 rows' two GEMMs as `wgmma.mma_async` (S from shared memory, P from registers) instead of `mma.sync`; needs block_m = 16 * warps |
    | `producer` | with `wgmma`: one more warpgroup only loads K/V (FA3's warp specialization) into an mbarrier full/empty ring, so the `warps` consumer warps never wait on each other; it gives its registers to them (`setmaxnreg`) |
    | `producer_regs` | with `producer` and 8 warps: the producer warpgroup's `setmaxnreg` (a multiple of 8 in [24, 168]; the consumers take the rest), for this kernel in place of flash-to-gpu's `producer-regs`; 0 (default): the pass option's |
    | `pingpong` | with `producer` and 8 warps: FA3's ping-pong schedule, the two consumer warpgroups take turns at the tensor cores (one issues its GEMMs while the other runs its softmax; flash-pingpong writes the turns) |
    | `key_bounds` | flash-tile may derive a block-mask hint from the mask_mod's own key tests (MaskKeys.h): blocks they rule out are skipped, blocks they keep whole run no mask_mod; `false` evaluates the mask_mod on every block. Default `true`; flash-plan writes its `key-bounds` option |
    | `uniform_blocks` | flash-tile classifies the KV blocks of a mask_mod conjunct `F(i) == G(j)` (a document mask) in the program (UniformBlocks.h); not with `pingpong` (the turns go around the loop body's GEMMs). Default `false`; flash-plan writes its `uniform-blocks` option |

    Example: `#flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>`
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN,
                        "int64_t":$numWarps, "int64_t":$numStages,
                        DefaultValuedParameter<"int64_t", "1">:$numSplits,
                        DefaultValuedParameter<"bool", "false">:$wgmma,
                        DefaultValuedParameter<"bool", "false">:$producer,
                        DefaultValuedParameter<"bool", "false">:$pingpong,
                        DefaultValuedParameter<"int64_t", "0">:$producerRegs,
                        DefaultValuedParameter<"bool", "true">:$keyBounds,
                        DefaultValuedParameter<"bool", "false">:$uniformBlocks);
  // `<block_m = .., block_n = .., warps = .., stages = ..` then the
  // optional `, splits = N` and `, wgmma = true` (custom: two optional
  // groups that both start with `,` cannot be told apart by the generated
  // parser).
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Elements per shared-memory row of the GPU kernel for `headDim`:
    /// whole 128-byte rows above 32, so that the XOR swizzle stays inside
    /// the row (head dim 96 is laid out as 128).
    static int64_t getRowPitch(int64_t headDim);
    /// The GPU kernel's shared-memory layout for `headDim` and elements of
    /// `elementBytes` bytes (SmemMap).
    SmemMap getSmemMap(int64_t headDim, int64_t elementBytes) const;
    /// Dynamic shared memory of the GPU kernel: getSmemMap's totalBytes.
    int64_t getKernelSharedMemoryBytes(int64_t headDim,
                                       int64_t elementBytes) const {
      return getSmemMap(headDim, elementBytes).totalBytes();
    }
    /// Threads per program of the GPU kernel: the `warps` consumer warps
    /// and the producer warpgroup.
    int64_t getProgramThreads() const {
      return 32 * getNumWarps() + (getProducer() ? 128 : 0);
    }
    /// This config with `splits = numSplits` and every other field kept.
    ConfigAttr withNumSplits(int64_t numSplits) const;
    /// This config with flash-tile's mask analyses as given.
    ConfigAttr withMaskAnalyses(bool keyBounds, bool uniformBlocks) const;
  }];
}

def Flash_FragKind : I32EnumAttr<"FragKind", "where a GPU tile value lives", [
    I32EnumAttrCase<"Acc", 0, "acc">,
    I32EnumAttrCase<"Row", 1, "row">,
    I32EnumAttrCase<"RowPartial", 2, "row_partial">,
    I32EnumAttrCase<"Smem", 3, "smem">,
    I32EnumAttrCase<"Spread", 4, "spread">,
    I32EnumAttrCase<"Uniform", 5, "uniform">,
    I32EnumAttrCase<"Cta", 6, "cta">]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}

def Flash_TileRole : I32EnumAttr<"TileRole", "which operand of attention a "
                                 "tile read or write is", [
    I32EnumAttrCase<"Q", 0, "q">,
    I32EnumAttrCase<"K", 1, "k">,
    I32EnumAttrCase<"V", 2, "v">,
    I32EnumAttrCase<"O", 3, "o">,
    I32EnumAttrCase<"Lse", 4, "lse">,
    // The backward's: the output gradient, D = rowsum(dO * O), and the
    // input gradients.
    I32EnumAttrCase<"DO", 5, "do">,
    I32EnumAttrCase<"Delta", 6, "delta">,
    I32EnumAttrCase<"DQ", 7, "dq">,
    I32EnumAttrCase<"DK", 8, "dk">,
    I32EnumAttrCase<"DV", 9, "dv">]> {
  let cppNamespace = "::mlir::flash";
}

def Flash_BackwardStep : I32EnumAttr<"BackwardStep", "which of the "
                                     "backward's three grids a flash.grid is", [
    I32EnumAttrCase<"Delta", 0, "delta">,
    I32EnumAttrCase<"KV", 1, "kv">,
    I32EnumAttrCase<"DQ", 2, "dq">]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}
def Flash_BackwardStepAttr : EnumAttr<Flash_Dialect, Flash_BackwardStep,
                                      "backward_step">;

def Flash_KVLoopRole : I32EnumAttr<"KVLoopRole", "which run of the KV block "
                                   "loop a flash.kv_loop is", [
    I32EnumAttrCase<"MaskedRight", 0, "masked_right">,
    I32EnumAttrCase<"Main", 1, "main">,
    I32EnumAttrCase<"MaskMod", 2, "mask_mod">,
    I32EnumAttrCase<"MaskedLeft", 3, "masked_left">]> {
  let cppNamespace = "::mlir::flash";
}

def Flash_MmaKind : I32EnumAttr<"MmaKind", "the MMA instruction family of "
                                "a layout", [
    I32EnumAttrCase<"None", 0, "none">,
    I32EnumAttrCase<"MmaSync", 1, "mma_sync">,
    I32EnumAttrCase<"Wgmma", 2, "wgmma">]> {
  let cppNamespace = "::mlir::flash";
  let genSpecializedAttr = 0;
}

def Flash_FragAttr : Flash_Attr<"Frag", "frag",
    [DeclareAttrInterfaceMethods<VerifiableTensorEncoding>]> {
  let summary = "Layout of a tile value in a GPU kernel (a tensor encoding)";
  let description = [{
    Where the threads of one FlashAttention-2 program hold a tile value of
    a `flash.grid`, as the encoding of its tensor type. Written by
    `flash-assign-layouts`, read by `flash-to-gpu`. With `block_m` rows per
    program, `warps` warps, lane `l`, `g = l / 4`, `tq = l % 4`:

    | layout | tensor | where it lives |
    | --- | --- | --- |
    | `acc, mma_sync` | `[block_m, n]` | mma.sync m16n8k16's f32 accumulator (C, row.col): lane l holds rows g and g + 8, columns 2 tq + {0, 1} of each 16 x 8 tile of its warp's 16-row m-tiles; 16-bit tiles packed two columns per 32-bit register |
    | `acc, wgmma` | `[block_m, n]` | wgmma.mma_async m64nNk16's accumulator: per warp the same registers as `acc, mma_sync` (one m-tile per warp) |
    | `row` | `[block_m]` | the rows of the accumulator layout: lane l holds rows g and g + 8 of each m-tile, the same value in the four lanes (a quad) that own a row |
    | `row_partial` | `[block_m]` f32 | the same registers, but each lane of the quad holds a part of a sum; the row's value is the quad's total (FA2's row sum l, reduced once in the epilogue) |
    | `smem, mma_sync` | `[rows, d]` (16-bit) | shared memory, 16-byte chunks XOR-swizzled by the row, read by ldmatrix |
    | `smem, wgmma` | `[rows, d]` (16-bit) | shared memory in wgmma's 128-byte-swizzle canonical layout (64-element panels), read through matrix descriptors |
    | `spread` | `[n]`, any element type | element e in register e / 32 of lane e % 32, the same in every warp (a 1-D tile that meets no 2-D one: a key or row id vector reduced to a scalar) |
    | `cta` | `[n]`, n a multiple of the program's threads T (consumers and producer) | element e in register e / T of thread e % T: each element held once in the program (a program-level scan over many keys, before the K/V pipeline starts; its reductions meet across warps in shared memory) |
    | `uniform` | `[]` (0-d) | one register, the same value in every thread (a reduction of a `spread` or `cta` tile) |

    Two reads change nothing in memory and are part of the layouts'
    meaning, so they need no conversion op:

    * *C to A reuse:* a 16-bit `acc` tile is read as the A operand of a
      GEMM as it is: m16n8k16's C fragments of n-tiles (2k, 2k + 1),
      packed in pairs, are exactly its A fragment of k-step k, and
      wgmma's register-A m64k16 layout is the same per warp (FA2's P in
      registers, no shared-memory trip).
    * a `row_partial` value read as an input (not the init) of an op is
      read as its total: two quad shuffles, once per value.

    Examples: `tensor<64x64xf32, #flash.frag<acc, wgmma>>`,
    `tensor<64xf32, #flash.frag<row_partial>>`,
    `tensor<64x128xbf16, #flash.frag<smem, mma_sync>>`.
  }];
  let parameters = (ins EnumParameter<Flash_FragKind>:$kind,
                        DefaultValuedParameter<"::mlir::flash::MmaKind",
                            "::mlir::flash::MmaKind::None">:$mma);
  let assemblyFormat = "`<` $kind (`,` $mma^)? `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The layout of `type` (its encoding), or null.
    static FragAttr of(::mlir::Type type);
    bool isAcc() const { return getKind() == FragKind::Acc; }
    bool isSmem() const { return getKind() == FragKind::Smem; }
    /// `row` or `row_partial`.
    bool isRowVector() const {
      return getKind() == FragKind::Row || getKind() == FragKind::RowPartial;
    }
  }];
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD
