//===- FlashOps.cpp - flash dialect operations ----------------------------===//
//
// Verifier, shape roles and memory effects of `flash.attention`. Every rule
// of the op's semantics has exactly one diagnostic here, worded so that the
// user can fix the IR without reading this file; invalid.mlir tests each.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"

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

#define GET_OP_CLASSES
#include "flash/Dialect/Flash/IR/FlashOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

static bool compatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

static std::string dimStr(int64_t d) {
  return ShapedType::isDynamic(d) ? std::string("?") : std::to_string(d);
}

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::interleave(
      shape, [&](int64_t d) { s += dimStr(d); }, [&] { s += ", "; });
  return s + "]";
}

/// Checks that `shape` is compatible with `expected` (dynamic matches all).
static bool shapeCompatible(ArrayRef<int64_t> shape,
                            ArrayRef<int64_t> expected) {
  return shape.size() == expected.size() &&
         llvm::all_of(llvm::zip(shape, expected), [](auto pair) {
           return compatible(std::get<0>(pair), std::get<1>(pair));
         });
}

static bool isStridedMemRef(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return !memref || memref.isStrided();
}

/// The largest scale the kernels compute correctly for ordinary scores: the
/// online softmax rounds scale * log2(e) * max(s) to f32 and subtracts it
/// from an exact product, so the rounding error (2^-24 of it) lands in the
/// exponent; at scale 1e9 it reaches 2^7 and exp2 overflows.
static constexpr double kMaxScale = 65536.0;

/// The numeric domain of scale, softcap and window, shared by
/// flash.attention and the tile ops that carry them. `effectiveScale` is
/// the scale the kernels apply (the attribute or 1/sqrt(D)).
static LogicalResult verifyMaskAttrs(Operation *op,
                                     std::optional<APFloat> scale,
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

/// f16, bf16 or f32: what the kernels load, multiply and store.
static bool isKernelElementType(Type t) {
  return t.isF16() || t.isBF16() || t.isF32();
}

/// Operands and results must be addressable: the static dims of `type`
/// times its element size must stay below 2^62 bytes, so that no pass or
/// runtime size computation on them can overflow int64 (and no sequence
/// reaches kUnboundedWindow).
static constexpr int64_t kMaxOperandBytes = int64_t(1) << 62;
static LogicalResult verifyAddressable(Operation *op, Type type,
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
  if (std::optional<APFloat> scale = getScale())
    return scale->convertToDouble();
  auto qType = cast<ShapedType>(getQuery().getType());
  return 1.0 / std::sqrt(double(qType.getDimSize(kDimPos)));
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

AttentionShape AttentionOp::getShape() {
  auto q = cast<ShapedType>(getQuery().getType());
  auto k = cast<ShapedType>(getKey().getType());
  auto v = cast<ShapedType>(getValue().getType());
  AttentionShape s;
  s.batch = q.getDimSize(kBatchPos);
  s.headsQ = q.getDimSize(kHeadsPos);
  s.headsKV = k.getDimSize(kHeadsPos);
  s.seqQ = q.getDimSize(kSeqPos);
  s.seqK = k.getDimSize(kSeqPos);
  s.headDim = q.getDimSize(kDimPos);
  s.headDimV = v.getDimSize(kDimPos);
  if (Value table = getBlockTable()) {
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
static FailureOr<ShapedType> verifyServingOperand(AttentionOp op, Value value,
                                                  StringRef name,
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

/// The block-mask hint: i32 [B or 1, Hq or 1, R, 4] with R >= ceil(Sq / QB),
/// `block_mask_rows` = QB >= 1 present iff the operand is, and a mask_mod
/// whose visibility it summarises.
static LogicalResult verifyBlockMask(AttentionOp op, const AttentionShape &s,
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
    return op.emitOpError() << "'block_mask_rows' must be at least 1, got "
                            << qb;
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
  if (!fits(shape[0], numSeqs) || !fits(shape[1], s.headsQ) ||
      shape[3] != 4 ||
      (needRows && !ShapedType::isDynamic(shape[2]) && shape[2] < *needRows))
    return op.emitOpError()
           << "'block_mask' must have shape [B or 1, Hq or 1, R, 4] with R >= "
              "ceil(Sq / block_mask_rows) = "
           << (needRows ? std::to_string(*needRows) : std::string("?"))
           << ", B = " << dimStr(numSeqs) << ", Hq = " << dimStr(s.headsQ)
           << "; got " << shapeStr(shape);
  return success();
}

LogicalResult AttentionOp::verify() {
  for (OpOperand &operand : getOperation()->getOpOperands())
    if (failed(verifyAddressable(*this, operand.get().getType(),
                                 "operand #" +
                                     std::to_string(operand.getOperandNumber()))))
      return failure();
  for (Value result : getResults())
    if (failed(verifyAddressable(*this, result.getType(), "result")))
      return failure();
  // Q, K, V: rank-4 tensors or rank-4 strided memrefs, all of one kind.
  std::pair<Value, StringRef> qkv[] = {
      {getQuery(), "query"}, {getKey(), "key"}, {getValue(), "value"}};
  for (auto [value, name] : qkv) {
    auto type = cast<ShapedType>(value.getType());
    if (!isa<RankedTensorType, MemRefType>(type) || type.getRank() != 4)
      return emitOpError() << "'" << name
                           << "' must be a rank-4 [batch, heads, seq, "
                              "head_dim] ranked tensor or memref, got "
                           << value.getType();
    if (!isStridedMemRef(type))
      return emitOpError() << "'" << name
                           << "' memref must have a strided layout, got "
                           << type;
  }
  auto qType = cast<ShapedType>(getQuery().getType());
  auto kType = cast<ShapedType>(getKey().getType());
  auto vType = cast<ShapedType>(getValue().getType());
  bool buffers = hasPureBufferSemantics();
  if (isa<MemRefType>(kType) != buffers || isa<MemRefType>(vType) != buffers)
    return emitOpError("query, key and value must be all tensors or all "
                       "memrefs");

  // Element types: f16, bf16 or f32, the same for Q, K and V.
  Type elementType = qType.getElementType();
  if (!isKernelElementType(elementType))
    return emitOpError() << "element type must be f16, bf16 or f32, got "
                         << elementType;
  if (kType.getElementType() != elementType ||
      vType.getElementType() != elementType)
    return emitOpError() << "key and value must have the query's element type "
                         << elementType << ", got " << kType.getElementType()
                         << " and " << vType.getElementType();

  // Head dims are static (they fix the register tiling of a kernel).
  for (auto [value, name] : qkv)
    if (cast<ShapedType>(value.getType()).isDynamicDim(kDimPos))
      return emitOpError() << "'" << name << "' head_dim must be static";

  AttentionShape s = getShape();
  if (s.headDim < 1 || s.headDimV < 1)
    return emitOpError() << "head dims must be at least 1, got D = "
                         << s.headDim << " and Dv = " << s.headDimV;
  if (s.paged && !ShapedType::isDynamic(s.pageSize) && s.pageSize < 1)
    return emitOpError() << "paged key/value must have a page size (dim 2) "
                            "of at least 1, got "
                         << s.pageSize;
  if (s.headDim != kType.getDimSize(kDimPos))
    return emitOpError() << "query and key head_dim must match, got "
                         << s.headDim << " and " << kType.getDimSize(kDimPos);
  if (!compatible(s.headsKV, vType.getDimSize(kHeadsPos)))
    return emitOpError() << "key and value must have the same number of "
                            "heads, got "
                         << dimStr(s.headsKV) << " and "
                         << dimStr(vType.getDimSize(kHeadsPos));
  if (!ShapedType::isDynamic(s.headsKV) && s.headsKV == 0)
    return emitOpError("key/value heads must be non-zero");
  if (!ShapedType::isDynamic(s.headsQ) && !ShapedType::isDynamic(s.headsKV) &&
      s.headsQ % s.headsKV != 0)
    return emitOpError() << "query heads (" << s.headsQ
                         << ") must be a multiple of key/value heads ("
                         << s.headsKV << ")";
  if (!compatible(kType.getDimSize(kSeqPos), vType.getDimSize(kSeqPos)))
    return emitOpError() << "key and value sequence lengths must match, got "
                         << dimStr(kType.getDimSize(kSeqPos)) << " and "
                         << dimStr(vType.getDimSize(kSeqPos));
  if (!compatible(kType.getDimSize(kBatchPos), vType.getDimSize(kBatchPos)))
    return emitOpError() << "key and value "
                         << (s.paged ? "page counts" : "batch sizes")
                         << " must match, got "
                         << dimStr(kType.getDimSize(kBatchPos)) << " and "
                         << dimStr(vType.getDimSize(kBatchPos));
  if (!s.paged && !compatible(s.batch, kType.getDimSize(kBatchPos)))
    return emitOpError() << "query and key/value batch sizes must match, got "
                         << dimStr(s.batch) << " and "
                         << dimStr(kType.getDimSize(kBatchPos));

  // Serving operands.
  Builder b(getContext());
  Type i32 = b.getI32Type();
  if (Value cuQ = getCuSeqlensQ()) {
    Value cuK = getCuSeqlensK();
    if (!cuK)
      return emitOpError("'cu_seqlens' needs both cu_seqlens_q and "
                         "cu_seqlens_k");
    FailureOr<ShapedType> tq =
        verifyServingOperand(*this, cuQ, "cu_seqlens_q", i32, {1});
    if (failed(tq))
      return failure();
    FailureOr<ShapedType> tk =
        verifyServingOperand(*this, cuK, "cu_seqlens_k", i32, {1});
    if (failed(tk))
      return failure();
    if (!compatible(tq->getDimSize(0), tk->getDimSize(0)))
      return emitOpError("cu_seqlens_q and cu_seqlens_k must have the same "
                         "length (num_seqs + 1)");
    if (getKvLens() || getBlockTable())
      return emitOpError("varlen (cu_seqlens) cannot be combined with "
                         "kv_lens or block_table");
    if (!compatible(s.batch, 1) || !compatible(kType.getDimSize(kBatchPos), 1))
      return emitOpError() << "varlen (cu_seqlens) packs sequences along seq: "
                              "query, key and value must have batch size 1, "
                              "got "
                           << dimStr(s.batch);
  } else if (getCuSeqlensK()) {
    return emitOpError("'cu_seqlens' needs both cu_seqlens_q and "
                       "cu_seqlens_k");
  }

  // Sequences in the batch: B, or num_seqs = len(cu_seqlens) - 1 for varlen.
  int64_t numSeqs = s.batch;
  if (Value cuQ = getCuSeqlensQ()) {
    int64_t len = cast<ShapedType>(cuQ.getType()).getDimSize(0);
    numSeqs = ShapedType::isDynamic(len) ? len : len - 1;
  }
  if (Value slopes = getAlibiSlopes()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(*this, slopes, "alibi", b.getF32Type(), {1, 2});
    if (failed(t))
      return failure();
    SmallVector<int64_t> expected = {s.headsQ};
    if (t->getRank() == 2)
      expected.insert(expected.begin(), numSeqs);
    if (!shapeCompatible(t->getShape(), expected))
      return emitOpError() << "'alibi' slopes must have shape [Hq] or [B, Hq] "
                              "= "
                           << shapeStr(expected) << ", got "
                           << shapeStr(t->getShape());
  }
  if (Value lens = getKvLens()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(*this, lens, "kv_lens", i32, {1});
    if (failed(t))
      return failure();
    if (!compatible(t->getDimSize(0), s.batch))
      return emitOpError() << "'kv_lens' must have one entry per batch ("
                           << dimStr(s.batch) << "), got "
                           << dimStr(t->getDimSize(0));
  }
  if (Value table = getBlockTable()) {
    FailureOr<ShapedType> t =
        verifyServingOperand(*this, table, "block_table", i32, {2});
    if (failed(t))
      return failure();
    if (!compatible(t->getDimSize(0), s.batch))
      return emitOpError() << "'block_table' must have one row per batch ("
                           << dimStr(s.batch) << "), got "
                           << dimStr(t->getDimSize(0));
  }
  if (failed(verifyBlockMask(*this, s, numSeqs)))
    return failure();
  // Attributes.
  if (failed(verifyMaskAttrs(getOperation(), getScale(), getSoftcap(),
                             getWindow(), getEffectiveScale())))
    return failure();

  // Outputs: results on tensors, `outs` on memrefs; O then optional LSE.
  if (buffers && !getResults().empty())
    return emitOpError("memref form writes its outputs to 'outs' and must not "
                       "return results");
  if (!buffers && !getOuts().empty())
    return emitOpError("tensor form returns its outputs and must not have "
                       "'outs'");
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
  // The tensor form is pure; the memref form reads its inputs and writes
  // its outs.
  if (!hasPureBufferSemantics())
    return;
  unsigned firstOut = getOuts().getBeginOperandIndex();
  for (OpOperand &operand : getOperation()->getOpOperands()) {
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
