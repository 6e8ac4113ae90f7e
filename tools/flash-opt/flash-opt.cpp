//===- flash-opt.cpp - The FlashMLIR optimizer driver ---------------------===//
//
// An mlir-opt compatible driver: every upstream dialect, extension and pass,
// plus the flash dialect and its passes and named pipelines.
//
//===----------------------------------------------------------------------===//

#include "flash/InitAllFlash.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::flash::registerAllFlashPasses();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu-module-to-binary translates to LLVM IR inside the pipeline.
  mlir::registerAllToLLVMIRTranslations(registry);
  mlir::flash::registerAllFlashDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "FlashMLIR optimizer driver\n", registry));
}
