//===- Backward.cpp - FA2's backward kernels by mma.sync -----------------===//
//
// The kernels of flash.attention_backward's three grids, built from the
// grids' own tile IR as the forward's are: flash-tile's loops and bounds,
// flash-backward-recompute's P, dP and dS (the linalg ops the CPU pipeline
// runs too), lowered op by op onto the layouts flash-assign-layouts gave
// each tile, by the forward's element-wise and row-reduction lowerings:
//
//  * delta: D = rowsum(dO * O), O and dO read straight into accumulator
//    layout registers;
//  * kv: FA2's KV program. K and V stay in shared memory for the whole
//    program, dK and dV in registers; per Q block, Q and dO are copied in by
//    cp.async, S = Q K^T and dP = dO V^T are the forward's S GEMM, dV += P^T
//    dO and dK += dS^T Q read P^T and dS^T from shared memory (the warps
//    write the row-major tile they computed, ldmatrix.trans reads it
//    transposed: a row of P^T is a column of P, spread over every warp), and
//    dQ = dS K reuses dS's registers as the A operand (the C -> A layout
//    identity of mma.m16n8k16) with K by ldmatrix.trans. Each block's dQ is
//    added into the f32 workspace by atomic adds (red.global.add.f32);
//  * dq: the workspace rounded to dQ's element type.
//
// Shared memory is [K | V | Q | dO | P | dS]. Which warps' accesses to a
// buffer may race is tracked per buffer (Hazards): a barrier before a buffer
// is rewritten while reads of it may be in flight, a cp.async wait and a
// barrier before copied data is read; a loop iteration starts as if every
// buffer had been read by the one before.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <array>

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {
namespace {

/// The KV program's shared-memory buffers, in address order.
enum Buffer : unsigned { BufK, BufV, BufQ, BufDO, BufP, BufDS, NumBuffers };

/// Byte offsets of the buffers: four [rows][head dim] tiles in the
/// forward's swizzled tile layout (its row pitch), two [block_m][block_n]
/// 16-bit scratch tiles for the transposed GEMM operands.
struct SmemPlan {
  int64_t rowBytes, bm, bn, eltBytes;

  int64_t bytes(unsigned buf) const {
    switch (buf) {
    case BufK:
    case BufV:
      return bn * rowBytes;
    case BufQ:
    case BufDO:
      return bm * rowBytes;
    default:
      return bm * bn * eltBytes;
    }
  }
  int64_t offset(unsigned buf) const {
    int64_t off = 0;
    for (unsigned i = 0; i < buf; ++i)
      off += bytes(i);
    return off;
  }
  int64_t total() const { return offset(NumBuffers); }
};

/// The races between the warps' accesses to each buffer.
class Hazards {
public:
  explicit Hazards(const KernelContext &kc) : kc(kc) {}

  /// Before threads write `buf`: reads of it by other warps may be in
  /// flight.
  void beforeWrite(unsigned buf) {
    if (bufs[buf].read)
      barrier();
  }
  void copied(unsigned buf) { bufs[buf].copying = true; }
  void written(unsigned buf) { bufs[buf].written = true; }
  /// Before threads read `buf`: its copies must have landed and every
  /// warp's writes be visible.
  void beforeRead(unsigned buf) {
    if (bufs[buf].copying)
      waitCopies();
    if (bufs[buf].written)
      barrier();
    bufs[buf].read = true;
  }
  /// No copy or write pending (a loop's entry and back edge).
  void settle() {
    if (llvm::any_of(bufs, [](const State &s) { return s.copying; }))
      waitCopies();
    if (llvm::any_of(bufs, [](const State &s) { return s.written; }))
      barrier();
  }
  /// At the top of a loop body or after the loop: another iteration's
  /// reads may be in flight.
  void assumeRead() {
    for (State &s : bufs)
      s.read = true;
  }

private:
  struct State {
    bool copying = false, written = false, read = false;
  };
  void barrier() {
    kc.syncConsumers();
    for (State &s : bufs)
      s.written = s.read = false;
  }
  void waitCopies() {
    NVVM::CpAsyncWaitGroupOp::create(kc.b, kc.loc, 0);
    for (State &s : bufs)
      if (s.copying) {
        s.copying = false;
        s.written = true;
      }
  }

  const KernelContext &kc;
  std::array<State, NumBuffers> bufs;
};

class BackwardEmitter {
public:
  BackwardEmitter(OpBuilder &b, Location loc, TiledAttention &t,
                  gpu::GPUFuncOp func, ConfigAttr config, Type eltType,
                  int64_t headDim)
      : kc(b, loc, t, func.getBody().front(), config, eltType, headDim),
        args(kc), hazards(kc), plan{kc.smem.rowBytes(), kc.bm, kc.bn,
                                    eltType.getIntOrFloatBitWidth() / 8} {}

  LogicalResult emit(SmallVectorImpl<Value> &hostArgs);
  int64_t smemBytes() const { return usesSmem ? plan.total() : 0; }

private:
  LogicalResult lowerOp(Operation *op, IRMapping &map);
  LogicalResult lowerBlock(Block &body, IRMapping &map) {
    return lowerBody(kc, fs, body, map, [&](Operation *op, IRMapping &m) {
      return lowerOp(op, m);
    });
  }
  LogicalResult lowerLoad(TileLoadOp op, IRMapping &map);
  LogicalResult lowerStore(TileStoreOp op, IRMapping &map);
  LogicalResult lowerAccumulate(TileAccumulateOp op, IRMapping &map);
  LogicalResult lowerGemm(linalg::MatmulOp op, IRMapping &map);
  LogicalResult lowerLoop(scf::ForOp op, IRMapping &map);
  /// Writes a packed 16-bit [block_m, block_n] tile row-major into a
  /// scratch buffer; returns the buffer.
  unsigned stage(const Fragment &f);

  Value lift(Value v, IRMapping &map) { return args.lift(v, map, scope); }
  /// A memref of the host seen from the kernel ([B, H, S, ...] strides).
  const KernelTensor &tensorOf(Value memref) {
    auto it = tensors.find(memref);
    if (it == tensors.end())
      it = tensors.insert({memref, args.liftTensor(memref, 2)}).first;
    return it->second;
  }
  /// Row `warpRow(mt) + g + 8 h` of the program's tile.
  Value tileRow(int64_t mt, int64_t h) {
    return kc.add(kc.warpRow(mt), kc.add(kc.g, kc.c(8 * h)));
  }
  /// Byte offset of 16-byte chunk `chunk` of `row` in buffer `buf`: the
  /// forward's swizzled tile layout for the [rows][head dim] tiles; in the
  /// [block_m][block_n] scratch tiles chunk c of row r lands at c ^ (r % 8),
  /// so the 8 rows an ldmatrix reads and the 8 rows a warp's quads write
  /// hit 8 distinct bank groups (block_n is a multiple of 64).
  Value smemAddr(unsigned buf, Value row, Value chunk, int64_t rows) {
    Value base = kc.c(plan.offset(buf));
    if (buf < BufP)
      return kc.add(base, kc.swizzled(row, chunk, rows));
    Value phys = arith::XOrIOp::create(
        kc.b, kc.loc, chunk, arith::AndIOp::create(kc.b, kc.loc, row, kc.c(7)));
    return kc.add(base, kc.add(kc.mul(row, kc.c(plan.bn * plan.eltBytes)),
                               kc.mul(phys, kc.c(16))));
  }
  /// `row` of the plane at element offset `plane` while it is below `limit`
  /// (else the plane's row `safe`: a valid address), and whether it is.
  std::pair<Value, Value> guardedRow(Value row, Value limit, Value safe) {
    Value ok = kc.cmp(arith::CmpIPredicate::slt, row, limit);
    return {kc.sel(ok, row, safe), ok};
  }
  Value globalAt(const KernelTensor &kt, Value elementOffset) {
    return kc.globalPtr(kt.ptr, kc.mul(elementOffset, kc.c(kt.eltBytes)));
  }

  KernelContext kc;
  KernelArgs args;
  ScopeState scope;
  FragmentState fs;
  Hazards hazards;
  SmemPlan plan;
  bool usesSmem = false;
  DenseMap<Value, KernelTensor> tensors;
  /// The shared-memory tile loads and their buffers.
  DenseMap<Value, unsigned> smemTiles;
  /// The scratch buffer the next staged tile takes (they alternate).
  unsigned nextScratch = BufP;
};

LogicalResult BackwardEmitter::emit(SmallVectorImpl<Value> &hostArgs) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  b.setInsertionPointToStart(&kc.entry);
  IRMapping map;
  // The grid's axes are the block ids: (row block, head, batch).
  ValueRange ivs = kc.t.grid.getInductionVars();
  gpu::Dimension dims[] = {gpu::Dimension::x, gpu::Dimension::y,
                           gpu::Dimension::z};
  for (auto [iv, dim] : llvm::zip(ivs, dims))
    map.map(iv, gpu::BlockIdOp::create(b, loc, dim));
  kc.setThreadIds();
  kc.smemPtrType = LLVM::LLVMPointerType::get(kc.ctx, 3);
  kc.smemBase = LLVM::AddressOfOp::create(b, loc, kc.smemPtrType, "flash_smem");
  if (failed(lowerBlock(kc.t.grid.getBody().front(), map)))
    return failure();
  gpu::ReturnOp::create(b, loc);
  return args.getHostArgs(hostArgs);
}

LogicalResult BackwardEmitter::lowerOp(Operation *op, IRMapping &map) {
  if (isOpTriviallyDead(op))
    return success();
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    return lowerFill(kc, args, scope, fs, fill, map);
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return lowerGemm(matmul, map);
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureTensorSemantics() || generic.getNumResults() != 1)
      return op->emitOpError("flash-to-gpu: a tile op computes one tensor");
    Fragment::Kind kind = fragmentKind(generic.getResult(0));
    if (kind != Fragment::Acc && kind != Fragment::Row &&
        kind != Fragment::RowPartial)
      return op->emitOpError("flash-to-gpu: a backward tile op computes an "
                             "accumulator tile or a row vector");
    if (generic.getNumReductionLoops() == 0)
      return lowerElementwise(kc, args, scope, fs, generic, map);
    return lowerRowReduction(kc, args, scope, fs, generic, map);
  }
  if (auto load = dyn_cast<TileLoadOp>(op))
    return lowerLoad(load, map);
  if (auto store = dyn_cast<TileStoreOp>(op))
    return lowerStore(store, map);
  if (auto acc = dyn_cast<TileAccumulateOp>(op))
    return lowerAccumulate(acc, map);
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return lowerLoop(loop, map);
  if (isa<tensor::EmptyOp>(op))
    return success();
  // Scalars (index math) are lifted where they are used.
  if (llvm::none_of(op->getResultTypes(),
                    [](Type type) { return isa<ShapedType>(type); }) &&
      isMemoryEffectFree(op))
    return success();
  return op->emitOpError("flash-to-gpu: no GPU lowering for this op in a "
                         "backward grid");
}

LogicalResult BackwardEmitter::lowerLoad(TileLoadOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  auto type = cast<RankedTensorType>(op.getType());
  const KernelTensor &kt = tensorOf(op.getSource());
  Value batch = lift(op.getBatch(), map), head = lift(op.getHead(), map);
  Value start = lift(op.getStart(), map), limit = lift(op.getLimit(), map);
  if (!batch || !head || !start || !limit)
    return failure();
  Value plane = kc.add(kc.mul(batch, kt.strideB), kc.mul(head, kt.strideH));
  FragAttr frag = FragAttr::of(type);
  if (frag && frag.isSmem()) {
    unsigned buf;
    switch (op.getRole()) {
    case TileRole::K:
      buf = BufK;
      break;
    case TileRole::V:
      buf = BufV;
      break;
    case TileRole::Q:
      buf = BufQ;
      break;
    case TileRole::DO:
      buf = BufDO;
      break;
    default:
      return op.emitOpError("flash-to-gpu: only Q, K, V and dO tiles of a "
                            "backward grid are GEMM operands in shared "
                            "memory");
    }
    if (type.getDimSize(1) != kc.d)
      return op.emitOpError("flash-to-gpu: a shared-memory tile has the "
                            "head dim's columns");
    usesSmem = true;
    hazards.beforeWrite(buf);
    emitTileCopy(kc, kc.consumers(), kt, start, limit, plane,
                 kc.c(plan.offset(buf)), type.getDimSize(0),
                 /*predicated=*/true);
    NVVM::CpAsyncCommitGroupOp::create(b, loc);
    hazards.copied(buf);
    smemTiles[op.getResult()] = buf;
    return success();
  }
  // In registers: each thread reads its own elements; rows past the limit
  // read the block's first row (a valid address) and are zero.
  Fragment f;
  f.elt = type.getElementType();
  if (type.getDimSize(0) != kc.bm)
    return op.emitOpError("flash-to-gpu: a tile read into registers has "
                          "block_m rows");
  if (type.getRank() == 1) {
    if (!f.elt.isF32())
      return op.emitOpError("flash-to-gpu: a row vector read is f32");
    f.kind = fragmentKind(op.getResult());
    for (int64_t mt = 0; mt < kc.mTiles; ++mt)
      for (int64_t h = 0; h < 2; ++h) {
        auto [row, ok] =
            guardedRow(kc.add(start, tileRow(mt, h)), limit, start);
        Value v = LLVM::LoadOp::create(
            b, loc, kc.f32,
            globalAt(kt, kc.add(plane, kc.mul(row, kt.strideS))), 4);
        f.regs.push_back(kc.sel(ok, v, kc.cf(0.0)));
      }
    fs.frags[op.getResult()] = std::move(f);
    return success();
  }
  f.kind = Fragment::Acc;
  f.cols = type.getDimSize(1);
  int64_t nTiles = f.cols / 8;
  bool packed = f.packed();
  if (!packed && !f.elt.isF32())
    return op.emitOpError("flash-to-gpu: a tile read into registers is f32, "
                          "bf16 or f16");
  f.regs.assign(kc.mTiles * nTiles * (packed ? 2 : 4), Value());
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      auto [row, ok] = guardedRow(kc.add(start, tileRow(mt, h)), limit, start);
      Value rowOff = kc.add(plane, kc.mul(row, kt.strideS));
      for (int64_t nt = 0; nt < nTiles; ++nt) {
        Value col = kc.add(kc.c(8 * nt), kc.mul(kc.tq, kc.c(2)));
        Value at = kc.add(rowOff, col);
        int64_t first = KernelContext::frag(mt, nt, 2 * h, nTiles);
        if (packed) {
          Value pair =
              LLVM::LoadOp::create(b, loc, kc.i32, globalAt(kt, at), 4);
          f.regs[first / 2] = kc.sel(ok, pair, kc.ci32(0));
          continue;
        }
        for (int64_t e = 0; e < 2; ++e) {
          Value v = LLVM::LoadOp::create(b, loc, kc.f32,
                                         globalAt(kt, kc.add(at, kc.c(e))), 4);
          f.regs[first + e] = kc.sel(ok, v, kc.cf(0.0));
        }
      }
    }
  fs.frags[op.getResult()] = std::move(f);
  return success();
}

LogicalResult BackwardEmitter::lowerStore(TileStoreOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (op.getIndices().size() != 3)
    return op.emitOpError("flash-to-gpu: a backward store writes one "
                          "(batch, head) plane");
  FailureOr<Fragment> f = fragmentOf(kc, fs, op.getTile(), op);
  if (failed(f))
    return failure();
  const KernelTensor &kt = tensorOf(op.getDest());
  SmallVector<Value> idx;
  for (Value i : op.getIndices())
    if (!idx.emplace_back(lift(i, map)))
      return failure();
  Value count = lift(op.getCount(), map);
  if (!count)
    return failure();
  Value plane = kc.add(kc.mul(idx[0], kt.strideB), kc.mul(idx[1], kt.strideH));
  auto rowAt = [&](Value r) {
    return kc.add(plane, kc.mul(kc.add(idx[2], r), kt.strideS));
  };
  bool isRow = f->kind == Fragment::Row;
  if (!isRow && f->kind != Fragment::Acc)
    return op.emitOpError("flash-to-gpu: a backward store writes an "
                          "accumulator tile or a row vector");
  int64_t nTiles = f->cols / 8;
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value r = tileRow(mt, h);
      Value cond = kc.cmp(arith::CmpIPredicate::slt, r, count);
      // A row vector: one lane of the quad that holds the row writes it.
      if (isRow)
        cond = arith::AndIOp::create(
            b, loc, cond, kc.cmp(arith::CmpIPredicate::eq, kc.tq, kc.c(0)));
      auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value rowOff = rowAt(r);
      if (isRow) {
        LLVM::StoreOp::create(b, loc, f->regs[2 * mt + h], globalAt(kt, rowOff),
                              4);
        continue;
      }
      for (int64_t nt = 0; nt < nTiles; ++nt) {
        Value at = kc.add(rowOff, kc.add(kc.c(8 * nt), kc.mul(kc.tq, kc.c(2))));
        int64_t first = KernelContext::frag(mt, nt, 2 * h, nTiles);
        if (f->packed()) {
          LLVM::StoreOp::create(b, loc, f->regs[first / 2], globalAt(kt, at),
                                4);
          continue;
        }
        for (int64_t e = 0; e < 2; ++e)
          LLVM::StoreOp::create(b, loc, f->regs[first + e],
                                globalAt(kt, kc.add(at, kc.c(e))), 4);
      }
    }
  return success();
}

LogicalResult BackwardEmitter::lowerAccumulate(TileAccumulateOp op,
                                               IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  FailureOr<Fragment> f = fragmentOf(kc, fs, op.getTile(), op);
  if (failed(f))
    return failure();
  if (f->kind != Fragment::Acc || f->packed())
    return op.emitOpError("flash-to-gpu: an accumulated tile is an f32 "
                          "accumulator tile");
  const KernelTensor &kt = tensorOf(op.getDest());
  Value batch = lift(op.getBatch(), map), head = lift(op.getHead(), map);
  Value start = lift(op.getStart(), map), count = lift(op.getCount(), map);
  if (!batch || !head || !start || !count)
    return failure();
  Value plane = kc.add(kc.mul(batch, kt.strideB), kc.mul(head, kt.strideH));
  int64_t nTiles = f->cols / 8;
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value r = tileRow(mt, h);
      auto ifOp =
          scf::IfOp::create(b, loc, kc.cmp(arith::CmpIPredicate::slt, r, count),
                            /*withElse=*/false);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&ifOp.getThenRegion().front());
      Value rowOff = kc.add(plane, kc.mul(kc.add(start, r), kt.strideS));
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e) {
          Value col = kc.add(kc.c(8 * nt + e), kc.mul(kc.tq, kc.c(2)));
          // No result is read: ptxas makes it a red.global.add.f32.
          LLVM::AtomicRMWOp::create(
              b, loc, LLVM::AtomicBinOp::fadd,
              globalAt(kt, kc.add(rowOff, col)),
              f->regs[KernelContext::frag(mt, nt, 2 * h + e, nTiles)],
              LLVM::AtomicOrdering::monotonic);
        }
    }
  return success();
}

unsigned BackwardEmitter::stage(const Fragment &f) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  unsigned buf = nextScratch;
  nextScratch = nextScratch == BufP ? BufDS : BufP;
  usesSmem = true;
  hazards.beforeWrite(buf);
  int64_t nTiles = f.cols / 8;
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value row = tileRow(mt, h);
      for (int64_t nt = 0; nt < nTiles; ++nt) {
        // The pair (row, 8 nt + 2 tq .. + 1): 4 bytes of chunk nt.
        Value at =
            kc.add(smemAddr(buf, row, kc.c(nt), kc.bm), kc.mul(kc.tq, kc.c(4)));
        LLVM::StoreOp::create(
            b, loc, f.regs[KernelContext::frag(mt, nt, 2 * h, nTiles) / 2],
            kc.smemPtr(at), 4);
      }
    }
  hazards.written(buf);
  return buf;
}

LogicalResult BackwardEmitter::lowerGemm(linalg::MatmulOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  MLIRContext *mctx = op.getContext();
  AffineExpr m, n, k;
  bindDims(mctx, m, n, k);
  auto map2 = [&](AffineExpr x, AffineExpr y) {
    return AffineMap::get(3, 0, {x, y}, mctx);
  };
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (maps[2] != map2(m, n) ||
      (maps[0] != map2(m, k) && maps[0] != map2(k, m)) ||
      (maps[1] != map2(n, k) && maps[1] != map2(k, n)))
    return op.emitOpError("flash-to-gpu: a backward GEMM reads A as (m, k) "
                          "or (k, m) and B as (n, k) or (k, n)");
  bool transA = maps[0] == map2(k, m), bNK = maps[1] == map2(n, k);
  Value a = op.getInputs()[0], bv = op.getInputs()[1];
  auto aType = cast<RankedTensorType>(a.getType());
  auto bType = cast<RankedTensorType>(bv.getType());
  int64_t kDim = aType.getDimSize(transA ? 0 : 1);
  int64_t nDim = bType.getDimSize(bNK ? 0 : 1);
  auto bIt = smemTiles.find(bv);
  if (bIt == smemTiles.end())
    return op.emitOpError("flash-to-gpu: a backward GEMM's B operand is a "
                          "shared-memory tile load");
  unsigned bufB = bIt->second;
  FailureOr<Fragment> acc = fragmentOf(kc, fs, op.getOutputs()[0], op);
  if (failed(acc))
    return failure();
  if (acc->kind != Fragment::Acc || acc->packed() || acc->cols != nDim ||
      kDim % 16 || nDim % 16)
    return op.emitOpError("flash-to-gpu: a backward GEMM accumulates into "
                          "an f32 [block_m, n] tile, n and k multiples of 16");
  // A: a shared-memory tile load (m, k); a register tile (m, k), whose C
  // layout is the A operand's; or a register tile read (k, m), staged
  // row-major in a scratch buffer and read back transposed.
  enum { SmemA, RegsA, StagedA } aFrom;
  unsigned bufA = 0;
  Fragment regsA;
  if (auto it = smemTiles.find(a); it != smemTiles.end()) {
    if (transA)
      return op.emitOpError("flash-to-gpu: a shared-memory A tile is read "
                            "(m, k)");
    aFrom = SmemA;
    bufA = it->second;
  } else {
    FailureOr<Fragment> f = fragmentOf(kc, fs, a, op);
    if (failed(f))
      return failure();
    if (f->kind != Fragment::Acc || !f->packed() || f->elt != kc.elt)
      return op.emitOpError("flash-to-gpu: a register A tile is a 16-bit "
                            "accumulator tile of the operands' type");
    regsA = *f;
    aFrom = transA ? StagedA : RegsA;
    if (transA) {
      if (f->cols != kc.bn)
        return op.emitOpError("flash-to-gpu: a transposed A tile is [block_m, "
                              "block_n]");
      bufA = stage(*f);
    }
  }
  if (aFrom != RegsA)
    hazards.beforeRead(bufA);
  hazards.beforeRead(bufB);

  Fragment out = *acc;
  int64_t nTiles = nDim / 8;
  int64_t bRows = bType.getDimSize(0);
  Value lo16 = arith::RemUIOp::create(b, loc, kc.lane, kc.c(16));
  Value hi16 = arith::DivUIOp::create(b, loc, kc.lane, kc.c(16));
  Value lo8 = arith::RemUIOp::create(b, loc, kc.lane, kc.c(8));
  Value mid = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, kc.lane, kc.c(8)), kc.c(2));
  for (int64_t ks = 0; ks < kDim / 16; ++ks) {
    SmallVector<SmallVector<Value>> aFrags;
    for (int64_t mt = 0; mt < kc.mTiles; ++mt) {
      switch (aFrom) {
      case SmemA:
        // Rows m (lanes 0-15), the k step's two 8-column halves.
        aFrags.push_back(
            ldmatrix(kc,
                     smemAddr(bufA, kc.add(kc.warpRow(mt), lo16),
                              kc.add(kc.c(2 * ks), hi16), aType.getDimSize(0)),
                     false));
        break;
      case StagedA: {
        // The stored tile is [k][m]: matrix i = lane / 8 is (m half i % 2,
        // k half i / 2), read from 8 stored rows k and transposed.
        Value row = kc.add(kc.c(16 * ks), kc.add(lo8, kc.mul(hi16, kc.c(8))));
        Value chunk = kc.add(kc.c(2 * mt * kc.warps),
                             kc.add(kc.mul(kc.warp, kc.c(2)), mid));
        aFrags.push_back(ldmatrix(kc, smemAddr(bufA, row, chunk, kc.bm), true));
        break;
      }
      case RegsA: {
        int64_t aTiles = kDim / 8;
        auto at = [&](int64_t nt, int64_t r) {
          return regsA.regs[KernelContext::frag(mt, nt, r, aTiles) / 2];
        };
        aFrags.push_back({at(2 * ks, 0), at(2 * ks, 2), at(2 * ks + 1, 0),
                          at(2 * ks + 1, 2)});
        break;
      }
      }
    }
    for (int64_t p = 0; p < nDim / 16; ++p) {
      SmallVector<Value> bRegs;
      if (bNK) {
        // B stored [n][k] (K, V): rows n, the forward's S = Q K^T read.
        Value row = kc.add(kc.c(16 * p), kc.add(lo8, kc.mul(hi16, kc.c(8))));
        bRegs = ldmatrix(
            kc, smemAddr(bufB, row, kc.add(kc.c(2 * ks), mid), bRows), false);
      } else {
        // B stored [k][n] (dO, Q, K): the forward's V read, transposed.
        Value row = kc.add(kc.c(16 * ks), kc.add(lo8, kc.mul(mid, kc.c(8))));
        bRegs = ldmatrix(
            kc, smemAddr(bufB, row, kc.add(kc.c(2 * p), hi16), bRows), true);
      }
      mmaTilePair(kc, aFrags, bRegs, out.regs, 2 * p, nTiles);
    }
  }
  fs.frags[op.getResult(0)] = std::move(out);
  return success();
}

LogicalResult BackwardEmitter::lowerLoop(scf::ForOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  SmallVector<Value> state;
  SmallVector<Fragment> inits;
  for (Value init : op.getInitArgs()) {
    FailureOr<Fragment> f = fragmentOf(kc, fs, init, op);
    if (failed(f))
      return failure();
    llvm::append_range(state, f->regs);
    inits.push_back(*f);
  }
  Value lb = lift(op.getLowerBound(), map), ub = lift(op.getUpperBound(), map),
        step = lift(op.getStep(), map);
  if (!lb || !ub || !step)
    return failure();
  hazards.settle();
  auto loop = scf::ForOp::create(b, loc, lb, ub, step, state);
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(loop.getBody());
    IRMapping local = map;
    local.map(op.getInductionVar(), loop.getInductionVar());
    fs.bind(op.getRegionIterArgs(), inits, loop.getRegionIterArgs());
    hazards.assumeRead();
    if (failed(lowerBlock(*op.getBody(), local)))
      return failure();
    SmallVector<Value> yield;
    for (auto [v, init] : llvm::zip(op.getYieldedValues(), inits)) {
      FailureOr<Fragment> f = fragmentOf(kc, fs, v, op);
      if (failed(f))
        return failure();
      if (f->kind != init.kind || f->regs.size() != init.regs.size())
        return op.emitOpError("flash-to-gpu: a loop-carried tile changes "
                              "layout");
      llvm::append_range(yield, f->regs);
    }
    hazards.settle();
    scf::YieldOp::create(b, loc, yield);
  }
  fs.bind(op.getResults(), inits, loop.getResults());
  hazards.assumeRead();
  return success();
}

/// A generic with several element-wise results (flash-backward-recompute's
/// score and score_mod' share one region) as one generic per result, each
/// reading the others' inits as inputs: the element-wise lowering computes
/// one tile per op.
void splitResults(linalg::GenericOp g) {
  OpBuilder b(g);
  Location loc = g.getLoc();
  Block &old = *g.getBody();
  unsigned numIns = g.getNumDpsInputs(), numInits = g.getNumDpsInits();
  SmallVector<Value> results;
  for (unsigned r = 0; r < numInits; ++r) {
    SmallVector<Value> ins(g.getDpsInputs());
    SmallVector<AffineMap> maps;
    for (OpOperand *in : g.getDpsInputOperands())
      maps.push_back(g.getMatchingIndexingMap(in));
    SmallVector<unsigned> others;
    for (unsigned i = 0; i < numInits; ++i)
      if (i != r) {
        ins.push_back(g.getDpsInits()[i]);
        maps.push_back(g.getMatchingIndexingMap(g.getDpsInitOperand(i)));
        others.push_back(i);
      }
    maps.push_back(g.getMatchingIndexingMap(g.getDpsInitOperand(r)));
    auto one = linalg::GenericOp::create(
        b, loc, TypeRange{g.getResult(r).getType()}, ins,
        ValueRange{g.getDpsInits()[r]}, maps, g.getIteratorTypesArray(),
        [&](OpBuilder &nb, Location l, ValueRange blockArgs) {
          IRMapping m;
          for (unsigned i = 0; i < numIns; ++i)
            m.map(old.getArgument(i), blockArgs[i]);
          for (auto [pos, i] : llvm::enumerate(others))
            m.map(old.getArgument(numIns + i), blockArgs[numIns + pos]);
          m.map(old.getArgument(numIns + r), blockArgs.back());
          for (Operation &op : old.without_terminator())
            nb.clone(op, m);
          linalg::YieldOp::create(
              nb, l, m.lookupOrDefault(old.getTerminator()->getOperand(r)));
        });
    results.push_back(one.getResult(0));
  }
  g->replaceAllUsesWith(results);
  g.erase();
}

/// A row reduction over several tiles, out += f(ins) (D = rowsum(dO * O)),
/// as the element-wise f(ins) into an f32 accumulator tile and its row sum:
/// the two forms the lowerings take.
LogicalResult splitReduction(linalg::GenericOp g) {
  Block &body = *g.getBody();
  BlockArgument acc = body.getArgument(g.getNumDpsInputs());
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || add->getBlock() != &body || !acc.hasOneUse() ||
      (add.getLhs() != acc && add.getRhs() != acc))
    return g.emitOpError("flash-to-gpu: a row reduction over several tiles "
                         "must sum a term of them (out + f(ins))");
  Value term = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  OpBuilder b(g);
  Location loc = g.getLoc();
  MLIRContext *ctx = g.getContext();
  auto inType = cast<RankedTensorType>(g.getDpsInputs()[0].getType());
  auto tileType = RankedTensorType::get(
      inType.getShape(), b.getF32Type(),
      FragAttr::get(ctx, FragKind::Acc, MmaKind::MmaSync));
  Value empty = tensor::EmptyOp::create(b, loc, tileType.getShape(),
                                        b.getF32Type(), tileType.getEncoding());
  AffineMap id = AffineMap::getMultiDimIdentityMap(2, ctx);
  SmallVector<AffineMap> maps(g.getNumDpsInputs() + 1, id);
  SmallVector<utils::IteratorType> parallel(2, utils::IteratorType::parallel);
  auto terms = linalg::GenericOp::create(
      b, loc, TypeRange{tileType}, g.getDpsInputs(), ValueRange{empty}, maps,
      parallel, [&](OpBuilder &nb, Location l, ValueRange blockArgs) {
        IRMapping m;
        for (unsigned i = 0; i < g.getNumDpsInputs(); ++i)
          m.map(body.getArgument(i), blockArgs[i]);
        for (Operation &op : body.without_terminator())
          if (&op != add.getOperation())
            nb.clone(op, m);
        linalg::YieldOp::create(nb, l, m.lookupOrDefault(term));
      });
  auto sum = linalg::GenericOp::create(
      b, loc, g.getResultTypes(), ValueRange{terms.getResult(0)},
      g.getDpsInits(),
      {id, AffineMap::get(2, 0, getAffineDimExpr(0, ctx), ctx)},
      g.getIteratorTypesArray(),
      [&](OpBuilder &nb, Location l, ValueRange blockArgs) {
        linalg::YieldOp::create(
            nb, l,
            ValueRange{arith::AddFOp::create(nb, l, blockArgs[1], blockArgs[0])
                           .getResult()});
      });
  g->replaceAllUsesWith(sum->getResults());
  g.erase();
  return success();
}

/// Brings a backward grid's generics to the forms the lowerings take.
LogicalResult prepareGrid(GridOp grid) {
  SmallVector<linalg::GenericOp> multi, reductions;
  grid.getBody().walk([&](linalg::GenericOp g) {
    if (g.getNumReductionLoops() == 0 && g.getNumResults() > 1)
      multi.push_back(g);
    if (g.getNumReductionLoops() == 1 && g.getNumDpsInputs() > 1)
      reductions.push_back(g);
  });
  for (linalg::GenericOp g : multi)
    splitResults(g);
  for (linalg::GenericOp g : reductions)
    if (failed(splitReduction(g)))
      return failure();
  return success();
}

} // namespace

int64_t backwardSmemBytes(ConfigAttr config, Type eltType, int64_t headDim) {
  int64_t eltBytes = eltType.getIntOrFloatBitWidth() / 8;
  SmemPlan plan{config.getSmemMap(headDim, eltBytes).rowBytes(),
                config.getBlockM(), config.getBlockN(), eltBytes};
  return plan.total();
}

LogicalResult emitBackwardKernel(OpBuilder &b, Location loc, TiledAttention &t,
                                 gpu::GPUFuncOp func, ConfigAttr config,
                                 Type eltType, int64_t headDim,
                                 SmallVectorImpl<Value> &hostArgs,
                                 int64_t &smemBytes) {
  if (failed(prepareGrid(t.grid)))
    return failure();
  BackwardEmitter emitter(b, loc, t, func, config, eltType, headDim);
  if (failed(emitter.emit(hostArgs)))
    return failure();
  smemBytes = emitter.smemBytes();
  return success();
}

} // namespace mlir::flash::gpu_kernel
