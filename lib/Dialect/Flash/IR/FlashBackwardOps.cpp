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
