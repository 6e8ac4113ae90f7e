//===- WGMMA.cpp - Warpgroup-MMA GEMMs of the FA2 kernel (sm_90a) --------===//
//
// S = Q K^T by wgmma.mma_async from two K-major shared-memory descriptors,
// O += P V with P from registers and V read MN-major; MLIR 22's
// nvvm.wgmma.mma_async takes A only from shared memory, so the register-A
// form is the one inline-PTX instruction.
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

/// wgmma shared-memory matrix descriptor of the tile at `byteOffset`
/// (128-byte swizzle; LBO and SBO in bytes).
static Value descriptor(const KernelContext &kc, Value byteOffset, int64_t lbo,
                        int64_t sbo) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value addr = LLVM::PtrToIntOp::create(b, loc, i64, kc.smemPtr(byteOffset));
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, c64(4)), c64(0x3fff));
  // Bits 16-29 LBO >> 4, 32-45 SBO >> 4, 62-63 layout 1 = 128-byte swizzle.
  int64_t fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, c64(fields));
}

/// `desc` moved by `bytes` (the start address field, in 16-byte units).
static Value descPlus(const KernelContext &kc, Value desc, int64_t bytes) {
  if (bytes == 0)
    return desc;
  return arith::AddIOp::create(
      kc.b, kc.loc, desc,
      arith::ConstantOp::create(kc.b, kc.loc,
                                kc.b.getI64IntegerAttr(bytes >> 4)));
}

/// S = Q K^T for the warpgroup's 64 rows: one wgmma.mma_async m64 n(BN) k16
/// per 16 head-dim columns, both operands K-major in shared memory (Q and K
/// rows with the head dim contiguous). The accumulator registers are the
/// mma.sync m16n8 C fragments of the warp's 16 rows, n-tile by n-tile, so
/// the mask and the online softmax are the mma.sync path's.
SmallVector<Value> emitScoresWgmma(const KernelContext &kc, Value stage,
                                   Operation *&wait) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value group = arith::DivUIOp::create(b, loc, kc.warp, kc.c(4));
  // Within a panel, 8-row atoms are 1024 bytes apart (SBO); a k16 step is
  // 32 bytes into the panel row, and every 4 steps the next panel.
  Value qDesc = descriptor(kc, kc.mul(group, kc.c(64 * 128)), 16, 1024);
  Value kDesc = descriptor(kc,
                           kc.add(kc.c(kc.smem.kOffset()),
                                  kc.mul(stage, kc.c(kc.smem.kvTileBytes()))),
                           16, 1024);
  SmallVector<Type> fields(kc.bn / 2, kc.f32);
  auto accType = LLVM::LLVMStructType::getLiteral(kc.ctx, fields);
  Value acc = LLVM::PoisonOp::create(b, loc, accType);
  auto type = kc.elt.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < kc.d / 16; ++ks) {
    int64_t inPanel = (ks % 4) * 32, panel = ks / 4;
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, acc,
        descPlus(kc, qDesc, panel * kc.bm * 128 + inPanel),
        descPlus(kc, kDesc, panel * kc.bn * 128 + inPanel),
        NVVM::MMAShapeAttr::get(kc.ctx, 64, kc.bn, 16), type, type,
        NVVM::WGMMATypes::f32,
        ks == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  wait = NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> s;
  for (int64_t i = 0; i < kc.bn / 2; ++i)
    s.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return s;
}

/// acc += P V for the warpgroup: P stays in registers as the A operand
/// (its packed S fragments are wgmma's m64k16 A layout, as for mma.sync),
/// V is the B operand read MN-major (head dim contiguous, "transposed") from
/// shared memory. MLIR 22's nvvm.wgmma.mma_async takes A only from shared
/// memory, so this one instruction is inline PTX.
void emitPVWgmma(const KernelContext &kc, ArrayRef<Value> p,
                 SmallVectorImpl<Value> &acc, Value stage) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  int64_t nTiles = kc.bn / 8;
  // MN-major: LBO = the stride between 64-column panels of V, SBO = the
  // stride between 8-key atoms; a k16 step is two atoms.
  Value vDesc = descriptor(kc,
                           kc.add(kc.c(kc.smem.vOffset()),
                                  kc.mul(stage, kc.c(kc.smem.kvTileBytes()))),
                           kc.bn * 128, 1024);
  int64_t n = kc.d / 2;
  std::string text, constraints;
  {
    llvm::raw_string_ostream os(text), cs(constraints);
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync."
          "aligned.m64n"
       << kc.d << "k16.f32." << (kc.elt.isBF16() ? "bf16.bf16" : "f16.f16")
       << " {";
    for (int64_t i = 0; i < n; ++i) {
      os << (i ? ", $" : "$") << i;
      cs << "=f,";
    }
    os << "}, {$" << n << ", $" << n + 1 << ", $" << n + 2 << ", $" << n + 3
       << "}, $" << n + 4 << ", p, 1, 1, 1;\n}";
    cs << "r,r,r,r,l";
    for (int64_t i = 0; i < n; ++i)
      cs << "," << i;
  }
  SmallVector<Type> fields(n, kc.f32);
  auto accType = LLVM::LLVMStructType::getLiteral(kc.ctx, fields);
  // Every A register is written before the fence (ptxas otherwise injects
  // one before each wgmma that reads a register written after it).
  auto at = [&](int64_t nt, int64_t r) {
    return p[kc.frag(0, nt, r, nTiles) / 2];
  };
  SmallVector<SmallVector<Value>> aFrags;
  for (int64_t kp = 0; kp < kc.bn / 16; ++kp)
    aFrags.push_back({at(2 * kp, 0), at(2 * kp, 2), at(2 * kp + 1, 0),
                      at(2 * kp + 1, 2)});
  SmallVector<Value> descs;
  for (int64_t kp = 0; kp < kc.bn / 16; ++kp)
    descs.push_back(descPlus(kc, vDesc, kp * 2 * 1024));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kp = 0; kp < kc.bn / 16; ++kp) {
    SmallVector<Value> operands(aFrags[kp]);
    operands.push_back(descs[kp]);
    operands.append(acc.begin(), acc.end());
    Value res = LLVM::InlineAsmOp::create(b, loc, accType, operands,
                                          b.getStringAttr(text),
                                          b.getStringAttr(constraints),
                                          /*has_side_effects=*/b.getUnitAttr(),
                                          UnitAttr(), LLVM::TailCallKindAttr(),
                                          LLVM::AsmDialectAttr(), ArrayAttr())
                    .getResult(0);
    for (int64_t i = 0; i < n; ++i)
      acc[i] = LLVM::ExtractValueOp::create(b, loc, res, i);
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
}

} // namespace mlir::flash::gpu_kernel
