//===- FlashOps.cpp - flash dialect operations ----------------------------===//
//
// Verifier, shape roles and memory effects of `flash.attention`. Every rule
// of the op's semantics has exactly one diagnostic here, worded so that the
// user can fix the IR without reading this file; invalid.mlir tests each.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "AttentionVerifier.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::rules;

#define GET_OP_CLASSES
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

bool rules::compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

std::string rules::dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

std::string rules::shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += dimStr(d); }, [&] { s += ", "; });
  return s + "]";
}

bool rules::shapeCompatible(ArrayRef<int64_t> shape,
                             ArrayRef<int64_t> expected) {
  return shape.size() == expected.size() &&
         llvm::all_of(llvm::zip(shape, expected), [](auto pair) {
           return compatible(std::get<0>(pair), std::get<1>(pair));
         });
}

bool rules::isStridedMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return !memref || memref.isStrided();
}

/// The largest scale the kernels compute correctly for ordinary scores: the
/// online softmax rounds scale * log2(e) * max(s) to f32 and subtracts it
/// from an exact product, so the rounding error (2^-24 of it) lands in the
/// exponent; at scale 1e9 it reaches 2^7 and exp2 overflows.
static constexpr double kMaxScale = 65536.0;

LogicalResult
rules::verifyMaskAttrs(Operation *op, std::optional<APFloat> scale,
                        std::optional<APFloat> softcap,
                        std::optional<ArrayRef<int64_t>> window,
                        double effectiveScale) {
  // The kernels compute in f32: exp2(scale * log2(e) * (s - max)) and, under
  // softcap, tanh(s * (scale / softcap)). A factor that is not a normal f32
  // turns every score into inf/NaN or 0, so it is refused rather than
  // silently miscomputed.
  auto isNormalF32 = [](double v) {
    return v >= double(std::numeric_limits<float>::min()) &&
           v <= double(std::numeric_limits<float>::max());
  };
  if (scale) {
    double v = scale->convertToDouble();
    if (!(v > 0.0) || std::isinf(v))
      return op->emitOpError()
             << "scale must be a positive finite number, got " << v;
    if (v < std::ldexp(1.0, -125) || v > kMaxScale)
      return op->emitOpError()
             << "scale must be in [2^-125, 2^16]: the kernels compute "
                "exp2(scale * log2(e) * (s - max)) in f32 with the max "
                "product rounded, whose error overflows exp2 (NaN) at larger "
                "scales; got "
             << v;
  }
  if (softcap) {
    double v = softcap->convertToDouble();
    if (!(v > 0.0) || std::isinf(v))
      return op->emitOpError()
             << "softcap must be a positive finite number, got " << v;
    if (!isNormalF32(effectiveScale / v))
      return op->emitOpError()
             << "scale / softcap must be a normal f32 (the kernels compute "
                "tanh(s * scale / softcap) in f32), got "
             << effectiveScale << " / " << v;
  }
  if (window) {
    if (window->size() != 2)
      return op->emitOpError()
             << "window must have two values [left, right], got "
             << window->size();
    if ((*window)[0] < -1 || (*window)[1] < -1)
      return op->emitOpError()
             << "window values must be >= -1 (-1 = unbounded), got ["
             << (*window)[0] << ", " << (*window)[1] << "]";
  }
  return success();
}

bool rules::isKernelElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32();
}

static constexpr int64_t kMaxOperandBytes = int64_t(1) << 62;
LogicalResult rules::verifyAddressable(Operation *op, Type type,
                                        StringRef name) {
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped || !shaped.hasRank())
    return success();
  Type element = shaped.getElementType();
  int64_t bytes = element.isIntOrFloat()
                      ? std::max<int64_t>(1, element.getIntOrFloatBitWidth() / 8)
                      : 1;
  for (int64_t d : shaped.getShape()) {
    if (ShapedType::isDynamic(d))
      continue;
    std::optional<int64_t> next = llvm::checkedMul(bytes, d);
    if (!next || *next >= kMaxOperandBytes)
      return op->emitOpError()
             << "'" << name << "' " << type
             << " has 2^62 bytes or more: no target can address it";
    bytes = *next;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

double AttentionOp::getEffectiveScale() {
  return rules::effectiveScale(*this);
}

std::pair<int64_t, int64_t>
mlir::flash::getWindowBounds(std::optional<ArrayRef<int64_t>> window) {
  if (!window || window->size() != 2)
    return {-1, -1};
  auto bound = [](int64_t v) {
    return v < 0 || v >= kUnboundedWindow ? int64_t(-1) : v;
  };
  return {bound((*window)[0]), bound((*window)[1])};
}

int64_t AttentionOp::getWindowLeft() { return getWindowBounds(getWindow()).first; }

int64_t AttentionOp::getWindowRight() {
  return getWindowBounds(getWindow()).second;
}

AttentionShape AttentionOp::getShape() { return rules::attentionShape(*this); }

/// The partial form (flash-split-kv): f32 O_part [S, B, Hq, Sq, Dv] and
/// LSE_part [S, B, Hq, Sq] on memrefs.
static LogicalResult verifyPartialOutputs(AttentionOp op,
                                          const AttentionShape &s,
                                          ValueRange outputs) {
  if (!op.hasPureBufferSemantics() || outputs.size() != 2)
    return op.emitOpError("the partial (split-KV) form takes O_part and "
                          "LSE_part memrefs as 'outs'");
  auto oType = cast<ShapedType>(outputs[0].getType());
  auto lseType = cast<ShapedType>(outputs[1].getType());
  int64_t splits = oType.getDimSize(0);
  SmallVector<int64_t> oShape = {splits, s.batch, s.headsQ, s.seqQ,
                                 s.headDimV};
  if (!shapeCompatible(oType.getShape(), oShape))
    return op.emitOpError() << "O_part must have shape [S, B, Hq, Sq, Dv] = "
                            << shapeStr(oShape) << ", got "
                            << shapeStr(oType.getShape());
  SmallVector<int64_t> lseShape = {splits, s.batch, s.headsQ, s.seqQ};
  if (lseType.getRank() != 4 ||
      !shapeCompatible(lseType.getShape(), lseShape))
    return op.emitOpError() << "LSE_part must have shape [S, B, Hq, Sq] = "
                            << shapeStr(lseShape) << ", got "
                            << shapeStr(lseType.getShape());
  if (!oType.getElementType().isF32() || !lseType.getElementType().isF32())
    return op.emitOpError("O_part and LSE_part must be f32");
  return success();
}

LogicalResult AttentionOp::verify() {
  AttentionShape s;
  if (failed(rules::verifyAttentionInputs(*this, s)))
    return failure();
  bool buffers = hasPureBufferSemantics();
  Type elementType = cast<ShapedType>(getQuery().getType()).getElementType();

  // Outputs: results on tensors, `outs` on memrefs; O then optional LSE.
  if (failed(rules::verifyOutputForm(*this, "its outputs")))
    return failure();
  ValueRange outputs = getOutputs();
  if (outputs.empty() || outputs.size() > 2)
    return emitOpError() << "expects O and optionally LSE as "
                         << (buffers ? "'outs'" : "results") << ", got "
                         << outputs.size();
  for (Value out : outputs) {
    if (buffers != isa<MemRefType>(out.getType()))
      return emitOpError() << "outputs must be "
                           << (buffers ? "memrefs" : "tensors")
                           << " like the query, got " << out.getType();
    if (!isStridedMemRef(out.getType()))
      return emitOpError() << "output memref must have a strided layout, got "
                           << out.getType();
  }
  auto oType = cast<ShapedType>(outputs[0].getType());
  if (oType.getRank() == 5)
    return verifyPartialOutputs(*this, s, outputs);
  SmallVector<int64_t> oShape = {s.batch, s.headsQ, s.seqQ, s.headDimV};
  if (!shapeCompatible(oType.getShape(), oShape))
    return emitOpError() << "output must have shape [B, Hq, Sq, Dv] = "
                         << shapeStr(oShape) << ", got "
                         << shapeStr(oType.getShape());
  if (oType.getElementType() != elementType)
    return emitOpError() << "output element type must be the query's ("
                         << elementType << "), got " << oType.getElementType();
  if (outputs.size() == 2) {
    auto lseType = cast<ShapedType>(outputs[1].getType());
    SmallVector<int64_t> lseShape = {s.batch, s.headsQ, s.seqQ};
    if (!shapeCompatible(lseType.getShape(), lseShape))
      return emitOpError() << "LSE must have shape [B, Hq, Sq] = "
                           << shapeStr(lseShape) << ", got "
                           << shapeStr(lseType.getShape());
    if (!lseType.getElementType().isF32())
      return emitOpError() << "LSE element type must be f32, got "
                           << lseType.getElementType();
  }
  return success();
}

void AttentionOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  rules::bufferEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// CombineOp
//===----------------------------------------------------------------------===//

LogicalResult CombineOp::verify() {
  auto part = cast<MemRefType>(getPartialOut().getType());
  auto partLse = cast<MemRefType>(getPartialLse().getType());
  if (getOuts().empty() || getOuts().size() > 2)
    return emitOpError() << "expects O and optionally LSE as 'outs', got "
                         << getOuts().size();
  if (part.getRank() != 5 || partLse.getRank() != 4)
    return emitOpError("partial_out must be [S, B, H, Sq, Dv] and "
                       "partial_lse [S, B, H, Sq]");
  if (!part.getElementType().isF32() || !partLse.getElementType().isF32())
    return emitOpError("partial_out and partial_lse must be f32");
  if (!shapeCompatible(partLse.getShape(), part.getShape().drop_back()))
    return emitOpError() << "partial_lse shape " << shapeStr(partLse.getShape())
                         << " does not match partial_out "
                         << shapeStr(part.getShape());
  for (Value v : getOuts())
    if (!isStridedMemRef(v.getType()))
      return emitOpError() << "outputs must be strided memrefs, got "
                           << v.getType();
  auto o = cast<MemRefType>(getOutput().getType());
  if (o.getRank() != 4 ||
      !shapeCompatible(o.getShape(), part.getShape().drop_front()))
    return emitOpError() << "O must have shape [B, H, Sq, Dv] = "
                         << shapeStr(part.getShape().drop_front()) << ", got "
                         << shapeStr(o.getShape());
  if (Value lse = getLse()) {
    auto t = cast<MemRefType>(lse.getType());
    if (t.getRank() != 3 ||
        !shapeCompatible(t.getShape(), partLse.getShape().drop_front()) ||
        !t.getElementType().isF32())
      return emitOpError() << "LSE must be f32 [B, H, Sq] = "
                           << shapeStr(partLse.getShape().drop_front())
                           << ", got " << t;
  }
  return success();
}

void CombineOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  for (OpOperand &operand : getOperation()->getOpOperands())
    if (operand.getOperandNumber() >= 2)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// TileUpdateOp / TileFinalizeOp
//===----------------------------------------------------------------------===//

LogicalResult TileUpdateOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(),
       v = getValue().getType(), acc = getAcc().getType();
  if (q.getRank() != 2 || k.getRank() != 2 || v.getRank() != 2 ||
      acc.getRank() != 2 || !q.hasStaticShape() || !k.hasStaticShape() ||
      !v.hasStaticShape() || !acc.hasStaticShape())
    return emitOpError("query, key, value and acc must be static rank-2 "
                       "tiles");
  int64_t bm = q.getDimSize(0), bn = k.getDimSize(0);
  if (k.getDimSize(1) != q.getDimSize(1))
    return emitOpError("query and key tiles must have the same head_dim");
  if (v.getDimSize(0) != bn)
    return emitOpError("key and value tiles must have the same rows");
  if (acc.getDimSize(0) != bm || acc.getDimSize(1) != v.getDimSize(1))
    return emitOpError("acc must be [BM, Dv]");
  for (auto t : {getMax().getType(), getSum().getType()})
    if (t.getRank() != 1 || t.getDimSize(0) != bm)
      return emitOpError("max and sum must be [BM]");
  if (q.getElementType() != k.getElementType() ||
      q.getElementType() != v.getElementType())
    return emitOpError("query, key and value tiles must have one element "
                       "type");
  if (!isKernelElementType(q.getElementType()))
    return emitOpError() << "tile element type must be f16, bf16 or f32, got "
                         << q.getElementType();
  if (bm < 1 || bn < 1 || q.getDimSize(1) < 1 || v.getDimSize(1) < 1)
    return emitOpError("tiles must not be empty");
  if (getLogits() && getSoftcap())
    return emitOpError("'logits' and 'softcap' exclude each other (the "
                       "capped score is already a logit)");
  return verifyMaskAttrs(*this, getScale(), getSoftcap(), getWindow(),
                         getScale().convertToDouble());
}

LogicalResult TileFinalizeOp::verify() {
  auto acc = getAcc().getType(), out = getOut().getType();
  if (acc.getShape() != out.getShape())
    return emitOpError("out must have the shape of acc");
  for (auto t : {getMax().getType(), getSum().getType(), getLse().getType()})
    if (t.getRank() != 1 || acc.getRank() != 2 ||
        t.getDimSize(0) != acc.getDimSize(0))
      return emitOpError("max, sum and lse must be [BM]");
  if (!isKernelElementType(out.getElementType()))
    return emitOpError() << "out element type must be f16, bf16 or f32, got "
                         << out.getElementType();
  if (getLogits() && getSoftcap())
    return emitOpError("'logits' and 'softcap' exclude each other (the "
                       "capped score is already a logit)");
  return verifyMaskAttrs(*this, getScale(), getSoftcap(), std::nullopt,
                         getScale().convertToDouble());
}

LogicalResult WorkspaceOp::verify() {
  auto type = cast<MemRefType>(getMemref().getType());
  if (!type.getLayout().isIdentity())
    return emitOpError("allocates an identity-layout memref");
  if (int64_t(getDynamicSizes().size()) != type.getNumDynamicDims())
    return emitOpError("needs one size per dynamic dimension (")
           << type.getNumDynamicDims() << "), has " << getDynamicSizes().size();
  return success();
}
