//===- ScalarEval.cpp - Evaluate data-independent linalg scalars ----------===//
//
// The interpreter of ScalarEval.h: arith on constants, linalg.index, fills,
// dense constants, broadcasts, reshapes and elementwise generics; and the
// same scalar op semantics (evalOp) run forward over a score_mod / mask_mod
// region, whose capture reads go to a callback.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/Utils/ScalarEval.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;

/// Bounds the recursion through chains of generics.
static constexpr int kMaxDepth = 64;

static EvalValue fromFloat(double f) { return {f, 0, true}; }
static EvalValue fromInt(int64_t i) { return {0, i, false}; }

static FailureOr<EvalValue> fromAttr(Attribute attr) {
  if (auto f = dyn_cast<FloatAttr>(attr))
    return fromFloat(f.getValueAsDouble());
  if (auto i = dyn_cast<IntegerAttr>(attr))
    return fromInt(i.getType().isInteger(1)
                       ? int64_t(i.getValue().getZExtValue())
                       : i.getValue().getSExtValue());
  return failure();
}

FailureOr<EvalValue> mlir::flash::evalScalar(Value v, linalg::GenericOp ctx,
                                             ArrayRef<int64_t> idx, int depth) {
  if (depth > kMaxDepth)
    return failure();
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (!ctx || arg.getOwner() != ctx.getBody())
      return failure();
    OpOperand &o = ctx->getOpOperand(arg.getArgNumber());
    if (!isa<RankedTensorType>(o.get().getType()))
      return evalScalar(o.get(), nullptr, {}, depth + 1);
    SmallVector<int64_t> point = ctx.getMatchingIndexingMap(&o).compose(idx);
    return evalElement(o.get(), point, depth + 1);
  }
  Operation *op = v.getDefiningOp();
  if (auto c = dyn_cast<arith::ConstantOp>(op))
    return fromAttr(c.getValue());
  if (auto index = dyn_cast<linalg::IndexOp>(op)) {
    if (!ctx || index->getParentOp() != ctx || index.getDim() >= idx.size())
      return failure();
    return fromInt(idx[index.getDim()]);
  }
  SmallVector<EvalValue, 3> in;
  for (Value operand : op->getOperands()) {
    FailureOr<EvalValue> n = evalScalar(operand, ctx, idx, depth + 1);
    if (failed(n))
      return failure();
    in.push_back(*n);
  }
  return evalOp(op, in);
}

/// The width of an integer type as evaluated here: index is the host's 64
/// bits (a kernel's index is 32 bits wide; a mask_mod whose index values
/// leave that range means different things on the two targets).
static unsigned widthOf(Type t) {
  return t.isIndex() ? 64 : t.getIntOrFloatBitWidth();
}

/// x as a value of `bits`-wide two's complement, held sign-extended (an
/// i1 as 0 / 1, as the comparisons give it).
static int64_t toWidth(int64_t x, unsigned bits) {
  if (bits >= 64)
    return x;
  if (bits == 1)
    return x & 1;
  return llvm::SignExtend64(uint64_t(x), bits);
}

/// x's bits of a `bits`-wide value, zero-extended.
static uint64_t zeroExtended(int64_t x, unsigned bits) {
  return bits >= 64 ? uint64_t(x) : uint64_t(x) & ((uint64_t(1) << bits) - 1);
}

static FailureOr<EvalValue> evalOpAnyWidth(Operation *op,
                                           ArrayRef<EvalValue> in);

FailureOr<EvalValue> mlir::flash::evalOp(Operation *op,
                                         ArrayRef<EvalValue> in) {
  // Integer results wrap at their type's width: each op's 64-bit result
  // is taken to it (the low bits of a sum, a difference or a product are
  // the narrow op's).
  FailureOr<EvalValue> r = evalOpAnyWidth(op, in);
  if (failed(r) || r->isFloat || op->getNumResults() != 1 ||
      !op->getResult(0).getType().isIntOrIndex())
    return r;
  r->i = toWidth(r->i, widthOf(op->getResult(0).getType()));
  return r;
}

static FailureOr<EvalValue> evalOpAnyWidth(Operation *op,
                                           ArrayRef<EvalValue> in) {
  // Casts between index, integer and float types: the signed ones keep the
  // (sign-extended) value, which evalOp then takes to the result's width;
  // the unsigned ones zero-extend the operand's bits first.
  if (isa<arith::IndexCastUIOp, arith::ExtUIOp>(op))
    return fromInt(int64_t(
        zeroExtended(in[0].i, widthOf(op->getOperand(0).getType()))));
  if (isa<arith::IndexCastOp, arith::ExtSIOp, arith::TruncIOp, arith::ExtFOp,
          arith::TruncFOp>(op))
    return in[0];
  if (isa<arith::SIToFPOp>(op))
    return fromFloat(double(in[0].i));
  if (isa<arith::UIToFPOp>(op))
    return fromFloat(double(
        zeroExtended(in[0].i, widthOf(op->getOperand(0).getType()))));
  if (isa<arith::SelectOp>(op))
    return in[0].i ? in[1] : in[2];
  if (auto cmp = dyn_cast<arith::CmpIOp>(op)) {
    int64_t a = in[0].i, b = in[1].i;
    uint64_t ua = a, ub = b;
    switch (cmp.getPredicate()) {
    case arith::CmpIPredicate::eq:
      return fromInt(a == b);
    case arith::CmpIPredicate::ne:
      return fromInt(a != b);
    case arith::CmpIPredicate::slt:
      return fromInt(a < b);
    case arith::CmpIPredicate::sle:
      return fromInt(a <= b);
    case arith::CmpIPredicate::sgt:
      return fromInt(a > b);
    case arith::CmpIPredicate::sge:
      return fromInt(a >= b);
    case arith::CmpIPredicate::ult:
      return fromInt(ua < ub);
    case arith::CmpIPredicate::ule:
      return fromInt(ua <= ub);
    case arith::CmpIPredicate::ugt:
      return fromInt(ua > ub);
    case arith::CmpIPredicate::uge:
      return fromInt(ua >= ub);
    }
  }
  if (auto cmp = dyn_cast<arith::CmpFOp>(op)) {
    double a = in[0].f, b = in[1].f;
    switch (cmp.getPredicate()) {
    case arith::CmpFPredicate::OEQ:
      return fromInt(a == b);
    case arith::CmpFPredicate::ONE:
      return fromInt(a != b);
    case arith::CmpFPredicate::OLT:
      return fromInt(a < b);
    case arith::CmpFPredicate::OLE:
      return fromInt(a <= b);
    case arith::CmpFPredicate::OGT:
      return fromInt(a > b);
    case arith::CmpFPredicate::OGE:
      return fromInt(a >= b);
    default:
      return failure();
    }
  }
  if (op->getNumResults() != 1)
    return failure();
  bool isBool = op->getResult(0).getType().isInteger(1);
  auto boolOr = [&](int64_t x) { return fromInt(isBool ? (x & 1) : x); };
  // arith's integer ops wrap (two's complement; evalOp takes the 64-bit
  // result to the type's width).
  auto wrap = [](uint64_t x) { return fromInt(int64_t(x)); };
  if (isa<arith::AddIOp>(op))
    return wrap(uint64_t(in[0].i) + uint64_t(in[1].i));
  if (isa<arith::SubIOp>(op))
    return wrap(uint64_t(in[0].i) - uint64_t(in[1].i));
  if (isa<arith::MulIOp>(op))
    return wrap(uint64_t(in[0].i) * uint64_t(in[1].i));
  if (isa<arith::AndIOp>(op))
    return boolOr(in[0].i & in[1].i);
  if (isa<arith::OrIOp>(op))
    return boolOr(in[0].i | in[1].i);
  if (isa<arith::XOrIOp>(op))
    return boolOr(in[0].i ^ in[1].i);
  if (isa<arith::AddFOp>(op))
    return fromFloat(in[0].f + in[1].f);
  if (isa<arith::SubFOp>(op))
    return fromFloat(in[0].f - in[1].f);
  if (isa<arith::MulFOp>(op))
    return fromFloat(in[0].f * in[1].f);
  if (isa<arith::DivFOp>(op))
    return fromFloat(in[0].f / in[1].f);
  if (isa<arith::NegFOp>(op))
    return fromFloat(-in[0].f);
  if (isa<arith::MinSIOp>(op))
    return fromInt(std::min(in[0].i, in[1].i));
  if (isa<arith::MaxSIOp>(op))
    return fromInt(std::max(in[0].i, in[1].i));
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
    return fromFloat(std::fmin(in[0].f, in[1].f));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
    return fromFloat(std::fmax(in[0].f, in[1].f));
  if (isa<arith::DivSIOp, arith::RemSIOp, arith::FloorDivSIOp,
          arith::CeilDivSIOp>(op)) {
    int64_t a = in[0].i, b = in[1].i;
    if (b == 0 || (b == -1 && a == std::numeric_limits<int64_t>::min()))
      return failure();
    int64_t q = a / b, r = a % b;
    if (isa<arith::RemSIOp>(op))
      return fromInt(r);
    if (isa<arith::FloorDivSIOp>(op) && r != 0 && ((r < 0) != (b < 0)))
      return fromInt(q - 1);
    if (isa<arith::CeilDivSIOp>(op) && r != 0 && ((r < 0) == (b < 0)))
      return fromInt(q + 1);
    return fromInt(q);
  }
  if (isa<arith::FPToSIOp>(op))
    return fromInt(int64_t(in[0].f));
  if (isa<math::AbsIOp>(op))
    return fromInt(in[0].i < 0 ? -in[0].i : in[0].i);
  if (isa<math::AbsFOp>(op))
    return fromFloat(std::fabs(in[0].f));
  if (isa<math::TanhOp>(op))
    return fromFloat(std::tanh(in[0].f));
  if (isa<math::ExpOp>(op))
    return fromFloat(std::exp(in[0].f));
  if (isa<math::Exp2Op>(op))
    return fromFloat(std::exp2(in[0].f));
  if (isa<math::LogOp>(op))
    return fromFloat(std::log(in[0].f));
  if (isa<math::SqrtOp>(op))
    return fromFloat(std::sqrt(in[0].f));
  if (isa<math::RsqrtOp>(op))
    return fromFloat(1.0 / std::sqrt(in[0].f));
  if (isa<math::Log2Op>(op))
    return fromFloat(std::log2(in[0].f));
  if (isa<math::Log1pOp>(op))
    return fromFloat(std::log1p(in[0].f));
  if (isa<math::ExpM1Op>(op))
    return fromFloat(std::expm1(in[0].f));
  if (isa<math::SinOp>(op))
    return fromFloat(std::sin(in[0].f));
  if (isa<math::CosOp>(op))
    return fromFloat(std::cos(in[0].f));
  if (isa<math::FloorOp>(op))
    return fromFloat(std::floor(in[0].f));
  if (isa<math::CeilOp>(op))
    return fromFloat(std::ceil(in[0].f));
  if (isa<math::RoundOp>(op))
    return fromFloat(std::round(in[0].f));
  if (isa<math::RoundEvenOp>(op))
    return fromFloat(std::nearbyint(in[0].f)); // ties to even by default
  if (isa<math::TruncOp>(op))
    return fromFloat(std::trunc(in[0].f));
  if (isa<math::FmaOp>(op))
    return fromFloat(in[0].f * in[1].f + in[2].f);
  return failure();
}


FailureOr<EvalValue> mlir::flash::evalElement(Value t, ArrayRef<int64_t> point,
                                              int depth) {
  if (depth > kMaxDepth)
    return failure();
  auto type = cast<RankedTensorType>(t.getType());
  for (auto [p, size] : llvm::zip_equal(point, type.getShape()))
    if (p < 0 || (!ShapedType::isDynamic(size) && p >= size))
      return failure();
  Operation *op = t.getDefiningOp();
  if (!op)
    return failure();
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return evalScalar(fill.getInputs()[0], nullptr, {}, depth + 1);
  if (auto c = dyn_cast<arith::ConstantOp>(op)) {
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (!dense)
      return failure();
    if (dense.isSplat())
      return fromAttr(dense.getSplatValue<Attribute>());
    int64_t flat = 0;
    for (auto [p, size] : llvm::zip_equal(point, type.getShape()))
      flat = flat * size + p;
    return fromAttr(dense.getValues<Attribute>()[flat]);
  }
  if (auto cast = dyn_cast<tensor::CastOp>(op))
    return evalElement(cast.getSource(), point, depth + 1);
  if (auto b = dyn_cast<linalg::BroadcastOp>(op)) {
    SmallVector<int64_t> inner;
    for (auto [i, p] : llvm::enumerate(point))
      if (!llvm::is_contained(b.getDimensions(), int64_t(i)))
        inner.push_back(p);
    return evalElement(b.getInput(), inner, depth + 1);
  }
  // Reshapes (de)linearise each group; the sizes used must be static.
  if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(op)) {
    auto expand = dyn_cast<tensor::ExpandShapeOp>(op);
    auto collapse = dyn_cast<tensor::CollapseShapeOp>(op);
    Value src = expand ? expand.getSrc() : collapse.getSrc();
    ArrayRef<int64_t> wide =
        expand ? type.getShape()
               : cast<RankedTensorType>(src.getType()).getShape();
    SmallVector<ReassociationIndices> groups =
        expand ? expand.getReassociationIndices()
               : collapse.getReassociationIndices();
    SmallVector<int64_t> srcPoint(
        cast<RankedTensorType>(src.getType()).getRank());
    for (auto [g, group] : llvm::enumerate(groups)) {
      if (expand) { // Linearise point[group] into srcPoint[g].
        int64_t flat = 0;
        for (auto [n, d] : llvm::enumerate(group)) {
          if (n > 0 && ShapedType::isDynamic(wide[d]))
            return failure();
          flat = (n > 0 ? flat * wide[d] : 0) + point[d];
        }
        srcPoint[g] = flat;
      } else { // Delinearise point[g] into srcPoint[group].
        int64_t flat = point[g];
        for (int64_t n = group.size() - 1; n >= 0; --n) {
          int64_t size = wide[group[n]];
          if (n > 0 && ShapedType::isDynamic(size))
            return failure();
          srcPoint[group[n]] = n > 0 ? flat % size : flat;
          flat = n > 0 ? flat / size : 0;
        }
      }
    }
    return evalElement(src, srcPoint, depth + 1);
  }
  if (auto g = dyn_cast<linalg::GenericOp>(op)) {
    unsigned r = cast<OpResult>(t).getResultNumber();
    if (g.getNumParallelLoops() != g.getNumLoops() ||
        !g.getMatchingIndexingMap(g.getDpsInitOperand(r)).isIdentity())
      return failure();
    return evalScalar(g.getBody()->getTerminator()->getOperand(r), g, point,
                      depth + 1);
  }
  return failure();
}

/// Points to sample a mask at along a query or key loop of `size`: the
/// first ones, the last ones of a static size, far ones of a dynamic size.
static SmallVector<int64_t> samplePoints(int64_t size) {
  SmallVector<int64_t> points;
  bool dynamic = ShapedType::isDynamic(size);
  for (int64_t i = 0; i < 12 && (dynamic || i < size); ++i)
    points.push_back(i);
  if (dynamic)
    llvm::append_range(points, ArrayRef<int64_t>{1000, 1001, 1002, 4097});
  else
    for (int64_t i = std::max<int64_t>(12, size - 3); i < size; ++i)
      points.push_back(i);
  return points;
}

std::optional<double> mlir::flash::evalLoopInvariant(Value v,
                                                     linalg::GenericOp ctx) {
  SmallVector<int64_t> ranges = ctx.getStaticLoopRanges();
  SmallVector<int64_t> origin(ranges.size(), 0), far;
  for (int64_t size : ranges)
    far.push_back(ShapedType::isDynamic(size) ? 7
                                              : std::min<int64_t>(size - 1, 7));
  FailureOr<EvalValue> a = evalScalar(v, ctx, origin);
  FailureOr<EvalValue> b = evalScalar(v, ctx, far);
  if (failed(a) || failed(b) || !a->isFloat || a->f != b->f)
    return std::nullopt;
  return a->f;
}

FailureOr<MaskKind> mlir::flash::classifyMask(
    linalg::GenericOp ctx,
    function_ref<FailureOr<bool>(ArrayRef<int64_t>)> visible) {
  SmallVector<int64_t> ranges = ctx.getStaticLoopRanges();
  unsigned n = ranges.size();
  if (n < 2)
    return failure();
  bool all = true, causal = true;
  SmallVector<int64_t> idx(n, 0);
  // Batch and head loops at 0, then at 1 where they have room.
  for (int64_t b : {0, 1}) {
    for (unsigned d = 0; d + 2 < n; ++d)
      idx[d] = ShapedType::isDynamic(ranges[d]) || b < ranges[d] ? b : 0;
    for (int64_t i : samplePoints(ranges[n - 2])) {
      for (int64_t j : samplePoints(ranges[n - 1])) {
        idx[n - 2] = i;
        idx[n - 1] = j;
        FailureOr<bool> vis = visible(idx);
        if (failed(vis))
          return failure();
        all &= *vis;
        causal &= *vis == (j <= i);
      }
    }
  }
  if (all)
    return MaskKind::None;
  if (causal)
    return MaskKind::Causal;
  return failure();
}

FailureOr<EvalValue> mlir::flash::evalRegion(Region &region,
                                             ArrayRef<EvalValue> args,
                                             CaptureLoadFn load) {
  if (region.empty() || !region.hasOneBlock())
    return failure();
  Block &block = region.front();
  if (block.getNumArguments() != args.size())
    return failure();
  DenseMap<Value, EvalValue> values;
  for (auto [arg, value] : llvm::zip_equal(block.getArguments(), args))
    values[arg] = value;
  SmallVector<EvalValue, 4> in;
  SmallVector<int64_t, 4> indices;
  for (Operation &op : block) {
    in.clear();
    bool isRead = isa<memref::LoadOp, tensor::ExtractOp>(op);
    for (auto [n, operand] : llvm::enumerate(op.getOperands())) {
      if (isRead && n == 0)
        continue; // The capture itself: a block argument, read by `load`.
      auto it = values.find(operand);
      if (it == values.end())
        return failure();
      in.push_back(it->second);
    }
    if (isa<YieldOp>(op))
      return op.getNumOperands() == 1 ? FailureOr<EvalValue>(in[0])
                                      : FailureOr<EvalValue>(failure());
    FailureOr<EvalValue> result = failure();
    if (auto c = dyn_cast<arith::ConstantOp>(op)) {
      result = fromAttr(c.getValue());
    } else if (isRead) {
      auto capture = dyn_cast<BlockArgument>(op.getOperand(0));
      if (!capture || capture.getOwner() != &block)
        return failure();
      indices.clear();
      for (const EvalValue &v : in)
        indices.push_back(v.i);
      result = load(capture.getArgNumber(), indices);
    } else {
      result = evalOp(&op, in);
    }
    if (failed(result) || op.getNumResults() != 1)
      return failure();
    values[op.getResult(0)] = *result;
  }
  return failure();
}
