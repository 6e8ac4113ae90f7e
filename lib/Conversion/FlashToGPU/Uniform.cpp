//===- Uniform.cpp - Free vectors, their reductions, scf.if over tiles ----===//
//
// The patterns for tile values that no MMA layout fixes (#flash.frag<spread>
// and <uniform>) and for scf.if over register tiles. A spread [n] vector
// puts element e in register e / 32 of lane e % 32 in every warp, so an
// element-wise op is cloned once per register with linalg.index = lane +
// 32 r (the lanes past n repeat element n - 1), and a reduction into a 0-d
// value is an in-thread chain and then the warp: vote.sync for and/or of
// i1, one redux.sync for integers of up to 32 bits (a uniform register to
// ptxas, so what the KV loops compute from it stays on the uniform
// datapath), five xor shuffles otherwise. The combine must be idempotent
// (and, or, min, max): the init and the repeated element are then taken any
// number of times. Every warp holds the same elements, so the result is
// the same in every thread without a barrier, which is what lets an scf.if
// on it branch around warpgroup-wide work (a KV block's GEMMs). A cta [n]
// vector (n a multiple of the program's T threads) puts element e in
// register e / T of thread e % T: each element is computed once in the
// program, and its reductions meet across warps in shared memory, so only
// before the K/V pipeline starts (a scan of the program's keys). An integer
// sum is exact there and in a spread tile of a multiple of 32 elements (no
// element repeated). An scf.if or a program-level scf.for carries its tiles
// as registers: each region is lowered in its own block and yields its
// tiles' registers in the results' layouts.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

LogicalResult lowerFreeFill(const KernelContext &kc, KernelArgs &args,
                            const ScopeState &scope, FragmentState &fs,
                            linalg::FillOp op, IRMapping &map) {
  Value v = args.lift(op.getInputs()[0], map, scope);
  if (!v)
    return failure();
  Fragment f;
  f.kind = fragmentKind(op.getResult(0));
  f.elt = v.getType();
  // A 0-d tile is one register; a spread or cta [n] tile one per 32 (per
  // program's threads) elements, each holding the value.
  int64_t regs = 1;
  if (f.kind != Fragment::Uniform) {
    int64_t n = cast<RankedTensorType>(op.getResult(0).getType()).getDimSize(0);
    regs =
        llvm::divideCeil(n, f.kind == Fragment::Cta ? kc.launchThreads() : 32);
  }
  f.regs.assign(regs, v);
  fs.frags[op.getResult(0)] = std::move(f);
  return success();
}

LogicalResult lowerExtract(const FragmentState &fs, tensor::ExtractOp op,
                           IRMapping &map) {
  auto it = fs.frags.find(op.getTensor());
  if (it == fs.frags.end() || it->second.kind != Fragment::Uniform)
    return op.emitOpError("flash-to-gpu: only a 0-d tile in a uniform "
                          "register is read as a scalar");
  map.map(op.getResult(), it->second.regs.front());
  return success();
}

LogicalResult lowerSpread(const KernelContext &kc, KernelArgs &args,
                          const ScopeState &scope, FragmentState &fs,
                          linalg::GenericOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value result = op.getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  Block &body = *op.getBody();
  if (op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      !body.getArgument(op.getNumDpsInputs()).use_empty())
    return op.emitOpError("flash-to-gpu: a spread tile op maps its inputs "
                          "element by element and does not read its init");
  Fragment::Kind kind = fragmentKind(result);
  SmallVector<const Fragment *> ins;
  for (Value in : op.getDpsInputs()) {
    auto it = fs.frags.find(in);
    if (it == fs.frags.end() || it->second.kind != kind)
      return op.emitOpError("flash-to-gpu: a spread (cta) tile op reads "
                            "spread (cta) tiles");
    ins.push_back(&it->second);
  }
  int64_t n = type.getDimSize(0);
  // spread: 32 elements a register, one per lane, in every warp; cta: one
  // per thread of the program.
  bool cta = kind == Fragment::Cta;
  int64_t span = cta ? kc.launchThreads() : 32;
  if (cta && n % span != 0)
    return op.emitOpError("flash-to-gpu: a cta tile of ")
           << n << " elements over " << span << " threads";
  Fragment out;
  out.kind = kind;
  out.elt = type.getElementType();
  Value yielded = body.getTerminator()->getOperand(0);
  for (int64_t r = 0; r * span < n; ++r) {
    IRMapping m;
    for (auto [arg, in] : llvm::zip(body.getArguments(), ins))
      m.map(arg, in->regs[r]);
    Value e = kc.add(cta ? kc.tid : kc.lane, kc.c(span * r));
    if ((r + 1) * span > n)
      e = arith::MinUIOp::create(b, loc, e, kc.c(n - 1));
    for (auto index : body.getOps<linalg::IndexOp>())
      m.map(index.getResult(), e);
    if (failed(cloneBody(
            body, m, nullptr, [&](Value v) { return args.lift(v, map, scope); },
            [&](Operation &o) -> Value {
              if (isa<linalg::IndexOp>(o))
                return m.lookup(o.getResult(0));
              return selectScalar(kc, args, o, m);
            })))
      return failure();
    out.regs.push_back(m.lookupOrDefault(yielded));
  }
  fs.frags[result] = std::move(out);
  return success();
}

/// `combineOp` (a reduction body's and/or/min/max/add) applied to x, y.
static Value combine(const KernelContext &kc, Operation *combineOp, Value x,
                     Value y) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  OperationState state(loc, combineOp->getName());
  state.addOperands({x, y});
  state.addTypes(x.getType());
  return b.create(state)->getResult(0);
}

/// An index or integer value carried as the integer type `word` (a
/// shuffle's or a shared-memory slot's), extended as `combineOp` reads it
/// (unsigned for unsigned min/max, else signed), and back to `t`.
static Value toWord(const KernelContext &kc, Value v, Type word,
                    Operation *combineOp) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Type t = v.getType();
  if (t == word)
    return v;
  if (t.isIndex())
    return arith::IndexCastOp::create(b, loc, word, v);
  if (isa<arith::MinUIOp, arith::MaxUIOp>(combineOp))
    return arith::ExtUIOp::create(b, loc, word, v);
  return arith::ExtSIOp::create(b, loc, word, v);
}

static Value fromWord(const KernelContext &kc, Value w, Type t) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (w.getType() == t)
    return w;
  if (t.isIndex())
    return arith::IndexCastOp::create(b, loc, t, w);
  return arith::TruncIOp::create(b, loc, t, w);
}

/// The redux.sync that reduces `v` across a warp by `combineOp`, if one
/// does (integers of at most 32 bits but i1, index).
static std::optional<NVVM::ReduxKind> reduxKind(Value v, Operation *combineOp) {
  // redux.sync reduces 32-bit integers; index and narrower integers travel
  // as i32 words (their values are in range), i1 goes by vote.sync.
  Type t = v.getType();
  if (!t.isIndex() &&
      (!t.isInteger() || t.getIntOrFloatBitWidth() > 32 || t.isInteger(1)))
    return std::nullopt;
  return TypeSwitch<Operation *, std::optional<NVVM::ReduxKind>>(combineOp)
      .Case([](arith::AddIOp) { return NVVM::ReduxKind::ADD; })
      .Case([](arith::AndIOp) { return NVVM::ReduxKind::AND; })
      .Case([](arith::OrIOp) { return NVVM::ReduxKind::OR; })
      .Case([](arith::MinSIOp) { return NVVM::ReduxKind::MIN; })
      .Case([](arith::MaxSIOp) { return NVVM::ReduxKind::MAX; })
      .Case([](arith::MinUIOp) { return NVVM::ReduxKind::UMIN; })
      .Case([](arith::MaxUIOp) { return NVVM::ReduxKind::UMAX; })
      .Default([](Operation *) { return std::nullopt; });
}

/// A cta reduction's warp totals combined across the program's warps
/// through shared memory.
static Value combineWarps(const KernelContext &kc, Value warpTotal,
                          Operation *combineOp) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  // Before the pipeline starts no copy targets shared memory: the Q tile's
  // first bytes hold one 8-byte slot per warp. Lane 0 of each warp writes
  // its warp's total, the threads read them, and a second barrier frees the
  // slots (for the next reduction or Q's copy).
  Type t = warpTotal.getType();
  int64_t numWarps = kc.launchThreads() / 32;
  std::optional<NVVM::ReduxKind> kind = reduxKind(warpTotal, combineOp);
  Type word = kind ? kc.i32 : b.getI64Type();
  unsigned bytes = kind ? 4 : 8;
  Value first = kc.cmp(arith::CmpIPredicate::eq, kc.lane, kc.c(0));
  auto write = scf::IfOp::create(b, loc, first, /*withElse=*/false);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&write.getThenRegion().front());
    LLVM::StoreOp::create(b, loc, toWord(kc, warpTotal, word, combineOp),
                          kc.smemPtr(kc.mul(kc.warp, kc.c(8))), bytes);
  }
  gpu::BarrierOp::create(b, loc);
  Value total;
  if (kind) {
    // Lane l reads warp l's slot (past the warps: a sum's lanes 0, an
    // idempotent combine's the last warp's) and one redux.sync combines
    // them into a uniform register, as the warp's own total was.
    Value slot = arith::MinUIOp::create(b, loc, kc.lane, kc.c(numWarps - 1));
    Value x = LLVM::LoadOp::create(b, loc, word,
                                   kc.smemPtr(kc.mul(slot, kc.c(8))), bytes);
    if (*kind == NVVM::ReduxKind::ADD)
      x = kc.sel(kc.cmp(arith::CmpIPredicate::ult, kc.lane, kc.c(numWarps)), x,
                 kc.ci32(0));
    total = fromWord(
        kc, NVVM::ReduxOp::create(b, loc, word, x, *kind, kc.ci32(-1)), t);
  } else {
    SmallVector<Value> totals;
    for (int64_t w = 0; w < numWarps; ++w)
      totals.push_back(fromWord(
          kc,
          LLVM::LoadOp::create(b, loc, word, kc.smemPtr(kc.c(8 * w)), bytes),
          t));
    total = kc.tree(
        totals, [&](Value x, Value y) { return combine(kc, combineOp, x, y); });
  }
  gpu::BarrierOp::create(b, loc);
  return total;
}

LogicalResult lowerUniformReduction(const KernelContext &kc, KernelArgs &args,
                                    const ScopeState &scope, FragmentState &fs,
                                    linalg::GenericOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Block &body = *op.getBody();
  Value yielded = body.getTerminator()->getOperand(0);
  BlockArgument accArg = body.getArguments().back();
  Operation *combineOp = yielded.getDefiningOp();
  bool combines =
      combineOp && combineOp->getBlock() == &body &&
      isa<arith::AndIOp, arith::OrIOp, arith::MinSIOp, arith::MaxSIOp,
          arith::MinUIOp, arith::MaxUIOp, arith::AddIOp>(combineOp) &&
      llvm::count(combineOp->getOperands(), accArg) == 1 && accArg.hasOneUse();
  if (op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 1 || !combines)
    return op.emitOpError("flash-to-gpu: a reduction into a uniform value "
                          "reads one spread tile and combines with and, or, "
                          "min, max or an integer add of the accumulator");
  auto in = fs.frags.find(op.getDpsInputs()[0]);
  auto init = fs.frags.find(op.getDpsInits()[0]);
  if (in == fs.frags.end() ||
      (in->second.kind != Fragment::Spread &&
       in->second.kind != Fragment::Cta) ||
      init == fs.frags.end() || init->second.kind != Fragment::Uniform)
    return op.emitOpError("flash-to-gpu: a uniform reduction reads a spread "
                          "or cta tile into a uniform init");
  bool cta = in->second.kind == Fragment::Cta;
  int64_t n =
      cast<RankedTensorType>(op.getDpsInputs()[0].getType()).getDimSize(0);
  // A sum takes each element once: a spread tile repeats its last element
  // in the lanes past n, and its init is in every thread.
  if (isa<arith::AddIOp>(combineOp) && !cta && n % 32 != 0)
    return op.emitOpError("flash-to-gpu: a sum of a spread tile whose "
                          "length is not a multiple of 32");
  // After the start, copies may be in flight into the Q tile's bytes.
  if (cta && kc.t.pipelineStart->isBeforeInBlock(
                 kc.t.grid.getBody().front().findAncestorOpInBlock(*op)))
    return op.emitOpError("flash-to-gpu: a cta tile must be reduced before the "
                          "K/V pipeline starts (its scratch is the Q tile's "
                          "shared memory)");
  // The lane's chain: acc = body(x_r, acc) over its registers. A sum
  // starts at the identity and adds the init once, after the program's.
  bool sum = isa<arith::AddIOp>(combineOp);
  Value acc =
      sum ? arith::ConstantOp::create(
                b, loc, b.getZeroAttr(init->second.regs.front().getType()))
                .getResult()
          : init->second.regs.front();
  for (Value x : in->second.regs) {
    IRMapping m;
    m.map(body.getArgument(0), x);
    m.map(accArg, acc);
    if (failed(cloneBody(
            body, m, nullptr, [&](Value v) { return args.lift(v, map, scope); },
            [&](Operation &o) { return selectScalar(kc, args, o, m); })))
      return failure();
    acc = m.lookup(yielded);
  }
  // The warp's: every warp holds the same elements.
  Value total;
  Value all = kc.ci32(-1);
  if (isa<arith::AndIOp, arith::OrIOp>(combineOp) && acc.getType().isInteger(1)) {
    total = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), all, acc,
                                     isa<arith::AndIOp>(combineOp)
                                         ? NVVM::VoteSyncKind::all
                                         : NVVM::VoteSyncKind::any);
  } else if (std::optional<NVVM::ReduxKind> kind = reduxKind(acc, combineOp)) {
    // One redux.sync (sm_80+) instead of five shuffles. Its result is a
    // uniform register to ptxas, and so is what is computed from it: the
    // KV loops' bounds, block index, K/V addresses and wgmma descriptors
    // stay on the uniform datapath (a shuffle's result is per-thread to
    // ptxas, and each iteration's index math was then per-thread; with
    // redux.sync the d64 document mask takes 0.88-0.96x the time:
    // bench/results/2026-12-06-h100-document-mask.log).
    total = fromWord(kc,
                     NVVM::ReduxOp::create(b, loc, kc.i32,
                                           toWord(kc, acc, kc.i32, combineOp),
                                           *kind, all),
                     acc.getType());
  } else {
    // What redux.sync does not take (64-bit integers; i1 under min/max)
    // goes by five xor shuffles of 32- or 64-bit words.
    Type t = acc.getType();
    Type word = t.isInteger(64) ? b.getI64Type() : kc.i32;
    total = acc;
    for (int32_t offset : {1, 2, 4, 8, 16})
      total = combine(
          kc, combineOp, total,
          fromWord(kc, kc.shflXor(toWord(kc, total, word, combineOp), offset),
                   t));
  }
  if (cta)
    total = combineWarps(kc, total, combineOp);
  if (sum)
    total = arith::AddIOp::create(b, loc, total, init->second.regs.front());
  Fragment out;
  out.kind = Fragment::Uniform;
  out.elt = total.getType();
  out.regs = {total};
  fs.frags[op.getResult(0)] = std::move(out);
  return success();
}

LogicalResult lowerFor(const KernelContext &kc, KernelArgs &args,
                       ScopeState &scope, FragmentState &fs,
                       const PipelineState &pipeline, scf::ForOp op,
                       IRMapping &map, BlockLowering lowerBlock) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (scope.curLoop || pipeline.consumerRole)
    return op.emitOpError("flash-to-gpu: an scf.for of tiles runs at the "
                          "program's level, before the K/V pipeline");
  Value lb = args.lift(op.getLowerBound(), map, scope),
        ub = args.lift(op.getUpperBound(), map, scope),
        step = args.lift(op.getStep(), map, scope);
  if (!lb || !ub || !step)
    return failure();
  SmallVector<Value> state;
  SmallVector<Fragment> inits;
  for (auto [init, arg] : llvm::zip(op.getInitArgs(), op.getRegionIterArgs())) {
    auto it = fs.frags.find(init);
    Fragment::Kind kind = fragmentKind(arg);
    if (it == fs.frags.end() ||
        (kind != Fragment::Spread && kind != Fragment::Cta) ||
        it->second.kind != kind)
      return op.emitOpError("flash-to-gpu: an scf.for carries spread or cta "
                            "tiles computed in the grid");
    llvm::append_range(state, it->second.regs);
    inits.push_back(it->second);
  }
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, state);
  // Values from above the loop are lifted before it (as for an scf.if).
  scope.ifScopes.push_back({op, loop});
  llvm::scope_exit popScope([&] { scope.ifScopes.pop_back(); });
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    map.map(op.getInductionVar(), loop.getInductionVar());
    fs.bind(op.getRegionIterArgs(), inits, loop.getRegionIterArgs());
    if (failed(lowerBlock(*op.getBody(), map)))
      return failure();
    SmallVector<Value> regs;
    for (auto [v, f] : llvm::zip(op.getYieldedValues(), inits)) {
      auto it = fs.frags.find(v);
      if (it == fs.frags.end() || it->second.kind != f.kind)
        return op.emitOpError("flash-to-gpu: an scf.for yields a tile in "
                              "another layout than its state's");
      llvm::append_range(regs, it->second.regs);
    }
    scf::YieldOp::create(b, loc, regs);
  }
  fs.bind(op.getResults(), inits, loop.getResults());
  return success();
}

LogicalResult lowerIf(const KernelContext &kc, KernelArgs &args,
                      ScopeState &scope, FragmentState &fs, scf::IfOp op,
                      IRMapping &map, BlockLowering lowerBlock) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value cond = args.lift(op.getCondition(), map, scope);
  if (!cond)
    return failure();
  // The results' registers, in their layouts.
  SmallVector<Type> types;
  SmallVector<Fragment> outs;
  for (Value r : op.getResults()) {
    auto type = dyn_cast<RankedTensorType>(r.getType());
    if (!type || !type.getElementType().isF32() || type.getRank() < 1 ||
        type.getDimSize(0) != kc.bm)
      return op.emitOpError("flash-to-gpu: an scf.if yields f32 [block_m] "
                            "and [block_m, n] tiles");
    Fragment f;
    f.kind = fragmentKind(r);
    f.elt = kc.f32;
    f.cols = type.getRank() == 2 ? type.getDimSize(1) : 0;
    f.regs.resize(kc.numRegs(r));
    types.append(kc.numRegs(r), kc.f32);
    outs.push_back(std::move(f));
  }
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  scope.ifScopes.push_back({op, ifOp});
  llvm::scope_exit popScope([&] { scope.ifScopes.pop_back(); });
  for (auto [from, to] : {std::pair(&op.getThenRegion(), &ifOp.getThenRegion()),
                          {&op.getElseRegion(), &ifOp.getElseRegion()}}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&to->front());
    // Row totals computed in one branch do not dominate the other.
    DenseMap<Value, Fragment> totals = fs.rowTotals;
    Block &block = from->front();
    if (failed(lowerBlock(block, map)))
      return failure();
    SmallVector<Value> regs;
    for (auto [v, f] : llvm::zip(block.getTerminator()->getOperands(), outs)) {
      FailureOr<Fragment> got =
          fragmentOf(kc, fs, v, op, f.kind == Fragment::RowPartial);
      if (failed(got))
        return failure();
      if (got->kind != f.kind)
        return op.emitOpError("flash-to-gpu: an scf.if's branches yield a "
                              "tile in another layout than its result's");
      llvm::append_range(regs, got->regs);
    }
    scf::YieldOp::create(b, loc, regs);
    fs.rowTotals = std::move(totals);
  }
  fs.bind(op.getResults(), outs, ifOp.getResults());
  return success();
}

} // namespace mlir::flash::gpu_kernel
