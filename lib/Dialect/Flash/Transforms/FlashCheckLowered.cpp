//===- FlashCheckLowered.cpp - Nothing left above the LLVM dialect -------===//
//
// flash-check-lowered ends both named pipelines: it turns "the lowering left
// an op behind" from a module that only mlir-translate rejects (or that a
// JIT miscompiles) into an error at that op.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMTypes.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHCHECKLOWERED
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;

namespace {
struct FlashCheckLoweredPass
    : flash::impl::FlashCheckLoweredBase<FlashCheckLoweredPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    Operation *leftover = nullptr;
    module.walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::BinaryOp>(op))
        return WalkResult::skip();
      // The GPU dialect's LLVM IR translation launches kernels from this
      // op, once its operands are LLVM values.
      if (isa<gpu::LaunchFuncOp>(op) &&
          llvm::all_of(op->getOperandTypes(), LLVM::isCompatibleType))
        return WalkResult::advance();
      if (op == module.getOperation() || isa<ModuleOp>(op) ||
          isa_and_nonnull<LLVM::LLVMDialect>(op->getDialect()))
        return WalkResult::advance();
      bool isCast = isa<UnrealizedConversionCastOp>(op);
      if (!leftover || isa<UnrealizedConversionCastOp>(leftover))
        leftover = op;
      return isCast ? WalkResult::advance() : WalkResult::interrupt();
    });
    if (!leftover)
      return;
    leftover->emitError() << "'" << leftover->getName()
                          << "' is left after lowering to the LLVM dialect";
    signalPassFailure();
  }
};
} // namespace
