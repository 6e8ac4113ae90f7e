//===- Combine.cpp - Split-KV combine kernels for flash-to-gpu -----------===//
//
// flash.combine's grid (row, head, batch) becomes its own kernel: block ids
// for the grid's axes, the head-dim loop the thread id, memref accesses
// global loads and stores, exp/log/max one NVVM instruction each, the loops
// over splits unrolled.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

/// Clones a block of the combine grid into the kernel: stores, the loops
/// over splits (unrolled), the head-dim loop (one thread per element) and
/// the scalar math; `perThread` stores are written by every thread, others
/// by thread 0.
static LogicalResult cloneCombineBlock(const KernelContext &kc,
                                       KernelArgs &args,
                                       const ScopeState &scope, Block &body,
                                       IRMapping &map, bool perThread) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      // A copy: lifting the indices and the value may lift more tensors.
      KernelTensor kt = args.tensor(store.getMemRef());
      SmallVector<Value> idx;
      for (Value i : store.getIndices())
        if (!idx.emplace_back(args.lift(i, map, scope)))
          return failure();
      Value value = args.lift(store.getValue(), map, scope);
      if (!value)
        return failure();
      // Row-level results (LSE) are written by thread 0 alone.
      OpBuilder::InsertionGuard guard(b);
      if (!perThread) {
        auto ifOp = scf::IfOp::create(
            b, loc, kc.cmp(arith::CmpIPredicate::eq, kc.tid, kc.c(0)), false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      LLVM::StoreOp::create(
          b, loc, value,
          kc.globalPtr(kt.ptr,
                       kc.mul(kc.elementOffset(kt, idx), kc.c(kt.eltBytes))),
          kt.eltBytes);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (Value init : loop.getInitArgs())
        inits.push_back(args.lift(init, map, scope));
      Value lb = args.lift(loop.getLowerBound(), map, scope),
            ub = args.lift(loop.getUpperBound(), map, scope),
            step = args.lift(loop.getStep(), map, scope);
      if (!lb || !ub || !step || llvm::is_contained(inits, Value()))
        return failure();
      auto clone = scf::ForOp::create(b, loc, lb, ub, step, inits);
      map.map(loop.getInductionVar(), clone.getInductionVar());
      for (auto [from, to] :
           llvm::zip(loop.getRegionIterArgs(), clone.getRegionIterArgs()))
        map.map(from, to);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(clone.getBody());
        if (failed(cloneCombineBlock(kc, args, scope, *loop.getBody(), map,
                                     perThread)))
          return failure();
        SmallVector<Value> yields;
        for (Value y : loop.getBody()->getTerminator()->getOperands())
          yields.push_back(args.lift(y, map, scope));
        scf::YieldOp::create(b, loc, yields);
      }
      // The loops over splits: unrolled so that 8 loads are in flight
      // instead of one dependent load per iteration (with 32-64 splits the
      // combine was latency bound). The epilogue loop, if any, has the
      // final values.
      ValueRange results = clone.getResults();
      FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(clone, 8);
      if (succeeded(unrolled) && unrolled->epilogueLoopOp)
        results = unrolled->epilogueLoopOp->getResults();
      else if (succeeded(unrolled) && unrolled->mainLoopOp)
        results = unrolled->mainLoopOp->getResults();
      map.map(loop.getResults(), results);
      continue;
    }
    if (auto inner = dyn_cast<scf::ParallelOp>(op)) {
      // The head-dim loop: one thread per element.
      Value ub = args.lift(inner.getUpperBound()[0], map, scope);
      if (!ub)
        return failure();
      auto ifOp = scf::IfOp::create(
          b, loc, kc.cmp(arith::CmpIPredicate::ult, kc.tid, ub), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      map.map(inner.getInductionVars()[0], kc.tid);
      if (failed(
              cloneCombineBlock(kc, args, scope, *inner.getBody(), map, true)))
        return failure();
      continue;
    }
    // exp, log and max as one instruction each (weights <= 1; LSE), not
    // libdevice calls (see intrinsic()).
    if (auto e = dyn_cast<math::ExpOp>(op)) {
      Value x = args.lift(e.getOperand(), map, scope);
      if (!x)
        return failure();
      map.map(e.getResult(), kc.exp2(kc.fmul(x, kc.cf(kLog2e))));
      continue;
    }
    if (auto lg = dyn_cast<math::LogOp>(op)) {
      Value x = args.lift(lg.getOperand(), map, scope);
      if (!x)
        return failure();
      map.map(lg.getResult(), kc.log(x));
      continue;
    }
    if (auto mx = dyn_cast<arith::MaxNumFOp>(op)) {
      Value x = args.lift(mx.getLhs(), map, scope),
            y = args.lift(mx.getRhs(), map, scope);
      if (!x || !y)
        return failure();
      map.map(mx.getResult(), kc.fmax(x, y));
      continue;
    }
    if (auto f = dyn_cast<math::FmaOp>(op)) {
      Value x = args.lift(f.getA(), map, scope),
            y = args.lift(f.getB(), map, scope),
            z = args.lift(f.getC(), map, scope);
      if (!x || !y || !z)
        return failure();
      map.map(f.getResult(), kc.fma(x, y, z));
      continue;
    }
    if (op.getNumRegions() != 0 || op.getNumResults() != 1)
      return op.emitOpError("flash-to-gpu: unexpected op in a combine grid");
    if (!args.lift(op.getResult(0), map, scope))
      return failure();
  }
  return success();
}

LogicalResult KernelEmitter::emitCombine(SmallVectorImpl<Value> &hostArgs) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  b.setInsertionPointToStart(&kc.entry);
  IRMapping map;
  ValueRange ivs = kc.t.grid.getInductionVars();
  map.map(ivs[0], gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  kc.tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (failed(cloneCombineBlock(kc, args, scope, kc.t.grid.getBody().front(),
                               map, false)))
    return failure();
  return finishKernel(hostArgs);
}

} // namespace mlir::flash::gpu_kernel
