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

LogicalResult KernelEmitter::cloneCombineBlock(Block &body, IRMapping &map,
                                               bool perThread) {
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto it = lifted.find(store.getMemRef());
      if (it == lifted.end())
        it = lifted.insert({store.getMemRef(),
                            liftTensor(store.getMemRef(), -1)}).first;
      SmallVector<Value> idx;
      for (Value i : store.getIndices())
        if (!idx.emplace_back(lift(i, map)))
          return failure();
      Value value = lift(store.getValue(), map);
      if (!value)
        return failure();
      // Row-level results (LSE) are written by thread 0 alone.
      OpBuilder::InsertionGuard guard(b);
      if (!perThread) {
        auto ifOp = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::eq, tid, c(0)), false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      KernelTensor &kt = it->second;
      LLVM::StoreOp::create(
          b, loc, value,
          globalPtr(kt.ptr, mul(elementOffset(kt, idx), c(kt.eltBytes))),
          kt.eltBytes);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (Value init : loop.getInitArgs())
        inits.push_back(lift(init, map));
      Value lb = lift(loop.getLowerBound(), map),
            ub = lift(loop.getUpperBound(), map),
            step = lift(loop.getStep(), map);
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
        if (failed(cloneCombineBlock(*loop.getBody(), map, perThread)))
          return failure();
        SmallVector<Value> yields;
        for (Value y : loop.getBody()->getTerminator()->getOperands())
          yields.push_back(lift(y, map));
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
      Value ub = lift(inner.getUpperBound()[0], map);
      if (!ub)
        return failure();
      auto ifOp = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::ult, tid, ub), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      map.map(inner.getInductionVars()[0], tid);
      if (failed(cloneCombineBlock(*inner.getBody(), map, true)))
        return failure();
      continue;
    }
    // exp, log and max as one instruction each (weights <= 1; LSE), not
    // libdevice calls (see intrinsic()).
    if (auto e = dyn_cast<math::ExpOp>(op)) {
      Value x = lift(e.getOperand(), map);
      if (!x)
        return failure();
      map.map(e.getResult(), exp2(fmul(x, cf(kLog2e))));
      continue;
    }
    if (auto lg = dyn_cast<math::LogOp>(op)) {
      Value x = lift(lg.getOperand(), map);
      if (!x)
        return failure();
      map.map(lg.getResult(), log(x));
      continue;
    }
    if (auto mx = dyn_cast<arith::MaxNumFOp>(op)) {
      Value x = lift(mx.getLhs(), map), y = lift(mx.getRhs(), map);
      if (!x || !y)
        return failure();
      map.map(mx.getResult(), fmax(x, y));
      continue;
    }
    if (auto f = dyn_cast<math::FmaOp>(op)) {
      Value x = lift(f.getA(), map), y = lift(f.getB(), map),
            z = lift(f.getC(), map);
      if (!x || !y || !z)
        return failure();
      map.map(f.getResult(), fma(x, y, z));
      continue;
    }
    if (op.getNumRegions() != 0 || op.getNumResults() != 1)
      return op.emitOpError("flash-to-gpu: unexpected op in a combine grid");
    if (!lift(op.getResult(0), map))
      return failure();
  }
  return success();
}

LogicalResult KernelEmitter::emitCombine(SmallVectorImpl<Value> &hostArgs) {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  ValueRange ivs = t.grid.getInductionVars();
  map.map(ivs[0], gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (failed(cloneCombineBlock(t.grid.getBody().front(), map, false)))
    return failure();
  return finishKernel(hostArgs);
}

} // namespace mlir::flash::gpu_kernel
