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
    window, softcap, ALiBi, GQA/MQA, KV cache, paged KV, varlen), and the
    attributes that the lowering pipeline (`flash-plan`, `flash-tile`,
    `flash-online-softmax`, ...) records on it. Everything after those passes
    is expressed in upstream dialects.
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
