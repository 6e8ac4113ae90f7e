//===- FlashMods.cpp - score_mod / mask_mod regions and captures ---------===//
//
// The verifiers of the score and mask modification regions: flash.attention's
// isolated `score_mod` / `mask_mod` with their `captures(...)` operands, and
// the non-isolated regions flash-tile gives flash.tile_update and
// flash.tile_grad. A region is a scalar function: its block arguments, its
// one flash.yield and the absence of memory writes, allocations and frees
// are checked here, each with a diagnostic at the op that names the region
// (invalid-mods.mlir tests each).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "AttentionVerifier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;
using namespace mlir::flash;

/// An op whose effects are unknown is refused too: it may do any of them.
LogicalResult mlir::flash::rules::verifyModRegion(Operation *op,
                                                   Region &region,
                                                   StringRef name,
                                                   TypeRange argTypes,
                                                   Type yieldType) {
  Block &block = region.front();
  if (block.getNumArguments() != argTypes.size())
    return op->emitOpError()
           << name << " region must have " << argTypes.size()
           << " block arguments (" << (name == "score_mod" ? "s, " : "")
           << "the positions and one per capture), got "
           << block.getNumArguments();
  for (auto [n, arg, type] : llvm::enumerate(block.getArguments(), argTypes))
    if (arg.getType() != type)
      return op->emitOpError() << name << " region argument #" << n
                               << " must have type " << type << ", got "
                               << arg.getType();
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield || yield.getValues().size() != 1 ||
      yield.getValues()[0].getType() != yieldType)
    return op->emitOpError() << name << " region must end in a flash.yield "
                             << "of one " << yieldType << " value";
  WalkResult walk = region.walk([&](Operation *inner) {
    if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(inner);
    bool readOnly = bool(iface);
    if (iface) {
      SmallVector<MemoryEffects::EffectInstance> effects;
      iface.getEffects(effects);
      readOnly = llvm::all_of(effects, [](const auto &e) {
        return isa<MemoryEffects::Read>(e.getEffect());
      });
    }
    if (readOnly)
      return WalkResult::advance();
    op->emitOpError() << name << " region must not write, allocate or free "
                      << "memory, but '" << inner->getName() << "' "
                      << (iface ? "does" : "has unknown memory effects");
    return WalkResult::interrupt();
  });
  return failure(walk.wasInterrupted());
}

LogicalResult AttentionOp::verifyRegions() {
  return rules::verifyModRegions(*this);
}

LogicalResult AttentionBackwardOp::verifyRegions() {
  return rules::verifyModRegions(*this);
}

LogicalResult TileUpdateOp::verifyRegions() {
  Builder b(getContext());
  Type index = b.getIndexType(), f32 = b.getF32Type();
  if (!getScoreMod().empty()) {
    if (!getLogits() && !getSoftcap())
      return emitOpError("a score_mod needs scores in logit units: set "
                         "'logits' (or 'softcap')");
    if (failed(rules::verifyModRegion(*this, getScoreMod(), "score_mod",
                               {f32, index, index}, f32)))
      return failure();
  }
  if (!getMaskMod().empty() &&
      failed(rules::verifyModRegion(*this, getMaskMod(), "mask_mod", {index, index},
                             b.getI1Type())))
    return failure();
  return success();
}

/// The same regions as tile_update's, always in logit units.
LogicalResult TileGradOp::verifyRegions() {
  Builder b(getContext());
  Type index = b.getIndexType(), f32 = b.getF32Type();
  if (!getScoreMod().empty() &&
      failed(rules::verifyModRegion(*this, getScoreMod(), "score_mod",
                                    {f32, index, index}, f32)))
    return failure();
  if (!getMaskMod().empty() &&
      failed(rules::verifyModRegion(*this, getMaskMod(), "mask_mod",
                                    {index, index}, b.getI1Type())))
    return failure();
  return success();
}
