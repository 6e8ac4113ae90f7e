//===- FlashToGpu.cpp - flash-tile's grid -> an FA2 mma.sync kernel -------===//
//
// Lowers each grid that flash-tile produced (an scf.parallel over (Q row
// block, head, batch) holding KV loops of flash.tile_update and one
// flash.tile_finalize) to a FlashAttention-2 forward kernel: a gpu.func in a
// gpu.module and the gpu.launch_func that replaces the grid on the host.
//
// The kernel is built from the tiled IR: its loop structure (the peeled
// masked/unmasked KV loops and their bounds), every index computation (row
// and KV block starts, the GQA head mapping, the trip counts) and the tile
// ops' attributes (scale, causal, window, softcap, masked) are cloned or read
// from flash-tile's output; only the register-level realisation of a tile
// update is written here, one function per FA2 idea:
//
//   emitTileCopy       cp.async 16-byte copies into XOR-swizzled shared memory
//                      (the next K/V block is in flight during the GEMMs)
//   emitScores         S = Q K^T: ldmatrix (Q, K) + mma.sync m16n8k16
//   emitMask           the element mask, only in the loops flash-tile masked
//   emitOnlineSoftmax  row max / sum by quad shuffles, exp2 with the scale
//                      folded into one FFMA, alpha rescale of acc
//   emitPV             P converted to bf16/f16 in registers and fed as the A
//                      operand of O += P V; V by ldmatrix.trans
//   emitEpilogue       O = acc / l, LSE = m * c + log l; O staged through the
//                      shared memory Q used, written with 16-byte stores
//
// Fragment layouts are the PTX ones for mma.m16n8k16 (row.col): lane l holds
// rows g = l / 4 and g + 8, columns 2 * (l % 4) + {0, 1} of each 16 x 8 tile.
//
// On sm_90a a `wgmma = true` config swaps the two GEMMs for warpgroup MMA:
//
//   emitScoresWgmma    S = Q K^T by wgmma.mma_async from two K-major
//                      shared-memory descriptors (128-byte swizzle)
//   emitPVWgmma        O += P V with P from registers, V read MN-major
//
// Its accumulators have the mma.sync per-warp fragment layout (one m-tile
// per warp), so the mask, online softmax and epilogue are shared. With
// `producer = true` as well, FA3's warp specialization:
//
//   emitProducer       one extra warpgroup fills the K/V ring and publishes
//                      each block on an mbarrier (full/empty per stage); the
//                      consumers wait on it instead of a CTA-wide barrier
//
//===----------------------------------------------------------------------===//

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Dialect/Flash/Transforms/Passes.h"
#include "flash/Dialect/Flash/Transforms/Targets.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/IRMapping.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHTOGPU
#include "flash/Dialect/Flash/Transforms/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// f32 in the context of `t` (the partial outputs' element type).
FloatType b32(Type t) { return Float32Type::get(t.getContext()); }


/// The pieces of one flash-tile grid that the kernel is built from.
struct TiledAttention {
  scf::ParallelOp grid;
  SmallVector<scf::ForOp> loops;
  SmallVector<TileUpdateOp> updates;
  SmallVector<memref::SubViewOp> kViews, vViews;
  memref::SubViewOp qView, oView, lseView;
  TileFinalizeOp finalize;
  /// K and V memrefs; with a block table (paged), the table and the
  /// (batch, KV head) indices the gather uses.
  Value kSrc, vSrc;
  Value table, tableBatch, kvHead;
  /// Split-KV partial form: a fourth grid axis (the split), f32 outputs.
  bool partial = false;
};

/// The K or V memref (and the table) of a paged block read: flash-tile's
/// tensor.generate gathering through the block table.
LogicalResult matchPagedRead(Value tile, Value &src, TiledAttention &t) {
  auto gen = tile.getDefiningOp<tensor::GenerateOp>();
  if (!gen)
    return failure();
  gen.getBody().walk([&](memref::LoadOp load) {
    if (load.getMemRefType().getRank() == 2) {
      t.table = load.getMemRef();
      t.tableBatch = load.getIndices()[0];
    } else if (load.getMemRefType().getRank() == 4) {
      src = load.getMemRef();
      t.kvHead = load.getIndices()[1];
    }
  });
  return success(src && t.table);
}

/// The memref a tile tensor was read from: pad <- to_tensor <- subview.
memref::SubViewOp tracedView(Value tile) {
  if (auto pad = tile.getDefiningOp<tensor::PadOp>())
    tile = pad.getSource();
  if (auto toTensor = tile.getDefiningOp<bufferization::ToTensorOp>())
    return toTensor.getBuffer().getDefiningOp<memref::SubViewOp>();
  return {};
}

/// The subview a finalize result is stored to.
memref::SubViewOp storedView(Value result) {
  for (Operation *user : result.getUsers())
    if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user))
      for (Operation *sliceUser : slice->getUsers())
        if (auto store =
                dyn_cast<bufferization::MaterializeInDestinationOp>(sliceUser))
          return store.getDest().getDefiningOp<memref::SubViewOp>();
  return {};
}

FailureOr<TiledAttention> matchGrid(scf::ParallelOp grid) {
  TiledAttention t;
  t.grid = grid;
  for (Operation &op : grid.getBody()->getOperations()) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      if (!loop->hasAttr("flash.kv_loop"))
        return grid.emitOpError("flash-to-gpu: unexpected scf.for in the grid");
      TileUpdateOp update;
      loop.getBody()->walk([&](TileUpdateOp u) { update = u; });
      if (!update)
        return loop.emitOpError("flash-to-gpu: KV loop without tile_update");
      t.loops.push_back(loop);
      t.updates.push_back(update);
      if (succeeded(matchPagedRead(update.getKey(), t.kSrc, t)) &&
          succeeded(matchPagedRead(update.getValue(), t.vSrc, t)))
        continue;
      t.kViews.push_back(tracedView(update.getKey()));
      t.vViews.push_back(tracedView(update.getValue()));
      if (!t.kViews.back() || !t.vViews.back())
        return update.emitOpError("flash-to-gpu: K/V tiles must be read "
                                  "from memref subviews (flash-tile's form)");
      t.kSrc = t.kViews.front().getSource();
      t.vSrc = t.vViews.front().getSource();
    } else if (auto fin = dyn_cast<TileFinalizeOp>(op)) {
      t.finalize = fin;
    }
  }
  if (t.loops.empty() || !t.finalize)
    return grid.emitOpError("flash-to-gpu: not a flash-tile grid");
  t.qView = tracedView(t.updates.front().getQuery());
  t.oView = storedView(t.finalize.getOut());
  if (!t.finalize.getLse().use_empty())
    t.lseView = storedView(t.finalize.getLse());
  if (!t.qView || !t.oView)
    return grid.emitOpError("flash-to-gpu: Q/O blocks must be memref "
                            "subviews (flash-tile's form)");
  t.partial = grid.getNumLoops() == 4;
  return t;
}

/// A global tensor seen from the kernel: its data pointer (global address
/// space, offset applied) and its batch/head/sequence strides in elements.
struct KernelTensor {
  Value ptr;
  Value strideB, strideH, strideS;
  /// Every dimension's stride (kernel side).
  SmallVector<Value> strides;
  int64_t eltBytes;
};

/// Emits one kernel. Index arithmetic is on `index`; shared-memory byte
/// offsets too (LLVM folds the lane-invariant parts).
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, TiledAttention &t,
                gpu::GPUFuncOp func, ConfigAttr config, Type eltType,
                int64_t headDim)
      : b(b), loc(loc), t(t), func(func), config(config), elt(eltType),
        d(headDim),
        bm(config.getBlockM()), bn(config.getBlockN()),
        warps(config.getNumWarps()), stages(config.getNumStages()),
        wg(config.getWgmma()) {
    threads = 32 * warps;
    ws = config.getProducer();
    cpThreads = threads;
    mTiles = bm / (16 * warps);
    pitch = ConfigAttr::getRowPitch(headDim);
    f32 = b.getF32Type();
    i32 = b.getI32Type();
    ctx = b.getContext();
  }

  /// Emits the kernel body; returns the values to pass at launch, in the
  /// order of the kernel's arguments.
  LogicalResult emit(SmallVectorImpl<Value> &hostArgs);
  /// Emits the kernel of a flash.combine grid (t.grid) by cloning its body:
  /// the grid's (row, head, batch) become block ids, its inner head-dim
  /// loop the thread id, memref accesses global loads and stores.
  LogicalResult emitCombine(SmallVectorImpl<Value> &hostArgs);

  int64_t smemBytes() const { return config.getKernelSharedMemoryBytes(d); }
  /// Threads per program: the consumers plus the producer warpgroup.
  int64_t launchThreads() const { return threads + (ws ? 128 : 0); }

private:
  // --- Values from flash-tile's IR ---------------------------------------
  Value lift(Value v, IRMapping &map);
  Value capture(Value hostValue);
  /// A host memref in the kernel; `seqDim` names the sequence dimension
  /// (strideS; strideB/H are the two before it), -1 for none.
  KernelTensor liftTensor(Value memref, int64_t seqDim = 2);
  /// Element offset of `indices` in `kt`.
  Value elementOffset(KernelTensor &kt, ValueRange indices);

  // --- Small builders ------------------------------------------------------
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cf(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  Value ci32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value sel(Value cond, Value x, Value y) {
    return arith::SelectOp::create(b, loc, cond, x, y);
  }
  Value toI64(Value v) {
    return arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  }
  Value fadd(Value x, Value y) { return arith::AddFOp::create(b, loc, x, y); }
  Value fmul(Value x, Value y) { return arith::MulFOp::create(b, loc, x, y); }
  // max, ex2, lg2 and tanh as NVVM intrinsics (one instruction each), not
  // libdevice calls: gpu-module-to-binary leaves some libdevice calls
  // unresolved in modules with several large kernels (ptxas then fails).
  Value intrinsic(StringRef name, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, f32, b.getStringAttr(name),
                                         args)
        .getResult(0);
  }
  Value fmax(Value x, Value y) { return intrinsic("llvm.maxnum.f32", {x, y}); }
  /// Natural log through lg2.approx (LSE only: relative error ~2^-22).
  Value log(Value x) {
    return fmul(intrinsic("llvm.nvvm.lg2.approx.f", {x}),
                cf(1.0 / kLog2e));
  }
  /// tanh.approx.f32 (sm_75+), FA2's softcap tanh: LLVM 22 has no NVVM
  /// intrinsic for it, so this is the one-instruction inline PTX.
  Value tanh(Value x) {
    return LLVM::InlineAsmOp::create(
               b, loc, f32, ValueRange{x},
               b.getStringAttr("tanh.approx.f32 $0, $1;"),
               b.getStringAttr("=f,f"), UnitAttr(), UnitAttr(),
               LLVM::TailCallKindAttr(), LLVM::AsmDialectAttr(), ArrayAttr())
        .getResult(0);
  }
  Value fma(Value x, Value y, Value z) {
    return intrinsic("llvm.fma.f32", {x, y, z});
  }
  /// 2^x as one MUFU.EX2 (ex2.approx.ftz.f32, FA2's exp2f under
  /// --use_fast_math): math.exp2 goes through libdevice's non-ftz
  /// ex2.approx.f32, which adds a denormal fix-up around it. P and alpha
  /// below 2^-126 are flushed to 0, which the f32 sum cannot see anyway.
  Value exp2(Value x) { return intrinsic("llvm.nvvm.ex2.approx.ftz.f", {x}); }
  Value shflXor(Value v, int32_t offset) {
    return gpu::ShuffleOp::create(b, loc, v, offset, 32, gpu::ShuffleMode::XOR)
        .getShuffleResult();
  }
  /// Pairwise reduction: log2(n) dependent steps instead of n, which the
  /// profile asked for (ncu: 2.0 of 5.7 cycles per instruction were
  /// fixed-latency dependency stalls with serial row max/sum chains).
  Value tree(SmallVector<Value> vals,
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
  Value smemPtr(Value byteOffset) {
    return LLVM::GEPOp::create(b, loc, smemPtrType, b.getI8Type(), smemBase,
                               ValueRange{toI64(byteOffset)});
  }
  Value globalPtr(Value base, Value byteOffset) {
    return LLVM::GEPOp::create(b, loc, base.getType(), b.getI8Type(), base,
                               ValueRange{toI64(byteOffset)});
  }
  /// Byte offset of the 16-byte chunk `chunk` of row `row` in a [rows][d]
  /// tile: chunks are XOR-swizzled by the row so that the 8 rows one
  /// ldmatrix 8x8 reads (and the 8 chunks cp.async writes) hit 8 distinct
  /// bank groups. With wgmma, the tile is wgmma's 128-byte-swizzle
  /// canonical layout instead: 64-element panels of [rows][128 B].
  Value swizzled(Value row, Value chunk, int64_t rows);
  /// wgmma shared-memory matrix descriptor of the tile at `byteOffset`
  /// (128-byte swizzle; LBO and SBO in bytes).
  Value descriptor(Value byteOffset, int64_t lbo, int64_t sbo);
  /// The producer mode's mbarriers after the V stages: full[stage] (the
  /// block landed) and empty[stage] (every consumer is done with it).
  Value mbarrier(bool full, Value stage) {
    int64_t base = (bm * pitch + 2 * stages * bn * pitch) * 2;
    return smemPtr(add(c(base + (full ? 0 : stages * 8)), mul(stage, c(8))));
  }
  /// Barrier of the threads that compute (all of them without a producer).
  void syncConsumers() {
    if (!ws) {
      gpu::BarrierOp::create(b, loc);
      return;
    }
    NVVM::BarrierOp::create(b, loc, Type(), ci32(1), ci32(threads),
                            NVVM::BarrierReductionAttr(), Value());
  }
  void fenceAsyncProxy() {
    NVVM::FenceProxyOp::create(
        b, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(ctx, NVVM::SharedSpace::shared_cta));
  }
  void arriveOn(Value bar) {
    NVVM::MBarrierArriveOp::create(
        b, loc, Type(), bar, Value(),
        NVVM::MemScopeKindAttr::get(ctx, NVVM::MemScopeKind::CTA));
  }
  void waitParity(Value bar, Value parity) {
    NVVM::MBarrierTryWaitParityOp::create(
        b, loc, bar, arith::IndexCastOp::create(b, loc, i32, parity),
        ci32(0x989680));
  }
  /// The producer warpgroup's loop: every K/V block of the program's run,
  /// into the ring, one block ahead of its arrive on full[stage].
  void emitProducer(Value firstCol, Value lastCol, Value anyBlock);
  /// `desc` moved by `bytes` (the start address field, in 16-byte units).
  Value descPlus(Value desc, int64_t bytes) {
    if (bytes == 0)
      return desc;
    return add64(desc, bytes >> 4);
  }
  Value add64(Value x, int64_t v) {
    return arith::AddIOp::create(
        b, loc, x, arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v)));
  }

  // --- FA2 pieces -----------------------------------------------------------
  void emitTileCopy(KernelTensor &src, Value rowStart, Value rowLimit,
                    Value planeOffset, Value smemOffset, int64_t rows,
                    bool predicated, bool gather = false);
  void emitKVCopy(Value kvStart, Value stage);
  SmallVector<Value> emitScores(Value stage);
  SmallVector<Value> emitScoresWgmma(Value stage);
  void emitPVWgmma(ArrayRef<Value> p, SmallVectorImpl<Value> &acc, Value stage);
  void emitSoftcap(SmallVectorImpl<Value> &s, TileUpdateOp update);
  void emitMask(SmallVectorImpl<Value> &s, Value row0, Value col0,
                TileUpdateOp update);
  void emitOnlineSoftmax(SmallVectorImpl<Value> &s, SmallVectorImpl<Value> &acc,
                         SmallVectorImpl<Value> &m, SmallVectorImpl<Value> &l,
                         TileUpdateOp update);
  void emitPV(ArrayRef<Value> p, SmallVectorImpl<Value> &acc, Value stage);
  void emitEpilogue(ArrayRef<Value> acc, ArrayRef<Value> m, ArrayRef<Value> l,
                    IRMapping &map);

  LogicalResult cloneCombineBlock(Block &body, IRMapping &map,
                                  bool perThread);
  SmallVector<Value> ldmatrix(Value byteOffset, bool transpose);
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> bFrag,
                         ArrayRef<Value> acc);
  /// acc tiles (mt, n0) and (mt, n0 + 1) += A[mt] * B for every m-tile,
  /// where `bRegs` is one ldmatrix x4 holding both n-tiles' B fragments.
  void mmaTilePair(ArrayRef<SmallVector<Value>> aFrags, ArrayRef<Value> bRegs,
                   SmallVectorImpl<Value> &acc, int64_t n0, int64_t nTiles);
  Value packPair(Value lo, Value hi);
  /// Index of the f32 accumulator element: tile (mt, nt), register r.
  static int64_t frag(int64_t mt, int64_t nt, int64_t r, int64_t nTiles) {
    return (mt * nTiles + nt) * 4 + r;
  }
  /// Row of the warp's m-tile `mt` inside the block (FA2's interleaving:
  /// warps split each 16 * warps rows).
  Value warpRow(int64_t mt) { return add(c(mt * 16 * warps), mul(warp, c(16))); }

  OpBuilder &b;
  Location loc;
  TiledAttention &t;
  gpu::GPUFuncOp func;
  ConfigAttr config;
  Type elt, f32, i32;
  MLIRContext *ctx;
  int64_t d, bm, bn, warps, stages, threads, mTiles;
  /// Shared-memory row pitch in elements (ConfigAttr::getRowPitch(d)).
  int64_t pitch;
  /// Warpgroup MMA (sm_90a): one m-tile per warp, 4 warps per 64 rows.
  bool wg;
  /// A producer warpgroup (after the `warps` consumer warps) loads K/V.
  bool ws = false;
  /// The threads that split a tile copy among themselves and the index of
  /// this one (the consumers, or the producer warpgroup).
  Value cpTid;
  int64_t cpThreads;

  SmallVector<Value> captured;
  DenseMap<Value, Value> captureArgs;
  Value tid, lane, warp, g, tq;
  Value smemBase;
  Type smemPtrType;
  KernelTensor q, k, v, o, lse;
  Value qPlane, kvPlane, oPlane, lsePlane;
  Value seqQ, seqK;
  /// Paged K/V: the table, this program's row of it, the page size.
  KernelTensor table;
  Value tableRow, pageSize;
  DenseMap<Value, KernelTensor> lifted;
};

Value KernelEmitter::capture(Value hostValue) {
  auto it = captureArgs.find(hostValue);
  if (it != captureArgs.end())
    return it->second;
  Block &entry = func.getBody().front();
  if (!hostValue.getType().isIndex()) {
    Value arg = entry.addArgument(hostValue.getType(), loc);
    captured.push_back(hostValue);
    captureArgs[hostValue] = arg;
    return arg;
  }
  // Index values cross the launch as i64 (the host's index width) and are
  // index again in the kernel, whose index is 32-bit: all offsets fit
  // (the runtime refuses tensors of 2 GiB or more), and 32-bit address
  // arithmetic saves the registers FA2's tile sizes need.
  OpBuilder host(t.grid);
  Value wide =
      arith::IndexCastOp::create(host, loc, host.getI64Type(), hostValue);
  Value arg = entry.addArgument(host.getI64Type(), loc);
  captured.push_back(wide);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&entry);
  Value narrow = arith::IndexCastOp::create(b, loc, b.getIndexType(), arg);
  captureArgs[hostValue] = narrow;
  return narrow;
}

/// Clones the computation of the scalar `v` from the grid body into the
/// kernel: constants are rematerialised, values from outside the grid (the
/// host's sizes) become kernel arguments, grid induction variables become
/// block ids (through `map`).
Value KernelEmitter::lift(Value v, IRMapping &map) {
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  if (def && def->hasTrait<OpTrait::ConstantLike>()) {
    Operation *clone = b.clone(*def);
    map.map(v, clone->getResult(0));
    return clone->getResult(0);
  }
  bool inside = def ? t.grid->isProperAncestor(def)
                    : t.grid->isAncestor(v.getParentBlock()->getParentOp());
  if (!inside) {
    Value arg = capture(v);
    map.map(v, arg);
    return arg;
  }
  // The size of a host memref: computed on the host, passed in.
  if (auto dim = dyn_cast_or_null<memref::DimOp>(def)) {
    if (!t.grid->isAncestor(dim.getSource().getParentBlock()->getParentOp())) {
      if (Value index = dim.getIndex();
          !t.grid->isAncestor(index.getParentBlock()->getParentOp()) ||
          index.getDefiningOp<arith::ConstantOp>()) {
        OpBuilder host(t.grid);
        Value hostIndex = index;
        if (auto cst = index.getDefiningOp<arith::ConstantOp>())
          hostIndex = host.clone(*cst)->getResult(0);
        Value size =
            memref::DimOp::create(host, loc, dim.getSource(), hostIndex);
        Value arg = capture(size);
        map.map(v, arg);
        return arg;
      }
    }
  }
  // A scalar read of a host memref (kv_lens[b]): a global load.
  if (auto load = dyn_cast_or_null<memref::LoadOp>(def)) {
    if (!t.grid->isAncestor(load.getMemRef().getParentBlock()->getParentOp())) {
      SmallVector<Value> idx;
      for (Value i : load.getIndices())
        if (!idx.emplace_back(lift(i, map)))
          return {};
      auto it = lifted.find(load.getMemRef());
      if (it == lifted.end())
        it = lifted.insert({load.getMemRef(),
                            liftTensor(load.getMemRef(), -1)}).first;
      KernelTensor &kt = it->second;
      Value ptr = globalPtr(kt.ptr, mul(elementOffset(kt, idx),
                                        c(kt.eltBytes)));
      Value val = LLVM::LoadOp::create(b, loc, load.getType(), ptr,
                                       kt.eltBytes);
      map.map(v, val);
      return val;
    }
  }
  if (!def || !isa<arith::ArithDialect, affine::AffineDialect>(
                  def->getDialect()) ||
      def->getNumRegions() != 0) {
    (def ? def : t.grid.getOperation())
        ->emitOpError("flash-to-gpu: cannot move this computation into the "
                      "kernel");
    return {};
  }
  for (Value operand : def->getOperands())
    if (!lift(operand, map))
      return {};
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

Value KernelEmitter::elementOffset(KernelTensor &kt, ValueRange indices) {
  Value off = c(0);
  for (auto [i, stride] : llvm::zip(indices, kt.strides))
    off = add(off, mul(i, stride));
  return off;
}

KernelTensor KernelEmitter::liftTensor(Value memref, int64_t seqDim) {
  auto type = cast<MemRefType>(memref.getType());
  KernelTensor kt;
  kt.eltBytes = type.getElementTypeBitWidth() / 8;
  // Host side: the aligned pointer, offset and strides of the descriptor.
  OpBuilder host(t.grid);
  auto meta = memref::ExtractStridedMetadataOp::create(host, loc, memref);
  Value alignedIdx =
      memref::ExtractAlignedPointerAsIndexOp::create(host, loc, memref);
  Value alignedI64 =
      arith::IndexCastOp::create(host, loc, host.getI64Type(), alignedIdx);
  Value ptr = LLVM::IntToPtrOp::create(host, loc, LLVM::LLVMPointerType::get(ctx),
                                       alignedI64);
  Value ptrArg = capture(ptr);
  Value offset = capture(meta.getOffset());
  for (Value stride : meta.getStrides())
    kt.strides.push_back(capture(stride));
  if (seqDim >= 2) {
    kt.strideB = kt.strides[seqDim - 2];
    kt.strideH = kt.strides[seqDim - 1];
    kt.strideS = kt.strides[seqDim];
  }
  // Kernel side: the global-space pointer with the offset applied, at the
  // top of the kernel (a tensor first met inside a loop is used after it).
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = offset.getDefiningOp())
    b.setInsertionPointAfter(def);
  else
    b.setInsertionPointToStart(&func.getBody().front());
  Value global = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 1), ptrArg);
  kt.ptr = globalPtr(global, mul(offset, c(kt.eltBytes)));
  return kt;
}

Value KernelEmitter::swizzled(Value row, Value chunk, int64_t rows) {
  if (wg) {
    // Chunk c of a row lands at (c % 8) ^ (row % 8) in its 128-byte panel
    // row: the address bits [4,7) ^ [7,10) that wgmma's 128-byte swizzle
    // reads (the base is 1024-byte aligned).
    Value panel = arith::DivUIOp::create(b, loc, chunk, c(8));
    Value within = arith::RemUIOp::create(b, loc, chunk, c(8));
    Value phys = arith::XOrIOp::create(
        b, loc, within, arith::AndIOp::create(b, loc, row, c(7)));
    return add(add(mul(panel, c(rows * 128)), mul(row, c(128))),
               mul(phys, c(16)));
  }
  Value x = pitch >= 64
                ? arith::AndIOp::create(b, loc, row, c(7)).getResult()
                : arith::AndIOp::create(
                      b, loc, arith::ShRUIOp::create(b, loc, row, c(1)), c(3))
                      .getResult();
  Value phys = arith::XOrIOp::create(b, loc, chunk, x);
  return add(mul(row, c(pitch * 2)), mul(phys, c(16)));
}

/// cp.async of a [rows][d] tile starting at sequence row `rowStart` of the
/// (batch, head) plane at element offset `planeOffset`. When the threads
/// divide into whole rows, each thread copies the same 16-byte column chunk
/// of every `threads / (d / 8)`-th row, so its source address advances by
/// one constant stride per copy; otherwise (head dim 96: 12 chunks a row)
/// copy i of a thread is chunk tid + i * threads of the tile. With
/// `predicated`, rows at or past `rowLimit` are zero-filled (src-size 0,
/// from the plane's first row, a safe address); blocks known to be full
/// skip the predicate.
void KernelEmitter::emitTileCopy(KernelTensor &src, Value rowStart,
                                 Value rowLimit, Value planeOffset,
                                 Value smemOffset, int64_t rows,
                                 bool predicated, bool gather) {
  int64_t chunksPerRow = d / 8;
  int64_t total = rows * chunksPerRow;
  int64_t threads = cpThreads;
  Value tid = cpTid;
  bool uniform = threads % chunksPerRow == 0;
  assert(total % threads == 0 && "checked by checkSupported");
  int64_t rowsPerPass = uniform ? threads / chunksPerRow : 0;
  Value r0 = arith::DivUIOp::create(b, loc, tid, c(chunksPerRow));
  Value ch = arith::RemUIOp::create(b, loc, tid, c(chunksPerRow));
  Value planePtr = globalPtr(src.ptr, mul(planeOffset, c(src.eltBytes)));
  Value elem = add(mul(add(rowStart, r0), src.strideS), mul(ch, c(8)));
  Value gptr = globalPtr(planePtr, mul(elem, c(src.eltBytes)));
  Value step = mul(src.strideS, c(rowsPerPass * src.eltBytes));
  for (int64_t i = 0; i * threads < total; ++i) {
    Value r = add(r0, c(i * rowsPerPass));
    if (!uniform && i > 0) {
      Value id = add(tid, c(i * threads));
      r = arith::DivUIOp::create(b, loc, id, c(chunksPerRow));
      ch = arith::RemUIOp::create(b, loc, id, c(chunksPerRow));
      elem = add(mul(add(rowStart, r), src.strideS), mul(ch, c(8)));
      gptr = globalPtr(planePtr, mul(elem, c(src.eltBytes)));
    }
    Value sptr = smemPtr(add(smemOffset, swizzled(r, ch, rows)));
    Value from = gptr, bytes;
    if (gather) {
      // Paged: key j sits in slot j % P of page table[b, j / P]; rows past
      // the keys read key 0's page (mapped) and are zero-filled below.
      Value j = add(rowStart, r);
      if (predicated)
        j = sel(cmp(arith::CmpIPredicate::slt, j, rowLimit), j, c(0));
      Value entry = LLVM::LoadOp::create(
          b, loc, i32,
          globalPtr(table.ptr,
                    mul(add(tableRow,
                            mul(arith::DivUIOp::create(b, loc, j, pageSize),
                                table.strides[1])),
                        c(4))),
          4);
      Value page = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
      Value slot = arith::RemUIOp::create(b, loc, j, pageSize);
      Value elemOff = add(add(mul(page, src.strideB), mul(slot, src.strideS)),
                          mul(ch, c(8)));
      from = globalPtr(planePtr, mul(elemOff, c(src.eltBytes)));
      gptr = from;
    }
    if (predicated) {
      Value valid = cmp(arith::CmpIPredicate::slt, add(rowStart, r), rowLimit);
      from = sel(valid, gptr, gather ? gptr : planePtr);
      bytes = sel(valid, ci32(16), ci32(0));
    }
    NVVM::CpAsyncOp::create(b, loc, sptr, from, 16,
                            NVVM::LoadCacheModifierKind::CG, bytes);
    if (uniform && !gather && (i + 1) * threads < total)
      gptr = globalPtr(gptr, step);
  }
}

/// K and V of the block starting at `kvStart` into `stage`; only a block
/// that crosses the end of the keys pays for the row predicate.
void KernelEmitter::emitKVCopy(Value kvStart, Value stage) {
  Value tileBytes = c(bn * pitch * 2);
  Value kOff = add(c(bm * pitch * 2), mul(stage, tileBytes));
  Value vOff =
      add(c(bm * pitch * 2 + stages * bn * pitch * 2), mul(stage, tileBytes));
  Value full = cmp(arith::CmpIPredicate::sle, add(kvStart, c(bn)), seqK);
  auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool predicated : {false, true}) {
    b.setInsertionPointToStart(predicated ? &ifOp.getElseRegion().front()
                                          : &ifOp.getThenRegion().front());
    emitTileCopy(k, kvStart, seqK, kvPlane, kOff, bn, predicated,
                 /*gather=*/bool(t.table));
    emitTileCopy(v, kvStart, seqK, kvPlane, vOff, bn, predicated,
                 /*gather=*/bool(t.table));
  }
}

SmallVector<Value> KernelEmitter::ldmatrix(Value byteOffset, bool transpose) {
  auto i32x4 = LLVM::LLVMStructType::getLiteral(ctx, {i32, i32, i32, i32});
  Value res = NVVM::LdMatrixOp::create(
      b, loc, i32x4, smemPtr(byteOffset), 4,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (int64_t i = 0; i < 4; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return regs;
}

SmallVector<Value> KernelEmitter::mma(ArrayRef<Value> a, ArrayRef<Value> bFrag,
                                      ArrayRef<Value> acc) {
  bool isBf16 = elt.isBF16();
  // f16 operands are <2 x half> registers, bf16 ones i32 (the nvgpu op's bf16
  // path does not lower in MLIR 22, so nvvm.mma.sync is used directly).
  auto asOperand = [&](Value r) -> Value {
    if (isBf16)
      return r;
    return LLVM::BitcastOp::create(b, loc, VectorType::get({2}, elt), r);
  };
  SmallVector<Value> av, bv;
  for (Value r : a)
    av.push_back(asOperand(r));
  for (Value r : bFrag)
    bv.push_back(asOperand(r));
  auto f32x4 = LLVM::LLVMStructType::getLiteral(ctx, {f32, f32, f32, f32});
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

void KernelEmitter::mmaTilePair(ArrayRef<SmallVector<Value>> aFrags,
                                ArrayRef<Value> bRegs,
                                SmallVectorImpl<Value> &acc, int64_t n0,
                                int64_t nTiles) {
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      int64_t first = frag(mt, n0 + h, 0, nTiles);
      SmallVector<Value> r =
          mma(aFrags[mt], {bRegs[2 * h], bRegs[2 * h + 1]},
              ArrayRef<Value>(acc).slice(first, 4));
      llvm::copy(r, acc.begin() + first);
    }
}

/// Two f32 -> one 32-bit register of two bf16/f16 (cvt.rn.*x2.f32).
Value KernelEmitter::packPair(Value lo, Value hi) {
  auto v2f32 = VectorType::get({2}, f32);
  Value vec = LLVM::PoisonOp::create(b, loc, v2f32);
  vec = LLVM::InsertElementOp::create(b, loc, vec, lo, ci32(0));
  vec = LLVM::InsertElementOp::create(b, loc, vec, hi, ci32(1));
  Value narrow =
      arith::TruncFOp::create(b, loc, VectorType::get({2}, elt), vec);
  return LLVM::BitcastOp::create(b, loc, i32, narrow);
}

/// S = Q K^T for the warp's rows against the KV block in `stage`.
SmallVector<Value> KernelEmitter::emitScores(Value stage) {
  int64_t nTiles = bn / 8;
  Value zero = cf(0.0);
  SmallVector<Value> s(mTiles * nTiles * 4, zero);
  Value kBase = add(c(bm * pitch * 2), mul(stage, c(bn * pitch * 2)));
  Value lo16 = arith::RemUIOp::create(b, loc, lane, c(16));
  Value hi16 = arith::DivUIOp::create(b, loc, lane, c(16));
  Value lo8 = arith::RemUIOp::create(b, loc, lane, c(8));
  Value mid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, c(8)), c(2));
  for (int64_t ks = 0; ks < d / 16; ++ks) {
    // A = Q rows (ldmatrix x4: lanes 0-15 rows, 16-31 the upper k half).
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < mTiles; ++mt)
      aFrags.push_back(ldmatrix(
          swizzled(add(warpRow(mt), lo16), add(c(2 * ks), hi16), bm), false));
    for (int64_t p = 0; p < nTiles / 2; ++p) {
      // B = K rows n (non-transposed ldmatrix gives the "col" fragment):
      // matrices (n-tile 2p, k lo), (2p, k hi), (2p+1, k lo), (2p+1, k hi).
      Value row = add(c(16 * p), add(lo8, mul(hi16, c(8))));
      SmallVector<Value> kf =
          ldmatrix(add(kBase, swizzled(row, add(c(2 * ks), mid), bn)), false);
      mmaTilePair(aFrags, kf, s, 2 * p, nTiles);
    }
  }
  return s;
}

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
  int64_t left = -1, right = -1;
  if (auto w = update.getWindow()) {
    left = (*w)[0];
    right = (*w)[1];
  }
  bool causal = update.getCausal();
  Value ninf = cf(-std::numeric_limits<double>::infinity());
  Value diagShift = sub(seqK, seqQ);
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value qRow = add(row0, add(warpRow(mt), add(g, c(8 * h))));
      Value diag = add(qRow, diagShift);
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e) {
          Value j = add(col0, add(c(nt * 8 + e), mul(tq, c(2))));
          Value visible = cmp(arith::CmpIPredicate::slt, j, seqK);
          auto both = [&](Value cond) {
            visible = arith::AndIOp::create(b, loc, visible, cond);
          };
          if (causal)
            both(cmp(arith::CmpIPredicate::sle, j, diag));
          if (right >= 0)
            both(cmp(arith::CmpIPredicate::sle, j, add(diag, c(right))));
          if (left >= 0)
            both(cmp(arith::CmpIPredicate::sge, j, sub(diag, c(left))));
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

/// acc += P V. The S accumulators of n-tiles (2kp, 2kp+1) are exactly the
/// A fragment of k-step kp once packed to 16 bits: no shared-memory trip.
void KernelEmitter::emitPV(ArrayRef<Value> p, SmallVectorImpl<Value> &acc,
                           Value stage) {
  int64_t nTiles = bn / 8, dTiles = d / 8;
  Value vBase = add(c(bm * pitch * 2 + stages * bn * pitch * 2),
                    mul(stage, c(bn * pitch * 2)));
  Value lo8 = arith::RemUIOp::create(b, loc, lane, c(8));
  Value mid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, lane, c(8)), c(2));
  Value hi16 = arith::DivUIOp::create(b, loc, lane, c(16));
  for (int64_t kp = 0; kp < bn / 16; ++kp) {
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < mTiles; ++mt) {
      auto at = [&](int64_t nt, int64_t r) { return p[frag(mt, nt, r, nTiles)]; };
      aFrags.push_back({packPair(at(2 * kp, 0), at(2 * kp, 1)),
                        packPair(at(2 * kp, 2), at(2 * kp, 3)),
                        packPair(at(2 * kp + 1, 0), at(2 * kp + 1, 1)),
                        packPair(at(2 * kp + 1, 2), at(2 * kp + 1, 3))});
    }
    for (int64_t q2 = 0; q2 < dTiles / 2; ++q2) {
      // V rows are keys: ldmatrix.trans turns row-major V into the "col"
      // B fragment, (d-tile 2q2: k lo, k hi), (2q2+1: k lo, k hi).
      Value row = add(c(16 * kp), add(lo8, mul(mid, c(8))));
      SmallVector<Value> vf =
          ldmatrix(add(vBase, swizzled(row, add(c(2 * q2), hi16), bn)), true);
      mmaTilePair(aFrags, vf, acc, 2 * q2, dTiles);
    }
  }
}

Value KernelEmitter::descriptor(Value byteOffset, int64_t lbo, int64_t sbo) {
  Type i64 = b.getI64Type();
  auto c64 = [&](int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(v));
  };
  Value addr = LLVM::PtrToIntOp::create(b, loc, i64, smemPtr(byteOffset));
  Value start = arith::AndIOp::create(
      b, loc, arith::ShRUIOp::create(b, loc, addr, c64(4)), c64(0x3fff));
  // Bits 16-29 LBO >> 4, 32-45 SBO >> 4, 62-63 layout 1 = 128-byte swizzle.
  int64_t fields = ((lbo >> 4) << 16) | ((sbo >> 4) << 32) | (int64_t(1) << 62);
  return arith::OrIOp::create(b, loc, start, c64(fields));
}

/// S = Q K^T for the warpgroup's 64 rows: one wgmma.mma_async m64 n(BN) k16
/// per 16 head-dim columns, both operands K-major in shared memory (Q and K
/// rows with the head dim contiguous). The accumulator registers are the
/// mma.sync m16n8 C fragments of the warp's 16 rows, n-tile by n-tile, so
/// the mask and the online softmax are the mma.sync path's.
SmallVector<Value> KernelEmitter::emitScoresWgmma(Value stage) {
  Value group = arith::DivUIOp::create(b, loc, warp, c(4));
  // Within a panel, 8-row atoms are 1024 bytes apart (SBO); a k16 step is
  // 32 bytes into the panel row, and every 4 steps the next panel.
  Value qDesc = descriptor(mul(group, c(64 * 128)), 16, 1024);
  Value kDesc = descriptor(
      add(c(bm * pitch * 2), mul(stage, c(bn * pitch * 2))), 16, 1024);
  SmallVector<Type> fields(bn / 2, f32);
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  Value acc = LLVM::PoisonOp::create(b, loc, accType);
  auto type = elt.isBF16() ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t ks = 0; ks < d / 16; ++ks) {
    int64_t inPanel = (ks % 4) * 32, panel = ks / 4;
    acc = NVVM::WgmmaMmaAsyncOp::create(
        b, loc, accType, acc, descPlus(qDesc, panel * bm * 128 + inPanel),
        descPlus(kDesc, panel * bn * 128 + inPanel),
        NVVM::MMAShapeAttr::get(ctx, 64, bn, 16), type, type,
        NVVM::WGMMATypes::f32,
        ks == 0 ? NVVM::WGMMAScaleOut::zero : NVVM::WGMMAScaleOut::one,
        NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one, NVVM::MMALayout::row,
        NVVM::MMALayout::col,
        /*satfinite=*/NVVM::MMAIntOverflowAttr());
  }
  NVVM::WgmmaGroupSyncAlignedOp::create(b, loc);
  NVVM::WgmmaWaitGroupSyncOp::create(b, loc, 0);
  SmallVector<Value> s;
  for (int64_t i = 0; i < bn / 2; ++i)
    s.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  return s;
}

/// acc += P V for the warpgroup: P stays in registers as the A operand
/// (its packed S fragments are wgmma's m64k16 A layout, as for mma.sync),
/// V is the B operand read MN-major (head dim contiguous, "transposed") from
/// shared memory. MLIR 22's nvvm.wgmma.mma_async takes A only from shared
/// memory, so this one instruction is inline PTX.
void KernelEmitter::emitPVWgmma(ArrayRef<Value> p, SmallVectorImpl<Value> &acc,
                                Value stage) {
  int64_t nTiles = bn / 8;
  // MN-major: LBO = the stride between 64-column panels of V, SBO = the
  // stride between 8-key atoms; a k16 step is two atoms.
  Value vDesc = descriptor(add(c(bm * pitch * 2 + stages * bn * pitch * 2),
                               mul(stage, c(bn * pitch * 2))),
                           bn * 128, 1024);
  int64_t n = d / 2;
  std::string text, constraints;
  {
    llvm::raw_string_ostream os(text), cs(constraints);
    os << "{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\nwgmma.mma_async.sync."
          "aligned.m64n"
       << d << "k16.f32." << (elt.isBF16() ? "bf16.bf16" : "f16.f16") << " {";
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
  SmallVector<Type> fields(n, f32);
  auto accType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  // Every A register is written before the fence (ptxas otherwise injects
  // one before each wgmma that reads a register written after it).
  auto at = [&](int64_t nt, int64_t r) { return p[frag(0, nt, r, nTiles)]; };
  SmallVector<SmallVector<Value>> aFrags;
  for (int64_t kp = 0; kp < bn / 16; ++kp)
    aFrags.push_back({packPair(at(2 * kp, 0), at(2 * kp, 1)),
                      packPair(at(2 * kp, 2), at(2 * kp, 3)),
                      packPair(at(2 * kp + 1, 0), at(2 * kp + 1, 1)),
                      packPair(at(2 * kp + 1, 2), at(2 * kp + 1, 3))});
  SmallVector<Value> descs;
  for (int64_t kp = 0; kp < bn / 16; ++kp)
    descs.push_back(descPlus(vDesc, kp * 2 * 1024));
  NVVM::WgmmaFenceAlignedOp::create(b, loc);
  for (int64_t kp = 0; kp < bn / 16; ++kp) {
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

void KernelEmitter::emitProducer(Value firstCol, Value lastCol,
                                 Value anyBlock) {
  if (launchThreads() > 256)
    NVVM::SetMaxRegisterOp::create(
        b, loc, b.getI32IntegerAttr(40),
        NVVM::SetMaxRegisterActionAttr::get(
            ctx, NVVM::SetMaxRegisterAction::decrease));
  cpTid = sub(tid, c(threads));
  // 128 threads split every K/V block: the verifier's wgmma = true and the
  // wgmma checks (head dim % 64, block_n % 16) make its chunks a multiple.
  cpThreads = 128;
  // The run's blocks, right to left (flash-tile's order).
  Value blocks = sel(
      anyBlock,
      add(arith::DivSIOp::create(b, loc, sub(firstCol, lastCol), c(bn)), c(1)),
      c(0));
  // A block is published once this thread's copies of it landed (at most
  // `pending` later groups in flight) and are fenced into the async proxy.
  auto publish = [&](int64_t pending, Value block) {
    NVVM::CpAsyncWaitGroupOp::create(b, loc, pending);
    fenceAsyncProxy();
    arriveOn(mbarrier(true, arith::RemUIOp::create(b, loc, block, c(stages))));
  };
  // (stage, round): block i goes to stage i % stages in round i / stages.
  auto loop = scf::ForOp::create(b, loc, c(0), blocks, c(1), ValueRange{});
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value i = loop.getInductionVar();
    Value stage = arith::RemUIOp::create(b, loc, i, c(stages));
    Value round = arith::DivUIOp::create(b, loc, i, c(stages));
    // Round r > 0 reuses the stage: wait until the consumers released round
    // r - 1 (that phase of empty[stage] has parity (r - 1) & 1).
    auto reuse = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::uge, i, c(stages)), false);
    {
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(&reuse.getThenRegion().front());
      waitParity(mbarrier(false, stage),
                 arith::RemUIOp::create(b, loc, sub(round, c(1)), c(2)));
    }
    emitKVCopy(sub(firstCol, mul(i, c(bn))), stage);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    // The previous block (this one may still be in flight).
    auto prev = scf::IfOp::create(
        b, loc, cmp(arith::CmpIPredicate::uge, i, c(1)), false);
    OpBuilder::InsertionGuard g2(b);
    b.setInsertionPointToStart(&prev.getThenRegion().front());
    publish(1, sub(i, c(1)));
  }
  auto last = scf::IfOp::create(
      b, loc, cmp(arith::CmpIPredicate::sgt, blocks, c(0)), false);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&last.getThenRegion().front());
  publish(0, sub(blocks, c(1)));
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
      if (t.partial) {
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
      for (int64_t dt = 0; dt < dTiles && !t.partial; ++dt) {
        Value packed = packPair(fmul(acc[frag(mt, dt, 2 * h, dTiles)], inv),
                                fmul(acc[frag(mt, dt, 2 * h + 1, dTiles)], inv));
        Value off = add(swizzled(localRow, c(dt), bm), mul(tq, c(4)));
        LLVM::StoreOp::create(b, loc, packed, smemPtr(off), /*alignment=*/4);
      }
      if (t.lseView) {
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
  if (t.partial)
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

LogicalResult KernelEmitter::emit(SmallVectorImpl<Value> &hostArgs) {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  // The grid's induction variables are the block ids: x = Q row block,
  // y = query head, z = batch (flash-tile's scf.parallel order).
  ValueRange ivs = t.grid.getInductionVars();
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  if (t.partial) {
    // Split-KV: x = split * (Q row blocks) + Q row block.
    Value mBlocks = lift(t.grid.getUpperBound()[0], map);
    map.map(ivs[0], arith::RemUIOp::create(b, loc, bx, mBlocks));
    map.map(ivs[3], arith::DivUIOp::create(b, loc, bx, mBlocks));
  } else {
    map.map(ivs[0], bx);
  }
  map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  lane = arith::RemUIOp::create(b, loc, tid, c(32));
  warp = arith::DivUIOp::create(b, loc, tid, c(32));
  g = arith::DivUIOp::create(b, loc, lane, c(4));
  tq = arith::RemUIOp::create(b, loc, lane, c(4));

  // Dynamic shared memory: [Q | K stages | V stages], bytes.
  auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
  smemPtrType = LLVM::LLVMPointerType::get(ctx, 3);
  smemBase = LLVM::AddressOfOp::create(b, loc, smemPtrType, "flash_smem");
  if (wg) {
    // Align the base up to 1024 bytes (smemBytes() reserved the slack):
    // wgmma's swizzle is a function of the address, ours of the offset.
    Value addr = LLVM::PtrToIntOp::create(b, loc, i32, smemBase);
    Value pad = arith::AndIOp::create(b, loc, sub(ci32(0), addr), ci32(1023));
    smemBase = LLVM::GEPOp::create(b, loc, smemPtrType, b.getI8Type(), smemBase,
                                   ValueRange{pad});
  }
  (void)gpuModule;

  q = liftTensor(t.qView.getSource());
  k = liftTensor(t.kSrc);
  v = liftTensor(t.vSrc);
  int64_t split = t.partial ? 1 : 0;
  o = liftTensor(t.oView.getSource(), 2 + split);
  if (t.lseView)
    lse = liftTensor(t.lseView.getSource(), 2 + split);

  TileUpdateOp first = t.updates.front();
  seqQ = lift(first.getSeqQ(), map);
  seqK = lift(first.getSeqK(), map);
  Value row0 = lift(first.getRow(), map);
  // (batch, head) planes, from the subviews' offsets.
  auto planeOf = [&](memref::SubViewOp view, KernelTensor &kt,
                     IRMapping &mp) -> Value {
    SmallVector<OpFoldResult> offs = view.getMixedOffsets();
    auto val = [&](OpFoldResult f) -> Value {
      if (auto attr = dyn_cast<Attribute>(f))
        return c(cast<IntegerAttr>(attr).getInt());
      return lift(cast<Value>(f), mp);
    };
    // Every index before the sequence's: (split,) batch, head.
    Value plane = c(0);
    for (size_t i = 0; i + 2 < kt.strides.size() + (&kt == &lse ? 1 : 0);
         ++i)
      plane = add(plane, mul(val(offs[i]), kt.strides[i]));
    return plane;
  };
  qPlane = planeOf(t.qView, q, map);
  oPlane = planeOf(t.oView, o, map);
  if (t.lseView)
    lsePlane = planeOf(t.lseView, lse, map);

  // The KV sequence of every loop: trip count, and the block start of
  // iteration j (cloned from the loop body with the iv mapped to j).
  int64_t numLoops = t.loops.size();
  SmallVector<Value> trips;
  for (scf::ForOp loop : t.loops)
    trips.push_back(sub(lift(loop.getUpperBound(), map),
                        lift(loop.getLowerBound(), map)));
  auto startAt = [&](int64_t li, Value j) -> Value {
    IRMapping local = map;
    local.map(t.loops[li].getInductionVar(),
              add(lift(t.loops[li].getLowerBound(), map), j));
    return lift(t.updates[li].getCol(), local);
  };
  // KV head plane: the K subview's (batch, head) offsets do not depend on
  // the KV iteration (flash-tile reads the same plane in every loop).
  if (t.table) {
    // Paged: the KV head's plane; pages are added per row.
    table = liftTensor(t.table, -1);
    tableRow = mul(lift(t.tableBatch, map), table.strides[0]);
    OpBuilder host(t.grid);
    pageSize = capture(memref::DimOp::create(host, loc, t.kSrc, 2));
    kvPlane = mul(lift(t.kvHead, map), k.strideH);
  } else {
    IRMapping local = map;
    local.map(t.loops[0].getInductionVar(), c(0));
    kvPlane = planeOf(t.kViews.front(), k, local);
  }
  // The loops visit one contiguous descending run of blocks (flash-tile's
  // order, also across its peeled loops and within a split): the block k
  // ahead of the one at column c starts at c - k * BN and exists iff it is
  // not left of the run's last block.
  Value none = arith::ConstantOp::create(b, loc, b.getBoolAttr(false));
  Value firstCol = c(0), anyBlock = none, lastCol = c(0);
  for (int64_t li = numLoops - 1; li >= 0; --li) {
    Value has = cmp(arith::CmpIPredicate::sgt, trips[li], c(0));
    firstCol = sel(has, startAt(li, c(0)), firstCol);
    anyBlock = arith::OrIOp::create(b, loc, has, anyBlock);
  }
  for (int64_t li = 0; li < numLoops; ++li) {
    Value has = cmp(arith::CmpIPredicate::sgt, trips[li], c(0));
    lastCol = sel(has, startAt(li, sub(trips[li], c(1))), lastCol);
  }

  cpTid = tid;
  scf::IfOp role;
  if (ws) {
    // FA3's warp specialization: the producer warpgroup fills the K/V ring,
    // the consumers wait on full[stage] and release through empty[stage];
    // consumer warpgroups never wait on each other.
    Value first = cmp(arith::CmpIPredicate::eq, tid, c(0));
    auto init = scf::IfOp::create(b, loc, first, /*withElse=*/false);
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&init.getThenRegion().front());
      for (int64_t st = 0; st < stages; ++st) {
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(true, c(st)), ci32(128),
                                     Value());
        NVVM::MBarrierInitOp::create(b, loc, mbarrier(false, c(st)),
                                     ci32(threads), Value());
      }
      NVVM::FenceMbarrierInitOp::create(b, loc);
    }
    gpu::BarrierOp::create(b, loc);
    role = scf::IfOp::create(b, loc,
                             cmp(arith::CmpIPredicate::uge, tid, c(threads)),
                             /*withElse=*/true);
    b.setInsertionPointToStart(&role.getThenRegion().front());
    emitProducer(firstCol, lastCol, anyBlock);
    b.setInsertionPointToStart(&role.getElseRegion().front());
    cpTid = tid;
    cpThreads = threads;
    // 8 consumer warps and the producer: 168 registers each at launch; the
    // producer gives most of its own to the consumers.
    if (launchThreads() > 256)
      NVVM::SetMaxRegisterOp::create(
          b, loc, b.getI32IntegerAttr(232),
          NVVM::SetMaxRegisterActionAttr::get(
              ctx, NVVM::SetMaxRegisterAction::increase));
    emitTileCopy(q, row0, seqQ, qPlane, c(0), bm, /*predicated=*/true);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    NVVM::CpAsyncWaitGroupOp::create(b, loc, 0);
    fenceAsyncProxy();
    syncConsumers();
  } else {
    // Prologue: Q and the first `stages - 1` K/V blocks in flight, one
    // commit group each (Q joins the first).
    emitTileCopy(q, row0, seqQ, qPlane, c(0), bm, /*predicated=*/true);
    for (int64_t ahead = 0; ahead + 1 < stages; ++ahead) {
      Value col = sub(firstCol, c(ahead * bn));
      Value ok = arith::AndIOp::create(
          b, loc, anyBlock, cmp(arith::CmpIPredicate::sge, col, lastCol));
      auto ifOp = scf::IfOp::create(b, loc, ok, /*withElse=*/false);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        emitKVCopy(col, c(ahead));
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
    }
  }

  // Online-softmax state in registers: acc = 0, m = -inf, l = 0; the stage
  // holding the current block (and, with a producer, its phase parity).
  int64_t dTiles = d / 8;
  SmallVector<Value> state;
  for (int64_t i = 0; i < mTiles * dTiles * 4; ++i)
    state.push_back(cf(0.0));
  for (int64_t i = 0; i < mTiles * 2; ++i)
    state.push_back(cf(-std::numeric_limits<double>::infinity()));
  for (int64_t i = 0; i < mTiles * 2; ++i)
    state.push_back(cf(0.0));
  int64_t nAcc = mTiles * dTiles * 4, nRows = mTiles * 2;
  int64_t stageIdx = nAcc + 2 * nRows;
  state.push_back(c(0));
  if (ws)
    state.push_back(c(0));

  for (int64_t li = 0; li < numLoops; ++li) {
    TileUpdateOp update = t.updates[li];
    auto loop = scf::ForOp::create(b, loc, c(0), trips[li], c(1), state);
    loop->setAttr("flash.kv_loop", t.loops[li]->getAttr("flash.kv_loop"));
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    Value j = loop.getInductionVar();
    SmallVector<Value> args(loop.getRegionIterArgs());
    Value stage = args[stageIdx];
    Value col0 = startAt(li, j);
    Value stagePlus = add(stage, c(1));
    Value wraps = cmp(arith::CmpIPredicate::eq, stagePlus, c(stages));
    SmallVector<Value> next;
    if (ws) {
      // The producer fenced the block into the async proxy before its
      // arrive; the wait acquires it.
      Value phase = args[stageIdx + 1];
      waitParity(mbarrier(true, stage), phase);
      next = {sel(wraps, c(0), stagePlus), sel(wraps, sub(c(1), phase), phase)};
    } else {
      // This block has landed (and Q, the first time): at most `stages - 2`
      // later groups may still be in flight. Every warp is done with the
      // stage read last iteration, which the block `stages - 1` ahead now
      // overwrites.
      NVVM::CpAsyncWaitGroupOp::create(b, loc, stages - 2);
      // wgmma reads shared memory through the async proxy: each thread's
      // cp.async writes are fenced into it before the barrier publishes
      // them.
      if (wg)
        fenceAsyncProxy();
      gpu::BarrierOp::create(b, loc);
      Value nextStart = sub(col0, c((stages - 1) * bn));
      Value hasNext = cmp(arith::CmpIPredicate::sge, nextStart, lastCol);
      // (stage - 1) mod stages; 1 - stage for the double buffer.
      Value fillStage = stages == 2
                            ? sub(c(1), stage)
                            : sel(cmp(arith::CmpIPredicate::eq, stage, c(0)),
                                  c(stages - 1), sub(stage, c(1)));
      {
        auto ifOp = scf::IfOp::create(b, loc, hasNext, /*withElse=*/false);
        OpBuilder::InsertionGuard g2(b);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
        emitKVCopy(nextStart, fillStage);
      }
      NVVM::CpAsyncCommitGroupOp::create(b, loc);
      next = {stages == 2 ? fillStage : sel(wraps, c(0), stagePlus)};
    }

    SmallVector<Value> accV(args.begin(), args.begin() + nAcc);
    SmallVector<Value> mV(args.begin() + nAcc, args.begin() + nAcc + nRows);
    SmallVector<Value> lV(args.begin() + nAcc + nRows,
                          args.begin() + nAcc + 2 * nRows);
    SmallVector<Value> s = wg ? emitScoresWgmma(stage) : emitScores(stage);
    emitSoftcap(s, update);
    if (update.getMasked())
      emitMask(s, row0, col0, update);
    emitOnlineSoftmax(s, accV, mV, lV, update);
    if (wg)
      emitPVWgmma(s, accV, stage);
    else
      emitPV(s, accV, stage);
    // Both GEMMs have waited for their reads of this stage.
    if (ws)
      arriveOn(mbarrier(false, stage));
    SmallVector<Value> yield(accV);
    yield.append(mV);
    yield.append(lV);
    yield.append(next);
    scf::YieldOp::create(b, loc, yield);
    state.assign(loop.getResults().begin(), loop.getResults().end());
  }
  if (numLoops)
    b.setInsertionPointAfter(state.back().getDefiningOp());
  SmallVector<Value> accF(state.begin(), state.begin() + nAcc);
  SmallVector<Value> mF(state.begin() + nAcc, state.begin() + nAcc + nRows);
  SmallVector<Value> lF(state.begin() + nAcc + nRows,
                        state.begin() + nAcc + 2 * nRows);
  emitEpilogue(accF, mF, lF, map);
  if (ws)
    b.setInsertionPointAfter(role);
  gpu::ReturnOp::create(b, loc);

  if (llvm::any_of(captured, [](Value v) { return !v; }))
    return failure();
  hostArgs.assign(captured.begin(), captured.end());
  return success();
}

LogicalResult KernelEmitter::cloneCombineBlock(Block &body, IRMapping &map,
                                               bool perThread) {
  for (Operation &op : body.without_terminator()) {
    if (auto store = dyn_cast<memref::StoreOp>(op)) {
      auto it = lifted.find(store.getMemRef());
      if (it == lifted.end())
        it = lifted.insert({store.getMemRef(),
                            liftTensor(store.getMemRef(), -1)}).first;
      SmallVector<Value> idx;
      for (Value i : store.getIndices())
        if (!idx.emplace_back(lift(i, map)))
          return failure();
      Value value = lift(store.getValue(), map);
      if (!value)
        return failure();
      // Row-level results (LSE) are written by thread 0 alone.
      OpBuilder::InsertionGuard guard(b);
      if (!perThread) {
        auto ifOp = scf::IfOp::create(
            b, loc, cmp(arith::CmpIPredicate::eq, tid, c(0)), false);
        b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      }
      KernelTensor &kt = it->second;
      LLVM::StoreOp::create(
          b, loc, value,
          globalPtr(kt.ptr, mul(elementOffset(kt, idx), c(kt.eltBytes))),
          kt.eltBytes);
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      SmallVector<Value> inits;
      for (Value init : loop.getInitArgs())
        inits.push_back(lift(init, map));
      Value lb = lift(loop.getLowerBound(), map),
            ub = lift(loop.getUpperBound(), map),
            step = lift(loop.getStep(), map);
      if (!lb || !ub || !step || llvm::is_contained(inits, Value()))
        return failure();
      auto clone = scf::ForOp::create(b, loc, lb, ub, step, inits);
      map.map(loop.getInductionVar(), clone.getInductionVar());
      for (auto [from, to] :
           llvm::zip(loop.getRegionIterArgs(), clone.getRegionIterArgs()))
        map.map(from, to);
      {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(clone.getBody());
        if (failed(cloneCombineBlock(*loop.getBody(), map, perThread)))
          return failure();
        SmallVector<Value> yields;
        for (Value y : loop.getBody()->getTerminator()->getOperands())
          yields.push_back(lift(y, map));
        scf::YieldOp::create(b, loc, yields);
      }
      // The loops over splits: unrolled so that 8 loads are in flight
      // instead of one dependent load per iteration (with 32-64 splits the
      // combine was latency bound). The epilogue loop, if any, has the
      // final values.
      ValueRange results = clone.getResults();
      FailureOr<UnrolledLoopInfo> unrolled = loopUnrollByFactor(clone, 8);
      if (succeeded(unrolled) && unrolled->epilogueLoopOp)
        results = unrolled->epilogueLoopOp->getResults();
      else if (succeeded(unrolled) && unrolled->mainLoopOp)
        results = unrolled->mainLoopOp->getResults();
      map.map(loop.getResults(), results);
      continue;
    }
    if (auto inner = dyn_cast<scf::ParallelOp>(op)) {
      // The head-dim loop: one thread per element.
      Value ub = lift(inner.getUpperBound()[0], map);
      if (!ub)
        return failure();
      auto ifOp = scf::IfOp::create(
          b, loc, cmp(arith::CmpIPredicate::ult, tid, ub), false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      map.map(inner.getInductionVars()[0], tid);
      if (failed(cloneCombineBlock(*inner.getBody(), map, true)))
        return failure();
      continue;
    }
    // exp, log and max as one instruction each (weights <= 1; LSE), not
    // libdevice calls (see intrinsic()).
    if (auto e = dyn_cast<math::ExpOp>(op)) {
      Value x = lift(e.getOperand(), map);
      if (!x)
        return failure();
      map.map(e.getResult(), exp2(fmul(x, cf(kLog2e))));
      continue;
    }
    if (auto lg = dyn_cast<math::LogOp>(op)) {
      Value x = lift(lg.getOperand(), map);
      if (!x)
        return failure();
      map.map(lg.getResult(), log(x));
      continue;
    }
    if (auto mx = dyn_cast<arith::MaxNumFOp>(op)) {
      Value x = lift(mx.getLhs(), map), y = lift(mx.getRhs(), map);
      if (!x || !y)
        return failure();
      map.map(mx.getResult(), fmax(x, y));
      continue;
    }
    if (auto f = dyn_cast<math::FmaOp>(op)) {
      Value x = lift(f.getA(), map), y = lift(f.getB(), map),
            z = lift(f.getC(), map);
      if (!x || !y || !z)
        return failure();
      map.map(f.getResult(), fma(x, y, z));
      continue;
    }
    if (op.getNumRegions() != 0 || op.getNumResults() != 1)
      return op.emitOpError("flash-to-gpu: unexpected op in a combine grid");
    if (!lift(op.getResult(0), map))
      return failure();
  }
  return success();
}

LogicalResult KernelEmitter::emitCombine(SmallVectorImpl<Value> &hostArgs) {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  ValueRange ivs = t.grid.getInductionVars();
  map.map(ivs[0], gpu::BlockIdOp::create(b, loc, gpu::Dimension::x));
  map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  tid = gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x);
  if (failed(cloneCombineBlock(*t.grid.getBody(), map, false)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  if (llvm::any_of(captured, [](Value v) { return !v; }))
    return failure();
  hostArgs.assign(captured.begin(), captured.end());
  return success();
}

struct FlashToGpuPass : flash::impl::FlashToGpuBase<FlashToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkChipOption(module, "flash-to-gpu", chip, features)) ||
        failed(checkOptionRange(module, "flash-to-gpu", "smem-kb",
                                smemLimitKB, 1, 1024)))
      return signalPassFailure();
    SmallVector<scf::ParallelOp> grids, combines;
    module.walk([&](scf::ParallelOp p) {
      if (p->hasAttr("flash.combine")) {
        combines.push_back(p);
        return;
      }
      bool isFlash = false;
      p.getBody()->walk([&](TileFinalizeOp) { isFlash = true; });
      if (isFlash)
        grids.push_back(p);
    });
    if (grids.empty() && combines.empty())
      return;
    for (scf::ParallelOp grid : grids)
      if (failed(lower(module, grid)))
        return signalPassFailure();
    for (scf::ParallelOp grid : combines)
      if (failed(lowerCombine(module, grid)))
        return signalPassFailure();
    allocateWorkspaces(module);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
  }

  gpu::GPUModuleOp getOrCreateGpuModule(ModuleOp module);
  LogicalResult lower(ModuleOp module, scf::ParallelOp grid);
  LogicalResult lowerCombine(ModuleOp module, scf::ParallelOp grid);
  /// flash-split-kv's scratch buffers become device memory: gpu.alloc
  /// where they were allocated, gpu.dealloc at the end of their block.
  void allocateWorkspaces(ModuleOp module);
  gpu::GPUFuncOp createKernel(ModuleOp module, Location loc, StringRef name,
                              int64_t threads);
  LogicalResult checkSupported(TiledAttention &t, ConfigAttr &config,
                               Type &elt, int64_t &headDim);
};

gpu::GPUModuleOp FlashToGpuPass::getOrCreateGpuModule(ModuleOp module) {
  if (auto existing = module.lookupSymbol<gpu::GPUModuleOp>("flash_kernels"))
    return existing;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  MLIRContext *ctx = &getContext();
  auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda",
                                          chip, features);
  auto gpuModule = gpu::GPUModuleOp::create(b, module.getLoc(), "flash_kernels",
                                            ArrayRef<Attribute>{target});
  // One dynamic shared-memory buffer, declared `.extern .shared` (MLIR 22's
  // gpu.dynamic_shared_memory is emitted as a static 1-byte array instead).
  b.setInsertionPointToStart(gpuModule.getBody());
  LLVM::GlobalOp::create(b, module.getLoc(),
                         LLVM::LLVMArrayType::get(b.getI8Type(), 0),
                         /*isConstant=*/false, LLVM::Linkage::External,
                         "flash_smem", Attribute(), /*alignment=*/128,
                         /*addrSpace=*/3);
  return gpuModule;
}

LogicalResult FlashToGpuPass::checkSupported(TiledAttention &t,
                                             ConfigAttr &config, Type &elt,
                                             int64_t &headDim) {
  auto qType = cast<MemRefType>(t.qView.getSource().getType());
  auto kType = cast<MemRefType>(t.kSrc.getType());
  auto vType = cast<MemRefType>(t.vSrc.getType());
  auto oType = cast<MemRefType>(t.oView.getSource().getType());
  elt = qType.getElementType();
  headDim = qType.getDimSize(3);
  Operation *anchor = t.grid;
  if (!elt.isBF16() && !elt.isF16())
    return anchor->emitOpError("flash-to-gpu: element type ")
           << elt << " is not supported on the GPU (bf16 or f16)";
  if (kType.getElementType() != elt || vType.getElementType() != elt ||
      oType.getElementType() != (t.partial ? Type(b32(elt)) : elt))
    return anchor->emitOpError(
        "flash-to-gpu: Q, K, V and O must share one element type");
  if (vType.getDimSize(3) != headDim)
    return anchor->emitOpError(
        "flash-to-gpu: head dim of V different from Q/K is not supported yet");
  if (headDim % 16 != 0 || headDim < 32 || headDim > 256)
    return anchor->emitOpError("flash-to-gpu: head dim ")
           << headDim
           << " is not supported (a multiple of 16 from 32 to 256: the "
              "mma k-step is 16)";
  for (MemRefType type : {qType, kType, vType, oType}) {
    int64_t offset;
    SmallVector<int64_t> strides;
    if (failed(type.getStridesAndOffset(strides, offset)) ||
        strides.back() != 1)
      return anchor->emitOpError(
          "flash-to-gpu: the head dim must be contiguous (stride 1)");
  }
  // The config is on the tile ops' shapes.
  auto qTile = cast<RankedTensorType>(t.updates.front().getQuery().getType());
  auto kTile = cast<RankedTensorType>(t.updates.front().getKey().getType());
  int64_t bm = qTile.getDimSize(0), bn = kTile.getDimSize(0);
  // flash-tile records the op's configuration on the grid; the tile
  // shapes carry the same block sizes.
  auto planned = t.grid->getAttrOfType<ConfigAttr>("flash.config");
  if (!planned)
    return anchor->emitOpError("flash-to-gpu: the grid has no flash.config "
                               "(run flash-tile from this version)");
  int64_t warps = planned.getNumWarps();
  if (planned.getNumStages() < 2 || planned.getNumStages() > 4)
    return anchor->emitOpError("flash-to-gpu: a 2- to 4-stage cp.async "
                               "pipeline is generated (stages = ")
           << planned.getNumStages() << ")";
  config = planned;
  if (bm % (16 * warps) != 0 || bm / (16 * warps) > 2)
    return anchor->emitOpError("flash-to-gpu: block_m = ")
           << bm << " needs 16 or 32 rows per warp (warps = " << warps << ")";
  if (planned.getWgmma()) {
    if (!StringRef(chip).ends_with("a") ||
        !StringRef(chip).starts_with("sm_90"))
      return anchor->emitOpError("flash-to-gpu: wgmma needs chip sm_90a, not ")
             << chip;
    if (headDim % 64 != 0)
      return anchor->emitOpError("flash-to-gpu: wgmma needs a head dim that "
                                 "is a multiple of 64 (128-byte panels), not ")
             << headDim;
    if (bn % 16 != 0 || bn > 256)
      return anchor->emitOpError("flash-to-gpu: wgmma needs block_n a "
                                 "multiple of 16 up to 256, not ")
             << bn;
  }
  if (bn % 16 != 0)
    return anchor->emitOpError("flash-to-gpu: block_n = ")
           << bn << " must be a multiple of 16";
  int64_t chunksPerRow = headDim / 8, threads = 32 * warps;
  if ((bn * chunksPerRow) % threads != 0 || (bm * chunksPerRow) % threads != 0)
    return anchor->emitOpError("flash-to-gpu: ")
           << threads << " threads cannot split the " << bm << "/" << bn
           << " x " << headDim << " tiles into whole 16-byte copies";
  int64_t smem = planned.getKernelSharedMemoryBytes(headDim);
  if (smem > smemLimitKB * 1024)
    return anchor->emitOpError("flash-to-gpu: the tiles need ")
           << smem << " bytes of shared memory, over the target's "
           << int64_t(smemLimitKB) << " KiB";
  return success();
}

LogicalResult FlashToGpuPass::lower(ModuleOp module, scf::ParallelOp grid) {
  FailureOr<TiledAttention> matched = matchGrid(grid);
  if (failed(matched))
    return failure();
  TiledAttention &t = *matched;
  ConfigAttr config;
  Type elt;
  int64_t headDim;
  if (failed(checkSupported(t, config, elt, headDim)))
    return failure();

  auto hostFunc = grid->getParentOfType<func::FuncOp>();
  gpu::GPUModuleOp gpuModule = getOrCreateGpuModule(module);
  OpBuilder kb = OpBuilder::atBlockEnd(gpuModule.getBody());
  Location loc = grid.getLoc();
  std::string name = (hostFunc.getName() + "_kernel").str();
  int suffix = 0;
  while (gpuModule.lookupSymbol(name))
    name = llvm::formatv("{0}_kernel{1}", hostFunc.getName(), ++suffix).str();
  auto func = gpu::GPUFuncOp::create(kb, loc, name,
                                     kb.getFunctionType({}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  int64_t threads =
      32 * config.getNumWarps() + (config.getProducer() ? 128 : 0);
  func.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // setmaxnreg needs the register count at entry, which ptxas derives from
  // the block size and one program per SM (.minnctapersm).
  if (config.getProducer() && threads > 256)
    func->setAttr("nvvm.minctasm", kb.getI32IntegerAttr(1));

  KernelEmitter emitter(kb, loc, t, func, config, elt, headDim);
  SmallVector<Value> hostArgs;
  if (failed(emitter.emit(hostArgs)))
    return failure();
  Block &entry = func.getBody().front();
  func.setFunctionType(
      FunctionType::get(&getContext(), entry.getArgumentTypes(), {}));

  // The launch replaces the grid: one program per grid iteration.
  OpBuilder hb(grid);
  SmallVector<Value> ub(grid.getUpperBound());
  // Split-KV: the split axis is folded into x (see KernelEmitter::emit).
  if (t.partial)
    ub[0] = arith::MulIOp::create(hb, loc, ub[0], ub[3]);
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value block = arith::ConstantIndexOp::create(hb, loc, threads);
  Value smem = arith::ConstantOp::create(
      hb, loc, hb.getI32IntegerAttr(int32_t(emitter.smemBytes())));
  gpu::LaunchFuncOp::create(hb, loc, func,
                            gpu::KernelDim3{ub[0], ub[1], ub[2]},
                            gpu::KernelDim3{block, one, one}, smem, hostArgs);
  // The host entry point gets a C interface, and the compiled artifact
  // describes itself (dtype, head dim, mask, config) for the runtime.
  hostFunc->setAttr("llvm.emit_c_interface", hb.getUnitAttr());
  // Shortest round-trip decimal of an f32 attribute (formatv's default
  // keeps 2 digits, which changed the scale the checks used).
  auto exact = [](double x) {
    llvm::SmallString<32> str;
    APFloat(float(x)).toString(str, /*FormatPrecision=*/0,
                              /*FormatMaxPadding=*/0);
    return std::string(str);
  };
  // Serving operands and split-KV, as the entry point's signature shows.
  bool kvLens = false, splitKV = false;
  hostFunc.walk([&](Operation *op) {
    if (op->hasAttr("flash.combine") || op->hasAttr("flash.workspace"))
      splitKV = true;
  });
  for (BlockArgument arg : hostFunc.getArguments())
    if (auto type = dyn_cast<MemRefType>(arg.getType()))
      kvLens |= type.getRank() == 1 && type.getElementType().isInteger(32);
  // The entry's static Q and K sizes (-1 = any), for the runtime to check.
  auto staticShape = [&](unsigned arg) {
    std::string str = "[";
    if (arg < hostFunc.getNumArguments())
      if (auto type = dyn_cast<MemRefType>(hostFunc.getArgument(arg).getType()))
        for (int64_t i = 0; i < type.getRank(); ++i)
          str += (i ? "," : "") +
                 std::to_string(type.isDynamicDim(i) ? -1 : type.getDimSize(i));
    return str + "]";
  };
  std::string abi;
  {
    llvm::raw_string_ostream os(abi);
    TileUpdateOp u = t.updates.front();
    int64_t left = -1, right = -1;
    if (auto w = u.getWindow()) {
      left = (*w)[0];
      right = (*w)[1];
    }
    double cap = u.getSoftcap() ? u.getSoftcap()->convertToDouble() : 0.0;
    os << llvm::formatv(
        "{{\"func\":\"{0}\",\"dtype\":\"{1}\",\"head_dim\":{2},"
        "\"head_dim_v\":{2},\"causal\":{3},\"window\":[{4},{5}],"
        "\"softcap\":{6},\"scale\":{7},\"lse\":{8},\"arch\":\"{9}\","
        "\"block_m\":{10},\"block_n\":{11},\"warps\":{12},\"stages\":{20},"
        "\"smem_bytes\":{13},\"kernel\":\"{14}\",\"kv_lens\":{15},"
        "\"paged\":{16},\"split_kv\":{17},\"q_shape\":{18},"
        "\"kv_shape\":{19}}",
        hostFunc.getName(), elt.isBF16() ? "bf16" : "f16", headDim,
        u.getCausal() ? "true" : "false", left, right, exact(cap),
        exact(u.getScale().convertToDouble()), t.lseView ? "true" : "false",
        chip,
        config.getBlockM(), config.getBlockN(), config.getNumWarps(),
        emitter.smemBytes(), name, kvLens ? "true" : "false",
        t.table ? "true" : "false", splitKV ? "true" : "false",
        staticShape(0), staticShape(1), config.getNumStages());
  }
  abi.push_back('\0');
  // One record per entry point: the split-KV path's kernels (partial,
  // combine) sit behind the same entry as the unsplit one.
  if (module.lookupSymbol((hostFunc.getName() + "_flash_abi").str())) {
    grid.erase();
    return success();
  }
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  LLVM::GlobalOp::create(
      mb, loc, LLVM::LLVMArrayType::get(mb.getI8Type(), abi.size()),
      /*isConstant=*/true, LLVM::Linkage::External,
      (hostFunc.getName() + "_flash_abi").str(), mb.getStringAttr(abi));

  // The grid and everything only it used (the tensor-level tile IR) go.
  grid.erase();
  return success();
}

gpu::GPUFuncOp FlashToGpuPass::createKernel(ModuleOp module, Location loc,
                                            StringRef base, int64_t threads) {
  gpu::GPUModuleOp gpuModule = getOrCreateGpuModule(module);
  OpBuilder kb = OpBuilder::atBlockEnd(gpuModule.getBody());
  std::string name = base.str();
  int suffix = 0;
  while (gpuModule.lookupSymbol(name))
    name = llvm::formatv("{0}{1}", base, ++suffix).str();
  auto func = gpu::GPUFuncOp::create(kb, loc, name, kb.getFunctionType({}, {}));
  func->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), kb.getUnitAttr());
  func.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  return func;
}

LogicalResult FlashToGpuPass::lowerCombine(ModuleOp module,
                                           scf::ParallelOp grid) {
  Location loc = grid.getLoc();
  // Threads: the head dim (the inner loop's static bound), in whole warps.
  int64_t dv = 0;
  grid.getBody()->walk([&](scf::ParallelOp inner) {
    Value ub = inner.getUpperBound()[0];
    if (auto cst = getConstantIntValue(ub))
      dv = *cst;
    else if (auto dim = ub.getDefiningOp<memref::DimOp>())
      if (auto i = dim.getConstantIndex())
        dv = cast<MemRefType>(dim.getSource().getType()).getDimSize(*i);
  });
  if (dv <= 0 || dv > 1024)
    return grid.emitOpError("flash-to-gpu: a combine needs a static head "
                            "dim of at most 1024");
  int64_t threads = (dv + 31) / 32 * 32;
  auto hostFunc = grid->getParentOfType<func::FuncOp>();
  gpu::GPUFuncOp func =
      createKernel(module, loc, (hostFunc.getName() + "_combine").str(),
                   threads);
  TiledAttention t;
  t.grid = grid;
  OpBuilder kb(func.getContext());
  KernelEmitter emitter(kb, loc, t, func,
                        ConfigAttr::get(&getContext(), 16, 16, threads / 32, 2,
                                        1, /*wgmma=*/false,
                                        /*producer=*/false),
                        kb.getF32Type(), dv);
  SmallVector<Value> hostArgs;
  if (failed(emitter.emitCombine(hostArgs)))
    return failure();
  Block &entry = func.getBody().front();
  func.setFunctionType(
      FunctionType::get(&getContext(), entry.getArgumentTypes(), {}));
  OpBuilder hb(grid);
  auto ub = grid.getUpperBound();
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value block = arith::ConstantIndexOp::create(hb, loc, threads);
  gpu::LaunchFuncOp::create(hb, loc, func, gpu::KernelDim3{ub[0], ub[1], ub[2]},
                            gpu::KernelDim3{block, one, one}, Value(),
                            hostArgs);
  grid.erase();
  return success();
}

void FlashToGpuPass::allocateWorkspaces(ModuleOp module) {
  SmallVector<memref::AllocOp> allocs;
  module.walk([&](memref::AllocOp a) {
    if (a->hasAttr("flash.workspace"))
      allocs.push_back(a);
  });
  auto tokenType = gpu::AsyncTokenType::get(&getContext());
  for (memref::AllocOp a : allocs) {
    OpBuilder b(a);
    Location loc = a.getLoc();
    // Stream-ordered on the caller's stream (the runtime maps every
    // stream the host code creates to it).
    Value t0 = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                   .getAsyncToken();
    auto alloc = gpu::AllocOp::create(b, loc, a.getType(), tokenType,
                                      ValueRange{t0}, a.getDynamicSizes(),
                                      ValueRange{}, /*hostShared=*/false);
    gpu::WaitOp::create(b, loc, Type(), ValueRange{alloc.getAsyncToken()});
    a.getResult().replaceAllUsesWith(alloc.getMemref());
    b.setInsertionPoint(a->getBlock()->getTerminator());
    Value t2 = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                   .getAsyncToken();
    auto dealloc = gpu::DeallocOp::create(b, loc, tokenType, ValueRange{t2},
                                          alloc.getMemref());
    gpu::WaitOp::create(b, loc, Type(),
                        ValueRange{dealloc.getAsyncToken()});
    a.erase();
  }
}

} // namespace
