//===- FlashFoldGQA.cpp - Fold GQA query heads into query rows ------------===//
//
// flash-fold-gqa: in decode (one query token) with grouped-query attention,
// the G query heads that read one KV head are made the G rows of a single
// query block. Q, O and LSE get a reinterpreted view of the same storage
// ([B, Hq, 1, D] -> [B, Hkv, G, D]: head h = kv * G + g becomes row g of KV
// head kv), so each K/V tile is loaded once per group, not once per head.
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHFOLDGQA
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// `src` ([B, Hq, 1, ...] with strides [sB, sH, sS, ...]) viewed as
/// [B, Hkv, G, ...] with strides [sB, G * sH, sH, ...].
Value foldView(OpBuilder &b, Location loc, Value src, OpFoldResult headsKV,
               OpFoldResult group) {
  auto type = cast<MemRefType>(src.getType());
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, src);
  auto fold = [&](OpFoldResult f) -> int64_t {
    if (auto attr = dyn_cast<Attribute>(f))
      return cast<IntegerAttr>(attr).getInt();
    return ShapedType::kDynamic;
  };
  // Static sizes and strides of the type stay static in the view.
  int64_t staticOffset;
  SmallVector<int64_t> typeStrides;
  (void)type.getStridesAndOffset(typeStrides, staticOffset);
  SmallVector<OpFoldResult> sizes, strides;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    sizes.push_back(type.isDynamicDim(i)
                        ? OpFoldResult(meta.getSizes()[i])
                        : OpFoldResult(b.getIndexAttr(type.getDimSize(i))));
    strides.push_back(ShapedType::isDynamic(typeStrides[i])
                          ? OpFoldResult(meta.getStrides()[i])
                          : OpFoldResult(b.getIndexAttr(typeStrides[i])));
  }
  OpFoldResult offsetOfr =
      ShapedType::isDynamic(staticOffset)
          ? OpFoldResult(meta.getOffset())
          : OpFoldResult(b.getIndexAttr(staticOffset));
  sizes[kHeadsPos] = headsKV;
  sizes[kSeqPos] = group;
  OpFoldResult headStride = strides[kHeadsPos];
  strides[kSeqPos] = headStride;
  int64_t g = fold(group), sh = fold(headStride);
  if (g != ShapedType::kDynamic && sh != ShapedType::kDynamic) {
    strides[kHeadsPos] = b.getIndexAttr(g * sh);
  } else {
    Value gv = getValueOrCreateConstantIndexOp(b, loc, group);
    Value shv = getValueOrCreateConstantIndexOp(b, loc, headStride);
    strides[kHeadsPos] = arith::MulIOp::create(b, loc, gv, shv).getResult();
  }
  SmallVector<int64_t> shape, staticStrides;
  for (OpFoldResult f : sizes)
    shape.push_back(fold(f));
  for (OpFoldResult f : strides)
    staticStrides.push_back(fold(f));
  int64_t offset = fold(offsetOfr);
  auto layout =
      StridedLayoutAttr::get(b.getContext(), offset, staticStrides);
  auto viewType = MemRefType::get(shape, type.getElementType(), layout,
                                  type.getMemorySpace());
  return memref::ReinterpretCastOp::create(
      b, loc, viewType, src, offsetOfr, sizes, strides);
}

struct FlashFoldGQAPass : flash::impl::FlashFoldGQABase<FlashFoldGQAPass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) { ops.push_back(op); });
    for (AttentionOp op : ops)
      fold(op);
  }

  void fold(AttentionOp op) {
    AttentionShape s = op.getShape();
    // One query row; a window (whose bounds are relative to the row), ALiBi
    // (per head) or a score_mod / mask_mod (functions of h and i) would
    // change meaning once heads become rows. A block_mask hint needs a
    // mask_mod, so it is declined with it (its rows would change meaning
    // too).
    if (!op.hasPureBufferSemantics() || op.isPartial() || s.seqQ != 1 ||
        op.getWindow() || op.getAlibiSlopes() || op.getCuSeqlensQ() ||
        op.hasMods())
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value q = op.getQuery(), k = op.getKey();
    auto dim = [&](Value v, int64_t i) -> OpFoldResult {
      int64_t size = cast<ShapedType>(v.getType()).getDimSize(i);
      if (!ShapedType::isDynamic(size))
        return b.getIndexAttr(size);
      return memref::DimOp::create(b, loc, v, i).getResult();
    };
    OpFoldResult headsKV = dim(k, kHeadsPos);
    // G must be static: the folded Sq (= G) is what flash-plan sizes the
    // query block by.
    int64_t g = s.groupSize();
    if (ShapedType::isDynamic(g) || g == 1)
      return;
    OpFoldResult group = b.getIndexAttr(g);
    // The scale stays 1/sqrt(D); made explicit before Q's type changes.
    op.setScaleAttr(b.getF32FloatAttr(op.getEffectiveScale()));
    SmallVector<Value> outs;
    for (Value out : op.getOuts())
      outs.push_back(foldView(b, loc, out, headsKV, group));
    op.getQueryMutable().assign(foldView(b, loc, q, headsKV, group));
    op.getOutsMutable().assign(outs);
    // With one query every key is left of the bottom-right diagonal.
    op.removeCausalAttr();
    ++numFolded;
  }
};

} // namespace
