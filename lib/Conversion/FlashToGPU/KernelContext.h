//===- KernelContext.h - What every lowering of a kernel reads --*- C++ -*-===//
//
// The state of one kernel that every op family of flash-to-gpu shares
// (what each family keeps of its own is in KernelEmitter.h):
//
//   KernelContext  fixed once the kernel's prologue is emitted: the builder,
//                  the config and the sizes it derives, the shared-memory
//                  map, the thread ids, the global tensors and their planes;
//                  and the small builders every family emits with. The
//                  emitter owns it and sets the prologue's values; the
//                  lowerings take it const and emit through its builder.
//   KernelArgs     the kernel's arguments: lift moves a value of the grid
//                  into the kernel, and the host values and memrefs it
//                  reads become arguments (in launch order) and global
//                  tensors.
//   ScopeState     where in the grid the op being lowered is (the KV loop,
//                  the scf.if and scf.for regions around it), which decides
//                  where lift computes a value.
//
// Index arithmetic is on `index`; shared-memory byte offsets too (LLVM
// folds the lane-invariant parts).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTOGPU_KERNELCONTEXT_H
#define FLASH_CONVERSION_FLASHTOGPU_KERNELCONTEXT_H

#include "flash/Dialect/Flash/IR/FlashOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::flash::gpu_kernel {

struct TiledAttention;

/// A global tensor seen from the kernel: its data pointer (global address
/// space, offset applied) and its batch/head/sequence strides in elements.
struct KernelTensor {
  Value ptr;
  Value strideB, strideH, strideS;
  /// Every dimension's stride (kernel side).
  SmallVector<Value> strides;
  int64_t eltBytes;
};

/// The threads that split a tile copy among themselves and the index of
/// this one among them: the consumers, or the producer warpgroup.
struct CopyTeam {
  Value tid;
  int64_t threads;
};

/// What every lowering of one kernel reads. The config's sizes are fixed at
/// construction; the prologue's values (thread ids, shared memory, the
/// tensors and their planes) are set by the emitter before the grid's ops
/// are lowered (the K/V planes and the block table at the pipeline's start,
/// before the first KV loop).
class KernelContext {
public:
  KernelContext(OpBuilder &b, Location loc, TiledAttention &t, Block &entry,
                ConfigAttr config, Type eltType, int64_t headDim)
      : b(b), loc(loc), ctx(b.getContext()), t(t), entry(entry), config(config),
        elt(eltType), f32(b.getF32Type()), i32(b.getI32Type()), d(headDim),
        bm(config.getBlockM()), bn(config.getBlockN()),
        warps(config.getNumWarps()), stages(config.getNumStages()),
        threads(32 * warps), mTiles(bm / (16 * warps)), wg(config.getWgmma()),
        ws(config.getProducer()),
        smem(config.getSmemMap(headDim, eltType.getIntOrFloatBitWidth() / 8)) {}

  // --- Fixed at construction -----------------------------------------------
  OpBuilder &b;
  const Location loc;
  MLIRContext *const ctx;
  /// The grid the kernel is built from.
  TiledAttention &t;
  /// The kernel's entry block; its arguments are KernelArgs'.
  Block &entry;
  const ConfigAttr config;
  /// The tiles' element type; f32 and i32.
  const Type elt, f32, i32;
  /// Head dim, block rows and columns, consumer warps, pipeline stages,
  /// consumer threads, m-tiles per warp.
  const int64_t d, bm, bn, warps, stages, threads, mTiles;
  /// Warpgroup MMA (sm_90a): one m-tile per warp, 4 warps per 64 rows.
  const bool wg;
  /// A producer warpgroup (after the `warps` consumer warps) loads K/V.
  const bool ws;
  /// Where the tiles and barriers are in shared memory, and the tiles' row
  /// pitch.
  const SmemMap smem;

  // --- Set by the prologue (KernelEmitter::emit) ---------------------------
  Value tid, lane, warp, g, tq;
  /// The dynamic shared memory (1024-byte aligned on wgmma kernels).
  Value smemBase;
  Type smemPtrType;
  KernelTensor q, k, v, o, lse;
  /// Element offsets of the tiles' ([split,] batch, head) planes; V's is
  /// folded into v.ptr (and is zero).
  Value qPlane, kPlane, vPlane, oPlane, lsePlane;
  /// The rows the tile loads may read: Q's and the keys' ends.
  Value seqQ, seqK;
  /// Paged K/V: the table, this program's row of it, the page size.
  KernelTensor table;
  Value tableRow, pageSize;

  /// The thread ids at the builder's insertion point: tid, its lane and
  /// warp, and the lane's quad row g and column tq (the MMA fragments').
  void setThreadIds() {
    tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
    lane = arith::RemUIOp::create(b, loc, tid, c(32));
    warp = arith::DivUIOp::create(b, loc, tid, c(32));
    g = arith::DivUIOp::create(b, loc, lane, c(4));
    tq = arith::RemUIOp::create(b, loc, lane, c(4));
  }

  /// Threads per program: the consumers plus the producer warpgroup.
  int64_t launchThreads() const { return config.getProgramThreads(); }
  /// The consumers as the threads of a tile copy.
  CopyTeam consumers() const { return {tid, threads}; }

  // --- Small builders --------------------------------------------------------
  Value c(int64_t v) const { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cf(double v) const {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  Value ci32(int64_t v) const {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y);
  }
  Value addNsw(Value x, Value y) const {
    return arith::AddIOp::create(b, loc, x, y,
                                 arith::IntegerOverflowFlags::nsw);
  }
  Value mulNsw(Value x, Value y) const {
    return arith::MulIOp::create(b, loc, x, y,
                                 arith::IntegerOverflowFlags::nsw);
  }
  Value sub(Value x, Value y) const {
    return arith::SubIOp::create(b, loc, x, y);
  }
  Value mul(Value x, Value y) const {
    return arith::MulIOp::create(b, loc, x, y);
  }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) const {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value sel(Value cond, Value x, Value y) const {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value toI64(Value v) const {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value fadd(Value x, Value y) const {
    return arith::AddFOp::create(b, loc, x, y);
  }
  Value fmul(Value x, Value y) const {
    return arith::MulFOp::create(b, loc, x, y);
  }
  // max, ex2, lg2 and tanh as NVVM intrinsics (one instruction each), not
  // libdevice calls: gpu-module-to-binary leaves some libdevice calls
  // unresolved in modules with several large kernels (ptxas then fails).
  Value intrinsic(StringRef name, ValueRange args) const {
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name),
                                         args)
        .getResult(0);
  }
  Value fmax(Value x, Value y) const {
    return intrinsic("llvm.maxnum.f32", {x, y});
  }
  /// Natural log through lg2.approx (LSE only: relative error ~2^-22).
  Value log(Value x) const {
    return fmul(intrinsic("llvm.nvvm.lg2.approx.f", {x}), cf(1.0 / kLog2e));
  }
  /// tanh.approx.f32 (sm_75+), FA2's softcap tanh: LLVM 22 has no NVVM
  /// intrinsic for it, so this is the one-instruction inline PTX.
  Value tanh(Value x) const {
    return LLVM::InlineAsmOp::create(b, loc, f32, ValueRange{x},
                                     b.getStringAttr("tanh.approx.f32 $0, $1;"),
                                     b.getStringAttr("=f,f"), UnitAttr(),
                                     UnitAttr(), LLVM::TailCallKindAttr(),
                                     LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }
  Value fma(Value x, Value y, Value z) const {
    return intrinsic("llvm.fma.f32", {x, y, z});
  }
  /// 2^x as one MUFU.EX2 (ex2.approx.ftz.f32, FA2's exp2f under
  /// --use_fast_math): math.exp2 goes through libdevice's non-ftz
  /// ex2.approx.f32, which adds a denormal fix-up around it. P and alpha
  /// below 2^-126 are flushed to 0, which the f32 sum cannot see anyway.
  Value exp2(Value x) const {
    return intrinsic("llvm.nvvm.ex2.approx.ftz.f", {x});
  }
  Value shflXor(Value v, int32_t offset) const {
    return gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// Pairwise reduction: log2(n) dependent steps instead of n, which the
  /// profile asked for (ncu: 2.0 of 5.7 cycles per instruction were
  /// fixed-latency dependency stalls with serial row max/sum chains).
  static Value tree(SmallVector<Value> vals,
                    llvm::function_ref<Value(Value, Value)> combine) {
    while (vals.size() > 1) {
      SmallVector<Value> next;
      for (size_t i = 0; i + 1 < vals.size(); i += 2)
        next.push_back(combine(vals[i], vals[i + 1]));
      if (vals.size() % 2)
        next.push_back(vals.back());
      vals = std::move(next);
    }
    return vals.front();
  }
  /// Byte address in the dynamic shared memory.
  Value smemPtr(Value byteOffset) const {
    return LLVM::GEPOp::create(b, loc, smemPtrType, b.getI8Type(), smemBase,
                               ValueRange{toI64(byteOffset)});
  }
  Value globalPtr(Value base, Value byteOffset) const {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{toI64(byteOffset)});
  }
  /// The element offset of `indices`; with `nsw` its adds and multiplies
  /// promise no signed overflow (true of in-bounds indices: the runtime
  /// refuses tensors of 2 GiB or more), which lets LLVM split constant
  /// index parts off into the load's immediate offset.
  Value elementOffset(const KernelTensor &kt, ValueRange indices,
                      bool nsw = false) const;
  /// Byte offset of the 16-byte chunk `chunk` of row `row` in a [rows][d]
  /// tile: chunks are XOR-swizzled by the row so that the 8 rows one
  /// ldmatrix 8x8 reads (and the 8 chunks cp.async writes) hit 8 distinct
  /// bank groups. With wgmma, the tile is wgmma's 128-byte-swizzle
  /// canonical layout instead: 64-element panels of [rows][128 B]
  /// (Memory.cpp).
  Value swizzled(Value row, Value chunk, int64_t rows) const;
  /// Two f32 -> one 32-bit register of two 16-bit elements (MMA.cpp).
  Value packPair(Value lo, Value hi) const;
  /// Barrier of the threads that compute (all of them without a producer).
  void syncConsumers() const {
    if (!ws) {
      gpu::BarrierOp::create(b, loc);
      return;
    }
    NVVM::BarrierOp::create(b, loc, Type(), ci32(1), ci32(threads),
                            NVVM::BarrierReductionAttr(), Value());
  }

  // --- The accumulator layout -----------------------------------------------
  /// Index of the f32 accumulator element: tile (mt, nt), register r.
  static int64_t frag(int64_t mt, int64_t nt, int64_t r, int64_t nTiles) {
    return (mt * nTiles + nt) * 4 + r;
  }
  /// Row of the warp's m-tile `mt` inside the block (FA2's interleaving:
  /// warps split each 16 * warps rows).
  Value warpRow(int64_t mt) const {
    return add(c(mt * 16 * warps), mul(warp, c(16)));
  }
  /// Registers of a [block_m, n] tile or a [block_m] vector per thread.
  int64_t numRegs(Value tile) const {
    auto type = cast<RankedTensorType>(tile.getType());
    return type.getRank() == 2 ? mTiles * type.getDimSize(1) / 2 : mTiles * 2;
  }
  /// Row registers per group of a row-local run. wgmma kernels (one m-tile
  /// per warp): one row at a time, as FA2 writes its softmax; ptxas then
  /// gives the d64 causal kernel 95 registers instead of 122 (5 programs
  /// per SM instead of 4) and the d128 ALiBi / document-mask kernels stop
  /// spilling. mma.sync kernels (two m-tiles per warp, at 255 registers):
  /// the whole tile op after op, since row by row made ptxas spill more
  /// there (d96 240 -> 336 B, d256 causal 0 -> 140 B on sm_80).
  int64_t rowGroup() const { return wg ? 1 : 2 * mTiles; }
};

/// Where in the grid the op being lowered is; lift reads it to place the
/// values it computes.
struct ScopeState {
  /// The KV loop being emitted and its index among the grid's, the map and
  /// the kernel's scf.for before which values that do not depend on it are
  /// computed.
  KVLoopOp curLoop;
  int64_t curLoopIndex = 0;
  IRMapping *outerMap = nullptr;
  Operation *curFor = nullptr;
  /// The scf.if's (and program-level scf.for's) being lowered, innermost
  /// last: (the tile-level op, the kernel's). A value defined above one is
  /// lifted before its kernel op, so that both branches and what follows
  /// see it.
  SmallVector<std::pair<Operation *, Operation *>> ifScopes;
};

/// The kernel's arguments, and the moving of the grid's values into the
/// kernel that adds them.
class KernelArgs {
public:
  explicit KernelArgs(const KernelContext &kc) : kc(kc) {}

  /// Clones the computation of the scalar `v` from the grid body into the
  /// kernel: constants are rematerialised, values from outside the grid
  /// (the host's sizes) become kernel arguments, grid induction variables
  /// become block ids (through `map`); where `scope` says, before the
  /// scf.if or the KV loop it does not depend on.
  Value lift(Value v, IRMapping &map, const ScopeState &scope) {
    return lift(v, map, scope, scope.ifScopes.size(), /*inLoop=*/true);
  }
  /// The kernel argument of the host value `hostValue` (added once).
  Value capture(Value hostValue);
  /// A host memref in the kernel; `seqDim` names the sequence dimension
  /// (strideS; strideB/H are the two before it), -1 for none.
  KernelTensor liftTensor(Value memref, int64_t seqDim = 2,
                          bool staticLayout = false);
  /// The host memref `memref` read or written by a tile computation: lifted
  /// once (with `staticLayout` as the first reader asks).
  const KernelTensor &tensor(Value memref, bool staticLayout = false);
  /// The values to pass at launch, in the order of the kernel's arguments;
  /// failure when a value could not be moved into the kernel.
  LogicalResult getHostArgs(SmallVectorImpl<Value> &hostArgs) const;

private:
  /// lift with only the outermost `ifDepth` regions of `scope` open and,
  /// unless `inLoop` is false, its KV loop.
  Value lift(Value v, IRMapping &map, const ScopeState &scope, size_t ifDepth,
             bool inLoop);

  const KernelContext &kc;
  /// The host values passed at launch, one per kernel argument.
  SmallVector<Value> captured;
  DenseMap<Value, Value> captureArgs;
  DenseMap<Value, KernelTensor> lifted;
};

} // namespace mlir::flash::gpu_kernel

#endif // FLASH_CONVERSION_FLASHTOGPU_KERNELCONTEXT_H
