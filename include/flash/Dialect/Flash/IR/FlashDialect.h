//===- FlashDialect.h - The flash dialect -----------------------*- C++ -*-===//
//
// Declares the `flash` dialect and its attributes (`#flash.config`, the
// `#flash.frag` tile layouts).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H
#define FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/TensorEncoding.h"

#include "flash/Dialect/Flash/IR/FlashOpsDialect.h.inc"

#include "flash/Dialect/Flash/IR/FlashEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "flash/Dialect/Flash/IR/FlashAttrs.h.inc"

#endif // FLASH_DIALECT_FLASH_IR_FLASHDIALECT_H
