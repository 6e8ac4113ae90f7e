//===- FlashAssignLayouts.cpp - Fragment layouts of the GPU tiles ---------===//
//
// flash-assign-layouts: decides where each tile value of an attention grid
// lives in the GPU kernel and writes it as the `#flash.frag` encoding of the
// value's tensor type (Q/K/V tile loads in swizzled shared memory, 2-D
// tiles in the MMA accumulator layout, row vectors in its rows), so that
// flash-to-gpu only reads layouts. The one choice that is not fixed by the
// MMA instructions is which row vectors stay thread-partial sums: a row
// vector that is only ever summed into and scaled (FA2's l = l * alpha +
// rowsum(P)) may keep each lane's own part, and the quad's two shuffles are
// paid once in the epilogue instead of at every KV block. That is legal
// because the quad's total of the parts distributes over both operations:
// sum(l_i * a) = a * sum(l_i), sum(l_i + s_i) = L + S.
//
// Values tied by type equality (a linalg op's init and result; a KV loop's
// init, iter_arg, yielded value and result) must share a layout, so they are
// grouped into classes first. The partial classes are the greatest fixed
// point over the classes of 1-D f32 tiles of a monotone rule: every class
// starts partial and is dropped when one of its values' definitions is not
// one of: a zero fill, a row-sum reduction into the class, an element-wise
// product of the class's value with an input (read as its row total), a KV
// loop's iter_arg or result. An input of an op may be partial whatever the
// op is: it is read as its total (see #flash.frag).
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHASSIGNLAYOUTS
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

bool isRowVector(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  return type && type.getRank() == 1 && type.getElementType().isF32();
}

/// The value `yielded` in terms of block arguments: true when it is
/// `arith.<Op>` of the two arguments `x` and `y` in either order.
template <typename OpTy>
bool isBinaryOf(Value yielded, Value x, Value y) {
  auto op = yielded.getDefiningOp<OpTy>();
  if (!op)
    return false;
  return (op.getLhs() == x && op.getRhs() == y) ||
         (op.getLhs() == y && op.getRhs() == x);
}

/// True when `v`'s definition keeps it a partial sum given `partial`.
bool staysPartial(Value v, const DenseSet<Value> &partial) {
  if (auto fill = v.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat());
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    auto loop = dyn_cast<KVLoopOp>(arg.getOwner()->getParentOp());
    return loop && arg.getArgNumber() != 0;
  }
  // A KV loop's or an scf.if's result is its yielded values (tied).
  if (v.getDefiningOp<KVLoopOp>() || v.getDefiningOp<scf::IfOp>())
    return true;
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

/// Two values that must have one type, and the op that says so.
struct Tie {
  Value a, b;
  Operation *op;
};

/// A shape-only tile (tensor.empty) has no layout of its own: it takes its
/// user's.
bool isShape(Value v) { return v.getDefiningOp<tensor::EmptyOp>() != nullptr; }

struct Assigner {
  GridOp grid;
  MmaKind mma;
  /// The tile values of the grid in definition order, but the shapes.
  SetVector<Value> tiles;
  SmallVector<Tie> ties;
  /// `tiles` partitioned along `ties`.
  llvm::EquivalenceClasses<Value> same;

  LogicalResult collect();
  bool inSmem(Value v);
  DenseSet<Value> findPartialSums();
  DenseSet<Value> findSpread();
  LogicalResult run();
};

LogicalResult Assigner::collect() {
  auto addTile = [&](Value v) {
    if (isa<RankedTensorType>(v.getType()) && !isShape(v))
      tiles.insert(v);
  };
  auto tie = [&](Value a, Value b, Operation *op) {
    ties.push_back({a, b, op});
  };
  WalkResult walk = grid.getBody().walk([&](Operation *op) {
    if (isa<TileUpdateOp, TileFinalizeOp>(op)) {
      op->emitOpError("flash-assign-layouts: run flash-online-softmax first "
                      "(it expands the online softmax this op stands for)");
      return WalkResult::interrupt();
    }
    if (isa<TileGradOp>(op)) {
      op->emitOpError("flash-assign-layouts: run flash-backward-recompute "
                      "first (it expands the backward step this op stands "
                      "for)");
      return WalkResult::interrupt();
    }
    bool makesTile = llvm::any_of(op->getResultTypes(), [](Type t) {
      return isa<TensorType>(t);
    });
    if (makesTile && !isa<linalg::LinalgOp, TileLoadOp, KVLoopOp, scf::IfOp,
                          scf::ForOp, tensor::EmptyOp>(op)) {
      op->emitOpError("flash-assign-layouts: no layout rule for a tile made "
                      "by this op (tiles come from linalg ops, tile loads, "
                      "KV loops, scf.if and scf.for)");
      return WalkResult::interrupt();
    }
    for (Value r : op->getResults())
      addTile(r);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op))
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        if (linalgOp.hasPureTensorSemantics() && !isShape(init.get()))
          tie(init.get(), linalgOp.getTiedOpResult(&init), op);
    if (auto ifOp = dyn_cast<scf::IfOp>(op))
      for (auto [i, result] : llvm::enumerate(ifOp.getResults()))
        for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()})
          tie(result, region->front().getTerminator()->getOperand(i), op);
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        addTile(arg);
        tie(arg, loop.getInitArgs()[i], op);
        tie(arg, loop.getYieldedValues()[i], op);
        tie(arg, loop.getResult(i), op);
      }
    }
    if (auto loop = dyn_cast<KVLoopOp>(op)) {
      auto yield = cast<YieldOp>(loop.getBody().front().getTerminator());
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        addTile(arg);
        if (!isShape(loop.getInits()[i]))
          tie(arg, loop.getInits()[i], op);
        tie(arg, yield.getValues()[i], op);
        tie(arg, loop.getResult(i), op);
      }
    }
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  for (Tie &t : ties) {
    // A tile from outside the grid is not a kernel value (flash-to-gpu
    // refuses it); the op that ties it to one is refused here already.
    if (!tiles.contains(t.a) || !tiles.contains(t.b))
      return t.op->emitOpError("flash-assign-layouts: a KV loop's state or "
                               "a linalg init must be a tile computed in the "
                               "grid");
    same.unionSets(t.a, t.b);
  }
  return success();
}

DenseSet<Value> Assigner::findPartialSums() {
  // Classes of 1-D f32 tiles, in a deterministic order.
  llvm::MapVector<Value, SmallVector<Value>> classes;
  for (Value v : tiles)
    classes[same.getOrInsertLeaderValue(v)].push_back(v);
  DenseSet<Value> partial;
  for (auto &[root, members] : classes)
    if (llvm::all_of(members, isRowVector))
      partial.insert(members.begin(), members.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[root, members] : classes)
      if (partial.contains(members.front()) &&
          llvm::any_of(members,
                       [&](Value v) { return !staysPartial(v, partial); })) {
        for (Value v : members)
          partial.erase(v);
        changed = true;
      }
  }
  return partial;
}

/// The 1-D classes that meet no 2-D tile and no other row vector: no value
/// of the class is stored, is a KV loop's state or an scf.if's result, or
/// is an operand or result of a linalg op with a rank-2 operand or with a
/// 1-D operand outside such classes (a greatest fixed point). Their layout
/// is free, and `spread` is the cheapest to reduce (one register per 32
/// elements, every warp the same).
DenseSet<Value> Assigner::findSpread() {
  auto rankOf = [](Value x) {
    auto type = dyn_cast<RankedTensorType>(x.getType());
    return type ? type.getRank() : -1;
  };
  llvm::MapVector<Value, SmallVector<Value>> classes;
  for (Value v : tiles)
    if (rankOf(v) == 1)
      classes[same.getOrInsertLeaderValue(v)].push_back(v);
  DenseSet<Value> spread;
  for (auto &[root, members] : classes)
    spread.insert(members.begin(), members.end());
  // Whether `op` keeps the 1-D values it touches out of `spread`. An
  // scf.for carries its tiles as they are (its state is tied to them).
  auto binds = [&](Operation *op) {
    if (isa<scf::ForOp>(op) ||
        (isa<scf::YieldOp>(op) && isa<scf::ForOp>(op->getParentOp())))
      return false;
    if (!isa<linalg::LinalgOp>(op))
      return true;
    auto fixed = [&](Value x) {
      return rankOf(x) == 2 || (rankOf(x) == 1 && !isShape(x) &&
                                !spread.contains(x));
    };
    return llvm::any_of(op->getOperands(), fixed) ||
           llvm::any_of(op->getResults(), fixed);
  };
  auto meets = [&](Value v) {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return !isa<scf::ForOp>(arg.getOwner()->getParentOp());
    if (binds(v.getDefiningOp()))
      return true;
    return llvm::any_of(v.getUsers(), binds);
  };
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &[root, members] : classes)
      if (spread.contains(members.front()) && llvm::any_of(members, meets)) {
        for (Value v : members)
          spread.erase(v);
        changed = true;
      }
  }
  return spread;
}

/// The spread classes that an scf.for of the grid carries (a scan before
/// the KV loops) and whose length is a multiple of the program's `threads`:
/// each element can then be held by one thread (`cta`), so that the scan
/// costs each warp its share of the keys instead of all of them.
DenseSet<Value> findCta(const DenseSet<Value> &spread,
                        llvm::EquivalenceClasses<Value> &same,
                        int64_t threads) {
  auto inScan = [](Value v) {
    Operation *owner = isa<BlockArgument>(v)
                           ? cast<BlockArgument>(v).getOwner()->getParentOp()
                           : v.getDefiningOp();
    return isa<scf::ForOp>(owner) || isa<scf::ForOp>(owner->getParentOp());
  };
  DenseSet<Value> cta;
  for (Value v : spread) {
    if (!inScan(v) ||
        cast<RankedTensorType>(v.getType()).getDimSize(0) % threads != 0)
      continue;
    // findSpread put every 1-D tile in `same`.
    for (Value member : same.members(v))
      cta.insert(member);
  }
  return cta;
}

/// Whether tile `v` lives in shared memory: a forward grid's tile loads
/// (Q, K, V) are the GEMMs' operands. A backward grid also loads tiles that
/// only element-wise ops read (O and dO for D = rowsum(dO * O), the f32 dQ
/// workspace, the LSE and D rows): those go straight into registers, in the
/// layout of the tiles they meet; the ones every reader of which is a
/// matmul (Q, K, V, dO of the KV program) are shared-memory operands.
bool Assigner::inSmem(Value v) {
  auto load = v.getDefiningOp<TileLoadOp>();
  if (!load)
    return false;
  if (!grid.getBackward())
    return true;
  return cast<RankedTensorType>(v.getType()).getRank() == 2 &&
         llvm::all_of(v.getUsers(), [](Operation *user) {
           return isa<linalg::MatmulOp>(user);
         });
}

LogicalResult Assigner::run() {
  if (failed(collect()))
    return failure();
  DenseSet<Value> partial = findPartialSums();
  DenseSet<Value> spread = findSpread();
  DenseSet<Value> cta =
      findCta(spread, same, grid.getConfig()->getProgramThreads());
  MLIRContext *ctx = grid.getContext();
  DenseMap<Value, FragAttr> layout;
  for (Value v : tiles) {
    auto type = cast<RankedTensorType>(v.getType());
    FragAttr frag;
    if (inSmem(v))
      frag = FragAttr::get(ctx, FragKind::Smem, mma);
    else if (type.getRank() == 2)
      frag = FragAttr::get(ctx, FragKind::Acc, mma);
    else if (type.getRank() == 1)
      frag = FragAttr::get(ctx,
                           cta.contains(v)       ? FragKind::Cta
                           : spread.contains(v)  ? FragKind::Spread
                           : partial.contains(v) ? FragKind::RowPartial
                                                 : FragKind::Row,
                           MmaKind::None);
    else if (type.getRank() == 0)
      frag = FragAttr::get(ctx, FragKind::Uniform, MmaKind::None);
    Operation *where = v.getDefiningOp();
    if (!where)
      where = cast<BlockArgument>(v).getOwner()->getParentOp();
    if (!frag)
      return where->emitOpError("flash-assign-layouts: no layout for a rank-")
             << type.getRank() << " tile";
    // Say a shared-memory tile of f32.
    if (failed(frag.verifyEncoding(type.getShape(), type.getElementType(),
                                   [&] {
                                     return where->emitOpError(
                                         "flash-assign-layouts: ");
                                   })))
      return failure();
    layout[v] = frag;
  }
  for (Tie &t : ties)
    if (layout[t.a] != layout[t.b])
      return t.op->emitOpError("flash-assign-layouts: tiles that must share "
                               "a type need layouts ")
             << layout[t.a] << " and " << layout[t.b]
             << " (a shared-memory tile cannot be updated in place)";

  auto withLayout = [](Type type, FragAttr frag) {
    auto tensor = cast<RankedTensorType>(type);
    return RankedTensorType::get(tensor.getShape(), tensor.getElementType(),
                                 frag);
  };
  for (Value v : tiles)
    v.setType(withLayout(v.getType(), layout[v]));
  // Each init that is only a shape (of a linalg op or a KV loop) gets an
  // empty tile of the type it must have (one per shape and layout).
  DenseMap<std::pair<Operation *, Type>, Value> shapes;
  SetVector<Operation *> oldShapes;
  auto reshape = [&](OpOperand &init, Type type) {
    auto empty = init.get().getDefiningOp<tensor::EmptyOp>();
    if (!empty || empty.getType() == type)
      return;
    Value &shape = shapes[{empty, type}];
    if (!shape) {
      OpBuilder b(empty);
      shape = tensor::EmptyOp::create(b, empty.getLoc(), type,
                                      empty.getDynamicSizes());
      oldShapes.insert(empty);
    }
    init.set(shape);
  };
  grid.getBody().walk([&](Operation *op) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
        linalgOp && linalgOp.hasPureTensorSemantics())
      for (OpOperand &init : linalgOp.getDpsInitsMutable())
        reshape(init, linalgOp.getTiedOpResult(&init).getType());
    if (auto loop = dyn_cast<KVLoopOp>(op))
      for (auto [init, arg] :
           llvm::zip(loop.getInitsMutable(), loop.getRegionIterArgs()))
        reshape(init, arg.getType());
  });
  for (Operation *op : oldShapes)
    if (op->use_empty())
      op->erase();
  return success();
}

struct FlashAssignLayoutsPass
    : flash::impl::FlashAssignLayoutsBase<FlashAssignLayoutsPass> {
  void runOnOperation() override {
    SmallVector<GridOp> grids;
    getOperation()->walk([&](GridOp grid) {
      if (grid.getConfig() && !grid.getCombine())
        grids.push_back(grid);
    });
    for (GridOp grid : grids) {
      Assigner assigner{grid,
                        grid.getConfig()->getWgmma() ? MmaKind::Wgmma
                                                     : MmaKind::MmaSync};
      if (failed(assigner.run()))
        return signalPassFailure();
    }
  }
};

} // namespace
