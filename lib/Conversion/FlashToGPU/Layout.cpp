//===- Layout.cpp - Reading the tiles' layouts ---------------------------===//
//
// flash-to-gpu decides no layout: flash-assign-layouts wrote one on every
// tile value of the grid (the `#flash.frag` encoding of its tensor type),
// and the patterns read it here. checkLayouts refuses a grid whose tiles
// lack one (flash-assign-layouts did not run), put a computed tile in shared
// memory or a loaded one in registers, or name an MMA kind other than the
// one the grid's config compiles (the copies' swizzle, the shared-memory
// alignment and the fences follow the config); fragmentKind is the layout
// of a register tile.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

Fragment::Kind fragmentKind(Value v) {
  // checkLayouts saw a layout on every tile of the grid.
  FragAttr frag = FragAttr::of(v.getType());
  if (!frag || frag.getKind() == FragKind::Smem)
    return Fragment::Acc;
  return frag.getKind();
}

LogicalResult checkLayouts(GridOp grid) {
  MmaKind mma = grid.getConfig()->getWgmma() ? MmaKind::Wgmma : MmaKind::MmaSync;
  auto check = [&](Value v, Operation *where) -> LogicalResult {
    if (!isa<TensorType>(v.getType()))
      return success();
    FragAttr frag = FragAttr::of(v.getType());
    if (!frag)
      return where->emitOpError("flash-to-gpu: a tile without a #flash.frag "
                                "layout (")
             << v.getType() << "); run flash-assign-layouts first";
    // A tile load's tile is in shared memory (a backward grid's may be in
    // registers: flash-assign-layouts); every other tile (but a
    // tensor.empty, only a shape) in registers.
    bool load = isa_and_nonnull<TileLoadOp>(v.getDefiningOp());
    bool registerLoad = load && grid.getBackward() && !frag.isSmem();
    if (frag.isSmem() != load && !registerLoad &&
        !isa_and_nonnull<tensor::EmptyOp>(v.getDefiningOp()))
      return where->emitOpError("flash-to-gpu: layout ")
             << frag << (load ? " for a tile load (#flash.frag<smem, ...>)"
                              : " for a tile computed in registers");
    if (frag.getMma() != MmaKind::None && frag.getMma() != mma)
      return where->emitOpError("flash-to-gpu: layout ")
             << frag << " in a grid compiled for "
             << stringifyMmaKind(mma) << " (its #flash.config)";
    return success();
  };
  WalkResult walk = grid.getBody().walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (failed(check(r, op)))
        return WalkResult::interrupt();
    if (auto loop = dyn_cast<KVLoopOp>(op))
      for (Value arg : loop.getRegionIterArgs())
        if (failed(check(arg, op)))
          return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

} // namespace mlir::flash::gpu_kernel
