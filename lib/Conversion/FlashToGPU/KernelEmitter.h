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
//   KernelEmitter.cpp  values moved into the kernel (KernelArgs: lift,
//                      capture), the prologue, the kernel's loops, the
//                      dispatch of the grid's ops to the lowerings below
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
//   Uniform.cpp        spread, cta and uniform tiles, scf.if and scf.for
//                      over tiles
//   Combine.cpp        flash.combine's grid cloned as its own kernel
//   Backward.cpp       the backward's grids (D, the KV program, dQ): the
//                      same families on their tiles, the transposed GEMMs
//
// Each op family's lowerings are free functions. What every family reads
// (the config, the thread ids, the tensors, the shared-memory map, the
// builders) is the KernelContext (KernelContext.h), taken const; the state
// a lowering changes is passed to it explicitly, so its signature names
// what it touches: KernelArgs (the kernel's arguments, which moving a value
// into the kernel adds to), ScopeState (the KV loop and regions being
// emitted), FragmentState (the tiles' registers) and PipelineState (the
// K/V pipeline's role split, drain and run). The KernelEmitter owns them
// all and walks the grid.
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

#include "KernelContext.h"

#include "flash/Dialect/Flash/IR/FlashOps.h"
#include "flash/Target/Targets.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
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

/// The registers of the grid's tile values, as the op lowerings write and
/// read them.
struct FragmentState {
  /// Where each tile value of the grid lives, once lowered.
  DenseMap<Value, Fragment> frags;
  /// Row totals of thread-partial sums, computed at their first use.
  DenseMap<Value, Fragment> rowTotals;
  /// While lowering a row-local run (lowerBody): the row vector register
  /// indices [first, second) (2 * m-tile + half) whose elements are emitted.
  std::optional<std::pair<int64_t, int64_t>> onlyRow;
  /// The wait of the last wgmma score GEMM: element-wise ops may issue
  /// capture reads above it (Elementwise.cpp).
  Operation *scoresWait = nullptr;

  bool emitsRow(int64_t r) const {
    return !onlyRow || (r >= onlyRow->first && r < onlyRow->second);
  }
  /// The score GEMM's wgmma wait if it is in the block `b` emits into: work
  /// that needs no score (capture reads, the ping-pong pass) goes before it,
  /// to overlap the tensor cores.
  Operation *scoresWaitHere(const OpBuilder &b) const {
    return scoresWait && scoresWait->getBlock() == b.getInsertionBlock()
               ? scoresWait
               : nullptr;
  }
  /// Gives each of `values` the layout of its entry in `layouts` and the
  /// next of `regs` in order: a loop's or branch's tile state unpacked from
  /// its flat registers (iter_args, results).
  void bind(ValueRange values, ArrayRef<Fragment> layouts, ValueRange regs);
};

/// The K/V pipeline's state across the kernel (Pipeline.cpp).
struct PipelineState {
  /// The setmaxnreg counts of the producer and the consumer warpgroups.
  RegisterSplit regs;
  /// Each KV loop's trip count; the first key of the run's last block.
  SmallVector<Value> trips;
  Value lastCol;
  /// With a producer warpgroup: the role split, whose else region holds
  /// the consumers' code.
  Operation *consumerRole = nullptr;
  /// A flash.pipeline_drain was met: lowered before the epilogue's first
  /// shared-memory write.
  bool drainPending = false;
};

/// Lowers the ops of a block of the grid (KernelEmitter::lowerBlock): how a
/// structured op lowers its regions.
using BlockLowering = function_ref<LogicalResult(Block &, IRMapping &)>;

// --- KernelEmitter.cpp ------------------------------------------------------
/// The first key of loop `li`'s iteration `j`; maps the loop's block index
/// in `local`.
Value startAt(const KernelContext &kc, KernelArgs &args,
              const ScopeState &scope, int64_t li, Value j, IRMapping &local);

// --- Elementwise.cpp --------------------------------------------------------
/// The fragment of `v`, with a thread-partial row vector reduced to a Row
/// (once per value) unless `keepPartial`.
FailureOr<Fragment> fragmentOf(const KernelContext &kc, FragmentState &fs,
                               Value v, Operation *user,
                               bool keepPartial = false);
/// Clones the scalar op `op` of a linalg body through `m` as one
/// instruction where the GPU has one (exp2, fma, tanh, log, max).
Value selectScalar(const KernelContext &kc, KernelArgs &args, Operation &op,
                   IRMapping &m);
LogicalResult lowerFill(const KernelContext &kc, KernelArgs &args,
                        const ScopeState &scope, FragmentState &fs,
                        linalg::FillOp op, IRMapping &map);
LogicalResult lowerElementwise(const KernelContext &kc, KernelArgs &args,
                               const ScopeState &scope, FragmentState &fs,
                               linalg::GenericOp op, IRMapping &map);
LogicalResult lowerRowReduction(const KernelContext &kc, KernelArgs &args,
                                const ScopeState &scope, FragmentState &fs,
                                linalg::GenericOp op, IRMapping &map);
/// Lowers a block's ops by `lowerOp` one by one, except that each maximal
/// run of row-local tile ops (element-wise ops and row reductions, e.g. the
/// whole softmax between the two GEMMs) is emitted one thread row at a
/// time.
LogicalResult
lowerBody(const KernelContext &kc, FragmentState &fs, Block &body,
          IRMapping &map,
          function_ref<LogicalResult(Operation *, IRMapping &)> lowerOp);

// --- Memory.cpp -------------------------------------------------------------
/// A memref.load of a capture (a memref from outside the grid) in a tile
/// computation, at the kernel's `indices`: a read-only global load.
Value loadCapture(const KernelContext &kc, KernelArgs &args,
                  memref::LoadOp load, ValueRange indices);
/// cp.async of a [rows][d] tile of `src` by the threads of `team`.
void emitTileCopy(const KernelContext &kc, CopyTeam team,
                  const KernelTensor &src, Value rowStart, Value rowLimit,
                  Value planeOffset, Value smemOffset, int64_t rows,
                  bool predicated, bool gather = false);
/// K and V of the block starting at `kvStart` into `stage`, by `team`.
void emitKVCopy(const KernelContext &kc, CopyTeam team, Value kvStart,
                Value stage);
SmallVector<Value> ldmatrix(const KernelContext &kc, Value byteOffset,
                            bool transpose);
/// The store of O or LSE; lowers the pipeline's pending drain before the
/// first shared-memory write.
LogicalResult lowerStore(const KernelContext &kc, KernelArgs &args,
                         const ScopeState &scope, FragmentState &fs,
                         PipelineState &pipeline, TileStoreOp op,
                         IRMapping &map);

// --- MMA.cpp, WGMMA.cpp -----------------------------------------------------
/// linalg.matmul of the KV loop being emitted (`scope`), by mma.sync or
/// wgmma as its accumulator's layout says.
LogicalResult lowerMatmul(const KernelContext &kc, const ScopeState &scope,
                          FragmentState &fs, linalg::MatmulOp op,
                          IRMapping &map);
/// acc tiles (mt, n0) and (mt, n0 + 1) += A[mt] * B for every m-tile by
/// mma.sync m16n8k16, where `bRegs` is one ldmatrix x4 holding both
/// n-tiles' B fragments and `nTiles` the accumulator's 8-column tiles.
void mmaTilePair(const KernelContext &kc, ArrayRef<SmallVector<Value>> aFrags,
                 ArrayRef<Value> bRegs, SmallVectorImpl<Value> &acc, int64_t n0,
                 int64_t nTiles);
/// S = Q K^T by wgmma for the K block in `stage`; `wait` is set to the
/// GEMM's wait.
SmallVector<Value> emitScoresWgmma(const KernelContext &kc, Value stage,
                                   Operation *&wait);
/// acc += P V by wgmma with P's packed registers as the A operand.
void emitPVWgmma(const KernelContext &kc, ArrayRef<Value> p,
                 SmallVectorImpl<Value> &acc, Value stage);

// --- Backward.cpp -----------------------------------------------------------
/// Emits the kernel of one of the backward's grids (GridOp::getBackward:
/// D = rowsum(dO * O), the KV program, the dQ conversion) into `func`;
/// `hostArgs` are the launch's values, `smemBytes` its dynamic shared memory.
LogicalResult emitBackwardKernel(OpBuilder &b, Location loc, TiledAttention &t,
                                 gpu::GPUFuncOp func, ConfigAttr config,
                                 Type eltType, int64_t headDim,
                                 SmallVectorImpl<Value> &hostArgs,
                                 int64_t &smemBytes);
/// The dynamic shared memory of the backward's KV program.
int64_t backwardSmemBytes(ConfigAttr config, Type eltType, int64_t headDim);

// --- Pipeline.cpp -----------------------------------------------------------
/// The pipeline's start before the loops: the run's first and last block,
/// then the cp.async prologue (Q and `stages - 1` blocks) or the producer
/// warpgroup's role split (the consumers go on in its else region,
/// consumerRole) with the consumers' Q; maps the start op's results.
void lowerPipelineStart(const KernelContext &kc, KernelArgs &args,
                        const ScopeState &scope, PipelineState &pipeline,
                        IRMapping &map, Value row0);
/// The top of KV loop `li`'s iteration (its block starts at `col0`): the
/// wait and prefetch, or the acquire; maps the advance's results in
/// `local` and returns them (the loop's next pipeline state).
SmallVector<Value> lowerIterationStart(const KernelContext &kc,
                                       const PipelineState &pipeline,
                                       int64_t li, Value col0,
                                       IRMapping &local);
/// A pipeline op met in the grid's order: the release, the ping-pong turns
/// (placed by the score GEMM's wait in `fs`); the drain is recorded for
/// lowerStore; the others were lowered at the start.
LogicalResult lowerPipelineOp(const KernelContext &kc, const FragmentState &fs,
                              PipelineState &pipeline, Operation *op,
                              IRMapping &map);
/// Every copy landed and every consumer past its shared-memory reads.
void lowerDrain(const KernelContext &kc, PipelineState &pipeline);

// --- Uniform.cpp ------------------------------------------------------------
/// A fill of a free vector (spread, cta) or of a 0-d uniform value.
LogicalResult lowerFreeFill(const KernelContext &kc, KernelArgs &args,
                            const ScopeState &scope, FragmentState &fs,
                            linalg::FillOp op, IRMapping &map);
LogicalResult lowerExtract(const FragmentState &fs, tensor::ExtractOp op,
                           IRMapping &map);
LogicalResult lowerSpread(const KernelContext &kc, KernelArgs &args,
                          const ScopeState &scope, FragmentState &fs,
                          linalg::GenericOp op, IRMapping &map);
LogicalResult lowerUniformReduction(const KernelContext &kc, KernelArgs &args,
                                    const ScopeState &scope, FragmentState &fs,
                                    linalg::GenericOp op, IRMapping &map);
/// An scf.if over tiles; its regions are lowered by `lowerBlock`.
LogicalResult lowerIf(const KernelContext &kc, KernelArgs &args,
                      ScopeState &scope, FragmentState &fs, scf::IfOp op,
                      IRMapping &map, BlockLowering lowerBlock);
/// An scf.for of the grid (a scan before the KV loops) carrying spread or
/// cta tiles as registers; its body is lowered by `lowerBlock`.
LogicalResult lowerFor(const KernelContext &kc, KernelArgs &args,
                       ScopeState &scope, FragmentState &fs,
                       const PipelineState &pipeline, scf::ForOp op,
                       IRMapping &map, BlockLowering lowerBlock);

/// Emits one kernel: owns the kernel's context and each family's state,
/// and lowers the grid's ops in order, each by its family's lowering.
class KernelEmitter {
public:
  KernelEmitter(OpBuilder &b, Location loc, TiledAttention &t,
                gpu::GPUFuncOp func, ConfigAttr config, Type eltType,
                int64_t headDim)
      : kc(b, loc, t, func.getBody().front(), config, eltType, headDim),
        args(kc) {}

  /// Emits the kernel body; returns the values to pass at launch, in the
  /// order of the kernel's arguments.
  LogicalResult emit(SmallVectorImpl<Value> &hostArgs);
  /// Emits the kernel of a flash.combine grid (t.grid) by cloning its body:
  /// the grid's (row, head, batch) become block ids, its inner head-dim
  /// loop the thread id, memref accesses global loads and stores.
  LogicalResult emitCombine(SmallVectorImpl<Value> &hostArgs);

  int64_t smemBytes() const { return kc.smem.totalBytes(); }
  /// The setmaxnreg counts of the producer and the consumer warpgroups
  /// (getRegisterSplit of the config's producer_regs, else flash-to-gpu's
  /// producer-regs).
  void setRegisterSplit(const RegisterSplit &split) {
    assert(split.error == RegisterSplit::Error::None && "unchecked split");
    pipeline.regs = split;
  }

private:
  /// Lowers one op of the grid (or of a KV loop's body) by its family.
  LogicalResult lowerOp(Operation *op, IRMapping &map);
  /// Lowers a block's ops (lowerBody: row-local runs row by row).
  LogicalResult lowerBlock(Block &body, IRMapping &map);
  /// One flash.kv_loop as an scf.for over its blocks: its pipeline ops,
  /// then its body's ops.
  LogicalResult emitKVLoop(int64_t li, IRMapping &map);
  /// Ends the kernel and hands back the launch arguments (failure when a
  /// value could not be moved into the kernel).
  LogicalResult finishKernel(SmallVectorImpl<Value> &hostArgs);

  KernelContext kc;
  KernelArgs args;
  ScopeState scope;
  FragmentState fs;
  PipelineState pipeline;
};

} // namespace mlir::flash::gpu_kernel

#endif // FLASH_CONVERSION_FLASHTOGPU_KERNELEMITTER_H
