//===- Pipeline.cpp - The K/V pipeline ops of flash-to-gpu ----------------===//
//
// Lowers flash-pipeline-kv's ops (FlashPipelineOps.td) onto the kernel:
// the prologue's cp.async groups of the first `stages - 1` K/V blocks (Q
// joining the first), each iteration's cp.async.wait_group + barrier and
// prefetch of the block `distance` ahead into the slot read last, or, with
// a producer warpgroup, the role split, the producer's loop over the run's
// blocks into the mbarrier ring and the consumers' full-barrier wait and
// empty-barrier arrive; the slot (and phase) each advance gives, and the
// drain before the epilogue. The schedule is the ops'; checkPipeline
// refuses a grid whose K/V loads have no pipeline ops, or whose ops do not
// fit together the way the kernel streams one run of blocks.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

/// The ops of `loop`'s body that the pipeline of loop `li` must have, in
/// order from the top: (wait, prefetch, advance) or (acquire, advance).
static LogicalResult checkLoopPipeline(TiledAttention &t, int64_t li,
                                       ValueRange state, bool producer,
                                       int64_t stages, bool pingpong) {
  KVLoopOp loop = t.loops[li];
  LoopPipeline pipe;
  size_t n = producer ? 2 : 1;
  auto args = loop.getRegionIterArgs();
  if (args.size() < n || state.size() != n ||
      ValueRange(loop.getInits().take_back(n)) != state)
    return loop.emitOpError("flash-to-gpu: a KV loop must carry the K/V "
                            "pipeline's ")
           << (producer ? "slot and phase" : "slot")
           << " as its last iter_args, from the pipeline's start or the "
              "previous KV loop";
  Value slot = args[args.size() - n];
  Value phase = producer ? args.back() : Value();
  Block &body = loop.getBody().front();
  auto it = body.begin();
  auto next = [&]() -> Operation * {
    return it == body.end() ? nullptr : &*it++;
  };
  if (producer) {
    pipe.acquire = dyn_cast_or_null<PipelineAcquireOp>(next());
  } else {
    pipe.wait = dyn_cast_or_null<PipelineWaitOp>(next());
    pipe.prefetch = dyn_cast_or_null<PipelinePrefetchOp>(next());
  }
  pipe.advance = dyn_cast_or_null<PipelineAdvanceOp>(next());
  if (producer) {
    Operation *beforeYield = body.getTerminator()->getPrevNode();
    pipe.release = dyn_cast_or_null<PipelineReleaseOp>(beforeYield);
  }
  bool top = pipe.advance && (producer ? pipe.acquire && pipe.release
                                       : pipe.wait && pipe.prefetch);
  if (!top)
    return loop.emitOpError("flash-to-gpu: a KV loop's body must begin with ")
           << (producer ? "flash.pipeline_acquire, flash.pipeline_advance "
                          "and end with flash.pipeline_release"
                        : "flash.pipeline_wait, flash.pipeline_prefetch, "
                          "flash.pipeline_advance");
  if (pipe.advance.getSlot() != slot || pipe.advance.getPhase() != phase ||
      (pipe.acquire && (pipe.acquire.getSlot() != slot ||
                        pipe.acquire.getPhase() != phase)) ||
      (pipe.release && pipe.release.getSlot() != slot) ||
      (pipe.wait && pipe.wait.getSlot() != slot) ||
      (pipe.prefetch && pipe.prefetch.getSlot() != slot))
    return loop.emitOpError("flash-to-gpu: the pipeline ops of a KV loop "
                            "must use its slot") << (producer ? " and phase" : "")
           << " iter_args";
  // The prefetch refills the slot the wait freed: the block stages - 1
  // ahead, the only one that lands where no warp reads any more.
  if (pipe.prefetch && pipe.prefetch.getDistance() != stages - 1)
    return pipe.prefetch.emitOpError("flash-to-gpu: a prefetch distance of ")
           << pipe.prefetch.getDistance() << " is not lowered; the block "
           << "stages - 1 = " << stages - 1
           << " ahead refills the slot the wait freed";
  auto yield = cast<YieldOp>(body.getTerminator());
  if (ValueRange(yield.getValues().take_back(n)) != pipe.advance.getNext())
    return loop.emitOpError("flash-to-gpu: a KV loop must yield its "
                            "pipeline advance as its last values");
  for (TileLoadOp load : {t.kLoads[li], t.vLoads[li]})
    if (load.getSlot() != slot)
      return load.emitOpError("flash-to-gpu: a K/V tile load must read its "
                              "KV loop's pipeline slot");
  // Ping-pong: one pass (after the score GEMM) and one wait (before the P V
  // GEMM) per iteration, so that the warpgroups' turns stay balanced.
  if (pingpong) {
    auto passes = body.getOps<PipelineTurnPassOp>();
    auto waits = body.getOps<PipelineTurnWaitOp>();
    if (std::distance(passes.begin(), passes.end()) != 1 ||
        std::distance(waits.begin(), waits.end()) != 1 ||
        !(*passes.begin())->isBeforeInBlock(*waits.begin()))
      return loop.emitOpError("flash-to-gpu: with pingpong, a KV loop passes "
                              "the turn once (flash.pipeline_turn_pass) and "
                              "then waits for it once "
                              "(flash.pipeline_turn_wait): run "
                              "flash-pingpong");
  }
  WalkResult stray = loop.getBody().walk([&](Operation *op) {
    if (!isPipelineOp(op) || op == pipe.wait || op == pipe.prefetch ||
        op == pipe.acquire || op == pipe.release || op == pipe.advance ||
        (pingpong && isa<PipelineTurnPassOp, PipelineTurnWaitOp>(op) &&
         op->getParentOp() == loop))
      return WalkResult::advance();
    op->emitOpError("flash-to-gpu: unexpected pipeline op in a KV loop");
    return WalkResult::interrupt();
  });
  if (stray.wasInterrupted())
    return failure();
  pipe.stateBegin = args.size() - n;
  t.pipes.push_back(pipe);
  return success();
}

LogicalResult checkPipeline(TiledAttention &t) {
  GridOp grid = t.grid;
  ConfigAttr config = *grid.getConfig();
  bool producer = config.getProducer();
  Block &body = grid.getBody().front();
  for (Operation &op : body) {
    if (isa<PipelinePrologueOp, PipelineProducerOp>(op)) {
      if (t.pipelineStart)
        return op.emitOpError("flash-to-gpu: an attention grid starts one "
                              "K/V pipeline");
      t.pipelineStart = &op;
    } else if (auto drain = dyn_cast<PipelineDrainOp>(op)) {
      if (t.drain)
        return op.emitOpError("flash-to-gpu: an attention grid drains its "
                              "K/V pipeline once");
      t.drain = drain;
    } else if (auto start = dyn_cast<PipelineTurnStartOp>(op)) {
      if (t.turnStart)
        return op.emitOpError("flash-to-gpu: the ping-pong turns start once");
      t.turnStart = start;
    } else if (auto end = dyn_cast<PipelineTurnEndOp>(op)) {
      if (t.turnEnd)
        return op.emitOpError("flash-to-gpu: the ping-pong turns end once");
      t.turnEnd = end;
    }
  }
  if (!t.pipelineStart)
    return t.loops.front().emitOpError(
        "flash-to-gpu: the K/V loads of the KV loops are not pipelined (no "
        "flash.pipeline_prologue or flash.pipeline_producer in the grid): "
        "run flash-pipeline-kv first");
  // The op verifiers tie each op to the config's mode and stages.
  if (!t.pipelineStart->isBeforeInBlock(t.loops.front()))
    return t.pipelineStart->emitOpError(
        "flash-to-gpu: the K/V pipeline must start before the first KV loop");
  if (!t.drain || !t.loops.back()->isBeforeInBlock(t.drain) ||
      !t.drain->isBeforeInBlock(t.oStore) ||
      (t.lseStore && !t.drain->isBeforeInBlock(t.lseStore)))
    return t.loops.back().emitOpError(
        "flash-to-gpu: the K/V pipeline must be drained (flash.pipeline_"
        "drain) after the last KV loop and before the epilogue's stores");
  // The op verifiers tie the turn ops to pingpong configs, whose verifier
  // requires the producer and two consumer warpgroups.
  bool pingpong = config.getPingpong();
  if (pingpong &&
      (!t.turnStart || !t.turnEnd ||
       !t.pipelineStart->isBeforeInBlock(t.turnStart) ||
       !t.turnStart->isBeforeInBlock(t.loops.front()) ||
       !t.loops.back()->isBeforeInBlock(t.turnEnd) ||
       !t.turnEnd->isBeforeInBlock(t.drain)))
    return t.loops.front().emitOpError(
        "flash-to-gpu: a pingpong grid starts its turns "
        "(flash.pipeline_turn_start) between the pipeline's start and the "
        "first KV loop and ends them (flash.pipeline_turn_end) between the "
        "last KV loop and the drain: run flash-pingpong");
  ValueRange state = t.pipelineStart->getResults();
  int64_t stages = config.getNumStages();
  for (int64_t li = 0, e = t.loops.size(); li < e; ++li) {
    if (failed(checkLoopPipeline(t, li, state, producer, stages, pingpong)))
      return failure();
    state = t.loops[li].getResults().take_back(state.size());
  }
  return success();
}

/// The producer mode's mbarriers after the V stages: full[stage] (the
/// block landed) and empty[stage] (every consumer is done with it).
static Value mbarrier(const KernelContext &kc, bool full, Value stage) {
  return kc.smemPtr(kc.add(kc.c(kc.smem.barrierOffset(full)),
                           kc.mul(stage, kc.c(SmemMap::kBarrierBytes))));
}

static void fenceAsyncProxy(const KernelContext &kc) {
  NVVM::FenceProxyOp::create(
      kc.b, kc.loc, NVVM::ProxyKind::async_shared,
      NVVM::SharedSpaceAttr::get(kc.ctx, NVVM::SharedSpace::shared_cta));
}

static void arriveOn(const KernelContext &kc, Value bar) {
  NVVM::MBarrierArriveOp::create(
      kc.b, kc.loc, Type(), bar, Value(),
      NVVM::MemScopeKindAttr::get(kc.ctx, NVVM::MemScopeKind::CTA));
}

static void waitParity(const KernelContext &kc, Value bar, Value parity) {
  NVVM::MBarrierTryWaitParityOp::create(
      kc.b, kc.loc, bar,
      arith::IndexCastOp::create(kc.b, kc.loc, kc.i32, parity),
      kc.ci32(0x989680));
}

/// FA3's ping-pong turns (flash-pingpong): consumer warpgroup g waits for
/// its turn on named barrier kTurnBarrier + g (1 is syncConsumers'); the
/// other warpgroup arrives on it to pass the turn. 256 threads each: one
/// warpgroup syncs, the other arrives.
static constexpr int64_t kTurnBarrier = 2;

static Value consumerGroup(const KernelContext &kc) {
  return arith::DivUIOp::create(kc.b, kc.loc, kc.warp, kc.c(4));
}

static void turnBarrier(const KernelContext &kc, bool wait, Value group) {
  Value id = arith::IndexCastOp::create(kc.b, kc.loc, kc.i32,
                                        kc.add(group, kc.c(kTurnBarrier)));
  if (wait)
    NVVM::BarrierOp::create(kc.b, kc.loc, Type(), id, kc.ci32(256),
                            NVVM::BarrierReductionAttr(), Value());
  else
    NVVM::BarrierArriveOp::create(kc.b, kc.loc, id, kc.ci32(256));
}

/// The producer warpgroup's loop: every K/V block of the program's run,
/// into the ring, one block ahead of its arrive on full[stage].
static void emitProducer(const KernelContext &kc, const PipelineState &pipeline,
                         Value firstCol, Value lastCol, Value anyBlock) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (kc.launchThreads() > 256)
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(pipeline.regs.producer),
        NVVM::SetMaxRegisterActionAttr::get(
            kc.ctx, NVVM::SetMaxRegisterAction::decrease));
  // 128 threads split every K/V block: the verifier's wgmma = true and the
  // wgmma checks (head dim % 64, block_n % 16) make its chunks a multiple.
  CopyTeam producer{kc.sub(kc.tid, kc.c(kc.threads)), 128};
  // The run's blocks, right to left (flash-tile's order).
  Value blocks =
      kc.sel(anyBlock,
             kc.add(arith::DivSIOp::create(b, loc, kc.sub(firstCol, lastCol),
                                           kc.c(kc.bn)),
                    kc.c(1)),
             kc.c(0));
  // A block is published once this thread's copies of it landed (at most
  // `pending` later groups in flight) and are fenced into the async proxy.
  auto publish = [&](int64_t pending, Value block) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
    fenceAsyncProxy(kc);
    arriveOn(kc,
             mbarrier(kc, true,
                      arith::RemUIOp::create(b, loc, block, kc.c(kc.stages))));
  };
  // (stage, round): block i goes to stage i % stages in round i / stages.
  auto loop =
      scf::ForOp::create(b, loc, kc.c(0), blocks, kc.c(1), ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    Value stage = arith::RemUIOp::create(b, loc, i, kc.c(kc.stages));
    Value round = arith::DivUIOp::create(b, loc, i, kc.c(kc.stages));
    // Round r > 0 reuses the stage: wait until the consumers released round
    // r - 1 (that phase of empty[stage] has parity (r - 1) & 1).
    auto reuse = scf::IfOp::create(
        b, loc, kc.cmp(arith::CmpIPredicate::uge, i, kc.c(kc.stages)), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&reuse.getThenRegion().front());
      waitParity(
          kc, mbarrier(kc, false, stage),
          arith::RemUIOp::create(b, loc, kc.sub(round, kc.c(1)), kc.c(2)));
    }
    emitKVCopy(kc, producer, kc.sub(firstCol, kc.mul(i, kc.c(kc.bn))), stage);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    // The previous block (this one may still be in flight).
    auto prev = scf::IfOp::create(
        b, loc, kc.cmp(arith::CmpIPredicate::uge, i, kc.c(1)), false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&prev.getThenRegion().front());
    publish(1, kc.sub(i, kc.c(1)));
  }
  auto last = scf::IfOp::create(
      b, loc, kc.cmp(arith::CmpIPredicate::sgt, blocks, kc.c(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&last.getThenRegion().front());
  publish(0, kc.sub(blocks, kc.c(1)));
}

void lowerPipelineStart(const KernelContext &kc, KernelArgs &args,
                        const ScopeState &scope, PipelineState &pipeline,
                        IRMapping &map, Value row0) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  int64_t numLoops = kc.t.loops.size();
  auto startOf = [&](int64_t li, Value j) -> Value {
    IRMapping local = map;
    return startAt(kc, args, scope, li, j, local);
  };
  // The loops visit one contiguous descending run of blocks (flash-tile's
  // order, also across its peeled loops and within a split): the block k
  // ahead of the one at column c starts at c - k * BN and exists iff it is
  // not left of the run's last block.
  Value none = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value firstCol = kc.c(0), anyBlock = none;
  pipeline.lastCol = kc.c(0);
  for (int64_t li = numLoops - 1; li >= 0; --li) {
    Value has = kc.cmp(arith::CmpIPredicate::sgt, pipeline.trips[li], kc.c(0));
    firstCol = kc.sel(has, startOf(li, kc.c(0)), firstCol);
    anyBlock = arith::OrIOp::create(b, loc, has, anyBlock);
  }
  for (int64_t li = 0; li < numLoops; ++li) {
    Value has = kc.cmp(arith::CmpIPredicate::sgt, pipeline.trips[li], kc.c(0));
    pipeline.lastCol =
        kc.sel(has, startOf(li, kc.sub(pipeline.trips[li], kc.c(1))),
               pipeline.lastCol);
  }

  if (isa<PipelineProducerOp>(kc.t.pipelineStart)) {
    // FA3's warp specialization: the producer warpgroup fills the K/V ring,
    // the consumers wait on full[stage] and release through empty[stage];
    // consumer warpgroups never wait on each other.
    Value first = kc.cmp(arith::CmpIPredicate::eq, kc.tid, kc.c(0));
    auto init = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&init.getThenRegion().front());
      for (int64_t st = 0; st < kc.stages; ++st) {
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(kc, true, kc.c(st)),
                                     kc.ci32(128), Value());
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(kc, false, kc.c(st)),
                                     kc.ci32(kc.threads), Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    gpu::BarrierOp::create(b, loc);
    auto role = scf::IfOp::create(
        b, loc, kc.cmp(arith::CmpIPredicate::uge, kc.tid, kc.c(kc.threads)),
        /*withElse=*/true);
    pipeline.consumerRole = role;
    b.setInsertionPointToStart(&role.getThenRegion().front());
    emitProducer(kc, pipeline, firstCol, pipeline.lastCol, anyBlock);
    b.setInsertionPointToStart(&role.getElseRegion().front());
    // 8 consumer warps and the producer: the producer gives most of its
    // registers to the consumers (regs).
    if (kc.launchThreads() > 256)
      NVVM::SetMaxRegisterOp::create(
          b, loc, b.getI32IntegerAttr(pipeline.regs.consumer),
          NVVM::SetMaxRegisterActionAttr::get(
              kc.ctx, NVVM::SetMaxRegisterAction::increase));
    emitTileCopy(kc, kc.consumers(), kc.q, row0, kc.seqQ, kc.qPlane, kc.c(0),
                 kc.bm, /*predicated=*/true);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    fenceAsyncProxy(kc);
    kc.syncConsumers();
  } else {
    // Prologue: Q and the first `stages - 1` K/V blocks in flight, one
    // commit group each (Q joins the first).
    auto prologue = cast<PipelinePrologueOp>(kc.t.pipelineStart);
    emitTileCopy(kc, kc.consumers(), kc.q, row0, kc.seqQ, kc.qPlane, kc.c(0),
                 kc.bm, /*predicated=*/true);
    for (int64_t ahead = 0; ahead + 1 < prologue.getStages(); ++ahead) {
      Value col = kc.sub(firstCol, kc.c(ahead * kc.bn));
      Value ok = arith::AndIOp::create(
          b, loc, anyBlock,
          kc.cmp(arith::CmpIPredicate::sge, col, pipeline.lastCol));
      auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        emitKVCopy(kc, kc.consumers(), col, kc.c(ahead));
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
  }
  // The run's first block is in slot 0, at phase parity 0.
  for (Value result : kc.t.pipelineStart->getResults())
    map.map(result, kc.c(0));
}

SmallVector<Value> lowerIterationStart(const KernelContext &kc,
                                       const PipelineState &pipeline,
                                       int64_t li, Value col0,
                                       IRMapping &local) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  LoopPipeline &pipe = kc.t.pipes[li];
  Value stage = local.lookup(pipe.advance.getSlot());
  Value stagePlus = kc.add(stage, kc.c(1));
  Value wraps = kc.cmp(arith::CmpIPredicate::eq, stagePlus, kc.c(kc.stages));
  SmallVector<Value> next;
  if (pipe.acquire) {
    // The producer fenced the block into the async proxy before its
    // arrive; the wait acquires it.
    Value phase = local.lookup(pipe.acquire.getPhase());
    waitParity(kc, mbarrier(kc, true, stage), phase);
    next = {kc.sel(wraps, kc.c(0), stagePlus),
            kc.sel(wraps, kc.sub(kc.c(1), phase), phase)};
  } else {
    // This block has landed (and Q, the first time): at most `pending`
    // (stages - 2) later groups may still be in flight. Every warp is done
    // with the stage read last iteration, which the block `stages - 1`
    // ahead now overwrites.
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pipe.wait.getPending());
    // wgmma reads shared memory through the async proxy: each thread's
    // cp.async writes are fenced into it before the barrier publishes
    // them.
    if (kc.wg)
      fenceAsyncProxy(kc);
    gpu::BarrierOp::create(b, loc);
    Value nextStart = kc.sub(col0, kc.c(pipe.prefetch.getDistance() * kc.bn));
    Value hasNext =
        kc.cmp(arith::CmpIPredicate::sge, nextStart, pipeline.lastCol);
    // (stage + distance) mod stages = (stage - 1) mod stages (checkPipeline:
    // distance = stages - 1); 1 - stage for the double buffer.
    Value fillStage =
        kc.stages == 2
            ? kc.sub(kc.c(1), stage)
            : kc.sel(kc.cmp(arith::CmpIPredicate::eq, stage, kc.c(0)),
                     kc.c(kc.stages - 1), kc.sub(stage, kc.c(1)));
    {
      auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElse=*/false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      emitKVCopy(kc, kc.consumers(), nextStart, fillStage);
    }
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    // The double buffer's next slot is the one just filled.
    next = {kc.stages == 2 ? fillStage : kc.sel(wraps, kc.c(0), stagePlus)};
  }
  for (auto [result, value] : llvm::zip(pipe.advance.getNext(), next))
    local.map(result, value);
  return next;
}

static void lowerTurn(const KernelContext &kc, const FragmentState &fs,
                      Operation *op) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  OpBuilder::InsertionGuard guard(b);
  // The pass goes right after the score GEMM's commit, before its wait: the
  // other warpgroup issues while these scores are computed.
  if (Operation *wait = fs.scoresWaitHere(b);
      wait && isa<PipelineTurnPassOp>(op))
    b.setInsertionPoint(wait);
  Value group = consumerGroup(kc);
  auto onlyGroup = [&](int64_t g, Value barrierGroup) {
    auto ifOp = scf::IfOp::create(
        b, loc, kc.cmp(arith::CmpIPredicate::eq, group, kc.c(g)), false);
    OpBuilder::InsertionGuard inner(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    turnBarrier(kc, /*wait=*/false, barrierGroup);
  };
  if (isa<PipelineTurnStartOp>(op)) {
    onlyGroup(1, kc.c(0));
    turnBarrier(kc, /*wait=*/true, group);
  } else if (isa<PipelineTurnPassOp>(op)) {
    turnBarrier(kc, /*wait=*/false, kc.sub(kc.c(1), group));
  } else if (isa<PipelineTurnWaitOp>(op)) {
    turnBarrier(kc, /*wait=*/true, group);
  } else {
    onlyGroup(0, kc.c(1));
  }
}

LogicalResult lowerPipelineOp(const KernelContext &kc, const FragmentState &fs,
                              PipelineState &pipeline, Operation *op,
                              IRMapping &map) {
  // Both GEMMs have waited for their reads of this stage.
  if (auto release = dyn_cast<PipelineReleaseOp>(op)) {
    arriveOn(kc, mbarrier(kc, false, map.lookup(release.getSlot())));
    return success();
  }
  if (isa<PipelineTurnStartOp, PipelineTurnPassOp, PipelineTurnWaitOp,
          PipelineTurnEndOp>(op)) {
    lowerTurn(kc, fs, op);
    return success();
  }
  // Lowered right before the epilogue's first shared-memory write
  // (lowerStore), after the store's own index computations.
  if (isa<PipelineDrainOp>(op)) {
    pipeline.drainPending = true;
    return success();
  }
  // The start op and an iteration's wait/prefetch/acquire/advance were
  // lowered where the kernel's schedule begins (lowerPipelineStart,
  // lowerIterationStart).
  return success();
}

void lowerDrain(const KernelContext &kc, PipelineState &pipeline) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  // No copy may still be writing (a program with no KV block never
  // waited for its Q), and every warp must be done reading Q before O
  // overwrites it.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  kc.syncConsumers();
  pipeline.drainPending = false;
}

} // namespace mlir::flash::gpu_kernel
