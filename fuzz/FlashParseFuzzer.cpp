//===- FlashParseFuzzer.cpp - Fuzz parsing and verifying flash IR ---------===//
//
// libFuzzer entry point: parses arbitrary bytes as MLIR with the flash dialect
// (and the upstream dialects flash IR uses) loaded, then verifies the result.
// With FLASH_FUZZ_MODE=passes in the environment, a module that verifies also
// goes through each flash pass alone, the pass chains that feed
// flash-online-softmax and flash-to-gpu, and flash-lower-to-cpu, each on a
// fresh copy. Any input must end in a diagnostic or success, never a crash or
// assert.
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
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

/// What FLASH_FUZZ_MODE=passes runs on a module that verifies.
static const char *const kPipelines[] = {
    "flash-fold-gqa",
    "flash-plan",
    "flash-split-kv",
    "flash-tile",
    "flash-online-softmax",
    "flash-to-gpu",
    "flash-fold-gqa,flash-plan,flash-split-kv,flash-tile,flash-online-softmax",
    "flash-plan{wgmma=true},flash-split-kv,flash-tile,flash-to-gpu{chip=sm_90a}",
    "flash-plan,flash-split-kv,flash-tile,flash-to-gpu",
    "flash-lower-to-cpu",
};

static bool passesMode() {
  static const bool on = [] {
    const char *mode = std::getenv("FLASH_FUZZ_MODE");
    if (mode && std::string(mode) == "passes") {
      flash::registerAllFlashPasses();
      return true;
    }
    return false;
  }();
  return on;
}

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
  if (!module || failed(verify(*module)) || !passesMode())
    return 0;
  for (const char *pipeline : kPipelines) {
    OwningOpRef<ModuleOp> copy = module->clone();
    PassManager pm = PassManager::on<ModuleOp>(&context);
    if (succeeded(parsePassPipeline(pipeline, pm)))
      (void)pm.run(*copy);
  }
  return 0;
}
