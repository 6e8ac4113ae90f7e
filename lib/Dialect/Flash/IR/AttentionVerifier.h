//===- AttentionVerifier.h - What the attention ops verify alike -*- C++
//-*-===//
//
// flash.attention and flash.attention_backward take the same Q, K, V,
// serving operands, attributes, captures and regions under the same rules.
// This private header states those rules once, as templates over the op
// class (both have the same accessors), and declares the shape helpers
// their verifiers share; FlashOps.cpp and FlashBackwardOps.cpp use them.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_LIB_DIALECT_FLASH_IR_ATTENTIONVERIFIER_H
#define FLASH_LIB_DIALECT_FLASH_IR_ATTENTIONVERIFIER_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <string>

namespace mlir::flash::rules {

/// Equal, or one of them dynamic.
bool compatible(int64_t a, int64_t b);
std::string dimStr(int64_t d);
std::string shapeStr(ArrayRef<int64_t> shape);
/// Checks that `shape` is compatible with `expected` (dynamic matches all).
bool shapeCompatible(ArrayRef<int64_t> shape, ArrayRef<int64_t> expected);
/// Not a memref, or a memref with a strided layout.
bool isStridedMemRef(Type type);
/// f16, bf16 or f32: what the kernels load, multiply and store.
bool isKernelElementType(Type t);
/// The numeric domain of scale, softcap and window, shared by the attention
/// ops and the tile ops that carry them. `effectiveScale` is the scale the
/// kernels apply (the attribute or 1/sqrt(D)).
LogicalResult verifyMaskAttrs(Operation *op, std::optional<APFloat> scale,
                              std::optional<APFloat> softcap,
                              std::optional<ArrayRef<int64_t>> window,
                              double effectiveScale);
/// Operands and results must be addressable: the static dims of `type`
/// times its element size must stay below 2^62 bytes, so that no pass or
/// runtime size computation on them can overflow int64 (and no sequence
/// reaches kUnboundedWindow).
LogicalResult verifyAddressable(Operation *op, Type type, StringRef name);
/// Checks that `region` (non-empty, one block) has the block arguments
/// `argTypes`, ends in a flash.yield of one `yieldType` value and holds no
/// op that writes, allocates or frees memory (FlashMods.cpp).
LogicalResult verifyModRegion(Operation *op, Region &region, StringRef name,
                              TypeRange argTypes, Type yieldType);

/// The scale the op applies: its attribute or 1/sqrt(D).
template <typename OpTy> double effectiveScale(OpTy op) {
  if (std::optional<APFloat> scale = op.getScale())
    return scale->convertToDouble();
  auto qType = cast<ShapedType>(op.getQuery().getType());
  return 1.0 / std::sqrt(double(qType.getDimSize(kDimPos)));
}

template <typename OpTy> AttentionShape attentionShape(OpTy op) {
  auto q = cast<ShapedType>(op.getQuery().getType());
  auto k = cast<ShapedType>(op.getKey().getType());
  auto v = cast<ShapedType>(op.getValue().getType());
  AttentionShape s;
  s.batch = q.getDimSize(kBatchPos);
  s.headsQ = q.getDimSize(kHeadsPos);
  s.headsKV = k.getDimSize(kHeadsPos);
  s.seqQ = q.getDimSize(kSeqPos);
  s.seqK = k.getDimSize(kSeqPos);
  s.headDim = q.getDimSize(kDimPos);
  s.headDimV = v.getDimSize(kDimPos);
  if (Value table = op.getBlockTable()) {
    s.paged = true;
    s.numPages = k.getDimSize(kBatchPos);
    s.pageSize = k.getDimSize(kSeqPos);
    // Guarded: the verifier calls this before it has checked the table.
    auto tableType = dyn_cast<RankedTensorType>(table.getType());
    auto tableMemRef = dyn_cast<MemRefType>(table.getType());
    int64_t pages = ShapedType::kDynamic;
    if (tableType && tableType.getRank() == 2)
      pages = tableType.getDimSize(1);
    else if (tableMemRef && tableMemRef.getRank() == 2)
      pages = tableMemRef.getDimSize(1);
    s.seqK = ShapedType::isDynamic(pages) || ShapedType::isDynamic(s.pageSize)
                 ? ShapedType::kDynamic
                 : pages * s.pageSize;
  }
  return s;
}

/// Checks one serving operand: same container kind as Q, given element type,
/// given rank(s). Returns the type on success.
template <typename OpTy>
FailureOr<ShapedType> verifyServingOperand(OpTy op, Value value, StringRef name,
                                           Type elementType,
                                           ArrayRef<int64_t> ranks) {
  auto type = cast<ShapedType>(value.getType());
  bool isMemRef = isa<MemRefType>(type);
  if (!isa<RankedTensorType, MemRefType>(type) ||
      isMemRef != op.hasPureBufferSemantics())
    return op.emitOpError()
           << "'" << name << "' must be a ranked "
           << (op.hasPureBufferSemantics() ? "memref" : "tensor")
           << " like the query, got " << type;
  if (type.getElementType() != elementType)
    return op.emitOpError() << "'" << name << "' must have element type "
                            << elementType << ", got " << type.getElementType();
  if (!llvm::is_contained(ranks, type.getRank())) {
    InFlightDiagnostic diag = op.emitOpError()
                              << "'" << name << "' must have rank ";
    llvm::interleave(ranks, diag, " or ");
    return diag << ", got " << type.getRank();
  }
  return type;
}
/// The block-mask hint: i32 [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / QB),
/// `block_mask_rows` = QB >= 1 present iff the operand is, and a mask_mod
/// whose visibility it summarises.
template <typename OpTy>
LogicalResult verifyBlockMask(OpTy op, const AttentionShape &s,
                              int64_t numSeqs) {
  Value mask = op.getBlockMask();
  std::optional<uint64_t> rows = op.getBlockMaskRows();
  if (!mask) {
    if (rows)
      return op.emitOpError("'block_mask_rows' is only meaningful with a "
                            "'block_mask' operand");
    return success();
  }
  if (!rows)
    return op.emitOpError("'block_mask' needs 'block_mask_rows' (the query "
                          "rows per hint row) in the attribute dictionary");
  auto qb = int64_t(*rows);
  if (qb < 1)
    return op.emitOpError()
           << "'block_mask_rows' must be at least 1, got " << qb;
  if (op.getMaskMod().empty())
    return op.emitOpError("'block_mask' summarises a mask_mod: it needs a "
                          "mask_mod region");
  if (op.getCuSeqlensQ())
    return op.emitOpError("'block_mask' cannot be combined with cu_seqlens");
  FailureOr<ShapedType> t = verifyServingOperand(
      op, mask, "block_mask", Builder(op.getContext()).getI32Type(), {4});
  if (failed(t))
    return failure();
  ArrayRef<int64_t> shape = t->getShape();
  // A dim of 1 broadcasts (only a static 1 does: a dynamic dim is B or Hq).
  auto fits = [](int64_t d, int64_t full) {
    return compatible(d, full) || d == 1;
  };
  std::optional<int64_t> needRows;
  if (!ShapedType::isDynamic(s.seqQ))
    needRows = llvm::divideCeilSigned(s.seqQ, qb);
  if (!fits(shape[0], numSeqs) || !fits(shape[1], s.headsQ) || shape[3] != 4 ||
      (needRows && !ShapedType::isDynamic(shape[2]) && shape[2] < *needRows))
    return op.emitOpError()
           << "'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= "
              "ceil(Sq / block_mask_rows) = "
           << (needRows ? std::to_string(*needRows) : std::string("?"))
           << ", B = " << dimStr(numSeqs) << ", Hq = " << dimStr(s.headsQ)
           << "; got " << shapeStr(shape);
  return success();
}
/// Checks what flash.attention and flash.attention_backward share: Q, K, V,
/// their element type and shapes, the serving operands, the block mask and
/// the attributes; sets `s` to the op's shape.
template <typename OpTy>
LogicalResult verifyAttentionInputs(OpTy op, AttentionShape &s) {
  for (OpOperand &operand : op.getOperation()->getOpOperands())
    if (failed(verifyAddressable(
            op, operand.get().getType(),
            "operand #" + std::to_string(operand.getOperandNumber()))))
      return failure();
  for (Value result : op->getResults())
    if (failed(verifyAddressable(op, result.getType(), "result")))
      return failure();
  // Q, K, V: rank-4 tensors or rank-4 strided memrefs, all of one kind.
  std::pair<Value, StringRef> qkv[] = {
      {op.getQuery(), "query"}, {op.getKey(), "key"}, {op.getValue(), "value"}};
  for (auto [value, name] : qkv) {
    auto type = cast<ShapedType>(value.getType());
    if (!isa<RankedTensorType, MemRefType>(type) || type.getRank() != 4)
      return op.emitOpError() << "'" << name
                              << "' must be a rank-4 [batch, heads, seq, "
                                 "head_dim] ranked tensor or memref, got "
                              << value.getType();
    if (!isStridedMemRef(type))
      return op.emitOpError()
             << "'" << name << "' memref must have a strided layout, got "
             << type;
  }
  auto qType = cast<ShapedType>(op.getQuery().getType());
  auto kType = cast<ShapedType>(op.getKey().getType());
  auto vType = cast<ShapedType>(op.getValue().getType());
  bool buffers = op.hasPureBufferSemantics();
  if (isa<MemRefType>(kType) != buffers || isa<MemRefType>(vType) != buffers)
    return op.emitOpError("query, key and value must be all tensors or all "
                          "memrefs");

  // Element types: f16, bf16 or f32, the same for Q, K and V.
  Type elementType = qType.getElementType();
  if (!isKernelElementType(elementType))
    return op.emitOpError()
           << "element type must be f16, bf16 or f32, got " << elementType;
  if (kType.getElementType() != elementType ||
      vType.getElementType() != elementType)
    return op.emitOpError()
           << "key and value must have the query's element type " << elementType
           << ", got " << kType.getElementType() << " and "
           << vType.getElementType();

  // Head dims are static (they fix the register tiling of a kernel).
  for (auto [value, name] : qkv)
    if (cast<ShapedType>(value.getType()).isDynamicDim(kDimPos))
      return op.emitOpError() << "'" << name << "' head_dim must be static";

  s = attentionShape(op);
  if (s.headDim < 1 || s.headDimV < 1)
    return op.emitOpError()
           << "head dims must be at least 1, got D = " << s.headDim
           << " and Dv = " << s.headDimV;
  if (s.paged && !ShapedType::isDynamic(s.pageSize) && s.pageSize < 1)
    return op.emitOpError() << "paged key/value must have a page size (dim 2) "
                               "of at least 1, got "
                            << s.pageSize;
  if (s.headDim != kType.getDimSize(kDimPos))
    return op.emitOpError()
           << "query and key head_dim must match, got " << s.headDim << " and "
           << kType.getDimSize(kDimPos);
  if (!compatible(s.headsKV, vType.getDimSize(kHeadsPos)))
    return op.emitOpError() << "key and value must have the same number of "
                               "heads, got "
                            << dimStr(s.headsKV) << " and "
                            << dimStr(vType.getDimSize(kHeadsPos));
  if (!ShapedType::isDynamic(s.headsKV) && s.headsKV == 0)
    return op.emitOpError("key/value heads must be non-zero");
  if (!ShapedType::isDynamic(s.headsQ) && !ShapedType::isDynamic(s.headsKV) &&
      s.headsQ % s.headsKV != 0)
    return op.emitOpError()
           << "query heads (" << s.headsQ
           << ") must be a multiple of key/value heads (" << s.headsKV << ")";
  if (!compatible(kType.getDimSize(kSeqPos), vType.getDimSize(kSeqPos)))
    return op.emitOpError() << "key and value sequence lengths must match, got "
                            << dimStr(kType.getDimSize(kSeqPos)) << " and "
                            << dimStr(vType.getDimSize(kSeqPos));
  if (!compatible(kType.getDimSize(kBatchPos), vType.getDimSize(kBatchPos)))
    return op.emitOpError()
           << "key and value " << (s.paged ? "page counts" : "batch sizes")
           << " must match, got " << dimStr(kType.getDimSize(kBatchPos))
           << " and " << dimStr(vType.getDimSize(kBatchPos));
  if (!s.paged && !compatible(s.batch, kType.getDimSize(kBatchPos)))
    return op.emitOpError()
           << "query and key/value batch sizes must match, got "
           << dimStr(s.batch) << " and " << dimStr(kType.getDimSize(kBatchPos));

  // Serving operands.
  Builder b(op.getContext());
  Type i32 = b.getI32Type();
  if (Value cuQ = op.getCuSeqlensQ()) {
    Value cuK = op.getCuSeqlensK();
    if (!cuK)
      return op.emitOpError("'cu_seqlens' needs both cu_seqlens_q and "
                            "cu_seqlens_k");
    FailureOr<ShapedType> tq =
        verifyServingOperand(op, cuQ, "cu_seqlens_q", i32, {1});
    if (failed(tq))
      return failure();
    FailureOr<ShapedType> tk =
        verifyServingOperand(op, cuK, "cu_seqlens_k", i32, {1});
    if (failed(tk))
      return failure();
    if (!compatible(tq->getDimSize(0), tk->getDimSize(0)))
      return op.emitOpError("cu_seqlens_q and cu_seqlens_k must have the same "
                            "length (num_seqs + 1)");
    if (op.getKvLens() || op.getBlockTable())
      return op.emitOpError("varlen (cu_seqlens) cannot be combined with "
                            "kv_lens or block_table");
    if (!compatible(s.batch, 1) || !compatible(kType.getDimSize(kBatchPos), 1))
      return op.emitOpError()
             << "varlen (cu_seqlens) packs sequences along seq: "
                "query, key and value must have batch size 1, "
                "got "
             << dimStr(s.batch);
  } else if (op.getCuSeqlensK()) {
    return op.emitOpError("'cu_seqlens' needs both cu_seqlens_q and "
                          "cu_seqlens_k");
  }

  // Sequences in the batch: B, or num_seqs = len(cu_seqlens) - 1 for varlen.
  int64_t numSeqs = s.batch;
  if (Value cuQ = op.getCuSeqlensQ()) {
    int64_t len = cast<ShapedType>(cuQ.getType()).getDimSize(0);
    numSeqs = ShapedType::isDynamic(len) ? len : len - 1;
  }
  if (Value slopes = op.getAlibiSlopes()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(op, slopes, "alibi", b.getF32Type(), {1, 2});
    if (failed(t))
      return failure();
    SmallVector<int64_t> expected = {s.headsQ};
    if (t->getRank() == 2)
      expected.insert(expected.begin(), numSeqs);
    if (!shapeCompatible(t->getShape(), expected))
      return op.emitOpError()
             << "'alibi' slopes must have shape [Hq] or [B, Hq] "
                "= "
             << shapeStr(expected) << ", got " << shapeStr(t->getShape());
  }
  if (Value lens = op.getKvLens()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(op, lens, "kv_lens", i32, {1});
    if (failed(t))
      return failure();
    if (!compatible(t->getDimSize(0), s.batch))
      return op.emitOpError()
             << "'kv_lens' must have one entry per batch (" << dimStr(s.batch)
             << "), got " << dimStr(t->getDimSize(0));
  }
  if (Value table = op.getBlockTable()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(op, table, "block_table", i32, {2});
    if (failed(t))
      return failure();
    if (!compatible(t->getDimSize(0), s.batch))
      return op.emitOpError()
             << "'block_table' must have one row per batch (" << dimStr(s.batch)
             << "), got " << dimStr(t->getDimSize(0));
  }
  if (failed(verifyBlockMask(op, s, numSeqs)))
    return failure();
  // Attributes.
  if (failed(verifyMaskAttrs(op.getOperation(), op.getScale(), op.getSoftcap(),
                             op.getWindow(), effectiveScale(op))))
    return failure();
  return success();
}

/// The captures (ranked, of Q's container kind, integer or float elements)
/// and the score_mod / mask_mod regions that read them.
template <typename OpTy> LogicalResult verifyModRegions(OpTy op) {
  bool buffers = op.hasPureBufferSemantics();
  for (auto [n, capture] : llvm::enumerate(op.getCaptures())) {
    auto type = cast<ShapedType>(capture.getType());
    if (!isa<RankedTensorType, MemRefType>(type) ||
        isa<MemRefType>(type) != buffers)
      return op.emitOpError() << "capture #" << n << " must be a ranked "
                              << (buffers ? "memref" : "tensor")
                              << " like the query, got " << type;
    if (!type.getElementType().isIntOrFloat())
      return op.emitOpError()
             << "capture #" << n
             << " must have an integer or float element type, got "
             << type.getElementType();
  }
  Builder b(op.getContext());
  Type index = b.getIndexType();
  SmallVector<Type> maskArgs(4, index);
  llvm::append_range(maskArgs, op.getCaptures().getTypes());
  SmallVector<Type> scoreArgs = {b.getF32Type()};
  llvm::append_range(scoreArgs, maskArgs);
  if (!op.getScoreMod().empty() &&
      failed(verifyModRegion(op, op.getScoreMod(), "score_mod", scoreArgs,
                             b.getF32Type())))
    return failure();
  if (!op.getMaskMod().empty() &&
      failed(verifyModRegion(op, op.getMaskMod(), "mask_mod", maskArgs,
                             b.getI1Type())))
    return failure();
  return success();
}

/// Outputs (`what`) are results in the tensor form and `outs` in the memref
/// form, never both.
template <typename OpTy>
LogicalResult verifyOutputForm(OpTy op, StringRef what) {
  if (op.hasPureBufferSemantics() && !op->getResults().empty())
    return op.emitOpError() << "memref form writes " << what
                            << " to 'outs' and must not return results";
  if (!op.hasPureBufferSemantics() && !op.getOuts().empty())
    return op.emitOpError() << "tensor form returns " << what
                            << " and must not have 'outs'";
  return success();
}

/// The memory effects of both ops: none in the tensor form; the memref form
/// reads its inputs and writes its `outs`.
template <typename OpTy>
void bufferEffects(
    OpTy op,
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  if (!op.hasPureBufferSemantics())
    return;
  unsigned firstOut = op.getOuts().getBeginOperandIndex();
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (operand.getOperandNumber() >= firstOut)
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    else
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  }
}

} // namespace mlir::flash::rules

#endif // FLASH_LIB_DIALECT_FLASH_IR_ATTENTIONVERIFIER_H
