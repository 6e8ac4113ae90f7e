//===- Uniform.cpp - Free vectors, their reductions, scf.if over tiles ----===//
//
// The patterns for tile values that no MMA layout fixes (#flash.frag<spread>
// and <uniform>) and for scf.if over register tiles. A spread [n] vector
// puts element e in register e / 32 of lane e % 32 in every warp, so an
// element-wise op is cloned once per register with linalg.index = lane +
// 32 r (the lanes past n repeat element n - 1), and a reduction into a 0-d
// value is an in-thread chain and then the warp: vote.sync for and/or of
// i1, five xor shuffles otherwise. The combine must be idempotent (and,
// or, min, max): the init and the repeated element are then taken any
// number of times. Every warp holds the same elements, so the result is
// the same in every thread without a barrier, which is what lets an scf.if
// on it branch around warpgroup-wide work (a KV block's GEMMs). An scf.if
// carries its tiles as registers: each branch is lowered in its own block
// and yields its tiles' registers in the results' layouts.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

LogicalResult KernelEmitter::lowerUniformFill(linalg::FillOp op,
                                              IRMapping &map) {
  Value v = lift(op.getInputs()[0], map);
  if (!v)
    return failure();
  Fragment f;
  f.kind = Fragment::Uniform;
  f.elt = v.getType();
  f.regs = {v};
  frags[op.getResult(0)] = std::move(f);
  return success();
}

LogicalResult KernelEmitter::lowerExtract(tensor::ExtractOp op,
                                          IRMapping &map) {
  auto it = frags.find(op.getTensor());
  if (it == frags.end() || it->second.kind != Fragment::Uniform)
    return op.emitOpError("flash-to-gpu: only a 0-d tile in a uniform "
                          "register is read as a scalar");
  map.map(op.getResult(), it->second.regs.front());
  return success();
}

LogicalResult KernelEmitter::lowerSpread(linalg::GenericOp op,
                                         IRMapping &map) {
  Value result = op.getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  Block &body = *op.getBody();
  if (op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }) ||
      !body.getArgument(op.getNumDpsInputs()).use_empty())
    return op.emitOpError("flash-to-gpu: a spread tile op maps its inputs "
                          "element by element and does not read its init");
  SmallVector<const Fragment *> ins;
  for (Value in : op.getDpsInputs()) {
    auto it = frags.find(in);
    if (it == frags.end() || it->second.kind != Fragment::Spread)
      return op.emitOpError("flash-to-gpu: a spread tile op reads spread "
                            "tiles");
    ins.push_back(&it->second);
  }
  int64_t n = type.getDimSize(0);
  Fragment out;
  out.kind = Fragment::Spread;
  out.elt = type.getElementType();
  Value yielded = body.getTerminator()->getOperand(0);
  for (int64_t r = 0; r * 32 < n; ++r) {
    IRMapping m;
    for (auto [arg, in] : llvm::zip(body.getArguments(), ins))
      m.map(arg, in->regs[r]);
    Value e = add(lane, c(32 * r));
    if ((r + 1) * 32 > n)
      e = arith::MinUIOp::create(b, loc, e, c(n - 1));
    for (auto index : body.getOps<linalg::IndexOp>())
      m.map(index.getResult(), e);
    if (failed(cloneBody(
            body, m, nullptr, [&](Value v) { return lift(v, map); },
            [&](Operation &o) -> Value {
              if (isa<linalg::IndexOp>(o))
                return m.lookup(o.getResult(0));
              return selectScalar(o, m);
            })))
      return failure();
    out.regs.push_back(m.lookupOrDefault(yielded));
  }
  frags[result] = std::move(out);
  return success();
}

LogicalResult KernelEmitter::lowerUniformReduction(linalg::GenericOp op,
                                                   IRMapping &map) {
  Block &body = *op.getBody();
  Value yielded = body.getTerminator()->getOperand(0);
  BlockArgument accArg = body.getArguments().back();
  Operation *combineOp = yielded.getDefiningOp();
  bool idempotent =
      combineOp && combineOp->getBlock() == &body &&
      isa<arith::AndIOp, arith::OrIOp, arith::MinSIOp, arith::MaxSIOp,
          arith::MinUIOp, arith::MaxUIOp>(combineOp) &&
      llvm::count(combineOp->getOperands(), accArg) == 1 &&
      accArg.hasOneUse();
  if (op.getNumDpsInputs() != 1 || op.getNumReductionLoops() != 1 ||
      !idempotent)
    return op.emitOpError("flash-to-gpu: a reduction into a uniform value "
                          "reads one spread tile and combines with and, or, "
                          "min or max of the accumulator");
  auto in = frags.find(op.getDpsInputs()[0]);
  auto init = frags.find(op.getDpsInits()[0]);
  if (in == frags.end() || in->second.kind != Fragment::Spread ||
      init == frags.end() || init->second.kind != Fragment::Uniform)
    return op.emitOpError("flash-to-gpu: a uniform reduction reads a spread "
                          "tile into a uniform init");
  // The lane's chain: acc = body(x_r, acc) over its registers.
  Value acc = init->second.regs.front();
  for (Value x : in->second.regs) {
    IRMapping m;
    m.map(body.getArgument(0), x);
    m.map(accArg, acc);
    if (failed(cloneBody(
            body, m, nullptr, [&](Value v) { return lift(v, map); },
            [&](Operation &o) { return selectScalar(o, m); })))
      return failure();
    acc = m.lookup(yielded);
  }
  // The warp's: every warp holds the same elements.
  Value total;
  Value all = ci32(-1);
  if (isa<arith::AndIOp, arith::OrIOp>(combineOp) && acc.getType().isInteger(1)) {
    total = NVVM::VoteSyncOp::create(b, loc, b.getI1Type(), all, acc,
                                     isa<arith::AndIOp>(combineOp)
                                         ? NVVM::VoteSyncKind::all
                                         : NVVM::VoteSyncKind::any);
  } else {
    Type t = acc.getType();
    // gpu.shuffle moves 32 or 64 bits: index and narrower integers go as
    // i32, signed or not as the combine reads them (the value is in range).
    bool wide = t.isInteger(64);
    bool isSigned = isa<arith::MinSIOp, arith::MaxSIOp, arith::AndIOp,
                        arith::OrIOp>(combineOp);
    auto toLane = [&](Value v) -> Value {
      if (wide || t.isInteger(32))
        return v;
      if (t.isIndex())
        return arith::IndexCastOp::create(b, loc, i32, v);
      return isSigned ? arith::ExtSIOp::create(b, loc, i32, v).getResult()
                      : arith::ExtUIOp::create(b, loc, i32, v).getResult();
    };
    auto fromLane = [&](Value v) -> Value {
      if (wide || t.isInteger(32))
        return v;
      if (t.isIndex())
        return arith::IndexCastOp::create(b, loc, t, v);
      return arith::TruncIOp::create(b, loc, t, v);
    };
    total = acc;
    for (int32_t offset : {1, 2, 4, 8, 16}) {
      Value other = fromLane(shflXor(toLane(total), offset));
      IRMapping m;
      OperationState state(loc, combineOp->getName());
      state.addOperands({total, other});
      state.addTypes(t);
      total = b.create(state)->getResult(0);
    }
  }
  Fragment out;
  out.kind = Fragment::Uniform;
  out.elt = total.getType();
  out.regs = {total};
  frags[op.getResult(0)] = std::move(out);
  return success();
}

LogicalResult KernelEmitter::lowerIf(scf::IfOp op, IRMapping &map) {
  Value cond = lift(op.getCondition(), map);
  if (!cond)
    return failure();
  // The results' registers, in their layouts.
  SmallVector<Type> types;
  SmallVector<Fragment> outs;
  for (Value r : op.getResults()) {
    auto type = dyn_cast<RankedTensorType>(r.getType());
    if (!type || !type.getElementType().isF32() || type.getRank() < 1 ||
        type.getDimSize(0) != bm)
      return op.emitOpError("flash-to-gpu: an scf.if yields f32 [block_m] "
                            "and [block_m, n] tiles");
    Fragment f;
    f.kind = fragmentKind(r);
    f.elt = f32;
    f.cols = type.getRank() == 2 ? type.getDimSize(1) : 0;
    types.append(numRegs(r), f32);
    outs.push_back(std::move(f));
  }
  auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
  ifScopes.push_back({op, ifOp});
  llvm::scope_exit popScope([&] { ifScopes.pop_back(); });
  for (auto [from, to] : {std::pair(&op.getThenRegion(), &ifOp.getThenRegion()),
                          {&op.getElseRegion(), &ifOp.getElseRegion()}}) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&to->front());
    // Row totals computed in one branch do not dominate the other.
    DenseMap<Value, Fragment> totals = rowTotals;
    Block &block = from->front();
    if (failed(lowerBody(block, map)))
      return failure();
    SmallVector<Value> regs;
    for (auto [v, f] : llvm::zip(block.getTerminator()->getOperands(), outs)) {
      FailureOr<Fragment> got =
          fragmentOf(v, op, f.kind == Fragment::RowPartial);
      if (failed(got))
        return failure();
      if (got->kind != f.kind)
        return op.emitOpError("flash-to-gpu: an scf.if's branches yield a "
                              "tile in another layout than its result's");
      llvm::append_range(regs, got->regs);
    }
    scf::YieldOp::create(b, loc, regs);
    rowTotals = std::move(totals);
  }
  int64_t pos = 0;
  for (auto [r, f] : llvm::zip(op.getResults(), outs)) {
    for (int64_t n = 0, e = numRegs(r); n < e; ++n)
      f.regs.push_back(ifOp.getResult(pos++));
    frags[r] = std::move(f);
  }
  return success();
}

} // namespace mlir::flash::gpu_kernel
