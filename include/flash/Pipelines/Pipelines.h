//===- Pipelines.h - The named flash pipelines ------------------*- C++ -*-===//
//
// The named pipelines that lower flash.attention end to end:
// flash-lower-to-cpu (tile-level passes, flash-tile-to-scf, bufferization,
// the host lowering to LLVM) and flash-lower-to-gpu (the same tile-level
// passes, flash-to-gpu, NVVM and gpu-module-to-binary). They sit above the
// dialect's passes and the conversions, which know nothing of them.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_PIPELINES_PIPELINES_H
#define FLASH_PIPELINES_PIPELINES_H

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::flash {

/// flash-plan, flash-tile, flash-online-softmax, bufferization and the
/// standard lowering to the LLVM dialect for the host CPU. `pm` must be
/// anchored on builtin.module; otherwise nothing is added, the reason goes to
/// `errorStream` and the result is failure.
LogicalResult buildFlashLowerToCPUPipeline(OpPassManager &pm,
                                           raw_ostream &errorStream = llvm::errs());

/// Options of the `flash-lower-to-gpu` pipeline. Checked as a whole by
/// verifyFlashGpuPipelineOptions before any pass is added.
struct FlashGpuPipelineOptions
    : public PassPipelineOptions<FlashGpuPipelineOptions> {
  Option<std::string> chip{
      *this, "chip",
      llvm::cl::desc("Target chip: sm_80, sm_86, sm_89, sm_90 or sm_90a "
                     "(warpgroup MMA); see Targets.h"),
      llvm::cl::init("sm_90")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("gpu-module-to-binary format: isa (PTX), bin (cubin), "
                     "fatbin"),
      llvm::cl::init("bin")};
  Option<double> splitMinEfficiency{
      *this, "split-min-efficiency",
      llvm::cl::desc("flash-split-kv's min-efficiency, in (0, 1] (FA2: 0.85)"),
      llvm::cl::init(0.85)};
  Option<int64_t> numSMs{
      *this, "num-sms",
      llvm::cl::desc("SMs of the target GPU for flash-plan and "
                     "flash-split-kv, 1 to 1024 (H100/H200 SXM: 132)"),
      llvm::cl::init(132)};
  Option<int64_t> producerRegs{
      *this, "producer-regs",
      llvm::cl::desc("flash-to-gpu's producer-regs: setmaxnreg of the "
                     "producer warpgroup beside 8 consumer warps, a multiple "
                     "of 8 in [24, 168]"),
      llvm::cl::init(64)};
  Option<bool> occupancy{
      *this, "occupancy",
      llvm::cl::desc("Run flash-occupancy before gpu-module-to-binary: more "
                     "programs an SM where ptxas then spills nothing (needs "
                     "ptxas; off by default)"),
      llvm::cl::init(false)};
  Option<int64_t> longCausalRows{
      *this, "long-causal-rows",
      llvm::cl::desc("flash-plan's long-causal-rows: a causal head-dim-128 "
                     "op without mods runs the producer config from this "
                     "many query rows on (a dynamic Sq: both kernels behind "
                     "a branch), >= 0, 0 never"),
      llvm::cl::init(2048)};
  Option<bool> keyBounds{
      *this, "key-bounds",
      llvm::cl::desc(
          "flash-plan's key-bounds (the config's key_bounds): KV blocks "
          "that a mask_mod's own key tests rule out are skipped "
          "and those they keep whole run no mask_mod"),
      llvm::cl::init(true)};
  Option<bool> uniformBlocks{
      *this, "uniform-blocks",
      llvm::cl::desc("flash-plan's uniform-blocks (the config's "
                     "uniform_blocks): a mask_mod conjunct "
                     "F(i) == G(j) (a document mask) decides per KV block, "
                     "in the program, whether it is skipped, run without "
                     "the conjunct or run element-wise"),
      llvm::cl::init(true)};
};

/// Checks every option of `options` (chip from getSupportedChips(), format,
/// numeric ranges); writes what is wrong, naming the accepted values, to
/// `errorStream`.
LogicalResult verifyFlashGpuPipelineOptions(const FlashGpuPipelineOptions &options,
                                            raw_ostream &errorStream);

/// flash-plan, flash-tile, bufferization of the tensor form, flash-to-gpu,
/// the NVVM lowering of the kernels, gpu-module-to-binary and the host
/// lowering to the LLVM dialect. Adds nothing and fails (the reason on
/// `errorStream`) when an option is invalid or `pm` is not anchored on
/// builtin.module.
LogicalResult
buildFlashLowerToGPUPipeline(OpPassManager &pm,
                             const FlashGpuPipelineOptions &options,
                             raw_ostream &errorStream = llvm::errs());

/// Registers the named pipelines (`flash-lower-to-cpu`,
/// `flash-lower-to-gpu`); a pipeline given bad options or nested where it
/// cannot run reports an error through the pipeline parser.
void registerFlashPipelines();

/// Registers the flash dialect and the dialect interfaces the named
/// pipelines use (bufferization and deallocation models, the NVVM target,
/// the LLVM IR translations), for a compiler that does not call
/// registerAllExtensions.
void registerFlashPipelineExtensions(DialectRegistry &registry);

} // namespace mlir::flash

#endif // FLASH_PIPELINES_PIPELINES_H
