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
    "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect"
  ];
}

#endif // FLASH_CONVERSION_PASSES_TD
