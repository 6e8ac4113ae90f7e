//===- FlashAttrs.td - flash dialect attributes ------------*- tablegen -*-===//
//
// `#flash.config`: the kernel configuration that `flash-plan` chooses (or a
// user writes by hand) and that every later pass reads instead of deciding
// again.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD
#define FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD

include "flash/Dialect/Flash/IR/FlashDialect.td"

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

    Example: `#flash.config<block_m = 128, block_n = 64, warps = 4, stages = 2>`
  }];
  let parameters = (ins "int64_t":$blockM, "int64_t":$blockN,
                        "int64_t":$numWarps, "int64_t":$numStages,
                        DefaultValuedParameter<"int64_t", "1">:$numSplits,
                        DefaultValuedParameter<"bool", "false">:$wgmma,
                        DefaultValuedParameter<"bool", "false">:$producer);
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
    /// Dynamic shared memory of the GPU kernel (16-bit elements): Q and
    /// `stages` K and V blocks at getRowPitch, the 1 KiB a wgmma kernel
    /// needs to align its base to 1024 bytes, the producer's mbarriers.
    int64_t getKernelSharedMemoryBytes(int64_t headDim) const;
  }];
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHATTRS_TD
