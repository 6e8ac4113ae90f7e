//===- MaskKeys.cpp - Key bounds a mask_mod states in its IR --------------===//
//
// MaskKeyBounds (see MaskKeys.h): classifies each value of a mask_mod region
// by how it varies with the query row, reads the yielded i1 as and/or of key
// tests, and emits a program's block-mask keys from two clones of the tests'
// bounds (at the program's first and last valid row) through TileArith's
// interval formulas, which the hint path shares.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/MaskKeys.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::flash;

using Pred = arith::CmpIPredicate;

namespace {

bool isKnown(RowOrder o) {
  return o == RowOrder::Invariant || o == RowOrder::Increasing ||
         o == RowOrder::Decreasing;
}

/// The order of a monotone function of two values ordered so (a sum, a max).
RowOrder join(RowOrder a, RowOrder b) {
  if (a == RowOrder::KeyDependent || b == RowOrder::KeyDependent)
    return RowOrder::KeyDependent;
  if (!isKnown(a) || !isKnown(b))
    return RowOrder::Unknown;
  if (a == RowOrder::Invariant)
    return b;
  if (b == RowOrder::Invariant || a == b)
    return a;
  return RowOrder::Unknown;
}

RowOrder flip(RowOrder a) {
  if (a == RowOrder::Increasing)
    return RowOrder::Decreasing;
  if (a == RowOrder::Decreasing)
    return RowOrder::Increasing;
  return a;
}

/// An integer or index value other than an i1.
bool isIntValue(Value v) {
  return v.getType().isIntOrIndex() && !v.getType().isInteger(1);
}

/// A cast whose result may not hold its operand (the width of index is the
/// target's: 32 bits in a kernel, 64 on the host).
bool mayNarrow(Operation *op) {
  return isa<arith::IndexCastOp, arith::TruncIOp>(op);
}

bool isSignedOrder(Pred p) {
  return p == Pred::slt || p == Pred::sle || p == Pred::sgt || p == Pred::sge;
}

/// A read of a capture that every program may make: at indices that are
/// the batch, the head or constants within a static dimension (so a
/// program whose sequence has no key, where the element mask reads
/// nothing, reads in bounds too).
bool isProgramRead(Operation &op, Value b, Value h) {
  Value source;
  ValueRange indices;
  if (auto load = dyn_cast<memref::LoadOp>(op))
    source = load.getMemRef(), indices = load.getIndices();
  else if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    source = extract.getTensor(), indices = extract.getIndices();
  else
    return false;
  auto type = cast<ShapedType>(source.getType());
  for (auto [dim, index] : llvm::enumerate(indices)) {
    if (index == b || index == h)
      continue;
    APInt c;
    if (!matchPattern(index, m_ConstantInt(&c)) || c.isNegative() ||
        type.isDynamicDim(dim) || c.getSExtValue() >= type.getDimSize(dim))
      return false;
  }
  return true;
}

/// How the results of `op` vary with the row, given its operands'.
RowOrder classify(Operation &op, const DenseMap<Value, RowOrder> &order,
                  Value b, Value h) {
  RowOrder all = RowOrder::Invariant;
  SmallVector<RowOrder> of;
  for (Value operand : op.getOperands()) {
    auto it = order.find(operand);
    of.push_back(it == order.end() ? RowOrder::Unknown : it->second);
    if (of.back() == RowOrder::KeyDependent)
      return RowOrder::KeyDependent;
    if (of.back() != RowOrder::Invariant)
      all = RowOrder::Unknown;
  }
  if (isa<memref::LoadOp, tensor::ExtractOp>(op))
    return all == RowOrder::Invariant && isProgramRead(op, b, h)
               ? RowOrder::Invariant
               : RowOrder::Unknown;
  if (op.getNumRegions() != 0 || !isMemoryEffectFree(&op) ||
      op.getNumResults() != 1)
    return RowOrder::Unknown;
  if (all == RowOrder::Invariant)
    return RowOrder::Invariant;
  // Row-dependent: integer arithmetic that is monotone in each operand, and
  // the casts between integer widths, exact unless they wrap (emit checks
  // each narrowing one at both rows).
  if (!isIntValue(op.getResult(0)))
    return RowOrder::Unknown;
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp>(op))
    return of[0];
  if (isa<arith::AddIOp, arith::MaxSIOp, arith::MinSIOp>(op))
    return join(of[0], of[1]);
  if (isa<arith::SubIOp>(op))
    return join(of[0], flip(of[1]));
  if (isa<arith::DivSIOp, arith::FloorDivSIOp, arith::CeilDivSIOp>(op)) {
    APInt c;
    return matchPattern(op.getOperand(1), m_ConstantInt(&c)) &&
                   c.isStrictlyPositive()
               ? of[0]
               : RowOrder::Unknown;
  }
  if (isa<arith::SelectOp>(op))
    return of[0] == RowOrder::Invariant ? join(of[1], of[2])
                                        : RowOrder::Unknown;
  return RowOrder::Unknown;
}

} // namespace

std::optional<MaskKeyBounds> MaskKeyBounds::analyze(AttentionOp op) {
  Region &region = op.getMaskMod();
  if (region.empty())
    return std::nullopt;
  Block *body = &region.front();
  // (b, h, i, j, captures...): the op's verifier holds the count.
  if (body->getNumArguments() < 4)
    return std::nullopt;
  MaskKeyBounds m(body);
  Value b = body->getArgument(0), h = body->getArgument(1);
  for (BlockArgument arg : body->getArguments())
    m.order[arg] = RowOrder::Invariant;
  m.order[body->getArgument(2)] = RowOrder::Increasing;
  m.order[body->getArgument(3)] = RowOrder::KeyDependent;
  for (Operation &o : body->without_terminator()) {
    RowOrder r = classify(o, m.order, b, h);
    for (Value result : o.getResults())
      m.order[result] = r;
  }
  DenseMap<Value, unsigned> memo;
  m.root = m.termOf(body->getTerminator()->getOperand(0), memo);
  if (llvm::all_of(m.terms, [](const Term &t) {
        return t.kind == Term::Opaque || t.kind == Term::And ||
               t.kind == Term::Or;
      }))
    return std::nullopt;
  return m;
}

unsigned MaskKeyBounds::termOf(Value v, DenseMap<Value, unsigned> &memo) {
  if (auto it = memo.find(v); it != memo.end())
    return it->second;
  Term t{Term::Opaque};
  Value j = body->getArgument(3);
  APInt c;
  if (matchPattern(v, m_ConstantInt(&c))) {
    t.kind = c.isZero() ? Term::False : Term::True;
  } else if (auto andOp = v.getDefiningOp<arith::AndIOp>()) {
    t.kind = Term::And;
    t.lhs = termOf(andOp.getLhs(), memo);
    t.rhs = termOf(andOp.getRhs(), memo);
  } else if (auto orOp = v.getDefiningOp<arith::OrIOp>()) {
    t.kind = Term::Or;
    t.lhs = termOf(orOp.getLhs(), memo);
    t.rhs = termOf(orOp.getRhs(), memo);
  } else if (auto cmp = v.getDefiningOp<arith::CmpIOp>();
             cmp && isSignedOrder(cmp.getPredicate())) {
    auto known = [&](Value x) {
      return isIntValue(x) && isKnown(order.lookup(x));
    };
    // The key position: j itself or j through casts (innermost first).
    SmallVector<Operation *> casts;
    auto isKey = [&](Value v) {
      casts.clear();
      while (v != j) {
        Operation *def = v.getDefiningOp();
        if (!isa_and_nonnull<arith::IndexCastOp, arith::ExtSIOp,
                             arith::TruncIOp>(def))
          return false;
        casts.push_back(def);
        v = def->getOperand(0);
      }
      std::reverse(casts.begin(), casts.end());
      return true;
    };
    // k as j, j + x, j - x or x - j, with x known.
    auto keySide = [&](Value k) -> std::optional<std::pair<Term::Shift, Value>> {
      if (isKey(k))
        return std::make_pair(Term::Bare, Value());
      if (auto add = k.getDefiningOp<arith::AddIOp>()) {
        if (known(add.getRhs()) && isKey(add.getLhs()))
          return std::make_pair(Term::Plus, add.getRhs());
        if (known(add.getLhs()) && isKey(add.getRhs()))
          return std::make_pair(Term::Plus, add.getLhs());
      }
      if (auto sub = k.getDefiningOp<arith::SubIOp>()) {
        if (known(sub.getRhs()) && isKey(sub.getLhs()))
          return std::make_pair(Term::Minus, sub.getRhs());
        if (known(sub.getLhs()) && isKey(sub.getRhs()))
          return std::make_pair(Term::From, sub.getLhs());
      }
      return std::nullopt;
    };
    Pred p = cmp.getPredicate();
    Value bound = cmp.getRhs();
    auto side = keySide(cmp.getLhs());
    if (!side || !known(bound)) {
      p = swapSides(p), bound = cmp.getLhs();
      side = keySide(cmp.getRhs());
    }
    if (side && known(bound)) {
      auto [shift, x] = *side;
      RowOrder tOrder = order.lookup(bound),
               xOrder = x ? order.lookup(x) : RowOrder::Invariant;
      // j + x p t: j p t - x; j - x p t: j p t + x; x - j p t: j p' x - t.
      RowOrder b = shift == Term::Plus    ? join(tOrder, flip(xOrder))
                   : shift == Term::Minus ? join(tOrder, xOrder)
                   : shift == Term::From  ? join(xOrder, flip(tOrder))
                                          : tOrder;
      if (isKnown(b)) {
        t.kind = Term::Test;
        t.pred = shift == Term::From ? swapSides(p) : p;
        t.bound = bound, t.offset = x, t.shift = shift, t.order = b;
        t.keyCasts = casts;
      }
    }
  }
  terms.push_back(t);
  memo[v] = terms.size() - 1;
  return terms.size() - 1;
}

/// True when `add` (an addi or subi clone) did not wrap: the sign rule of
/// two's complement, written with the clone's own operands.
static Value noWrap(IndexBuilder &ib, Operation *add) {
  Value x = add->getOperand(0), y = add->getOperand(1), r = add->getResult(0);
  auto xorOf = [&](Value p, Value q) {
    return arith::XOrIOp::create(ib.b, ib.loc, p, q).getResult();
  };
  // x + y wraps iff r's sign differs from both x's and y's; x - y iff x and
  // y differ in sign and r's differs from x's.
  Value bits = isa<arith::AddIOp>(add)
                   ? arith::AndIOp::create(ib.b, ib.loc, xorOf(r, x), xorOf(r, y))
                   : arith::AndIOp::create(ib.b, ib.loc, xorOf(x, y), xorOf(x, r));
  Value zero = arith::ConstantOp::create(
      ib.b, ib.loc, ib.b.getZeroAttr(bits.getType()));
  return ib.ge(bits, zero);
}

/// True when `v` lies in the range of a `bits`-wide signed integer,
/// compared in v's type (index in i64: index is at most 64 bits wide).
static Value fits(IndexBuilder &ib, Value v, unsigned bits) {
  if (v.getType().isIndex())
    v = arith::IndexCastOp::create(ib.b, ib.loc, ib.b.getI64Type(), v);
  auto type = cast<IntegerType>(v.getType());
  APInt lo = APInt::getSignedMinValue(bits).sext(type.getWidth());
  APInt hi = APInt::getSignedMaxValue(bits).sext(type.getWidth());
  auto cst = [&](const APInt &x) {
    return arith::ConstantOp::create(ib.b, ib.loc, IntegerAttr::get(type, x))
        .getResult();
  };
  return ib.land(ib.ge(v, cst(lo)), ib.le(v, cst(hi)));
}

/// True when the cast clone `cast` held its operand; null when it always
/// does. The test is a range check, not a cast back: canonicalize folds
/// index_cast(index_cast(x)) to x whatever the widths. Index is taken as
/// 32 bits wide (a kernel's), so a wider value reaching index must fit 32.
static Value held(IndexBuilder &ib, Operation *cast) {
  Value from = cast->getOperand(0);
  Type to = cast->getResult(0).getType();
  unsigned fromBits =
      from.getType().isIndex() ? 64 : from.getType().getIntOrFloatBitWidth();
  unsigned toBits = to.isIndex() ? 32 : to.getIntOrFloatBitWidth();
  if (from.getType().isIndex() && toBits >= 64)
    return Value();
  if (!from.getType().isIndex() && fromBits <= toBits)
    return Value();
  return fits(ib, from, toBits);
}

HintKeys<Value> MaskKeyBounds::emit(IndexBuilder &ib, ValueRange regionArgs,
                                    Value first, Value last,
                                    Value seqK) const {
  // The ops the tests' bounds need, cloned in the region's order: once when
  // the row does not matter, else at the first row (into `lo`) and at the
  // last (into `hi`).
  llvm::SetVector<Operation *> slice;
  SmallVector<Value> work;
  for (const Term &t : terms)
    if (t.kind == Term::Test) {
      work.push_back(t.bound);
      if (t.offset)
        work.push_back(t.offset);
    }
  while (!work.empty()) {
    Operation *def = work.pop_back_val().getDefiningOp();
    if (def && slice.insert(def))
      llvm::append_range(work, def->getOperands());
  }
  IRMapping lo, hi;
  for (auto [n, arg] : llvm::enumerate(body->getArguments())) {
    if (n == 2 || n == 3)
      continue;
    Value to = regionArgs[n < 2 ? n : n - 2];
    lo.map(arg, to);
    hi.map(arg, to);
  }
  lo.map(body->getArgument(2), first);
  hi.map(body->getArgument(2), last);
  Value ok;
  auto both = [&](Value cond) {
    if (cond)
      ok = ok ? ib.land(ok, cond) : cond;
  };
  for (Operation &o : body->without_terminator()) {
    if (!slice.contains(&o))
      continue;
    if (order.lookup(o.getResult(0)) == RowOrder::Invariant) {
      Operation *clone = ib.b.clone(o, lo);
      hi.map(o.getResults(), clone->getResults());
      continue;
    }
    Operation *atFirst = ib.b.clone(o, lo), *atLast = ib.b.clone(o, hi);
    if (isa<arith::AddIOp, arith::SubIOp>(o)) {
      both(noWrap(ib, atFirst));
      both(noWrap(ib, atLast));
    }
    if (mayNarrow(&o)) {
      both(held(ib, atFirst));
      both(held(ib, atLast));
    }
  }

  // Each term's keys, bottom up (a term's operands come before it).
  SmallVector<HintKeys<Value>> keys;
  Value zero = ib.c(0);
  // Every key may be visible, none is full: an opaque term's keys, and a
  // program's keys after a wrap.
  HintKeys<Value> nothing = {zero, seqK, zero, zero};
  for (const Term &t : terms) {
    switch (t.kind) {
    case Term::Opaque:
      keys.push_back(nothing);
      break;
    case Term::True:
      keys.push_back({zero, seqK, zero, seqK});
      break;
    case Term::False:
      keys.push_back({zero, zero, zero, zero});
      break;
    case Term::And:
      keys.push_back(andKeys(ib, keys[t.lhs], keys[t.rhs]));
      break;
    case Term::Or:
      keys.push_back(orKeys(ib, keys[t.lhs], keys[t.rhs]));
      break;
    case Term::Test: {
      // The bound on j at one row, b = t, t - x, t + x or x - t, each add /
      // sub checked, and k checked at the first and the last key (k is
      // monotone in j, so no key in between wraps if neither end does).
      Value lastKey = ib.sub(seqK, ib.c(1));
      auto checked = [&](Value r) {
        both(noWrap(ib, r.getDefiningOp()));
        return r;
      };
      // A test written in another integer type than index: its key casts
      // checked at the last key, k checked there and at key 0 in that type,
      // and t and x taken to index exactly (the rest is index arithmetic,
      // exact once none of these wraps).
      Type type = t.bound.getType();
      Value keyLast = lastKey;
      for (Operation *cast : t.keyCasts) {
        IRMapping at;
        at.map(cast->getOperand(0), keyLast);
        Operation *clone = ib.b.clone(*cast, at);
        if (mayNarrow(cast))
          both(held(ib, clone));
        keyLast = clone->getResult(0);
      }
      auto toIndex = [&](Value v) {
        if (v.getType().isIndex())
          return v;
        auto cast =
            arith::IndexCastOp::create(ib.b, ib.loc, ib.b.getIndexType(), v);
        both(held(ib, cast));
        return cast.getResult();
      };
      auto boundAt = [&](IRMapping &m) {
        Value tv = m.lookupOrDefault(t.bound);
        if (t.shift == Term::Bare)
          return toIndex(tv);
        Value xv = m.lookupOrDefault(t.offset);
        if (!type.isIndex()) {
          Value zeroT = arith::ConstantOp::create(ib.b, ib.loc,
                                                  ib.b.getZeroAttr(type));
          if (t.shift == Term::Plus)
            checked(ib.add(xv, keyLast));
          if (t.shift == Term::Minus) {
            checked(ib.sub(zeroT, xv));
            checked(ib.sub(keyLast, xv));
          }
          if (t.shift == Term::From)
            checked(ib.sub(xv, keyLast));
          tv = toIndex(tv), xv = toIndex(xv);
        }
        switch (t.shift) {
        case Term::Plus:
          checked(ib.add(xv, lastKey));
          return checked(ib.sub(tv, xv));
        case Term::Minus:
          checked(ib.sub(zero, xv));
          checked(ib.sub(lastKey, xv));
          return checked(ib.add(tv, xv));
        default: // From
          checked(ib.sub(xv, lastKey));
          return checked(ib.sub(xv, tv));
        }
      };
      Value atFirst = boundAt(lo), atLast = boundAt(hi);
      RowOrder o = t.order;
      Value tMin = o == RowOrder::Decreasing ? atLast : atFirst;
      Value tMax = o == RowOrder::Increasing ? atLast : atFirst;
      // An upper bound holds for every row at the least t and for some
      // row at the greatest; a lower bound the other way round.
      bool upper = t.pred == Pred::slt || t.pred == Pred::sle;
      KeyInterval<Value> visible =
          keyTestInterval(ib, t.pred, upper ? tMax : tMin, seqK);
      KeyInterval<Value> full =
          keyTestInterval(ib, t.pred, upper ? tMin : tMax, seqK);
      keys.push_back({visible.lo, visible.hi, full.lo, full.hi});
      break;
    }
    }
  }
  HintKeys<Value> result = keys[root];
  if (!ok)
    return result;
  // A wrap between the two rows: the keys that claim nothing.
  auto pick = [&](Value v, Value fallback) { return ib.select(ok, v, fallback); };
  return {pick(result.vlo, nothing.vlo), pick(result.vhi, nothing.vhi),
          pick(result.flo, nothing.flo), pick(result.fhi, nothing.fhi)};
}
