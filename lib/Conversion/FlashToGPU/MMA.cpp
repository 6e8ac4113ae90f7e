//===- MMA.cpp - mma.sync GEMMs of the FA2 kernel ------------------------===//
//
// The linalg.matmul pattern, which picks mma.sync or wgmma by its
// accumulator's #flash.frag layout, and the mma.sync m16n8k16 realisation
// (f32 accumulation): S = Q K^T with Q and K fragments by ldmatrix from shared
// memory, O += P V with V by ldmatrix.trans and P's packed accumulator
// registers as the A operand (FA2's register reuse). The wgmma forms are in
// WGMMA.cpp.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

static SmallVector<Value> mma(const KernelContext &kc, ArrayRef<Value> a,
                              ArrayRef<Value> bFrag, ArrayRef<Value> acc) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  bool isBf16 = kc.elt.isBF16();
  // f16 operands are <2 x half> registers, bf16 ones i32 (the nvgpu op's bf16
  // path does not lower in MLIR 22, so nvvm.mma.sync is used directly).
  auto asOperand = [&](Value r) -> Value {
    if (isBf16)
      return r;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, kc.elt), r);
  };
  SmallVector<Value> av, bv;
  for (Value r : a)
    av.push_back(asOperand(r));
  for (Value r : bFrag)
    bv.push_back(asOperand(r));
  auto f32x4 = LLVM::LLVMStructType::getLiteral(
      kc.ctx, {kc.f32, kc.f32, kc.f32, kc.f32});
  auto ptx = isBf16 ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
  Value res = NVVM::MmaOp::create(
      b, loc, f32x4, av, bv, acc, ArrayRef<int64_t>{16, 8, 16}, std::nullopt,
      std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
      std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                     NVVM::MMALayout::col});
  SmallVector<Value> out;
  for (int64_t i = 0; i < 4; ++i)
    out.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return out;
}

void mmaTilePair(const KernelContext &kc, ArrayRef<SmallVector<Value>> aFrags,
                 ArrayRef<Value> bRegs, SmallVectorImpl<Value> &acc, int64_t n0,
                 int64_t nTiles) {
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = kc.frag(mt, n0 + h, 0, nTiles);
      SmallVector<Value> r =
          mma(kc, aFrags[mt], {bRegs[2 * h], bRegs[2 * h + 1]},
              ArrayRef<Value>(acc).slice(first, 4));
      llvm::copy(r, acc.begin() + first);
    }
}

/// Two f32 -> one 32-bit register of two bf16/f16 (cvt.rn.*x2.f32).
Value KernelContext::packPair(Value lo, Value hi) const {
  auto v2f32 = VectorType::get({2}, f32);
  Value vec = LLVM::PoisonOp::create(b, loc, v2f32);
  vec = LLVM::InsertElementOp::create(b, loc, vec, lo, ci32(0));
  vec = LLVM::InsertElementOp::create(b, loc, vec, hi, ci32(1));
  Value narrow =
      arith::TruncFOp::create(b, loc, VectorType::get({2}, elt), vec);
  return LLVM::BitcastOp::create(b, loc, i32, narrow);
}

/// S = Q K^T for the warp's rows against the KV block in `stage`.
static SmallVector<Value> emitScores(const KernelContext &kc, Value stage) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  int64_t nTiles = kc.bn / 8;
  Value zero = kc.cf(0.0);
  SmallVector<Value> s(kc.mTiles * nTiles * 4, zero);
  Value kBase = kc.add(kc.c(kc.smem.kOffset()),
                       kc.mul(stage, kc.c(kc.smem.kvTileBytes())));
  Value lo16 = arith::RemUIOp::create(b, loc, kc.lane, kc.c(16));
  Value hi16 = arith::DivUIOp::create(b, loc, kc.lane, kc.c(16));
  Value lo8 = arith::RemUIOp::create(b, loc, kc.lane, kc.c(8));
  Value mid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, kc.lane, kc.c(8)), kc.c(2));
  for (int64_t ks = 0; ks < kc.d / 16; ++ks) {
    // A = Q rows (ldmatrix x4: lanes 0-15 rows, 16-31 the upper k half).
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < kc.mTiles; ++mt)
      aFrags.push_back(ldmatrix(kc,
                                kc.swizzled(kc.add(kc.warpRow(mt), lo16),
                                            kc.add(kc.c(2 * ks), hi16), kc.bm),
                                false));
    for (int64_t p = 0; p < nTiles / 2; ++p) {
      // B = K rows n (non-transposed ldmatrix gives the "col" fragment):
      // matrices (n-tile 2p, k lo), (2p, k hi), (2p+1, k lo), (2p+1, k hi).
      Value row = kc.add(kc.c(16 * p), kc.add(lo8, kc.mul(hi16, kc.c(8))));
      SmallVector<Value> kf = ldmatrix(
          kc, kc.add(kBase, kc.swizzled(row, kc.add(kc.c(2 * ks), mid), kc.bn)),
          false);
      mmaTilePair(kc, aFrags, kf, s, 2 * p, nTiles);
    }
  }
  return s;
}

/// acc += P V. The S accumulators of n-tiles (2kp, 2kp+1) are exactly the
/// A fragment of k-step kp once packed to 16 bits (`p` is packed): no
/// shared-memory trip.
static void emitPV(const KernelContext &kc, ArrayRef<Value> p,
                   SmallVectorImpl<Value> &acc, Value stage) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  int64_t nTiles = kc.bn / 8, dTiles = kc.d / 8;
  Value vBase = kc.add(kc.c(kc.smem.vOffset()),
                       kc.mul(stage, kc.c(kc.smem.kvTileBytes())));
  Value lo8 = arith::RemUIOp::create(b, loc, kc.lane, kc.c(8));
  Value mid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, kc.lane, kc.c(8)), kc.c(2));
  Value hi16 = arith::DivUIOp::create(b, loc, kc.lane, kc.c(16));
  for (int64_t kp = 0; kp < kc.bn / 16; ++kp) {
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < kc.mTiles; ++mt) {
      // The packed pair of (nt, r) and (nt, r + 1).
      auto at = [&](int64_t nt, int64_t r) {
        return p[kc.frag(mt, nt, r, nTiles) / 2];
      };
      aFrags.push_back({at(2 * kp, 0), at(2 * kp, 2), at(2 * kp + 1, 0),
                        at(2 * kp + 1, 2)});
    }
    for (int64_t q2 = 0; q2 < dTiles / 2; ++q2) {
      // V rows are keys: ldmatrix.trans turns row-major V into the "col"
      // B fragment, (d-tile 2q2: k lo, k hi), (2q2+1: k lo, k hi).
      Value row = kc.add(kc.c(16 * kp), kc.add(lo8, kc.mul(mid, kc.c(8))));
      SmallVector<Value> vf = ldmatrix(
          kc,
          kc.add(vBase, kc.swizzled(row, kc.add(kc.c(2 * q2), hi16), kc.bn)),
          true);
      mmaTilePair(kc, aFrags, vf, acc, 2 * q2, dTiles);
    }
  }
}

/// The MMA instruction of `op`'s accumulator layout (checkLayouts saw one).
static MmaKind accMma(linalg::MatmulOp op) {
  FragAttr frag = FragAttr::of(op.getResult(0).getType());
  return frag ? frag.getMma() : MmaKind::None;
}

/// linalg.matmul on fragments. The tiles the GEMMs read from shared memory
/// are the grid's tile loads (the copy schedule put them there): S = Q K^T
/// reads the Q tile and the loop's K tile (B indexed (n, k)) into a zero
/// accumulator; O += P V reads P from registers (a packed 16-bit
/// accumulator tile: the C layout is mma's A layout) and the loop's V tile.
LogicalResult lowerMatmul(const KernelContext &kc, const ScopeState &scope,
                          FragmentState &fs, linalg::MatmulOp op,
                          IRMapping &map) {
  MLIRContext *mctx = op.getContext();
  AffineExpr m, n, k;
  bindDims(mctx, m, n, k);
  auto maps3 = [&](AffineExpr b0, AffineExpr b1) {
    return SmallVector<AffineMap>{AffineMap::get(3, 0, {m, k}, mctx),
                                  AffineMap::get(3, 0, {b0, b1}, mctx),
                                  AffineMap::get(3, 0, {m, n}, mctx)};
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Value a = op.getInputs()[0], bOp = op.getInputs()[1], init = op.getOutputs()[0];
  auto bLoad = bOp.getDefiningOp<TileLoadOp>();
  if (!scope.curLoop || !bLoad || bLoad->getParentOp() != scope.curLoop)
    return op.emitOpError("flash-to-gpu: a matmul reads its B tile from its "
                          "KV loop's flash.tile_load");
  // The B tile's role says which product this is; the maps must then be
  // that product's.
  if (bLoad.getRole() == TileRole::K) {
    // S = Q K^T.
    if (maps != maps3(n, k))
      return op.emitOpError("flash-to-gpu: S = Q K^T must index K as (n, k)");
    if (a != kc.t.qLoad.getResult() || bLoad != kc.t.kLoads[scope.curLoopIndex])
      return op.emitOpError("flash-to-gpu: S = Q K^T must read the Q tile and "
                            "the loop's K tile");
    auto fill = init.getDefiningOp<linalg::FillOp>();
    if (!fill || !matchPattern(fill.getInputs()[0], m_AnyZeroFloat()))
      return op.emitOpError("flash-to-gpu: S = Q K^T must start from zero");
    Fragment s;
    s.elt = kc.f32;
    s.cols = kc.bn;
    // The instruction is the result's layout's (both operands are in its
    // shared-memory layout: checkLayouts).
    // The K tile is in the pipeline slot the load names.
    Value slot = map.lookup(bLoad.getSlot());
    s.regs = accMma(op) == MmaKind::Wgmma
                 ? emitScoresWgmma(kc, slot, fs.scoresWait)
                 : emitScores(kc, slot);
    fs.frags[op.getResult(0)] = std::move(s);
    return success();
  }
  if (maps != maps3(k, n) || bLoad != kc.t.vLoads[scope.curLoopIndex])
    return op.emitOpError("flash-to-gpu: a matmul must be S = Q K^T or "
                          "O += P V with the loop's V tile");
  FailureOr<Fragment> p = fragmentOf(kc, fs, a, op);
  FailureOr<Fragment> acc = fragmentOf(kc, fs, init, op);
  if (failed(p) || failed(acc))
    return failure();
  if (!p->packed() || p->elt != kc.elt || p->cols != kc.bn || acc->packed() ||
      acc->cols != kc.d)
    return op.emitOpError("flash-to-gpu: O += P V needs P as a [block_m, "
                          "block_n] tile of V's element type and an f32 "
                          "[block_m, head_dim] accumulator");
  // P's 16-bit accumulator layout is the A operand's as it is (the C -> A
  // reuse of #flash.frag<acc>).
  Fragment out = *acc;
  Value slot = map.lookup(bLoad.getSlot());
  if (accMma(op) == MmaKind::Wgmma)
    emitPVWgmma(kc, p->regs, out.regs, slot);
  else
    emitPV(kc, p->regs, out.regs, slot);
  fs.frags[op.getResult(0)] = std::move(out);
  return success();
}

} // namespace mlir::flash::gpu_kernel
