//===- FlashDialect.td - The flash dialect -----------------*- tablegen -*-===//
//
// The `flash` dialect: attention as one semantic op, plus the few
// attention-specific attributes the lowering passes communicate through.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHDIALECT_TD
#define FLASH_DIALECT_FLASH_IR_FLASHDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Flash_Dialect : Dialect {
  let name = "flash";
  let summary = "Attention, compiled the way FlashAttention-2 computes it";
  let description = [{
    The `flash` dialect holds `flash.attention`, a semantic op for scaled
    dot-product attention with the variants serving needs (causal, sliding
    window, softcap, ALiBi, GQA/MQA, KV cache, paged KV, varlen,
    FlexAttention-style `score_mod` / `mask_mod` regions), and
    `flash.combine`, the logsumexp merge of split-KV partials. Below it, the
    levels the lowering passes hand to each other are ops and verified
    attributes of the dialect too:

    * the tile level that `flash-tile` writes and every target lowers:
      `flash.grid`, `flash.kv_loop`, `flash.tile_load` / `flash.tile_store`,
      `flash.tile_update` / `flash.tile_finalize` (the latter two expanded
      by `flash-online-softmax` into linalg, arith and math on tiles);
    * `#flash.config`, the kernel configuration `flash-plan` chooses (or a
      user writes) and every later pass reads;
    * for the GPU: `#flash.frag`, the layout of each tile value (a tensor
      encoding written by `flash-assign-layouts`), and the K/V software
      pipeline as `flash.pipeline_*` ops (`flash-pipeline-kv`,
      `flash-pingpong`), which `flash-to-gpu` lowers op by op.

    Everything else is expressed in upstream dialects.
  }];
  let cppNamespace = "::mlir::flash";
  let useDefaultAttributePrinterParser = 1;
}

class Flash_Op<string mnemonic, list<Trait> traits = []>
    : Op<Flash_Dialect, mnemonic, traits>;

class Flash_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Flash_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

#endif // FLASH_DIALECT_FLASH_IR_FLASHDIALECT_TD
