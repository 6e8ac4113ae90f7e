//===- ColumnBounds.cpp - Key-position bound tests on fragments -----------===//
//
// The lowering of a mask body's bound tests of a key position j = J + k (J
// the thread's first column, k the register's constant; ColumnBounds.h),
// through TileArith.h's keyTestBound (unittests/TileArith checks it on
// integers). Exact because every key position is in [0, Sk) and J + k
// does not wrap (nsw). A position read by anything else (an ALiBi distance,
// a document id load) keeps its per-register add: its bounds would cost
// one more sub per row on top of the adds.
//
//===----------------------------------------------------------------------===//

#include "ColumnBounds.h"

#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"

using namespace mlir;

namespace mlir::flash::gpu_kernel {

using Pred = arith::CmpIPredicate;

ColumnBounds::ColumnBounds(Block &body, ArrayRef<Operation *> positions) {
  llvm::SmallPtrSet<Operation *, 4> isPosition(positions.begin(),
                                               positions.end());
  // Signed orders and (in)equalities with a position on a side (the left
  // one when both are).
  for (auto cmp : body.getOps<arith::CmpIOp>()) {
    if (!llvm::is_contained({Pred::slt, Pred::sle, Pred::sgt, Pred::sge,
                             Pred::eq, Pred::ne},
                            cmp.getPredicate()))
      continue;
    for (unsigned side = 0; side < 2; ++side) {
      Operation *position = cmp.getOperand(side).getDefiningOp();
      if (position && isPosition.contains(position)) {
        forms[cmp] = {position, side == 0};
        break;
      }
    }
  }
  // Only the tests of a position read by nothing but its tests fold.
  llvm::SmallPtrSet<Operation *, 4> folded;
  for (Operation *position : positions)
    if (llvm::all_of(position->getUsers(), [&](Operation *user) {
          auto it = forms.find(user);
          return it != forms.end() && it->second.position == position;
        }))
      folded.insert(position);
  SmallVector<Operation *> kept;
  for (auto &[test, form] : forms)
    if (!folded.contains(form.position))
      kept.push_back(test);
  for (Operation *test : kept)
    forms.erase(test);
}

Value ColumnBounds::lower(OpBuilder &b, Location loc, Operation &op,
                          IRMapping &m, int64_t k,
                          function_ref<Value(Operation *)> baseOf) const {
  auto it = forms.find(&op);
  if (it == forms.end())
    return {};
  auto cmp = cast<arith::CmpIOp>(op);
  Form form = it->second;
  IndexBuilder a{b, loc};
  Pred p = form.left ? cmp.getPredicate() : swapSides(cmp.getPredicate());
  Value t = m.lookup(form.left ? cmp.getRhs() : cmp.getLhs());
  return a.cmp(p, a.c(k), keyTestBound(a, t, baseOf(form.position)));
}

} // namespace mlir::flash::gpu_kernel
