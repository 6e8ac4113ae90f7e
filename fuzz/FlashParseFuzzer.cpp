//===- FlashParseFuzzer.cpp - Fuzz parsing and verifying flash IR ---------===//
//
// libFuzzer entry point: parses arbitrary bytes as MLIR with the flash dialect
// (and the upstream dialects flash IR uses) loaded, then verifies the result.
// Any input must end in a diagnostic or success, never a crash or assert.
//
//===----------------------------------------------------------------------===//

#include "flash/InitAllFlash.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  DialectRegistry registry;
  registry.insert<arith::ArithDialect, func::FuncDialect, memref::MemRefDialect,
                  tensor::TensorDialect>();
  flash::registerAllFlashDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  // Diagnostics are the expected outcome for most inputs: drop them.
  ScopedDiagnosticHandler silence(&context,
                                  [](Diagnostic &) { return success(); });
  // MLIR's lexer stops at a NUL, so it reads past a buffer that lacks one
  // (the first thing the fuzzer found): parse a NUL-terminated copy, as
  // flash-opt's file reader provides.
  std::string source(reinterpret_cast<const char *>(data), size);
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, config, "fuzz-input");
  if (module)
    (void)verify(*module);
  return 0;
}
