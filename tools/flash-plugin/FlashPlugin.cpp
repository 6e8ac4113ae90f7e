//===- FlashPlugin.cpp - flash as a plugin of a stock mlir-opt ------------===//
//
// FlashPlugin.so: loaded by an mlir-opt built against the same libMLIR.so
// (Debian's mlir-opt-22, for one) with --load-dialect-plugin or
// --load-pass-plugin, it registers the flash dialect, every flash pass and
// the named pipelines (flash-lower-to-cpu, flash-lower-to-gpu). The model is
// upstream's mlir/examples/standalone/standalone-plugin.
//
//===----------------------------------------------------------------------===//

#include "flash/InitAllFlash.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/Compiler.h"

using namespace mlir;

/// Registers the passes once however the plugin is loaded (either flag, or
/// both): pass registration is global and refuses duplicates.
static void registerFlashPassesOnce() {
  static bool registered = [] {
    flash::registerAllFlashPasses();
    return true;
  }();
  (void)registered;
}

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Flash", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            flash::registerAllFlashDialects(*registry);
            registerFlashPassesOnce();
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "FlashPasses", LLVM_VERSION_STRING,
          registerFlashPassesOnce};
}
