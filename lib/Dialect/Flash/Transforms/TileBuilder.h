//===- TileBuilder.h - linalg ops on static attention tiles -----*- C++ -*-===//
//
// The small builder the tile expansions (flash-online-softmax's forward,
// flash-backward-recompute's backward) write their linalg ops with: the
// element-wise and row-wise generics over [BM, BN] and [BM] tiles, fills,
// and the tile GEMMs with one operand transposed, so both state their math
// in the same few forms that flash-assign-layouts and the GPU lowering read.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_DIALECT_FLASH_TRANSFORMS_TILEBUILDER_H
#define FLASH_DIALECT_FLASH_TRANSFORMS_TILEBUILDER_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include <limits>

namespace mlir::flash {

/// Builds the linalg ops of one expansion; every tile is [BM, BN] or [BM].
struct TileBuilder {
  using IteratorType = utils::IteratorType;

  OpBuilder &b;
  Location loc;
  MLIRContext *ctx = b.getContext();

  AffineMap id2() { return AffineMap::getMultiDimIdentityMap(2, ctx); }
  AffineMap rowOf2() {
    return AffineMap::get(2, 0, {b.getAffineDimExpr(0)}, ctx);
  }
  AffineMap id1() { return AffineMap::getMultiDimIdentityMap(1, ctx); }

  Value f32(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
  }

  /// A linalg.generic with the given maps (inputs then init) and iterators.
  Value generic(ValueRange inputs, Value init, ArrayRef<AffineMap> maps,
                ArrayRef<IteratorType> iterators,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    auto op = linalg::GenericOp::create(
        b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, maps,
        iterators, [&](OpBuilder &nb, Location nloc, ValueRange args) {
          linalg::YieldOp::create(nb, nloc, body(nb, nloc, args));
        });
    return op.getResult(0);
  }

  Value emptyLike(Value like, Type elementType = {}) {
    auto type = cast<RankedTensorType>(like.getType());
    return tensor::EmptyOp::create(b, loc, type.getShape(),
                                   elementType ? elementType
                                               : type.getElementType());
  }

  Value zeros(ArrayRef<int64_t> shape) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, b.getF32Type());
    return linalg::FillOp::create(b, loc, f32(0.0), empty).getResult(0);
  }

  /// C += A * B^T (transposeB), C += A^T * B (transposeA) or C += A * B,
  /// accumulated in f32; linalg extends bf16/f16 operands to the f32
  /// accumulator.
  Value matmul(Value a, Value bMat, Value c, bool transposeB,
               bool transposeA = false) {
    AffineExpr m, n, k;
    bindDims(ctx, m, n, k);
    SmallVector<AffineMap> maps = {
        AffineMap::get(3, 0,
                       transposeA ? ArrayRef<AffineExpr>{k, m}
                                  : ArrayRef<AffineExpr>{m, k},
                       ctx),
        AffineMap::get(3, 0,
                       transposeB ? ArrayRef<AffineExpr>{n, k}
                                  : ArrayRef<AffineExpr>{k, n},
                       ctx),
        AffineMap::get(3, 0, {m, n}, ctx)};
    auto op =
        linalg::MatmulOp::create(b, loc, ValueRange{a, bMat}, ValueRange{c});
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
    return op.getResult(0);
  }
};

inline Value isNegInf(OpBuilder &b, Location loc, Value x) {
  Value ninf = arith::ConstantOp::create(
      b, loc, b.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
  return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ, x, ninf);
}

} // namespace mlir::flash

#endif // FLASH_DIALECT_FLASH_TRANSFORMS_TILEBUILDER_H
