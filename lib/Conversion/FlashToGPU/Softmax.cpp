//===- Softmax.cpp - Online softmax on registers for flash-to-gpu --------===//
//
// The softmax side of the FA2 kernel on mma/wgmma accumulator fragments:
// softcap, the element mask (keyVisible from Utils/TileArith.h, as
// flash-online-softmax uses it), row max and sum by quad shuffles, exp2 with
// the scale folded into one FFMA, the alpha rescale, and the epilogue
// O = acc / l, LSE = m * c + log l with O staged through shared memory.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "flash/Dialect/Flash/Utils/TileArith.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

/// S[r, j] = -inf unless key j is visible to query r: the same predicate as
/// flash-online-softmax (bottom-right causal diagonal, window, sequence end).
/// S = softcap * tanh(S * scale / softcap), before the mask (as on the CPU).
void KernelEmitter::emitSoftcap(SmallVectorImpl<Value> &s,
                                TileUpdateOp update) {
  std::optional<APFloat> softcap = update.getSoftcap();
  if (!softcap)
    return;
  double cap = softcap->convertToDouble();
  Value pre = cf(update.getScale().convertToDouble() / cap), post = cf(cap);
  for (Value &x : s)
    x = fmul(tanh(fmul(x, pre)), post);
}

void KernelEmitter::emitMask(SmallVectorImpl<Value> &s, Value row0, Value col0,
                             TileUpdateOp update) {
  int64_t nTiles = bn / 8;
  int64_t left, right;
  std::tie(left, right) = getWindowBounds(update.getWindow());
  bool causal = update.getCausal();
  Value ninf = cf(-std::numeric_limits<double>::infinity());
  Value diagShift = sub(seqK, seqQ);
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value qRow = add(row0, add(warpRow(mt), add(g, c(8 * h))));
      IndexBuilder ib{b, loc};
      Value diag = diagonal(ib, qRow, diagShift);
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e) {
          Value j = add(col0, add(c(nt * 8 + e), mul(tq, c(2))));
          Value visible = keyVisible(ib, causal, left, right, diag, j, seqK);
          Value &x = s[frag(mt, nt, 2 * h + e, nTiles)];
          x = sel(visible, x, ninf);
        }
    }
}

/// The online-softmax step on registers. Each thread owns two rows per
/// m-tile; a row's 4 owners are one quad, so max/sum need xor-1/2 shuffles.
void KernelEmitter::emitOnlineSoftmax(SmallVectorImpl<Value> &s,
                                      SmallVectorImpl<Value> &acc,
                                      SmallVectorImpl<Value> &m,
                                      SmallVectorImpl<Value> &l,
                                      TileUpdateOp update) {
  int64_t nTiles = bn / 8, dTiles = d / 8;
  double cFactor = update.getLogitFactor();
  Value cLog2e = cf(cFactor * kLog2e);
  Value ninf = cf(-std::numeric_limits<double>::infinity());
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t row = mt * 2 + h;
      // m_new = max(m, rowmax S)
      SmallVector<Value> rowVals;
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e)
          rowVals.push_back(s[frag(mt, nt, 2 * h + e, nTiles)]);
      Value rmax = fmax(m[row], tree(rowVals, [&](Value x, Value y) {
                          return fmax(x, y);
                        }));
      rmax = fmax(rmax, shflXor(rmax, 1));
      rmax = fmax(rmax, shflXor(rmax, 2));
      // ms = m_new * c * log2e, or 0 while the row has seen no key.
      Value isEmpty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            rmax, ninf);
      Value ms = sel(isEmpty, cf(0.0), fmul(rmax, cLog2e));
      Value negMs = arith::NegFOp::create(b, loc, ms);
      // alpha = exp2(m_old * c * log2e - ms)
      Value alpha =
          exp2(fma(m[row], cLog2e, negMs));
      // P = exp2(S * c * log2e - ms): one FFMA + EX2 per element.
      SmallVector<Value> probs;
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e) {
          Value &x = s[frag(mt, nt, 2 * h + e, nTiles)];
          x = exp2(fma(x, cLog2e, negMs));
          probs.push_back(x);
        }
      Value rowSum =
          tree(probs, [&](Value x, Value y) { return fadd(x, y); });
      // l = l * alpha + rowsum(P) (thread-partial; reduced in the epilogue)
      l[row] = fma(l[row], alpha, rowSum);
      m[row] = rmax;
      for (int64_t dt = 0; dt < dTiles; ++dt)
        for (int64_t e = 0; e < 2; ++e) {
          Value &x = acc[frag(mt, dt, 2 * h + e, dTiles)];
          x = fmul(x, alpha);
        }
    }
}

/// O = acc / l (0 for a row that saw no key), LSE = m * c + log l (-inf).
/// O goes through the shared memory Q used, then out with 16-byte stores.
void KernelEmitter::emitEpilogue(ArrayRef<Value> acc, ArrayRef<Value> m,
                                 ArrayRef<Value> l, IRMapping &map) {
  int64_t dTiles = d / 8;
  TileFinalizeOp fin = t.finalize;
  double cFactor = fin.getLogitFactor();
  Value row0 = lift(t.updates.front().getRow(), map);
  // No copy may still be writing (a program with no KV block never waited
  // for its Q), and every warp must be done reading Q before O overwrites it.
  NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
  syncConsumers();
  Value ninf = cf(-std::numeric_limits<double>::infinity());
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t rowIdx = mt * 2 + h;
      Value sum = l[rowIdx];
      sum = fadd(sum, shflXor(sum, 1));
      sum = fadd(sum, shflXor(sum, 2));
      Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                          sum, cf(0.0));
      Value inv = sel(empty, cf(0.0), arith::DivFOp::create(b, loc, cf(1.0), sum));
      Value localRow = add(warpRow(mt), add(g, c(8 * h)));
      if (t.partial()) {
        // f32 partial O: two floats per thread and d-tile, straight from
        // the accumulators (no 16-bit staging through shared memory).
        Value row = add(row0, localRow);
        auto ifOp = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::slt, row, seqQ), false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        auto v2f32 = VectorType::get({2}, f32);
        for (int64_t dt = 0; dt < dTiles; ++dt) {
          Value pair = LLVM::UndefOp::create(b, loc, v2f32);
          for (int64_t e = 0; e < 2; ++e)
            pair = LLVM::InsertElementOp::create(
                b, loc, pair, fmul(acc[frag(mt, dt, 2 * h + e, dTiles)], inv),
                arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(e)));
          Value elem = add(oPlane, add(mul(row, o.strideS),
                                       add(c(dt * 8), mul(tq, c(2)))));
          LLVM::StoreOp::create(b, loc, pair,
                                globalPtr(o.ptr, mul(elem, c(4))), 8);
        }
      }
      for (int64_t dt = 0; dt < dTiles && !t.partial(); ++dt) {
        Value packed = packPair(fmul(acc[frag(mt, dt, 2 * h, dTiles)], inv),
                                fmul(acc[frag(mt, dt, 2 * h + 1, dTiles)], inv));
        Value off = add(swizzled(localRow, c(dt), bm), mul(tq, c(4)));
        LLVM::StoreOp::create(b, loc, packed, smemPtr(off), /*alignment=*/4);
      }
      if (t.lseStore) {
        Value lseVal = sel(empty, ninf,
                           fadd(fmul(m[rowIdx], cf(cFactor)),
                                log(sum)));
        Value row = add(row0, localRow);
        Value store = arith::AndIOp::create(
            b, loc, cmp(arith::CmpIPredicate::eq, tq, c(0)),
            cmp(arith::CmpIPredicate::slt, row, seqQ));
        auto ifOp = scf::IfOp::create(b, loc, store, /*withElse=*/false);
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        Value elem = add(lsePlane, mul(row, lse.strideS));
        LLVM::StoreOp::create(b, loc, lseVal,
                              globalPtr(lse.ptr, mul(elem, c(4))), 4);
      }
    }
  if (t.partial())
    return;
  syncConsumers();
  // 16-byte chunks of the O block; tail rows are not stored.
  int64_t chunksPerRow = d / 8, total = bm * chunksPerRow;
  auto v4i32 = VectorType::get({4}, i32);
  for (int64_t i = 0; i * threads < total; ++i) {
    Value id = add(tid, c(i * threads));
    Value r = arith::DivUIOp::create(b, loc, id, c(chunksPerRow));
    Value ch = arith::RemUIOp::create(b, loc, id, c(chunksPerRow));
    Value row = add(row0, r);
    Value ok = cmp(arith::CmpIPredicate::slt, row, seqQ);
    if (total % threads != 0)
      ok = arith::AndIOp::create(b, loc, ok,
                                 cmp(arith::CmpIPredicate::ult, id, c(total)));
    auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    Value chunk =
        LLVM::LoadOp::create(b, loc, v4i32, smemPtr(swizzled(r, ch, bm)), 16);
    Value elem = add(oPlane, add(mul(row, o.strideS), mul(ch, c(8))));
    LLVM::StoreOp::create(b, loc, chunk, globalPtr(o.ptr, mul(elem, c(2))),
                          16);
  }
}

} // namespace mlir::flash::gpu_kernel
