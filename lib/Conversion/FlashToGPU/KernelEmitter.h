//===- KernelEmitter.h - FlashAttention-2 kernels for flash-to-gpu -*- C++ -*-===//
//
// The emitter of one FA2 forward kernel (or split-KV combine kernel) from a
// flash.grid of tile-level ops, after flash-online-softmax: the kernel is
// the grid's own IR, lowered op by op. The loop structure (the peeled KV
// loops and their bounds), every index computation and the whole
// online-softmax math (the linalg ops flash-online-softmax wrote, the one
// statement the CPU pipeline runs too) come from the grid; this emitter
// lowers each op family onto the layout flash-assign-layouts gave each tile
// value (#flash.frag, the encoding of its tensor type), in one file per
// concern:
//
//   KernelEmitter.cpp  values moved into the kernel (lift/capture), the
//                      kernel's loops, the dispatch of the grid's ops to the
//                      patterns below
//   Pipeline.cpp       flash-pipeline-kv's ops: the cp.async prologue, wait
//                      and prefetch, or the producer warpgroup's mbarrier
//                      ring; the slot each iteration reads; the drain
//   Layout.cpp         reading the tiles' layouts (and refusing a grid
//                      without them)
//   Elementwise.cpp    linalg.fill, element-wise linalg.generic (per
//                      register, instruction selection of the math ops),
//                      row reductions (in-thread tree + quad shuffles)
//   Memory.cpp         cp.async 16-byte copies into XOR-swizzled shared
//                      memory, ldmatrix, flash.tile_store of O and LSE
//   MMA.cpp            linalg.matmul by mma.sync m16n8k16 (sm_80+)
//   WGMMA.cpp          the same by wgmma.mma_async (sm_90a)
//   Combine.cpp        flash.combine's grid cloned as its own kernel
//
// Tile values in registers are Fragments, the registers of their layout:
// #flash.frag<acc> is the PTX layout of mma.m16n8k16's f32 accumulator
// (row.col), where lane l holds rows g = l / 4 and g + 8, columns
// 2 * (l % 4) + {0, 1} of each 16 x 8 tile; wgmma's accumulators have the
// same per-warp layout (one m-tile per warp). Q, K and V tiles
// (#flash.frag<smem>) live in shared memory and are only read by the
// matmuls.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_CONVERSION_FLASHTOGPU_KERNELEMITTER_H
#define FLASH_CONVERSION_FLASHTOGPU_KERNELEMITTER_H

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Target/Targets.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseSet.h"

namespace mlir::flash::gpu_kernel {

/// f32 in the context of `t` (the partial outputs' element type).
inline FloatType b32(Type t) { return Float32Type::get(t.getContext()); }

/// The pipeline ops of one KV loop (flash-pipeline-kv): with cp.async a
/// wait and a prefetch, with a producer warpgroup an acquire and a
/// release; the advance in both. Its state (slot[, phase]) is the loop's
/// iter_args from `stateBegin` on.
struct LoopPipeline {
  PipelineWaitOp wait;
  PipelinePrefetchOp prefetch;
  PipelineAcquireOp acquire;
  PipelineReleaseOp release;
  PipelineAdvanceOp advance;
  unsigned stateBegin = 0;
};

/// The pieces of one flash-tile grid that the kernel is built from: the
/// tile-level ops themselves (flash.grid, flash.kv_loop, flash.tile_load,
/// flash.tile_store), so nothing here depends on how flash-tile or a
/// cleanup between the passes spelled the index arithmetic.
struct TiledAttention {
  GridOp grid;
  SmallVector<KVLoopOp> loops;
  /// Each loop's K and V tile reads (the B operands of its two matmuls).
  SmallVector<TileLoadOp> kLoads, vLoads;
  TileLoadOp qLoad;
  TileStoreOp oStore, lseStore;
  /// K and V memrefs, and (paged) the block table; every KV loop reads the
  /// same plane (matchGrid), so the first loop's loads say it.
  Value kSrc() { return kLoads.front().getSource(); }
  Value vSrc() { return vLoads.front().getSource(); }
  Value table() { return kLoads.front().getBlockTable(); }
  /// Split-KV partial form: a fourth grid axis (the split), f32 outputs.
  bool partial() { return grid.isPartial(); }
  /// The K/V pipeline (checkPipeline): its start (flash.pipeline_prologue
  /// or flash.pipeline_producer), each loop's ops and its drain.
  Operation *pipelineStart = nullptr;
  SmallVector<LoopPipeline> pipes;
  PipelineDrainOp drain;
  /// FA3's ping-pong turns (pingpong configs): the grid's start and end.
  PipelineTurnStartOp turnStart;
  PipelineTurnEndOp turnEnd;
  /// The region captures (FlashToGPU.cpp's findCaptures): read-only for the
  /// kernel's lifetime, so their reads are ld.global.nc.
  SmallVector<Value> captures;
};

/// Refuses (at the op) an attention grid whose KV loops have no K/V
/// pipeline ops, or ops that do not fit together: one start before the
/// loops, the slot (and phase) threaded through every loop as its last
/// iter_args, each loop's body opened by its wait/prefetch (or acquire)
/// and advance, the K/V loads reading the slot, one drain before the
/// stores. Fills `t`'s pipeline fields (Pipeline.cpp).
LogicalResult checkPipeline(TiledAttention &t);

/// A tile value spread over the threads of the program; its kind is the
/// value's #flash.frag layout (fragmentKind), as registers:
///  * acc: a [block_m, cols] tile; register frag(mt, nt, r, cols / 8) holds
///    row warpRow(mt) + g + 8 * (r / 2), column 8 * nt + 2 * tq + r % 2.
///    16-bit tiles are packed: one i32 per two adjacent columns (r, r + 1),
///    as mma operands and stores want them.
///  * row: a [block_m] vector; register 2 * mt + h holds row warpRow(mt) +
///    g + 8 * h, the same in the four lanes of the quad that owns the row.
///  * row_partial: the same, but each lane holds a part of a sum: the row's
///    value is the quad's total (FA2's row sum l, reduced in the epilogue).
///  * spread: a free [n] vector; register r holds element min(lane + 32 r,
///    n - 1) (the last element repeated in the lanes past it), every warp.
///  * cta: a free [n] vector, n a multiple of the program's threads T;
///    register r holds element tid + T r (each element in one thread).
///  * uniform: a 0-d value, one register, the same in every thread.
struct Fragment {
  using Kind = FragKind;
  static constexpr Kind Acc = FragKind::Acc, Row = FragKind::Row,
                        RowPartial = FragKind::RowPartial,
                        Spread = FragKind::Spread, Cta = FragKind::Cta,
                        Uniform = FragKind::Uniform;
  Kind kind = Acc;
  Type elt;
  int64_t cols = 0;
  SmallVector<Value> regs;
  bool packed() const { return kind == Acc && elt.getIntOrFloatBitWidth() == 16; }
};

/// The register layout of tile `v`: its #flash.frag kind, `acc` for a tile
/// without one or in shared memory (Layout.cpp).
Fragment::Kind fragmentKind(Value v);

/// Clones `body` (but its terminator) through `m`, selecting each op;
/// values from outside the body are lifted into the kernel. `skip` is not
/// cloned (a final conversion done per register pair instead), nor is an
/// op already mapped or, given `only`, one it rejects (Elementwise.cpp).
LogicalResult cloneBody(Block &body, IRMapping &m, Operation *skip,
                        function_ref<Value(Value)> outside,
                        function_ref<Value(Operation &)> select,
                        function_ref<bool(Operation &)> only = {});
/// Refuses (at the op) a tile of the attention grid `grid` without a
/// #flash.frag layout, or with an MMA kind other than its config's.
LogicalResult checkLayouts(GridOp grid);

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
    smem = config.getSmemMap(headDim, eltType.getIntOrFloatBitWidth() / 8);
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

  int64_t smemBytes() const { return smem.totalBytes(); }
  /// Threads per program: the consumers plus the producer warpgroup.
  int64_t launchThreads() const { return config.getProgramThreads(); }
  /// The setmaxnreg counts of the producer and the consumer warpgroups
  /// (getRegisterSplit of the config's producer_regs, else flash-to-gpu's
  /// producer-regs).
  void setRegisterSplit(const RegisterSplit &split) {
    assert(split.error == RegisterSplit::Error::None && "unchecked split");
    regs = split;
  }
  RegisterSplit regs;

private:
  // --- Values from flash-tile's IR ---------------------------------------
  Value lift(Value v, IRMapping &map);
  Value capture(Value hostValue);
  /// A host memref in the kernel; `seqDim` names the sequence dimension
  /// (strideS; strideB/H are the two before it), -1 for none.
  KernelTensor liftTensor(Value memref, int64_t seqDim = 2,
                          bool staticLayout = false);
  /// The element offset of `indices`; with `nsw` its adds and multiplies
  /// promise no signed overflow (true of in-bounds indices: the runtime
  /// refuses tensors of 2 GiB or more), which lets LLVM split constant
  /// index parts off into the load's immediate offset.
  Value elementOffset(KernelTensor &kt, ValueRange indices, bool nsw = false);
  /// A memref.load of a capture (a memref from outside the grid) in a tile
  /// computation, at the kernel's `indices`: a read-only global load
  /// (Memory.cpp).
  Value loadCapture(memref::LoadOp load, ValueRange indices);

  // --- Small builders ------------------------------------------------------
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value cf(double v) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(float(v)));
  }
  Value ci32(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value addNsw(Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y, arith::IntegerOverflowFlags::nsw);
  }
  Value mulNsw(Value x, Value y) {
    return arith::MulIOp::create(b, loc, x, y, arith::IntegerOverflowFlags::nsw);
  }
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
    return smemPtr(add(c(smem.barrierOffset(full)),
                       mul(stage, c(SmemMap::kBarrierBytes))));
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
  /// FA3's ping-pong turns (flash-pingpong): consumer warpgroup g waits for
  /// its turn on named barrier kTurnBarrier + g (1 is syncConsumers'); the
  /// other warpgroup arrives on it to pass the turn. 256 threads each: one
  /// warpgroup syncs, the other arrives.
  static constexpr int64_t kTurnBarrier = 2;
  Value consumerGroup() { return arith::DivUIOp::create(b, loc, warp, c(4)); }
  void turnBarrier(bool wait, Value group) {
    Value id = arith::IndexCastOp::create(b, loc, i32,
                                          add(group, c(kTurnBarrier)));
    if (wait)
      NVVM::BarrierOp::create(b, loc, Type(), id, ci32(256),
                              NVVM::BarrierReductionAttr(), Value());
    else
      NVVM::BarrierArriveOp::create(b, loc, id, ci32(256));
  }
  void lowerTurn(Operation *op);
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
  // --- The K/V pipeline (Pipeline.cpp) --------------------------------------
  /// The pipeline's start before the loops: the run's first and last block,
  /// then the cp.async prologue (Q and `stages - 1` blocks) or the producer
  /// warpgroup's role split (the consumers go on in its else region,
  /// consumerRole) with the consumers' Q; maps the start op's results.
  void lowerPipelineStart(IRMapping &map, Value row0);
  /// The producer warpgroup's loop: every K/V block of the program's run,
  /// into the ring, one block ahead of its arrive on full[stage].
  void emitProducer(Value firstCol, Value lastCol, Value anyBlock);
  /// The top of KV loop `li`'s iteration (its block starts at `col0`): the
  /// wait and prefetch, or the acquire; maps the advance's results in
  /// `local` and returns them (the loop's next pipeline state).
  SmallVector<Value> lowerIterationStart(int64_t li, Value col0,
                                         IRMapping &local);
  /// A pipeline op met in the grid's order: the release; the drain is
  /// recorded for lowerStore; the others were lowered at the start.
  LogicalResult lowerPipelineOp(Operation *op, IRMapping &map);
  /// Every copy landed and every consumer past its shared-memory reads.
  void lowerDrain();
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
  /// acc += P V with P's packed 16-bit accumulator registers as the A
  /// operand (FA2's register reuse: no shared-memory trip).
  void emitPV(ArrayRef<Value> p, SmallVectorImpl<Value> &acc, Value stage);
  void emitPVWgmma(ArrayRef<Value> p, SmallVectorImpl<Value> &acc, Value stage);
  /// The first key of loop `li`'s iteration `j`; maps the loop's block
  /// index in `local`.
  Value startAt(int64_t li, Value j, IRMapping &local);
  /// One flash.kv_loop as an scf.for over its blocks: its pipeline ops,
  /// then its body's ops.
  LogicalResult emitKVLoop(int64_t li, IRMapping &map);

  // --- The patterns: one per op family of the grid -------------------------
  /// Lowers one op of the grid (or of a KV loop's body) onto fragments.
  LogicalResult lowerOp(Operation *op, IRMapping &map);
  LogicalResult lowerFill(linalg::FillOp op, IRMapping &map);
  LogicalResult lowerMatmul(linalg::MatmulOp op, IRMapping &map);
  LogicalResult lowerElementwise(linalg::GenericOp op, IRMapping &map);
  LogicalResult lowerRowReduction(linalg::GenericOp op, IRMapping &map);
  /// Lowers a KV loop's body: ops one by one, except that each maximal run
  /// of row-local tile ops (element-wise ops and row reductions, e.g. the
  /// whole softmax between the two GEMMs) is emitted one thread row at a
  /// time (Elementwise.cpp).
  LogicalResult lowerBody(Block &body, IRMapping &map);
  // Free vectors, their reductions and scf.if over tiles (Uniform.cpp).
  LogicalResult lowerSpread(linalg::GenericOp op, IRMapping &map);
  LogicalResult lowerUniformReduction(linalg::GenericOp op, IRMapping &map);
  /// A fill of a free vector (spread, cta) or of a 0-d uniform value.
  LogicalResult lowerFreeFill(linalg::FillOp op, IRMapping &map);
  LogicalResult lowerExtract(tensor::ExtractOp op, IRMapping &map);
  LogicalResult lowerIf(scf::IfOp op, IRMapping &map);
  /// An scf.for of the grid (a scan before the KV loops) carrying spread or
  /// cta tiles as registers.
  LogicalResult lowerFor(scf::ForOp op, IRMapping &map);
  /// A cta reduction's warp totals combined across the program's warps
  /// through shared memory (Uniform.cpp).
  Value combineWarps(Value warpTotal, Operation *combineOp);
  /// The redux.sync that reduces `v` across a warp by `combineOp`, if one
  /// does (integers of at most 32 bits but i1, index).
  std::optional<NVVM::ReduxKind> reduxKind(Value v, Operation *combineOp);
  /// `combineOp` (a reduction body's and/or/min/max/add) applied to x, y.
  Value combine(Operation *combineOp, Value x, Value y);
  /// An index or integer value carried as the integer type `word` (a
  /// shuffle's or a shared-memory slot's), extended as `combineOp` reads it
  /// (unsigned for unsigned min/max, else signed), and back to `t`.
  Value toWord(Value v, Type word, Operation *combineOp);
  Value fromWord(Value w, Type t);
  LogicalResult lowerStore(TileStoreOp op, IRMapping &map);
  /// Clones the scalar op `op` of a linalg body through `m` as one
  /// instruction where the GPU has one (exp2, fma, tanh, log, max).
  Value selectScalar(Operation &op, IRMapping &m);
  /// The fragment of `v`, with a thread-partial row vector reduced to a
  /// Row (once per value) unless `keepPartial`.
  FailureOr<Fragment> fragmentOf(Value v, Operation *user,
                                 bool keepPartial = false);
  /// Element `idx` (unpacked numbering) of an Acc fragment.
  Value element(const Fragment &f, int64_t idx);
  /// The fragment of `v` (a loop init or yielded value) in the layout of
  /// the KV loop's iter_arg `arg`.
  FailureOr<Fragment> stateFragment(Value v, BlockArgument arg);
  /// Gives each of `values` the layout of its entry in `layouts` and the
  /// next of `regs` in order: a loop's or branch's tile state unpacked from
  /// its flat registers (iter_args, results).
  void bindRegs(ValueRange values, ArrayRef<Fragment> layouts, ValueRange regs);
  int64_t numRegs(Value tile) {
    auto type = cast<RankedTensorType>(tile.getType());
    return type.getRank() == 2 ? mTiles * type.getDimSize(1) / 2 : mTiles * 2;
  }

  /// Ends the kernel and hands back the launch arguments (failure when a
  /// value could not be moved into the kernel).
  LogicalResult finishKernel(SmallVectorImpl<Value> &hostArgs);
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
  /// Where the tiles and barriers are in shared memory.
  SmemMap smem;
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
  Value qPlane, kPlane, vPlane, oPlane, lsePlane;
  Value seqQ, seqK;
  /// Paged K/V: the table, this program's row of it, the page size.
  KernelTensor table;
  Value tableRow, pageSize;
  DenseMap<Value, KernelTensor> lifted;

  /// Where each tile value of the grid lives, once lowered.
  DenseMap<Value, Fragment> frags;
  /// The wait of the last wgmma score GEMM: element-wise ops may issue
  /// capture reads above it (Elementwise.cpp).
  Operation *scoresWait = nullptr;
  /// The score GEMM's wgmma wait if it is in the block being emitted: work
  /// that needs no score (capture reads, the ping-pong pass) goes before it,
  /// to overlap the tensor cores.
  Operation *scoresWaitHere() const {
    return scoresWait && scoresWait->getBlock() == b.getInsertionBlock()
               ? scoresWait
               : nullptr;
  }
  /// Row totals of thread-partial sums, computed at their first use.
  DenseMap<Value, Fragment> rowTotals;
  /// While lowering a row-local run (lowerBody): the row vector register
  /// indices [first, second) (2 * m-tile + half) whose elements are emitted.
  std::optional<std::pair<int64_t, int64_t>> onlyRow;
  bool emitsRow(int64_t r) const {
    return !onlyRow || (r >= onlyRow->first && r < onlyRow->second);
  }
  /// Row registers per group of a row-local run. wgmma kernels (one m-tile
  /// per warp): one row at a time, as FA2 writes its softmax; ptxas then
  /// gives the d64 causal kernel 95 registers instead of 122 (5 programs
  /// per SM instead of 4) and the d128 ALiBi / document-mask kernels stop
  /// spilling. mma.sync kernels (two m-tiles per warp, at 255 registers):
  /// the whole tile op after op, since row by row made ptxas spill more
  /// there (d96 240 -> 336 B, d256 causal 0 -> 140 B on sm_80).
  int64_t rowGroup() const { return wg ? 1 : 2 * mTiles; }
  /// Each KV loop's trip count; the first key of the run's last block.
  SmallVector<Value> trips;
  Value lastCol;
  /// The KV loop being emitted, the map and the insertion point (before
  /// the loop) for values that do not depend on it.
  KVLoopOp curLoop;
  int64_t curLoopIndex = 0;
  IRMapping *outerMap = nullptr;
  Operation *curFor = nullptr;
  /// The scf.if's being lowered, innermost last: (the tile-level op, the
  /// kernel's). A value defined above one is lifted before its kernel op,
  /// so that both branches and what follows see it.
  SmallVector<std::pair<Operation *, Operation *>> ifScopes;
  /// With a producer warpgroup: the role split, whose else region holds
  /// the consumers' code.
  Operation *consumerRole = nullptr;
  /// A flash.pipeline_drain was met: lowered before the epilogue's first
  /// shared-memory write.
  bool drainPending = false;
};

} // namespace mlir::flash::gpu_kernel

#endif // FLASH_CONVERSION_FLASHTOGPU_KERNELEMITTER_H
