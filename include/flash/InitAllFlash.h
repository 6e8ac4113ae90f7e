//===- InitAllFlash.h - Register everything flash ---------------*- C++ -*-===//
//
// One call each to register the flash dialect and all flash passes and
// pipelines, for flash-opt and for compilers that embed the passes.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_INITALLFLASH_H
#define FLASH_INITALLFLASH_H

#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::flash {

inline void registerAllFlashDialects(DialectRegistry &registry) {
  registry.insert<FlashDialect>();
}

/// Registers the flash passes, the conversions and the named pipelines.
inline void registerAllFlashPasses() { registerFlashPassesAndPipelines(); }

/// Registers the flash dialect and the dialect interfaces the named
/// pipelines use (bufferization and deallocation models, the NVVM target,
/// the LLVM IR translations), for a compiler that does not call
/// registerAllExtensions.
void registerFlashPipelineExtensions(DialectRegistry &registry);

} // namespace mlir::flash

#endif // FLASH_INITALLFLASH_H
