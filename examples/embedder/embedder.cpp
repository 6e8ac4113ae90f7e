//===- embedder.cpp - A tiny compiler that embeds the flash pipelines -----===//
//
// What a compiler embedding FlashMLIR writes: register the dialect and the
// interfaces the pipelines use (no registerAllPasses/registerAllDialects),
// build a named pipeline in C++ and run it. Reads MLIR with flash.attention,
// prints it lowered to the LLVM dialect.
//
//   flash-embedder input.mlir [cpu | gpu:<chip>]
//
//===----------------------------------------------------------------------===//

#include "flash/InitAllFlash.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir;

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    llvm::errs() << "usage: flash-embedder input.mlir [cpu | gpu:<chip>]\n";
    return 2;
  }
  DialectRegistry registry;
  registry.insert<func::FuncDialect>();
  flash::registerFlashPipelineExtensions(registry);
  MLIRContext context(registry);

  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;

  // The pipelines run on a module (they add module-level symbols).
  auto pm = PassManager::on<ModuleOp>(&context);
  StringRef target = argc == 3 ? argv[2] : "cpu";
  if (target.consume_front("gpu:")) {
    flash::FlashGpuPipelineOptions options;
    options.chip = target.str();
    options.format = "isa";
    if (failed(flash::buildFlashLowerToGPUPipeline(pm, options)))
      return 1;
  } else if (failed(flash::buildFlashLowerToCPUPipeline(pm))) {
    return 1;
  }
  if (failed(pm.run(*module)))
    return 1;
  module->print(llvm::outs());
  return 0;
}
