//===- Layout.cpp - Which row sums stay thread-partial -------------------===//
//
// The one layout choice of the kernel that is not fixed by the MMA
// instructions: a row vector that is only ever summed into and scaled (FA2's
// l = l * alpha + rowsum(P)) can stay a thread-partial sum, each lane of the
// quad that owns the row holding its own part, so that the two quad shuffles
// of the sum are paid once in the epilogue instead of at every KV block.
// This is legal because the quad's total of the parts distributes over
// both operations: sum(l_i * a) = a * sum(l_i), sum(l_i + s_i) = L + S.
//
// The analysis is the greatest fixed point over the grid's 1-D f32 tiles of
// a monotone rule: every candidate starts partial and is dropped when its
// definition is not one of: a zero fill, a row-sum reduction into a partial
// init, an element-wise product of a partial init with an input (read as
// its row total), a KV loop's iter_arg/result whose init and yielded value
// are both partial. Uses need no check: a use that needs the row's total
// gets it from fragmentOf().
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

static bool isRowVector(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 1 && type.getElementType().isF32();
}

/// The value `yield` returns in terms of block arguments: true when it is
/// `arith.<Op>` of the two arguments `x` and `y` in either order.
template <typename OpTy>
static bool isBinaryOf(Value yielded, Value x, Value y) {
  auto op = yielded.getDefiningOp<OpTy>();
  if (!op)
    return false;
  return (op.getLhs() == x && op.getRhs() == y) ||
         (op.getLhs() == y && op.getRhs() == x);
}

/// True when `v`'s definition keeps it a partial sum given `partial`.
static bool staysPartial(Value v, const llvm::DenseSet<Value> &partial) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<KVLoopOp>(arg.getOwner()->getParentOp());
    if (!loop || arg.getArgNumber() == 0)
      return false;
    unsigned i = arg.getArgNumber() - 1;
    auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
    return partial.contains(loop.getInits()[i]) &&
           partial.contains(yield.getValues()[i]);
  }
  if (auto loop = v.getDefiningOp<KVLoopOp>()) {
    unsigned i = cast<OpResult>(v).getResultNumber();
    return partial.contains(loop.getRegionIterArgs()[i]);
  }
  auto generic = v.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInits() != 1)
    return false;
  Value yielded = generic.getBody()->getTerminator()->getOperand(0);
  OpOperand *init = generic.getDpsInitOperand(0);
  BlockArgument initArg = generic.getMatchingBlockArgument(init);
  // l_new = reduce(+) P into a partial init: each lane adds its own elements.
  if (generic.getNumReductionLoops() == 1) {
    if (generic.getNumDpsInputs() != 1 || !partial.contains(init->get()))
      return false;
    BlockArgument in =
        generic.getMatchingBlockArgument(generic.getDpsInputOperand(0));
    return isBinaryOf<arith::AddFOp>(yielded, in, initArg);
  }
  if (generic.getNumLoops() != 1)
    return false;
  // l * alpha: the partial vector is the init, scaled by an input (read
  // as its row total: the product distributes over the quad's parts).
  if (!partial.contains(init->get()) || !initArg.hasOneUse())
    return false;
  if (yielded == initArg)
    return true;
  auto mul = yielded.getDefiningOp<arith::MulFOp>();
  if (!mul || mul->getBlock() != generic.getBody())
    return false;
  Value other = mul.getLhs() == initArg ? mul.getRhs() : mul.getLhs();
  return (mul.getLhs() == initArg || mul.getRhs() == initArg) &&
         isa<BlockArgument>(other) && other != initArg;
}

llvm::DenseSet<Value> findPartialSums(GridOp grid) {
  llvm::DenseSet<Value> partial;
  grid.getBody().walk([&](Operation *op) {
    for (Value r : op->getResults())
      if (isRowVector(r))
        partial.insert(r);
    if (auto loop = dyn_cast<KVLoopOp>(op))
      for (Value arg : loop.getRegionIterArgs())
        if (isRowVector(arg))
          partial.insert(arg);
  });
  for (bool changed = true; changed;) {
    changed = false;
    for (Value v : llvm::to_vector(partial))
      if (!staysPartial(v, partial)) {
        partial.erase(v);
        changed = true;
      }
  }
  return partial;
}

} // namespace mlir::flash::gpu_kernel
