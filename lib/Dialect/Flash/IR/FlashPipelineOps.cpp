//===- FlashPipelineOps.cpp - flash K/V software pipeline ops -------------===//
//
// Verifiers and the advance op's syntax for the K/V pipeline ops
// (FlashPipelineOps.td). Each op checks itself against the #flash.config of
// the attention grid around it: the depth `stages` its attributes assume,
// and the mode (cp.async prefetch or a producer warpgroup's mbarrier ring)
// it belongs to. How the ops fit together across a grid (one prologue, a
// slot threaded through every KV loop, ...) is checked where they are
// lowered, by flash-to-gpu's checkPipeline. The ping-pong turn ops need a
// config with `pingpong = true`.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::flash;

bool mlir::flash::isPipelineOp(Operation *op) {
  return isa<PipelinePrologueOp, PipelineProducerOp, PipelineWaitOp,
             PipelinePrefetchOp, PipelineAcquireOp, PipelineReleaseOp,
             PipelineAdvanceOp, PipelineDrainOp, PipelineTurnStartOp,
             PipelineTurnPassOp, PipelineTurnWaitOp, PipelineTurnEndOp>(op);
}

/// The config of the attention grid around `op`, or an error at `op`.
static FailureOr<ConfigAttr> pipelineConfig(Operation *op) {
  auto grid = op->getParentOfType<GridOp>();
  if (!grid || grid.getCombine() || !grid.getConfig())
    return op->emitOpError("must be inside an attention flash.grid (one with "
                           "a #flash.config)");
  return *grid.getConfig();
}

/// Refuses `op` unless its grid's config is of the pipeline mode `producer`
/// (a producer warpgroup's mbarrier ring, or cp.async prefetch).
static FailureOr<ConfigAttr> checkMode(Operation *op, bool producer) {
  FailureOr<ConfigAttr> config = pipelineConfig(op);
  if (failed(config))
    return failure();
  if (config->getProducer() != producer)
    return op->emitOpError(producer ? "needs a grid whose config has a "
                                      "producer warpgroup (producer = true)"
                                    : "belongs to the cp.async pipeline; the "
                                      "grid's config has a producer "
                                      "warpgroup (producer = true)");
  if (config->getNumStages() < 2)
    return op->emitOpError("needs a pipeline of at least 2 stages; the "
                           "grid's config has ")
           << config->getNumStages();
  return config;
}

/// The start ops' `stages` must be at least 2 and the config's.
static LogicalResult checkStages(Operation *op, int64_t stages,
                                 bool producer) {
  if (stages < 2)
    return op->emitOpError("stages must be at least 2 (one slot being read, "
                           "one being filled), not ")
           << stages;
  FailureOr<ConfigAttr> config = checkMode(op, producer);
  if (failed(config))
    return failure();
  if (config->getNumStages() != stages)
    return op->emitOpError("stages = ")
           << stages << " differs from the grid config's "
           << config->getNumStages();
  return success();
}

LogicalResult PipelinePrologueOp::verify() {
  return checkStages(*this, getStages(), /*producer=*/false);
}

LogicalResult PipelineProducerOp::verify() {
  return checkStages(*this, getStages(), /*producer=*/true);
}

/// Refuses the cp.async op `op` unless its attribute `name` = `value` is in
/// [low, stages - back], with the stages of its grid's config. `value` is
/// the attribute's signed integer (its I64Attr getter would show a negative
/// one as a huge unsigned number).
static LogicalResult checkStageRange(Operation *op, StringRef name,
                                     IntegerAttr value, int64_t low,
                                     int64_t back) {
  FailureOr<ConfigAttr> config = checkMode(op, /*producer=*/false);
  if (failed(config))
    return failure();
  int64_t most = config->getNumStages() - back;
  int64_t v = value.getInt();
  if (v < low || v > most)
    return op->emitOpError()
           << name << " must be in [" << low << ", stages - " << back << " = "
           << most << "], not " << v;
  return success();
}

LogicalResult PipelineWaitOp::verify() {
  // More than stages - 2 pending groups would not include this block's.
  return checkStageRange(*this, "pending", getPendingAttr(), /*low=*/0,
                         /*back=*/2);
}

LogicalResult PipelinePrefetchOp::verify() {
  return checkStageRange(*this, "distance", getDistanceAttr(), /*low=*/1,
                         /*back=*/1);
}

LogicalResult PipelineAcquireOp::verify() {
  return checkMode(*this, /*producer=*/true);
}

LogicalResult PipelineReleaseOp::verify() {
  return checkMode(*this, /*producer=*/true);
}

LogicalResult PipelineDrainOp::verify() {
  return pipelineConfig(*this);
}

//===----------------------------------------------------------------------===//
// PipelineAdvanceOp
//===----------------------------------------------------------------------===//

void PipelineAdvanceOp::build(OpBuilder &builder, OperationState &state,
                              Value slot, Value phase) {
  state.addOperands(slot);
  if (phase)
    state.addOperands(phase);
  state.addTypes(SmallVector<Type>(phase ? 2 : 1, builder.getIndexType()));
}

ParseResult PipelineAdvanceOp::parse(OpAsmParser &parser,
                                     OperationState &result) {
  Type index = parser.getBuilder().getIndexType();
  OpAsmParser::UnresolvedOperand slot, phase;
  bool hasPhase = false;
  if (parser.parseOperand(slot) ||
      parser.resolveOperand(slot, index, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("phase"))) {
    hasPhase = true;
    if (parser.parseOperand(phase) ||
        parser.resolveOperand(phase, index, result.operands))
      return failure();
  }
  if (parser.parseOptionalAttrDict(result.attributes))
    return failure();
  result.addTypes(SmallVector<Type>(hasPhase ? 2 : 1, index));
  return success();
}

void PipelineAdvanceOp::print(OpAsmPrinter &p) {
  p << ' ' << getSlot();
  if (Value phase = getPhase())
    p << " phase " << phase;
  p.printOptionalAttrDict((*this)->getAttrs());
}

LogicalResult PipelineAdvanceOp::verify() {
  FailureOr<ConfigAttr> config = pipelineConfig(*this);
  if (failed(config))
    return failure();
  bool producer = config->getProducer();
  if (bool(getPhase()) != producer)
    return emitOpError(producer ? "needs the phase with a producer warpgroup "
                                  "(the full barriers' parity advances too)"
                                : "takes no phase without a producer "
                                  "warpgroup");
  if (getNext().size() != (producer ? 2u : 1u))
    return emitOpError("gives the next slot") << (producer ? " and phase" : "");
  return success();
}

/// A turn op needs a grid config with `pingpong = true` (whose verifier
/// already requires the producer warpgroup and two consumer warpgroups).
static LogicalResult checkTurn(Operation *op) {
  FailureOr<ConfigAttr> config = pipelineConfig(op);
  if (failed(config))
    return failure();
  if (!config->getPingpong())
    return op->emitOpError("needs a grid whose config has pingpong = true");
  return success();
}

LogicalResult PipelineTurnStartOp::verify() { return checkTurn(*this); }
LogicalResult PipelineTurnPassOp::verify() { return checkTurn(*this); }
LogicalResult PipelineTurnWaitOp::verify() { return checkTurn(*this); }
LogicalResult PipelineTurnEndOp::verify() { return checkTurn(*this); }
