//===- FlashPipelineKV.cpp - The K/V software pipeline as ops -------------===//
//
// flash-pipeline-kv: writes the software pipeline of the K/V blocks into
// each attention grid as flash.pipeline_* ops (FlashPipelineOps.td), from
// the grid's #flash.config (stages, producer). FA2 keeps `stages - 1` K/V
// blocks in flight ahead of the one the GEMMs read: a prologue issues
// them, and each iteration waits for its own block, then issues the block
// `stages - 1` ahead into the slot the previous iteration read. FA3's
// producer warpgroup instead streams all blocks through a ring guarded by
// full/empty mbarriers, and the consumers acquire and release each slot.
// flash-tile's peeled KV loops visit one contiguous run of blocks, so the
// ring position (the slot, and with a producer the full barriers' phase
// parity) is threaded through every loop as trailing iter_args, and "the
// block ahead" crosses from one loop into the next. The K/V tile loads name
// the slot they read; a drain after the loops frees shared memory for the
// epilogue.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHPIPELINEKV
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// `loop` with the pipeline state `state` (slot[, phase]) appended to its
/// iter_args and the iteration's pipeline ops around its body; returns the
/// new loop (the old one is erased).
KVLoopOp pipelineLoop(OpBuilder &b, KVLoopOp loop, ValueRange state,
                      ConfigAttr config) {
  Location loc = loop.getLoc();
  int64_t stages = config.getNumStages();
  bool producer = config.getProducer();
  SmallVector<Value> inits(loop.getInits());
  llvm::append_range(inits, state);
  SmallVector<Type> types(loop.getResultTypes());
  types.append(state.size(), b.getIndexType());
  b.setInsertionPoint(loop);
  auto newLoop = KVLoopOp::create(b, loc, types, loop.getLower(),
                                  loop.getUpper(), inits, loop.getRoleAttr(),
                                  loop.getReversedAttr());
  newLoop->setDiscardableAttrs(loop->getDiscardableAttrDictionary());
  newLoop.getBody().takeBody(loop.getBody());
  Block &body = newLoop.getBody().front();
  Value slot = body.addArgument(b.getIndexType(), loc);
  Value phase = producer ? body.addArgument(b.getIndexType(), loc) : Value();

  // Top of the iteration: this block is in its slot; the cp.async pipeline
  // also issues the block `stages - 1` ahead into the slot read last time.
  b.setInsertionPointToStart(&body);
  if (producer) {
    PipelineAcquireOp::create(b, loc, slot, phase);
  } else {
    PipelineWaitOp::create(b, loc, slot, stages - 2);
    PipelinePrefetchOp::create(b, loc, slot, stages - 1);
  }
  auto advance = PipelineAdvanceOp::create(b, loc, slot, phase);
  // The K/V tiles are the slot's.
  for (auto load : body.getOps<TileLoadOp>())
    load.getSlotMutable().assign(slot);
  // Bottom: with a producer, both GEMMs are done with the slot.
  Operation *yield = body.getTerminator();
  b.setInsertionPoint(yield);
  if (producer)
    PipelineReleaseOp::create(b, loc, slot);
  yield->insertOperands(yield->getNumOperands(), advance.getNext());

  loop.replaceAllUsesWith(
      newLoop.getResults().take_front(loop.getNumResults()));
  loop.erase();
  return newLoop;
}

struct FlashPipelineKVPass
    : flash::impl::FlashPipelineKVBase<FlashPipelineKVPass> {
  using Base::Base;

  LogicalResult pipelineGrid(GridOp grid);

  void runOnOperation() override {
    SmallVector<GridOp> grids;
    getOperation()->walk([&](GridOp grid) {
      if (!grid.getCombine() && grid.getConfig())
        grids.push_back(grid);
    });
    for (GridOp grid : grids)
      if (failed(pipelineGrid(grid)))
        return signalPassFailure();
  }
};

LogicalResult FlashPipelineKVPass::pipelineGrid(GridOp grid) {
  // A grid that has its pipeline already is left as it is (running the
  // pass twice is running it once); flash-to-gpu checks the ops.
  if (grid.getBody()
          .walk([](Operation *op) {
            return isPipelineOp(op) ? WalkResult::interrupt()
                                    : WalkResult::advance();
          })
          .wasInterrupted())
    return success();
  SmallVector<KVLoopOp> loops(grid.getBody().front().getOps<KVLoopOp>());
  if (loops.empty())
    return success();
  ConfigAttr config = *grid.getConfig();
  if (config.getNumStages() < 2)
    return grid.emitOpError("flash-pipeline-kv: a K/V pipeline needs at "
                            "least 2 stages (one slot read while the next "
                            "fills); the config has ")
           << config.getNumStages();
  for (KVLoopOp loop : loops) {
    auto loads = loop.getBody().front().getOps<TileLoadOp>();
    if (loads.empty())
      return loop.emitOpError("flash-pipeline-kv: a KV loop without K/V "
                              "tile loads has no blocks to pipeline");
    for (TileLoadOp load : loads)
      if (load.getSlot())
        return load.emitOpError("flash-pipeline-kv: this K/V load already "
                                "reads a pipeline slot, but the grid has no "
                                "pipeline ops");
  }

  OpBuilder b(loops.front());
  Location loc = grid.getLoc();
  SmallVector<Value> state;
  int64_t stages = config.getNumStages();
  Type index = b.getIndexType();
  if (config.getProducer())
    llvm::append_range(
        state,
        PipelineProducerOp::create(b, loc, index, index, stages)->getResults());
  else
    state.push_back(PipelinePrologueOp::create(b, loc, index, stages));
  KVLoopOp last;
  for (KVLoopOp loop : loops) {
    last = pipelineLoop(b, loop, state, config);
    state.assign(last.getResults().take_back(state.size()).begin(),
                 last.getResults().take_back(state.size()).end());
  }
  b.setInsertionPointAfter(last);
  PipelineDrainOp::create(b, loc);
  return success();
}

} // namespace
