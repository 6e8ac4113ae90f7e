//===- FlashDialect.cpp - The flash dialect -------------------------------===//
//
// Registers the flash dialect's ops and attributes, and verifies
// `#flash.config`.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashDialect.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::flash;

#include "flash/Dialect/Flash/IR/FlashOpsDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"

void FlashDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "flash/Dialect/Flash/IR/FlashAttrs.cpp.inc"
      >();
}

LogicalResult ConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t blockM, int64_t blockN,
                                 int64_t numWarps, int64_t numStages,
                                 int64_t numSplits) {
  if (blockM <= 0 || blockN <= 0)
    return emitError() << "block_m and block_n must be positive, got " << blockM
                       << " and " << blockN;
  if (numWarps <= 0)
    return emitError() << "warps must be positive, got " << numWarps;
  if (numStages <= 0)
    return emitError() << "stages must be positive, got " << numStages;
  if (numSplits < 0)
    return emitError() << "splits must be >= 0 (0 = chosen at run time), got "
                       << numSplits;
  return success();
}
