//===- InitAllFlash.h - Register everything flash ---------------*- C++ -*-===//
//
// One call each to register the flash dialect and all flash passes and
// pipelines, for flash-opt and for compilers that embed the passes. It
// belongs to the pipelines' layer (it includes everything below).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_INITALLFLASH_H
#define FLASH_INITALLFLASH_H

#include "flash/Conversion/Passes.h"
#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Pipelines/Pipelines.h"
#include "mlir/IR/DialectRegistry.h"

namespace mlir::flash {

inline void registerAllFlashDialects(DialectRegistry &registry) {
  registry.insert<FlashDialect>();
}

/// Registers the flash passes, the conversions and the named pipelines.
inline void registerAllFlashPasses() {
  registerFlashPasses();
  registerFlashConversionPasses();
  registerFlashPipelines();
}

} // namespace mlir::flash

#endif // FLASH_INITALLFLASH_H
