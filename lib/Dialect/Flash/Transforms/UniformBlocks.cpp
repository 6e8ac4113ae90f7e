//===- UniformBlocks.cpp - KV blocks a key-equality mask keeps or drops whole ===//
//
// The analysis of a mask_mod for a conjunct F(i) == G(j) and the tile-level
// IR that classifies a program's rows and each KV block by it (see
// UniformBlocks.h).
//
//===----------------------------------------------------------------------===//

#include "UniformBlocks.h"
#include "flash/Dialect/Flash/Utils/TileArith.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::flash;

namespace {

// The mask_mod's block arguments: b, h, i, j, then the captures.
constexpr unsigned kRowArg = 2, kKeyArg = 3;

/// The ops of `body` that `v` is computed from, or failure when one of them
/// has a region (its uses inside it are not followed here).
FailureOr<SetVector<Operation *>> sliceOf(Block *body, Value v) {
  SetVector<Operation *> slice;
  SmallVector<Value> work = {v};
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (!def || def->getBlock() != body || !slice.insert(def))
      continue;
    if (def->getNumRegions() != 0)
      return failure();
    llvm::append_range(work, def->getOperands());
  }
  return slice;
}

/// Whether `v` reads the block argument `arg` of `body`.
bool reads(Block *body, Value v, unsigned arg) {
  Value a = body->getArgument(arg);
  if (v == a)
    return true;
  FailureOr<SetVector<Operation *>> slice = sliceOf(body, v);
  return failed(slice) || llvm::any_of(*slice, [&](Operation *op) {
           return llvm::is_contained(op->getOperands(), a);
         });
}

/// The leaves of the and-tree of i1 `v` in `body`, left to right.
void conjuncts(Block *body, Value v, SmallVectorImpl<Value> &leaves) {
  if (auto andOp = v.getDefiningOp<arith::AndIOp>();
      andOp && andOp->getBlock() == body) {
    conjuncts(body, andOp.getLhs(), leaves);
    conjuncts(body, andOp.getRhs(), leaves);
    return;
  }
  leaves.push_back(v);
}

/// A 1-D or 0-d linalg.generic; `body` gets the block arguments.
Value generic(OpBuilder &b, Location loc, ValueRange inputs, Value init,
              bool reduce,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *ctx = b.getContext();
  AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
  AffineMap scalar = AffineMap::get(1, 0, {}, ctx);
  SmallVector<AffineMap> maps(inputs.size(), id);
  maps.push_back(reduce ? scalar : id);
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
      {reduce ? utils::IteratorType::reduction : utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
      });
  return op.getResult(0);
}

/// A 0-d tensor holding `v`.
Value scalarTile(OpBuilder &b, Location loc, Value v) {
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{},
                                        v.getType());
  return linalg::FillOp::create(b, loc, v, empty).getResult(0);
}

Value extract(OpBuilder &b, Location loc, Value tile) {
  return tensor::ExtractOp::create(b, loc, tile, ValueRange{});
}

/// The scalar OpTy-reduction (an idempotent min/max or a sum) of the 1-D
/// `tile` into `init`.
template <typename OpTy>
Value reduceTo(OpBuilder &b, Location loc, Value tile, Value init) {
  return extract(
      b, loc,
      generic(b, loc, {tile}, init, /*reduce=*/true,
              [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
                return OpTy::create(nb, nloc, a[0], a[1]);
              }));
}

} // namespace

std::optional<UniformKeyTest> UniformKeyTest::analyze(AttentionOp op) {
  Region &mask = op.getMaskMod();
  if (mask.empty())
    return std::nullopt;
  Block *body = &mask.front();
  Value root = body->getTerminator()->getOperand(0);
  SmallVector<Value> leaves;
  conjuncts(body, root, leaves);
  for (Value leaf : leaves) {
    auto test = leaf.getDefiningOp<arith::CmpIOp>();
    if (!test || test->getBlock() != body ||
        test.getPredicate() != arith::CmpIPredicate::eq)
      continue;
    auto isRowSide = [&](Value v) { return !reads(body, v, kKeyArg); };
    auto isKeySide = [&](Value v) {
      return reads(body, v, kKeyArg) && !reads(body, v, kRowArg);
    };
    bool rowOnLhs;
    if (isRowSide(test.getLhs()) && isKeySide(test.getRhs()))
      rowOnLhs = true;
    else if (isRowSide(test.getRhs()) && isKeySide(test.getLhs()))
      rowOnLhs = false;
    else
      continue;
    unsigned position = 0;
    for (Operation &o : *body) {
      if (&o == test.getOperation())
        break;
      ++position;
    }
    return UniformKeyTest(body, test, rowOnLhs, leaf == root, position);
  }
  return std::nullopt;
}

Value UniformKeyTest::cloneSide(OpBuilder &b, Value side, ValueRange modArgs,
                                Value at, bool isRow) const {
  IRMapping map;
  map.map(body->getArgument(0), modArgs[0]);
  map.map(body->getArgument(1), modArgs[1]);
  map.map(body->getArgument(isRow ? kRowArg : kKeyArg), at);
  for (auto [arg, capture] :
       llvm::zip(body->getArguments().drop_front(4), modArgs.drop_front(2)))
    map.map(arg, capture);
  SetVector<Operation *> slice = *sliceOf(body, side);
  for (Operation &op : *body)
    if (slice.contains(&op))
      b.clone(op, map);
  return map.lookupOrDefault(side);
}

UniformKeyTest::Rows UniformKeyTest::emitRows(OpBuilder &b, Location loc,
                                              ValueRange modArgs, Value row0,
                                              int64_t bm, Value seqQ) const {
  IndexBuilder ib{b, loc};
  Value side = rowOnLhs ? test.getLhs() : test.getRhs();
  Value lastRow = ib.sub(seqQ, ib.c(1));
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{bm},
                                        side.getType());
  Value f = generic(b, loc, {}, empty, /*reduce=*/false,
                    [&](OpBuilder &nb, Location nloc, ValueRange) {
                      IndexBuilder nib{nb, nloc};
                      Value r = linalg::IndexOp::create(nb, nloc, 0);
                      Value i = nib.min(nib.add(row0, r), lastRow);
                      return cloneSide(nb, side, modArgs, i, /*isRow=*/true);
                    });
  // The program's first row is valid: its F is an element, the init of
  // both (idempotent) reductions.
  Value init = scalarTile(b, loc, cloneSide(b, side, modArgs, row0, true));
  Value lo = reduceTo<arith::MinSIOp>(b, loc, f, init);
  return {lo, reduceTo<arith::MaxSIOp>(b, loc, f, init)};
}

UniformKeyTest::Blocks
UniformKeyTest::emitBlock(OpBuilder &b, Location loc, ValueRange modArgs,
                          const Rows &rows, Value col0, int64_t bn,
                          Value seqK) const {
  IndexBuilder ib{b, loc};
  Value side = rowOnLhs ? test.getRhs() : test.getLhs();
  Value lastCol = ib.sub(seqK, ib.c(1));
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{bn},
                                        side.getType());
  Value g = generic(b, loc, {}, empty, /*reduce=*/false,
                    [&](OpBuilder &nb, Location nloc, ValueRange) {
                      IndexBuilder nib{nb, nloc};
                      Value c = linalg::IndexOp::create(nb, nloc, 0);
                      Value j = nib.min(nib.add(col0, c), lastCol);
                      return cloneSide(nb, side, modArgs, j, /*isRow=*/false);
                    });
  Value yes = arith::ConstantOp::create(b, loc, b.getBoolAttr(true));
  Value init = scalarTile(b, loc, yes);
  using P = arith::CmpIPredicate;
  auto all = [&](function_ref<Value(OpBuilder &, Location, Value)> test) {
    return extract(
        b, loc,
        generic(b, loc, {g}, init, /*reduce=*/true,
                [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
                  return arith::AndIOp::create(nb, nloc, a[1],
                                               test(nb, nloc, a[0]));
                }));
  };
  // Every key's G is the rows' one value: the test holds on the block.
  Value allEqual = all([&](OpBuilder &nb, Location nloc, Value x) -> Value {
    return arith::CmpIOp::create(nb, nloc, P::eq, x, rows.lo);
  });
  Value oneRowValue = arith::CmpIOp::create(b, loc, P::eq, rows.lo, rows.hi);
  // Every key's G lies outside [lo, hi]: it equals no row's F.
  Value allOutside = all([&](OpBuilder &nb, Location nloc, Value x) -> Value {
    Value below = arith::CmpIOp::create(nb, nloc, P::slt, x, rows.lo);
    Value above = arith::CmpIOp::create(nb, nloc, P::sgt, x, rows.hi);
    return arith::OrIOp::create(nb, nloc, below, above);
  });
  return {allOutside, arith::AndIOp::create(b, loc, oneRowValue, allEqual)};
}

HintKeys<Value> UniformKeyTest::emitScan(OpBuilder &b, Location loc,
                                         ValueRange modArgs, const Rows &rows,
                                         Value keyLo, Value keyHi,
                                         bool full) const {
  IndexBuilder ib{b, loc};
  using P = arith::CmpIPredicate;
  Value side = rowOnLhs ? test.getRhs() : test.getLhs();
  Type index = b.getIndexType(), i1 = b.getI1Type();
  int64_t n = kScanChunk;
  auto tile = [&](Type elt) {
    return tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n}, elt)
        .getResult();
  };
  auto filled = [&](Value v) {
    return linalg::FillOp::create(b, loc, v, tile(v.getType())).getResult(0);
  };
  // Per chunk position: the first key, one past the last, and the count of
  // the keys whose G lies in [lo, hi] (partial over the chunks).
  Value zero = ib.c(0);
  SmallVector<Value> inits = {filled(keyHi), filled(zero)};
  if (full)
    inits.push_back(filled(zero));
  auto loop = scf::ForOp::create(
      b, loc, keyLo, keyHi, ib.c(n), inits,
      [&](OpBuilder &lb, Location lloc, Value col0, ValueRange acc) {
        // in[e]: key col0 + e is in the range and its G in [lo, hi], as
        // (G - lo) <=u (hi - lo) (one compare; hi >= lo). A key past the
        // range reads the last one's G (in bounds) and is dropped.
        Value in = generic(
            lb, lloc, {}, tile(i1), /*reduce=*/false,
            [&](OpBuilder &nb, Location nloc, ValueRange) -> Value {
              IndexBuilder nib{nb, nloc};
              Value j = nib.add(col0, linalg::IndexOp::create(nb, nloc, 0));
              Value valid = nib.lt(j, keyHi);
              Value at = nib.min(j, nib.sub(keyHi, nib.c(1)));
              Value x = cloneSide(nb, side, modArgs, at, /*isRow=*/false);
              Value off = arith::SubIOp::create(nb, nloc, x, rows.lo);
              Value span = arith::SubIOp::create(nb, nloc, rows.hi, rows.lo);
              Value inRange =
                  arith::CmpIOp::create(nb, nloc, P::ule, off, span);
              return arith::AndIOp::create(nb, nloc, valid, inRange);
            });
        // acc' = in ? f(acc, j) : acc, element by element.
        auto update = [&](Value accTile,
                          function_ref<Value(IndexBuilder &, Value, Value)> f) {
          return generic(
              lb, lloc, {in, accTile}, tile(index), /*reduce=*/false,
              [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
                IndexBuilder nib{nb, nloc};
                Value j = nib.add(col0, linalg::IndexOp::create(nb, nloc, 0));
                return nib.select(a[0], f(nib, a[1], j), a[1]);
              });
        };
        Value first = update(acc[0], [](IndexBuilder &nib, Value a, Value j) {
          return nib.min(a, j);
        });
        Value end = update(acc[1], [](IndexBuilder &nib, Value a, Value j) {
          return nib.max(a, nib.add(j, nib.c(1)));
        });
        SmallVector<Value> next = {first, end};
        if (full)
          next.push_back(update(acc[2], [](IndexBuilder &nib, Value a, Value) {
            return nib.add(a, nib.c(1));
          }));
        scf::YieldOp::create(lb, lloc, next);
      });
  auto reduce = [&](auto tag, Value partial, Value init) {
    return reduceTo<decltype(tag)>(b, loc, partial, scalarTile(b, loc, init));
  };
  Value vlo = reduce(arith::MinSIOp(), loop.getResult(0), keyHi);
  Value vhi = reduce(arith::MaxSIOp(), loop.getResult(1), zero);
  if (!full)
    return {vlo, vhi, zero, zero};
  Value count = reduce(arith::AddIOp(), loop.getResult(2), zero);
  // One F for every row and as many such keys as positions in [vlo, vhi):
  // the conjunct holds on the whole interval.
  Value whole =
      ib.land(arith::CmpIOp::create(b, loc, P::eq, rows.lo, rows.hi),
              arith::CmpIOp::create(b, loc, P::eq, count, ib.sub(vhi, vlo)));
  return {vlo, vhi, ib.select(whole, vlo, zero), ib.select(whole, vhi, zero)};
}

void UniformKeyTest::dropFrom(Region &mask) const {
  Block &clone = mask.front();
  Operation *op = &*std::next(clone.begin(), position);
  OpBuilder b(op);
  Value yes = arith::ConstantOp::create(b, op->getLoc(), b.getBoolAttr(true));
  op->getResult(0).replaceAllUsesWith(yes);
  op->erase();
}
