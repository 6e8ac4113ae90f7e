//===- FlashPingpong.cpp - FA3's ping-pong turns of consumer warpgroups ---===//
//
// flash-pingpong: writes FA3's ping-pong schedule into each attention grid
// whose #flash.config has `pingpong = true`, as flash.pipeline_turn_* ops
// (FlashPipelineOps.td). With a producer warpgroup the two consumer
// warpgroups otherwise run freely and may reach the tensor cores together;
// taking turns (one issues {P V of the previous block, S of this one} while
// the other runs its softmax) overlaps one warpgroup's softmax, and any
// score or mask modification in it, with the other's GEMMs. The pass only
// places the turns; flash-to-gpu lowers them onto named barriers.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHPINGPONG
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// A GEMM's left operand in shared memory (Q of S = Q K^T) or in registers
/// (P of O += P V): flash-assign-layouts' #flash.frag says which.
bool leftInSharedMemory(linalg::MatmulOp matmul) {
  FragAttr frag = FragAttr::of(matmul.getInputs()[0].getType());
  return frag && frag.getKind() == FragKind::Smem;
}

struct FlashPingpongPass
    : flash::impl::FlashPingpongBase<FlashPingpongPass> {
  using Base::Base;

  LogicalResult scheduleGrid(GridOp grid);

  void runOnOperation() override {
    SmallVector<GridOp> grids;
    getOperation()->walk([&](GridOp grid) {
      if (!grid.getCombine() && grid.getConfig() &&
          grid.getConfig()->getPingpong())
        grids.push_back(grid);
    });
    for (GridOp grid : grids)
      if (failed(scheduleGrid(grid)))
        return signalPassFailure();
  }
};

LogicalResult FlashPingpongPass::scheduleGrid(GridOp grid) {
  Block &body = grid.getBody().front();
  if (!body.getOps<PipelineTurnStartOp>().empty())
    return success();
  SmallVector<KVLoopOp> loops(body.getOps<KVLoopOp>());
  if (loops.empty())
    return success();
  auto producers = body.getOps<PipelineProducerOp>();
  if (producers.empty())
    return loops.front().emitOpError(
        "flash-pingpong: the turns are taken within the producer "
        "warpgroup's K/V pipeline; run flash-pipeline-kv first");
  // Find every loop's two GEMMs before changing anything, so a refused
  // grid stays as it was.
  SmallVector<std::pair<linalg::MatmulOp, linalg::MatmulOp>> gemms;
  for (KVLoopOp loop : loops) {
    linalg::MatmulOp score, pv;
    int64_t numScore = 0, numPV = 0;
    for (auto matmul : loop.getBody().front().getOps<linalg::MatmulOp>()) {
      if (leftInSharedMemory(matmul))
        score = matmul, ++numScore;
      else
        pv = matmul, ++numPV;
    }
    if (numScore != 1 || numPV != 1 || !score->isBeforeInBlock(pv))
      return loop.emitOpError(
          "flash-pingpong: a KV loop takes turns around one score GEMM (left "
          "operand in shared memory) followed by one P V GEMM (left operand "
          "in registers); found ")
             << numScore << " and " << numPV
             << (numScore == 1 && numPV == 1 ? " in the other order" : "");
    gemms.push_back({score, pv});
  }

  Location loc = grid.getLoc();
  OpBuilder b(loops.front());
  PipelineTurnStartOp::create(b, loc);
  for (auto [score, pv] : gemms) {
    b.setInsertionPointAfter(score);
    PipelineTurnPassOp::create(b, loc);
    b.setInsertionPoint(pv);
    PipelineTurnWaitOp::create(b, loc);
  }
  b.setInsertionPointAfter(loops.back());
  PipelineTurnEndOp::create(b, loc);
  return success();
}

} // namespace
