//===- FlashBackwardOps.cpp - flash.attention_backward --------------------===//
//
// Verifier, shape roles and memory effects of `flash.attention_backward`.
// Its Q, K, V, serving operands, attributes, captures and regions follow
// the forward's rules (AttentionVerifier.h, one statement for both ops);
// what is its own is checked here: kv_lens and block_table refused, the
// forward's O, LSE and the output gradient dO as inputs, and dQ, dK, dV
// with Q's, K's and V's shapes and element types.
//
//===----------------------------------------------------------------------===//

#include "AttentionVerifier.h"
#include "flash/Dialect/Flash/IR/FlashOps.h"

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::rules;

double AttentionBackwardOp::getEffectiveScale() {
  return effectiveScale(*this);
}

int64_t AttentionBackwardOp::getWindowLeft() {
  return getWindowBounds(getWindow()).first;
}

int64_t AttentionBackwardOp::getWindowRight() {
  return getWindowBounds(getWindow()).second;
}

AttentionShape AttentionBackwardOp::getShape() { return attentionShape(*this); }

/// `value` (named `name`) has `want`'s element type and a shape compatible
/// with `shape`, in the op's container kind.
static LogicalResult verifyLike(AttentionBackwardOp op, Value value,
                                StringRef name, StringRef shapeName,
                                ArrayRef<int64_t> shape, Type element) {
  auto type = cast<ShapedType>(value.getType());
  bool buffers = op.hasPureBufferSemantics();
  if (!isa<RankedTensorType, MemRefType>(type) ||
      isa<MemRefType>(type) != buffers)
    return op.emitOpError() << "'" << name << "' must be a ranked "
                            << (buffers ? "memref" : "tensor")
                            << " like the query, got " << type;
  if (!isStridedMemRef(type))
    return op.emitOpError()
           << "'" << name << "' memref must have a strided layout, got "
           << type;
  if (!shapeCompatible(type.getShape(), shape))
    return op.emitOpError()
           << "'" << name << "' must have shape " << shapeName << " = "
           << shapeStr(shape) << ", got " << shapeStr(type.getShape());
  if (type.getElementType() != element)
    return op.emitOpError() << "'" << name << "' must have element type "
                            << element << ", got " << type.getElementType();
  return success();
}

LogicalResult AttentionBackwardOp::verify() {
  // A KV cache is what inference reads; a training batch of several lengths
  // is varlen. Refused before anything else, with what to use instead.
  if (getKvLens())
    return emitOpError("takes no 'kv_lens': a KV cache is inference's; "
                       "give a batch of several lengths as varlen "
                       "(cu_seqlens)");
  if (getBlockTable())
    return emitOpError("takes no 'block_table': paged K/V is an inference "
                       "KV cache; give K and V as [batch, heads, seq, dim] "
                       "(or varlen, cu_seqlens)");
  AttentionShape s;
  if (failed(verifyAttentionInputs(*this, s)))
    return failure();
  Type element = cast<ShapedType>(getQuery().getType()).getElementType();
  Type f32 = Builder(getContext()).getF32Type();

  // The forward's outputs and the gradient of O.
  SmallVector<int64_t> oShape = {s.batch, s.headsQ, s.seqQ, s.headDimV};
  SmallVector<int64_t> lseShape = {s.batch, s.headsQ, s.seqQ};
  if (failed(verifyLike(*this, getOut(), "out", "[B, Hq, Sq, Dv]", oShape,
                        element)) ||
      failed(
          verifyLike(*this, getLse(), "lse", "[B, Hq, Sq]", lseShape, f32)) ||
      failed(verifyLike(*this, getGradOut(), "grad_out", "[B, Hq, Sq, Dv]",
                        oShape, element)))
    return failure();

  // dQ, dK, dV: results on tensors, `outs` on memrefs.
  bool buffers = hasPureBufferSemantics();
  if (failed(verifyOutputForm(*this, "dq, dk and dv")))
    return failure();
  ValueRange grads = getGradients();
  if (grads.size() != 3)
    return emitOpError() << "expects dq, dk and dv as "
                         << (buffers ? "'outs'" : "results") << ", got "
                         << grads.size();
  struct {
    Value input;
    StringRef name, shapeName;
  } like[] = {{getQuery(), "dq", "Q's [B, Hq, Sq, D]"},
              {getKey(), "dk", "K's [B, Hkv, Sk, D]"},
              {getValue(), "dv", "V's [B, Hkv, Sk, Dv]"}};
  for (auto [grad, input] : llvm::zip(grads, like))
    if (failed(verifyLike(*this, grad, input.name, input.shapeName,
                          cast<ShapedType>(input.input.getType()).getShape(),
                          element)))
      return failure();
  return success();
}

void AttentionBackwardOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  bufferEffects(*this, effects);
}

//===----------------------------------------------------------------------===//
// TileGradOp
//===----------------------------------------------------------------------===//

LogicalResult TileGradOp::verify() {
  auto q = getQuery().getType(), k = getKey().getType(),
       v = getValue().getType(), dO = getGradOut().getType(),
       dk = getDk().getType(), dv = getDv().getType(), dq = getDq().getType();
  for (RankedTensorType t : {q, k, v, dO, dk, dv, dq})
    if (t.getRank() != 2 || !t.hasStaticShape())
      return emitOpError("query, key, value, grad_out, dk, dv and dq must be "
                         "static rank-2 tiles");
  int64_t bm = q.getDimSize(0), bn = k.getDimSize(0), d = q.getDimSize(1),
          dvDim = v.getDimSize(1);
  if (bm < 1 || bn < 1 || d < 1 || dvDim < 1)
    return emitOpError("tiles must not be empty");
  if (k.getDimSize(1) != d)
    return emitOpError("query and key tiles must have the same head_dim");
  if (v.getDimSize(0) != bn)
    return emitOpError("key and value tiles must have the same rows");
  if (dO.getDimSize(0) != bm || dO.getDimSize(1) != dvDim)
    return emitOpError("grad_out must be [BM, Dv] (the query rows, the "
                       "value's head dim)");
  if (dk.getShape() != k.getShape() || dv.getShape() != v.getShape())
    return emitOpError("dk and dv must have the key's and value's shapes");
  if (dq.getShape() != q.getShape())
    return emitOpError("dq must have the query's shape");
  for (auto t : {getLse().getType(), getDelta().getType()})
    if (t.getRank() != 1 || t.getDimSize(0) != bm)
      return emitOpError("lse and delta must be [BM]");
  Type elt = q.getElementType();
  if (k.getElementType() != elt || v.getElementType() != elt ||
      dO.getElementType() != elt)
    return emitOpError("query, key, value and grad_out tiles must have one "
                       "element type");
  if (!isKernelElementType(elt))
    return emitOpError() << "tile element type must be f16, bf16 or f32, got "
                         << elt;
  return verifyMaskAttrs(*this, getScale(), /*softcap=*/std::nullopt,
                         getWindow(), getScale().convertToDouble());
}
