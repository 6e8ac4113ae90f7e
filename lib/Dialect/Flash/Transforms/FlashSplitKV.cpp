//===- FlashSplitKV.cpp - Flash-Decoding's split-KV rewrite ---------------===//
//
// flash-split-kv: when the (batch, head, query block) programs of an
// attention cannot fill the GPU (decode: one query block per head), the KV
// axis is split too. The attention becomes a partial attention whose grid
// gains a split axis and writes f32 O/LSE per split into scratch buffers,
// followed by flash.combine, which merges them by logsumexp. The split
// count is fixed by the config or chosen at run time by FlashAttention-2's
// num_splits_heuristic, emitted as host IR.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Target/Targets.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHSPLITKV
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

struct FlashSplitKVPass : flash::impl::FlashSplitKVBase<FlashSplitKVPass> {
  using Base::Base;

  void runOnOperation() override {
    Operation *root = getOperation();
    if (failed(checkOptionRange(root, "flash-split-kv", "num-sms", numSMs, 1,
                                1024)) ||
        failed(checkOptionRange(root, "flash-split-kv", "ctas-per-sm",
                                ctasPerSM, 0, 64)) ||
        failed(checkOptionRange(root, "flash-split-kv", "smem-kb",
                                smemPerBlockKB, 1, 1024)))
      return signalPassFailure();
    // Written so that NaN fails too.
    if (!(minEfficiency > 0.0 && minEfficiency <= 1.0)) {
      root->emitError() << "flash-split-kv: min-efficiency must be in (0, 1], "
                           "not "
                        << double(minEfficiency);
      return signalPassFailure();
    }
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      ConfigAttr config = op.getConfigAttr();
      if (config && config.getNumSplits() != 1 && !op.isPartial())
        ops.push_back(op);
    });
    for (AttentionOp op : ops)
      if (failed(split(op)))
        return signalPassFailure();
  }

  LogicalResult split(AttentionOp op);
  /// FA2's num_splits_heuristic on run-time sizes (flash_api.cpp).
  Value emitHeuristic(OpBuilder &b, Location loc, Value work, Value nBlocks,
                      int64_t slots);
  /// Programs one SM holds at once, for the wave arithmetic.
  int64_t residentPerSM(AttentionOp op, ConfigAttr config);
};

int64_t FlashSplitKVPass::residentPerSM(AttentionOp op, ConfigAttr config) {
  if (ctasPerSM > 0)
    return ctasPerSM;
  AttentionShape s = op.getShape();
  int64_t bytes =
      cast<ShapedType>(op.getQuery().getType()).getElementTypeBitWidth() / 8;
  int64_t smem = (config.getBlockM() * s.headDim +
                  config.getNumStages() * config.getBlockN() *
                      (s.headDim + s.headDimV)) *
                 bytes;
  // The register file (64K) bounds it too, at FA2's 255 registers/thread.
  int64_t byRegs = 65536 / (255 * 32 * config.getNumWarps());
  return std::max<int64_t>(
      1, std::min(smemPerBlockKB * 1024 / std::max<int64_t>(smem, 1),
                  std::max<int64_t>(byRegs, 1)));
}

Value FlashSplitKVPass::emitHeuristic(OpBuilder &b, Location loc, Value work,
                                      Value nBlocks, int64_t slots) {
  Type f32 = b.getF32Type();
  auto ci = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  auto cf = [&](float v) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  };
  auto toF = [&](Value i) -> Value {
    Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), i);
    return arith::SIToFPOp::create(b, loc, f32, i64);
  };
  auto cmpi = [&](arith::CmpIPredicate p, Value x, Value y) -> Value {
    return arith::CmpIOp::create(b, loc, p, x, y);
  };
  // max_splits = min(128, slots, n_blocks).
  Value maxSplits = arith::MinSIOp::create(
      b, loc, arith::MinSIOp::create(b, loc, ci(128), ci(slots)), nBlocks);
  // Wave efficiency of `s` splits, 0 for splits that are not eligible
  // (same blocks per split as s - 1: the same split count in effect).
  // Emitted with `b` (positioned in the loop body by the caller).
  auto efficiency = [&](Value s) -> Value {
    Value per = arith::CeilDivSIOp::create(b, loc, nBlocks, s);
    Value prev = arith::CeilDivSIOp::create(
        b, loc, nBlocks,
        arith::MaxSIOp::create(b, loc, arith::SubIOp::create(b, loc, s, ci(1)),
                               ci(1)));
    Value eligible = arith::OrIOp::create(
        b, loc, cmpi(arith::CmpIPredicate::eq, s, ci(1)),
        cmpi(arith::CmpIPredicate::ne, per, prev));
    Value waves = arith::DivFOp::create(
        b, loc, toF(arith::MulIOp::create(b, loc, work, s)), cf(float(slots)));
    Value eff =
        arith::DivFOp::create(b, loc, waves, math::CeilOp::create(b, loc, waves));
    return arith::SelectOp::create(b, loc, eligible, eff, cf(0.0f));
  };
  // scf.for s = 1 .. max_splits carrying one value; `step` gets s, its
  // efficiency and the carried value, and returns the next one.
  Value upper = arith::AddIOp::create(b, loc, maxSplits, ci(1));
  auto overSplits = [&](Value init,
                        function_ref<Value(Value, Value, Value)> step) {
    return scf::ForOp::create(
               b, loc, ci(1), upper, ci(1), ValueRange{init},
               [&](OpBuilder &nb, Location, Value s, ValueRange args) {
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPoint(nb.getInsertionBlock(),
                                     nb.getInsertionPoint());
                 scf::YieldOp::create(
                     b, loc, ValueRange{step(s, efficiency(s), args[0])});
               })
        .getResult(0);
  };
  Value best = overSplits(cf(0.0f), [&](Value, Value e, Value acc) -> Value {
    return arith::MaximumFOp::create(b, loc, e, acc);
  });
  Value threshold =
      arith::MulFOp::create(b, loc, best, cf(float(minEfficiency)));
  // The smallest eligible s reaching the threshold: the first hit is kept
  // (0 = none yet).
  Value picked = overSplits(ci(0), [&](Value s, Value e, Value acc) -> Value {
    Value good = arith::AndIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, e, threshold),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, e,
                              cf(0.0f)));
    Value first = arith::AndIOp::create(
        b, loc, good, cmpi(arith::CmpIPredicate::eq, acc, ci(0)));
    return arith::SelectOp::create(b, loc, first, s, acc);
  });
  Value chosen = arith::MaxSIOp::create(b, loc, picked, ci(1));
  if (!fullWaveShortcut)
    return chosen;
  // FA2: enough programs already (>= 80 % of a wave): no split.
  Value full = cmpi(arith::CmpIPredicate::sge,
                    arith::MulIOp::create(b, loc, work, ci(5)),
                    ci(4 * slots));
  return arith::SelectOp::create(b, loc, full, ci(1), chosen);
}

LogicalResult FlashSplitKVPass::split(AttentionOp op) {
  if (!op.hasPureBufferSemantics())
    return op.emitOpError("flash-split-kv: the tensor form is not split; "
                          "bufferize first (memref form)");
  ConfigAttr config = op.getConfigAttr();
  int64_t fixed = config.getNumSplits();
  if (fixed < 0)
    return op.emitOpError("flash-split-kv: splits must be >= 0, got ")
           << fixed;
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto ci = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value q = op.getQuery(), k = op.getKey();
  auto dim = [&](Value v, int64_t i) -> Value {
    return memref::DimOp::create(b, loc, v, i);
  };

  Value numSplits;
  if (fixed > 0) {
    numSplits = ci(fixed);
  } else {
    // Run-time choice from the sizes of this call.
    Value mBlocks = arith::CeilDivSIOp::create(b, loc, dim(q, kSeqPos),
                                               ci(config.getBlockM()));
    Value work = arith::MulIOp::create(
        b, loc, arith::MulIOp::create(b, loc, dim(q, kBatchPos),
                                      dim(q, kHeadsPos)),
        mBlocks);
    Value seqK = dim(k, kSeqPos);
    if (Value table = op.getBlockTable())
      seqK = arith::MulIOp::create(b, loc, dim(table, 1), seqK);
    Value nBlocks =
        arith::CeilDivSIOp::create(b, loc, seqK, ci(config.getBlockN()));
    int64_t slots = numSMs * residentPerSM(op, config);
    numSplits = emitHeuristic(b, loc, work, nBlocks, slots);
  }

  // The partial path: scratch O_part/LSE_part, the partial attention, the
  // combine. Static sizes stay static.
  auto emitSplit = [&](OpBuilder &nb) {
    Type f32 = nb.getF32Type();
    Value o = op.getOutput();
    SmallVector<int64_t> oShape = {fixed > 0 ? fixed : ShapedType::kDynamic};
    llvm::append_range(oShape, cast<MemRefType>(o.getType()).getShape());
    SmallVector<Value> oDyn;
    if (fixed == 0)
      oDyn.push_back(numSplits);
    for (int64_t i = 0; i < 4; ++i)
      if (ShapedType::isDynamic(oShape[i + 1]))
        oDyn.push_back(memref::DimOp::create(nb, loc, o, i));
    auto partType = MemRefType::get(oShape, f32);
    auto lseType = MemRefType::get(ArrayRef<int64_t>(oShape).drop_back(), f32);
    SmallVector<Value> lseDyn(oDyn);
    if (ShapedType::isDynamic(oShape.back()))
      lseDyn.pop_back();
    Value part = WorkspaceOp::create(nb, loc, partType, oDyn);
    Value partLse = WorkspaceOp::create(nb, loc, lseType, lseDyn);
    // The clone keeps every operand, a block_mask hint included: flash-tile
    // narrows a program's ranges by the hint first, then clips them to the
    // split's blocks.
    auto partial = cast<AttentionOp>(nb.clone(*op));
    partial.getOutsMutable().assign(ValueRange{part, partLse});
    // No dealloc here: each target lowers flash.workspace to its own
    // allocation and frees it (see the op).
    CombineOp::create(nb, loc, part, partLse, op.getOuts());
  };

  if (fixed > 0) {
    emitSplit(b);
  } else {
    // S = 1: the plain attention, no scratch and no combine.
    Value one = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                      numSplits, ci(1));
    auto ifOp = scf::IfOp::create(b, loc, one, /*withElse=*/true);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    auto whole = cast<AttentionOp>(tb.clone(*op));
    whole.setConfigAttr(config.withNumSplits(1));
    OpBuilder eb = ifOp.getElseBodyBuilder();
    emitSplit(eb);
  }
  op.erase();
  ++numSplit;
  return success();
}

} // namespace
