//===- FlashTile.cpp - The FlashAttention-2 grid and KV loop --------------===//
//
// flash-tile: rewrites flash.attention into FA2's structure. One program per
// (Q row block, query head, batch) in an scf.parallel grid; per program the
// Q block is read once and K/V blocks stream through a loop whose bounds are
// clipped to the blocks the causal/window mask can reach. The blocks that
// need an element mask (the diagonal band, the ragged last block, the left
// window edge) are peeled into loops of their own so that the main loop's
// updates carry no mask (FA2 flash_fwd_kernel.h: n_masking_steps).
//
//===----------------------------------------------------------------------===//

#include "TileBackward.h"
#include "TileMods.h"
#include "UniformBlocks.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Utils/MaskKeys.h"
#include "flash/Dialect/Flash/Utils/ModDerivative.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHTILE
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// The block-mask hint of the program whose rows start at `row0`: the hint
/// rows it covers, row0 / QB to min(row0 + BM - 1, Sq - 1) / QB, combined
/// (combineHints). A static unroll over the most rows a program can cover,
/// ceil((BM - 1) / QB) + 1, with the row index clamped to the last one; a
/// static 1 in the hint's batch or head dim broadcasts.
HintKeys<Value> loadProgramHint(IndexBuilder &ib, Value hint, int64_t qb,
                                int64_t bm, Value batch, Value head,
                                Value row0, Value seqQ) {
  auto type = cast<MemRefType>(hint.getType());
  Value bIdx = type.getDimSize(0) == 1 ? ib.c(0) : batch;
  Value hIdx = type.getDimSize(1) == 1 ? ib.c(0) : head;
  Value first = ib.floorDiv(row0, ib.c(qb));
  Value last = ib.floorDiv(lastRow(ib, row0, bm, seqQ), ib.c(qb));
  auto load = [&](Value row, int64_t field) -> Value {
    Value v = memref::LoadOp::create(ib.b, ib.loc, hint,
                                     ValueRange{bIdx, hIdx, row, ib.c(field)});
    return arith::IndexCastOp::create(ib.b, ib.loc, ib.b.getIndexType(), v);
  };
  int64_t rows = llvm::divideCeil(bm - 1, qb) + 1;
  HintKeys<Value> hintKeys;
  for (int64_t u = 0; u < rows; ++u) {
    Value row = u == 0 ? first : ib.min(ib.add(first, ib.c(u)), last);
    HintKeys<Value> next = {load(row, 0), load(row, 1), load(row, 2),
                            load(row, 3)};
    hintKeys = u == 0 ? next : combineHints(ib, hintKeys, next);
  }
  return hintKeys;
}

struct FlashTilePass : flash::impl::FlashTileBase<FlashTilePass> {
  using Base::Base;

  void runOnOperation() override {
    // The backward: its score_mod's derivative first (the user's to fix,
    // reported at the op without one), then FA2's backward grids.
    SmallVector<AttentionBackwardOp> backward;
    getOperation()->walk(
        [&](AttentionBackwardOp op) { backward.push_back(op); });
    for (AttentionBackwardOp op : backward)
      if ((!op.getScoreMod().empty() &&
           failed(checkDifferentiable(op.getScoreMod(), op))) ||
          failed(tileBackward(op)))
        return signalPassFailure();
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops)
      if (failed(tile(op)))
        return signalPassFailure();
    SmallVector<CombineOp> combines;
    getOperation()->walk([&](CombineOp op) { combines.push_back(op); });
    for (CombineOp op : combines)
      tileCombine(op);
  }

  LogicalResult tile(AttentionOp op);
  /// flash.combine as its own grid: one program per (row, head, batch), the
  /// head-dim loop inside it a nested scf.parallel (threads on the GPU).
  void tileCombine(CombineOp op);
  /// Moves the tensor form onto buffers (to_buffer / alloc / to_tensor) so
  /// that tiling has one form to handle.
  FailureOr<AttentionOp> toBufferForm(IRRewriter &rewriter, AttentionOp op);
  /// Masked and unmasked KV iterations over the whole grid, when the shape
  /// is static.
  /// (`keyBounded`: the op's mask_mod has key bounds flash-tile uses,
  /// whose blocks depend on data, as a hint's do.)
  std::optional<std::pair<int64_t, int64_t>>
  countStaticIterations(AttentionOp op, ConfigAttr config, bool keyBounded);
};

FailureOr<AttentionOp> FlashTilePass::toBufferForm(IRRewriter &rewriter,
                                                   AttentionOp op) {
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  auto toBuffer = [&](Value tensor) {
    return readOnlyBuffer(rewriter, loc, tensor);
  };
  Value q = toBuffer(op.getQuery()), k = toBuffer(op.getKey()),
        v = toBuffer(op.getValue());
  Value lens = toBuffer(op.getKvLens()), table = toBuffer(op.getBlockTable());
  Value slopes = toBuffer(op.getAlibiSlopes()),
        hint = toBuffer(op.getBlockMask());
  SmallVector<Value> captures = llvm::map_to_vector(op.getCaptures(), toBuffer);
  // Output buffers, sized from the dims of Q (batch, heads, seq).
  SmallVector<Value> sizesFrom(op->getNumResults(), q);
  SmallVector<Value> outs = allocResults(rewriter, op, sizesFrom);
  auto bufferOp = AttentionOp::create(
      rewriter, loc, TypeRange(), q, k, v, slopes, lens, table,
      /*cu_seqlens_q=*/Value(), /*cu_seqlens_k=*/Value(), hint, captures,
      outs, op.getScaleAttr(),
      op.getCausalAttr(), op.getWindowAttr(), op.getSoftcapAttr(),
      op.getConfigAttr(), op.getBlockMaskRowsAttr());
  if (failed(moveModsToBuffers(rewriter, op, bufferOp))) {
    rewriter.eraseOp(bufferOp);
    return failure();
  }
  replaceByBuffers(rewriter, op, outs);
  return bufferOp;
}

std::optional<std::pair<int64_t, int64_t>>
FlashTilePass::countStaticIterations(AttentionOp op, ConfigAttr config,
                                     bool keyBounded) {
  AttentionShape s = op.getShape();
  if (op.getKvLens() || op.getBlockMask() || op.isPartial() || keyBounded ||
      ShapedType::isDynamic(s.batch) || ShapedType::isDynamic(s.headsQ) ||
      ShapedType::isDynamic(s.seqQ) || ShapedType::isDynamic(s.seqK))
    return std::nullopt;
  MaskBounds mask = MaskBounds::get(op);
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  // The count loops over the query blocks: beyond 2^20 of them (a static
  // Sq of 2^40 would take hours) the counts are left out, and products that
  // would overflow int64 too.
  if (llvm::divideCeil(s.seqQ, bm) > (int64_t(1) << 20))
    return std::nullopt;
  int64_t masked = 0, unmasked = 0;
  for (int64_t row0 = 0; row0 < s.seqQ; row0 += bm) {
    IntArith ints;
    KVRanges<int64_t> r = kvRanges(ints, mask, bm, bn, row0, s.seqQ, s.seqK);
    masked += (r.lEnd - r.nMin) + (r.nMax - r.rStart);
    unmasked += r.rStart - r.lEnd;
  }
  std::optional<int64_t> programs = llvm::checkedMul(s.batch, s.headsQ);
  std::optional<int64_t> m = programs ? llvm::checkedMul(masked, *programs)
                                      : std::nullopt;
  std::optional<int64_t> u = programs ? llvm::checkedMul(unmasked, *programs)
                                      : std::nullopt;
  if (!m || !u)
    return std::nullopt;
  masked = *m;
  unmasked = *u;
  numMaskedIterations += masked;
  numUnmaskedIterations += unmasked;
  return std::make_pair(masked, unmasked);
}

LogicalResult FlashTilePass::tile(AttentionOp op) {
  if (op.getCuSeqlensQ())
    return op.emitOpError("flash-tile does not lower 'cu_seqlens' yet");
  ConfigAttr config = op.getConfigAttr();
  if (!config)
    return op.emitOpError("has no #flash.config: run flash-plan first or "
                          "write one by hand");
  if (config.getNumSplits() != 1 && !op.isPartial())
    return op.emitOpError("has splits = ")
           << config.getNumSplits()
           << " in its #flash.config: run flash-split-kv before flash-tile";

  IRRewriter rewriter(op.getContext());
  if (!op.hasPureBufferSemantics()) {
    FailureOr<AttentionOp> bufferOp = toBufferForm(rewriter, op);
    if (failed(bufferOp))
      return failure();
    op = *bufferOp;
  }
  // Without a hint, a mask_mod whose own key tests bound the keys gives
  // the hint they prove, at the program's first and last valid row.
  std::optional<MaskKeyBounds> derived;
  if (!op.getBlockMask() && config.getKeyBounds())
    derived = MaskKeyBounds::analyze(op);
  // Without a hint, a mask_mod with a conjunct F(i) == G(j) (a document
  // mask) has its blocks classified in the program (UniformBlocks.h) when
  // the config asks for it (never with FA3's ping-pong turns, which
  // flash-pingpong places around the GEMMs of the loop body itself).
  std::optional<UniformKeyTest> uniform;
  if (!op.getBlockMask() && config.getUniformBlocks())
    uniform = UniformKeyTest::analyze(op);
  std::optional<std::pair<int64_t, int64_t>> iterations =
      countStaticIterations(op, config,
                            derived.has_value() || uniform.has_value());

  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  IndexBuilder ib{rewriter, loc};
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  MaskBounds mask = MaskBounds::get(op);
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value out = op.getOutput(), lse = op.getLse();
  AttentionShape shape = op.getShape();
  float scale = op.getEffectiveScale();

  Value batch = ib.dim(q, kBatchPos), headsQ = ib.dim(q, kHeadsPos);
  Value seqQ = ib.dim(q, kSeqPos), seqK = ib.dim(k, kSeqPos);
  Value table = op.getBlockTable(), lens = op.getKvLens();
  // Paged: the capacity is pages per sequence times the page size.
  if (table)
    seqK = ib.mul(ib.dim(table, 1), ib.dim(k, kSeqPos));
  bool partial = op.isPartial();
  Value group = ib.divui(headsQ, ib.dim(k, kHeadsPos));
  Value numMBlocks = ib.ceilDiv(seqQ, ib.c(bm));
  Type f32 = rewriter.getF32Type();
  auto accType = RankedTensorType::get({bm, shape.headDimV}, f32);
  auto rowType = RankedTensorType::get({bm}, f32);

  // The grid: one program per (Q row block, query head, batch), as FA2's
  // dim3 grid(num_m_block, b, h).
  // Split-KV adds a fourth axis: the split.
  SmallVector<Value> gridUb = {numMBlocks, headsQ, batch};
  if (partial)
    gridUb.push_back(ib.dim(out, 0));
  auto grid = GridOp::create(rewriter, loc, gridUb, lens, op.getBlockMask());
  grid.setConfigAttr(config);
  // What the grid computes, for the artifact's ABI record.
  grid.setCausal(op.getCausal());
  grid.setWindowAttr(op.getWindowAttr());
  grid.setScaleAttr(rewriter.getF32FloatAttr(scale));
  grid.setSoftcapAttr(op.getSoftcapAttr());
  grid.setBlockMaskRowsAttr(op.getBlockMaskRowsAttr());
  // Pass statistics are compiled out of no-assert LLVM builds (Debian's),
  // so the static counts are also recorded on the grid for users and tests.
  if (iterations) {
    grid.setMaskedIterationsAttr(rewriter.getI64IntegerAttr(iterations->first));
    grid.setUnmaskedIterationsAttr(
        rewriter.getI64IntegerAttr(iterations->second));
  }
  rewriter.setInsertionPointToStart(&grid.getBody().front());
  Value mBlock = grid.getInductionVars()[0];
  Value head = grid.getInductionVars()[1];
  Value b = grid.getInductionVars()[2];
  Value split = partial ? grid.getInductionVars()[3] : Value();
  // GQA/MQA: query head h reads KV head h / (Hq / Hkv).
  Value kvHead = ib.divui(head, group);
  Value row0 = ib.mul(mBlock, ib.c(bm));
  // KV-cache lengths: this sequence's keys are [0, kv_lens[b]), clamped to
  // the cache so a bad length cannot read past it.
  if (lens) {
    Value len = arith::IndexCastOp::create(
        rewriter, loc, rewriter.getIndexType(),
        memref::LoadOp::create(rewriter, loc, lens, ValueRange{b}));
    seqK = ib.min(ib.max(len, ib.c(0)), seqK);
  }

  // The Q block stays on chip for the whole KV loop.
  auto tileOf = [&](Value src, int64_t rows) {
    return RankedTensorType::get(
        {rows, cast<MemRefType>(src.getType()).getDimSize(kDimPos)},
        cast<MemRefType>(src.getType()).getElementType());
  };
  Value qBlock =
      TileLoadOp::create(rewriter, loc, tileOf(q, bm), TileRole::Q, q, b, head,
                         row0, seqQ, /*block_table=*/Value(),
                         /*slot=*/Value());

  // Online-softmax state: acc = 0, m = -inf, l = 0.
  auto fill = [&](RankedTensorType type, float value) -> Value {
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), f32);
    Value cst = arith::ConstantOp::create(rewriter, loc,
                                          rewriter.getF32FloatAttr(value));
    return linalg::FillOp::create(rewriter, loc, cst, empty).getResult(0);
  };
  SmallVector<Value> state = {
      fill(accType, 0.0f),
      fill(rowType, -std::numeric_limits<float>::infinity()),
      fill(rowType, 0.0f)};

  KVRanges<Value> ranges = kvRanges(ib, mask, bm, bn, row0, seqQ, seqK);
  // The block mask narrows the blocks to visit and widens the mask-free
  // main loop to the blocks its hint says the mask_mod keeps whole (or the
  // mask_mod's own key bounds, `derived`, say so).
  Value hint = op.getBlockMask();
  // The ranges without the hint: its blocks are whole for causal, window and
  // the key bound.
  KVRanges<Value> free = ranges;
  if (hint) {
    ranges = applyBlockMask(
        ib, ranges,
        loadProgramHint(ib, hint, int64_t(*op.getBlockMaskRows()), bm, b,
                        head, row0, seqQ),
        bn);
  } else if (derived) {
    SmallVector<Value> args = {b, head};
    llvm::append_range(args, op.getCaptures());
    ranges = applyBlockMask(
        ib, ranges,
        derived->emit(ib, args, row0, lastRow(ib, row0, bm, seqQ), seqK), bn);
  }
  if (partial) {
    // Split s owns blocks [s * per, (s + 1) * per) of the sequence's
    // ceil(Sk / BN) blocks, per = ceil(blocks / S) (FA2's n_blocks_per_split);
    // every range is clipped to it, so masks and peeling are unchanged.
    Value blocks = ib.ceilDiv(seqK, ib.c(bn));
    Value per = ib.ceilDiv(blocks, gridUb.back());
    Value lo = ib.mul(split, per);
    Value hi = ib.min(ib.add(lo, per), blocks);
    auto clip = [&](Value x) { return ib.max(lo, ib.min(x, hi)); };
    ranges = {clip(ranges.nMin), clip(ranges.lEnd), clip(ranges.rStart),
              clip(ranges.nMax)};
  }

  // The rows' range of the uniform-block test, once per program, and the
  // hint the keys give (one scan of the program's keys): the blocks outside
  // its visible interval are not visited, those inside its full one run
  // without a mask when the conjunct is the whole mask_mod (else the rest
  // of it must still be evaluated there, and the blocks of the interval are
  // decided one by one, each run without the conjunct where it holds).
  SmallVector<Value> modArgs = {b, head};
  llvm::append_range(modArgs, op.getCaptures());
  std::optional<UniformKeyTest::Rows> rowRange;
  if (uniform) {
    rowRange = uniform->emitRows(rewriter, loc, modArgs, row0, bm, seqQ);
    Value keyLo = ib.mul(ranges.nMin, ib.c(bn));
    Value keyHi = ib.min(ib.mul(ranges.nMax, ib.c(bn)), seqK);
    HintKeys<Value> keys =
        uniform->emitScan(rewriter, loc, modArgs, *rowRange, keyLo, keyHi,
                          /*full=*/uniform->isWholeMask());
    ranges = applyBlockMask(ib, ranges, keys, bn);
  }

  // ALiBi and score_mod act on the logit: the tile ops then keep scores in
  // logit units (c = 1), as softcap does.
  UnitAttr logits = needsLogits(op) ? rewriter.getUnitAttr() : UnitAttr();

  // One KV loop over the blocks [lb, ub), right to left when `reversed`.
  auto emitLoop = [&](Value lb, Value ub, bool masked, bool withMaskMod,
                      bool reversed, KVLoopRole role) {
    SmallVector<Type> stateTypes = {accType, rowType, rowType};
    auto loop = KVLoopOp::create(rewriter, loc, stateTypes, lb, ub, state,
                                 KVLoopRoleAttr::get(rewriter.getContext(), role),
                                 reversed ? rewriter.getUnitAttr() : UnitAttr());
    Block *body = new Block();
    loop.getBody().push_back(body);
    body->addArgument(rewriter.getIndexType(), loc);
    for (Type t : stateTypes)
      body->addArgument(t, loc);
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(body);
    IndexBuilder lib{rewriter, loc};
    ValueRange args = loop.getRegionIterArgs();
    Value col0 = lib.mul(loop.getBlockIndex(), lib.c(bn));
    Value kBlock = TileLoadOp::create(rewriter, loc, tileOf(k, bn), TileRole::K,
                                      k, b, kvHead, col0, seqK, table,
                                      /*slot=*/Value());
    Value vBlock = TileLoadOp::create(rewriter, loc, tileOf(v, bn), TileRole::V,
                                      v, b, kvHead, col0, seqK, table,
                                      /*slot=*/Value());
    auto makeUpdate = [&](bool withMod) {
      auto update = TileUpdateOp::create(
          rewriter, loc, TypeRange{accType, rowType, rowType}, qBlock, kBlock,
          vBlock, args[0], args[1], args[2], row0, col0, seqQ, seqK,
          rewriter.getF32FloatAttr(scale), op.getCausalAttr(),
          op.getWindowAttr(), op.getSoftcapAttr(),
          masked ? rewriter.getUnitAttr() : UnitAttr(), logits);
      buildTileMods(rewriter, op, update, {b, head, seqQ, seqK}, withMod);
      return update;
    };
    // When the conjunct is the whole mask_mod, the scan's hint already took
    // every block it decides whole or empty out of these runs (for sorted
    // ids; unsorted ones only get no decision) and the rest are decided
    // element by element: no per-block test.
    if (!uniform || !withMaskMod || uniform->isWholeMask()) {
      YieldOp::create(rewriter, loc, makeUpdate(withMaskMod).getResults());
    } else {
      // A block the test rules out contributes nothing (the mask is an and
      // of it); one it keeps whole runs the mask_mod without it.
      UniformKeyTest::Blocks cls = uniform->emitBlock(
          rewriter, loc, modArgs, *rowRange, col0, bn, seqK);
      auto skip = scf::IfOp::create(rewriter, loc, TypeRange(stateTypes),
                                    cls.empty, /*withElseRegion=*/true);
      rewriter.setInsertionPointToStart(&skip.getThenRegion().front());
      scf::YieldOp::create(rewriter, loc, args.take_front(3));
      rewriter.setInsertionPointToStart(&skip.getElseRegion().front());
      auto whole = scf::IfOp::create(rewriter, loc, TypeRange(stateTypes),
                                     cls.full, /*withElseRegion=*/true);
      scf::YieldOp::create(rewriter, loc, whole.getResults());
      rewriter.setInsertionPointToStart(&whole.getThenRegion().front());
      TileUpdateOp kept = makeUpdate(!uniform->isWholeMask());
      if (!uniform->isWholeMask())
        uniform->dropFrom(kept.getMaskMod());
      scf::YieldOp::create(rewriter, loc, kept.getResults());
      rewriter.setInsertionPointToStart(&whole.getElseRegion().front());
      scf::YieldOp::create(rewriter, loc, makeUpdate(true).getResults());
      rewriter.setInsertionPointAfter(skip);
      YieldOp::create(rewriter, loc, skip.getResults());
    }
    (masked ? numMaskedLoops : numUnmaskedLoops) += 1;
    state = loop.getResults();
  };
  // FA2 order: every KV block right to left, the masked diagonal band
  // first, then the mask-free main loop, then (sliding window only) the
  // masked left edge. The loops visit one contiguous descending sequence of
  // blocks, so flash-to-gpu can prefetch "the next block" across loop
  // boundaries. Without a hint, a mask_mod applies on every block (the main
  // loop's too): only causal/window/the key bound are proved away there.
  //
  // The keys' own hint (uniform blocks, the conjunct the whole mask_mod)
  // keeps the same three loops: its visible interval reaches at most one
  // block past its whole one on each side when the program's rows share one
  // F, and spans few blocks when they do not (sorted ids), so the blocks
  // right of the whole interval join the masked band (the causal or
  // ragged-edge mask costs them little), the main loop runs the whole
  // interval without the mask_mod, and the blocks left of it, where no
  // causal mask applies, are a mask_mod run (a fourth loop made ptxas spill
  // the d64 causal kernel at two programs an SM).
  bool keysHint = uniform && uniform->isWholeMask() && !mask.leftBounded();
  if (!hint && !derived && (!uniform || keysHint)) {
    emitLoop(ranges.rStart, ranges.nMax, /*masked=*/true, /*withMaskMod=*/true,
             /*reversed=*/true, KVLoopRole::MaskedRight);
    emitLoop(ranges.lEnd, ranges.rStart, /*masked=*/false,
             /*withMaskMod=*/!keysHint, /*reversed=*/true, KVLoopRole::Main);
    if (keysHint)
      emitLoop(ranges.nMin, ranges.lEnd, /*masked=*/false,
               /*withMaskMod=*/true, /*reversed=*/true, KVLoopRole::MaskMod);
    else if (mask.leftBounded())
      emitLoop(ranges.nMin, ranges.lEnd, /*masked=*/true,
               /*withMaskMod=*/true, /*reversed=*/true, KVLoopRole::MaskedLeft);
  } else {
    // A hint narrows the main loop to the blocks the mask_mod keeps whole
    // (no mask at all there). The blocks it takes out of the main loop
    // that causal, window and the key bound keep whole ([free.lEnd,
    // free.rStart)) get runs of their own, role `mask_mod`, so they do not
    // pay the element mask too; the rest stay in element-masked runs.
    // Every split point is clamped into the run it splits, so the runs stay
    // one contiguous descending sequence; without a left window bound
    // free.lEnd is 0 and the runs it would bound are empty (not emitted).
    auto clamp = [&](Value x, Value lo, Value hi) {
      return ib.max(lo, ib.min(x, hi));
    };
    bool left = mask.leftBounded();
    Value r1 = clamp(free.rStart, ranges.rStart, ranges.nMax);
    Value r2 = left ? clamp(free.lEnd, ranges.rStart, r1) : ranges.rStart;
    Value l1 = left ? clamp(free.lEnd, ranges.nMin, ranges.lEnd) : ranges.nMin;
    emitLoop(r1, ranges.nMax, /*masked=*/true, /*withMaskMod=*/true,
             /*reversed=*/true, KVLoopRole::MaskedRight);
    emitLoop(r2, r1, /*masked=*/false, /*withMaskMod=*/true,
             /*reversed=*/true, KVLoopRole::MaskMod);
    if (left)
      emitLoop(ranges.rStart, r2, /*masked=*/true, /*withMaskMod=*/true,
               /*reversed=*/true, KVLoopRole::MaskedRight);
    emitLoop(ranges.lEnd, ranges.rStart, /*masked=*/false,
             /*withMaskMod=*/false, /*reversed=*/true, KVLoopRole::Main);
    emitLoop(l1, ranges.lEnd, /*masked=*/false, /*withMaskMod=*/true,
             /*reversed=*/true, KVLoopRole::MaskMod);
    if (left)
      emitLoop(ranges.nMin, l1, /*masked=*/true, /*withMaskMod=*/true,
               /*reversed=*/true, KVLoopRole::MaskedLeft);
  }

  auto outElt = cast<MemRefType>(out.getType()).getElementType();
  auto finalize = TileFinalizeOp::create(
      rewriter, loc,
      TypeRange{RankedTensorType::get(accType.getShape(), outElt), rowType},
      state[0], state[1], state[2], rewriter.getF32FloatAttr(scale),
      op.getSoftcapAttr(), logits);
  // Tail rows of the last block are computed but not stored.
  Value rows = ib.min(ib.c(bm), ib.sub(seqQ, row0));
  auto store = [&](TileRole role, Value tile, Value dest) {
    SmallVector<Value> indices = {b, head, row0};
    if (split)
      indices.insert(indices.begin(), split);
    TileStoreOp::create(rewriter, loc, role, tile, dest, indices, rows);
  };
  store(TileRole::O, finalize.getOut(), out);
  if (lse)
    store(TileRole::Lse, finalize.getLse(), lse);

  rewriter.eraseOp(op);
  ++numTiled;
  return success();
}

void FlashTilePass::tileCombine(CombineOp op) {
  IRRewriter rewriter(op.getContext());
  rewriter.setInsertionPoint(op);
  Location loc = op.getLoc();
  IndexBuilder ib{rewriter, loc};
  Value part = op.getPartialOut(), partLse = op.getPartialLse();
  Value out = op.getOutput(), lse = op.getLse();
  Type f32 = rewriter.getF32Type();
  Value splits = ib.dim(part, 0);
  Value ninf = arith::ConstantOp::create(
      rewriter, loc,
      rewriter.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  Value zero = arith::ConstantOp::create(rewriter, loc,
                                         rewriter.getF32FloatAttr(0.0f));
  auto grid = GridOp::create(
      rewriter, loc,
      ValueRange{ib.dim(part, 3), ib.dim(part, 2), ib.dim(part, 1)});
  grid.setCombine(true);
  rewriter.setInsertionPointToStart(&grid.getBody().front());
  Value r = grid.getInductionVars()[0], h = grid.getInductionVars()[1],
        b = grid.getInductionVars()[2];
  auto overSplits = [&](Value init,
                        function_ref<Value(OpBuilder &, Location, Value, Value)>
                            body) {
    return scf::ForOp::create(
               rewriter, loc, ib.c(0), splits, ib.c(1), ValueRange{init},
               [&](OpBuilder &nb, Location nloc, Value s, ValueRange args) {
                 scf::YieldOp::create(nb, nloc, body(nb, nloc, s, args[0]));
               })
        .getResult(0);
  };
  auto loadLse = [&](OpBuilder &nb, Location nloc, Value s) -> Value {
    return memref::LoadOp::create(nb, nloc, partLse, ValueRange{s, b, h, r});
  };
  // LSE = m + log(sum_s exp(LSE_s - m)); a row no split saw keeps -inf
  // (m = -inf is replaced by 0 so that no -inf - -inf = NaN appears).
  Value m = overSplits(ninf, [&](OpBuilder &nb, Location nloc, Value s,
                                 Value acc) -> Value {
    return arith::MaxNumFOp::create(nb, nloc, acc, loadLse(nb, nloc, s));
  });
  Value isEmpty = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OEQ,
                                        m, ninf);
  Value mSafe = arith::SelectOp::create(rewriter, loc, isEmpty, zero, m);
  Value sum = overSplits(zero, [&](OpBuilder &nb, Location nloc, Value s,
                                   Value acc) -> Value {
    Value e = math::ExpOp::create(
        nb, nloc, arith::SubFOp::create(nb, nloc, loadLse(nb, nloc, s), mSafe));
    return arith::AddFOp::create(nb, nloc, acc, e);
  });
  Value total = arith::SelectOp::create(
      rewriter, loc, isEmpty, ninf,
      arith::AddFOp::create(rewriter, loc, mSafe,
                            math::LogOp::create(rewriter, loc, sum)));
  if (lse)
    memref::StoreOp::create(rewriter, loc, total, lse, ValueRange{b, h, r});
  Value totalSafe = arith::SelectOp::create(rewriter, loc, isEmpty, zero, total);
  // O = sum_s exp(LSE_s - LSE) O_s, one head-dim element per iteration.
  auto dims = scf::ParallelOp::create(rewriter, loc, ValueRange{ib.c(0)},
                                      ValueRange{ib.dim(part, 4)},
                                      ValueRange{ib.c(1)});
  rewriter.setInsertionPointToStart(dims.getBody());
  Value d = dims.getInductionVars()[0];
  Value acc = overSplits(zero, [&](OpBuilder &nb, Location nloc, Value s,
                                   Value a) -> Value {
    Value w = math::ExpOp::create(
        nb, nloc,
        arith::SubFOp::create(nb, nloc, loadLse(nb, nloc, s), totalSafe));
    Value x = memref::LoadOp::create(nb, nloc, part, ValueRange{s, b, h, r, d});
    return math::FmaOp::create(nb, nloc, w, x, a);
  });
  Type outElt = cast<MemRefType>(out.getType()).getElementType();
  if (outElt != f32)
    acc = arith::TruncFOp::create(rewriter, loc, outElt, acc);
  memref::StoreOp::create(rewriter, loc, acc, out, ValueRange{b, h, r, d});
  rewriter.eraseOp(op);
}

} // namespace
