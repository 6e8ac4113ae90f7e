//===- Memory.cpp - Shared-memory tiles for flash-to-gpu -----------------===//
//
// The memory side of the FA2 kernel: the XOR swizzle of shared-memory tiles
// (or wgmma's 128-byte-swizzle canonical layout), 16-byte cp.async copies of
// Q and of K/V blocks (zero-filled past the sequence end, gathered per row
// for paged K/V; Pipeline.cpp decides when and into which slot), ldmatrix;
// flash.tile_store of
// the epilogue's O (16-bit O staged through the shared memory Q used and
// written out in 16-byte chunks, split-KV's f32 partial O straight from the
// registers) and of LSE (one lane per row); reads of captures (the tensors
// a score_mod / mask_mod reads) from tile computations.
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

Value loadCapture(const KernelContext &kc, KernelArgs &args,
                  memref::LoadOp load, ValueRange indices) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value memref = load.getMemRef();
  Operation *owner = memref.getDefiningOp();
  if (!owner)
    owner = memref.getParentBlock()->getParentOp();
  if (kc.t.grid->isAncestor(owner)) {
    load.emitOpError("flash-to-gpu: a tile computation reads only memrefs "
                     "defined outside the grid (captures)");
    return {};
  }
  auto type = cast<MemRefType>(memref.getType());
  Type elt = type.getElementType();
  if (!elt.isIntOrFloat() || elt.getIntOrFloatBitWidth() % 8 != 0) {
    load.emitOpError("flash-to-gpu: a capture of element type ")
        << elt << " cannot be read on the GPU (whole bytes only)";
    return {};
  }
  const KernelTensor &kt = args.tensor(memref, /*staticLayout=*/true);
  // No clamping here: the indices are the region's own, computed from
  // positions flash-online-softmax already clamped into the sequences, so
  // a read is in bounds exactly when it is on the CPU (memref.load's rule).
  Value ptr = kc.globalPtr(
      kt.ptr, kc.mulNsw(kc.elementOffset(kt, indices, /*nsw=*/true),
                        kc.c(kt.eltBytes)));
  // Read-only for the kernel's lifetime: ld.global.nc.
  return LLVM::LoadOp::create(b, loc, elt, ptr, kt.eltBytes,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/true);
}

Value KernelContext::swizzled(Value row, Value chunk, int64_t rows) const {
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
  Value x = smem.pitch >= 64
                ? arith::AndIOp::create(b, loc, row, c(7)).getResult()
                : arith::AndIOp::create(
                      b, loc, arith::ShRUIOp::create(b, loc, row, c(1)), c(3))
                      .getResult();
  Value phys = arith::XOrIOp::create(b, loc, chunk, x);
  return add(mul(row, c(smem.rowBytes())), mul(phys, c(16)));
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
void emitTileCopy(const KernelContext &kc, CopyTeam team,
                  const KernelTensor &src, Value rowStart, Value rowLimit,
                  Value planeOffset, Value smemOffset, int64_t rows,
                  bool predicated, bool gather) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  int64_t chunksPerRow = kc.d / 8;
  int64_t total = rows * chunksPerRow;
  int64_t threads = team.threads;
  Value tid = team.tid;
  bool uniform = threads % chunksPerRow == 0;
  assert(total % threads == 0 && "checked by checkSupported");
  int64_t rowsPerPass = uniform ? threads / chunksPerRow : 0;
  Value r0 = arith::DivUIOp::create(b, loc, tid, kc.c(chunksPerRow));
  Value ch = arith::RemUIOp::create(b, loc, tid, kc.c(chunksPerRow));
  Value planePtr =
      kc.globalPtr(src.ptr, kc.mul(planeOffset, kc.c(src.eltBytes)));
  Value elem =
      kc.add(kc.mul(kc.add(rowStart, r0), src.strideS), kc.mul(ch, kc.c(8)));
  Value gptr = kc.globalPtr(planePtr, kc.mul(elem, kc.c(src.eltBytes)));
  Value step = kc.mul(src.strideS, kc.c(rowsPerPass * src.eltBytes));
  for (int64_t i = 0; i * threads < total; ++i) {
    Value r = kc.add(r0, kc.c(i * rowsPerPass));
    if (!uniform && i > 0) {
      Value id = kc.add(tid, kc.c(i * threads));
      r = arith::DivUIOp::create(b, loc, id, kc.c(chunksPerRow));
      ch = arith::RemUIOp::create(b, loc, id, kc.c(chunksPerRow));
      elem =
          kc.add(kc.mul(kc.add(rowStart, r), src.strideS), kc.mul(ch, kc.c(8)));
      gptr = kc.globalPtr(planePtr, kc.mul(elem, kc.c(src.eltBytes)));
    }
    Value sptr = kc.smemPtr(kc.add(smemOffset, kc.swizzled(r, ch, rows)));
    Value from = gptr, bytes;
    if (gather) {
      // Paged: key j sits in slot j % P of page table[b, j / P]; rows past
      // the keys read key 0's page (mapped) and are zero-filled below.
      Value j = kc.add(rowStart, r);
      if (predicated)
        j = kc.sel(kc.cmp(arith::CmpIPredicate::slt, j, rowLimit), j, kc.c(0));
      Value entry = LLVM::LoadOp::create(
          b, loc, kc.i32,
          kc.globalPtr(
              kc.table.ptr,
              kc.mul(kc.add(kc.tableRow, kc.mul(arith::DivUIOp::create(
                                                    b, loc, j, kc.pageSize),
                                                kc.table.strides[1])),
                     kc.c(4))),
          4);
      Value page = arith::IndexCastOp::create(b, loc, b.getIndexType(), entry);
      Value slot = arith::RemUIOp::create(b, loc, j, kc.pageSize);
      Value elemOff =
          kc.add(kc.add(kc.mul(page, src.strideB), kc.mul(slot, src.strideS)),
                 kc.mul(ch, kc.c(8)));
      from = kc.globalPtr(planePtr, kc.mul(elemOff, kc.c(src.eltBytes)));
      gptr = from;
    }
    if (predicated) {
      Value valid =
          kc.cmp(arith::CmpIPredicate::slt, kc.add(rowStart, r), rowLimit);
      from = kc.sel(valid, gptr, gather ? gptr : planePtr);
      bytes = kc.sel(valid, kc.ci32(16), kc.ci32(0));
    }
    NVVM::CpAsyncOp::create(b, loc, sptr, from, 16,
                            NVVM::LoadCacheModifierKind::CG, bytes);
    if (uniform && !gather && (i + 1) * threads < total)
      gptr = kc.globalPtr(gptr, step);
  }
}

/// K and V of the block starting at `kvStart` into `stage`; only a block
/// that crosses the end of the keys pays for the row predicate.
void emitKVCopy(const KernelContext &kc, CopyTeam team, Value kvStart,
                Value stage) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value tileBytes = kc.c(kc.smem.kvTileBytes());
  Value kOff = kc.add(kc.c(kc.smem.kOffset()), kc.mul(stage, tileBytes));
  Value vOff = kc.add(kc.c(kc.smem.vOffset()), kc.mul(stage, tileBytes));
  Value full =
      kc.cmp(arith::CmpIPredicate::sle, kc.add(kvStart, kc.c(kc.bn)), kc.seqK);
  auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool predicated : {false, true}) {
    b.setInsertionPointToStart(predicated ? &ifOp.getElseRegion().front()
                                          : &ifOp.getThenRegion().front());
    emitTileCopy(kc, team, kc.k, kvStart, kc.seqK, kc.kPlane, kOff, kc.bn,
                 predicated,
                 /*gather=*/bool(kc.t.table()));
    emitTileCopy(kc, team, kc.v, kvStart, kc.seqK, kc.vPlane, vOff, kc.bn,
                 predicated,
                 /*gather=*/bool(kc.t.table()));
  }
}

SmallVector<Value> ldmatrix(const KernelContext &kc, Value byteOffset,
                            bool transpose) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  auto i32x4 = LLVM::LLVMStructType::getLiteral(
      kc.ctx, {kc.i32, kc.i32, kc.i32, kc.i32});
  Value res = NVVM::LdMatrixOp::create(
      b, loc, i32x4, kc.smemPtr(byteOffset), 4,
      transpose ? NVVM::MMALayout::col : NVVM::MMALayout::row,
      NVVM::LdStMatrixShapeAttr::get(kc.ctx, 8, 8),
      NVVM::LdStMatrixEltType::B16);
  SmallVector<Value> regs;
  for (int64_t i = 0; i < 4; ++i)
    regs.push_back(LLVM::ExtractValueOp::create(b, loc, res, i));
  return regs;
}

LogicalResult lowerStore(const KernelContext &kc, KernelArgs &args,
                         const ScopeState &scope, FragmentState &fs,
                         PipelineState &pipeline, TileStoreOp op,
                         IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  bool isO = op == kc.t.oStore;
  if (!isO && op != kc.t.lseStore)
    return op.emitOpError("flash-to-gpu: only O and LSE are stored");
  FailureOr<Fragment> f = fragmentOf(kc, fs, op.getTile(), op);
  if (failed(f))
    return failure();
  if ((f->kind == Fragment::Acc) != isO || (isO && f->cols != kc.d))
    return op.emitOpError("flash-to-gpu: O must be a [block_m, head_dim] "
                          "tile and LSE a [block_m] vector");
  const KernelTensor &kt = isO ? kc.o : kc.lse;
  Value plane = isO ? kc.oPlane : kc.lsePlane;
  Value row0 = args.lift(op.getIndices().back(), map, scope);
  Value rows = args.lift(op.getCount(), map, scope);
  if (!row0 || !rows)
    return failure();
  // The pipeline's drain (Pipeline.cpp), before O overwrites Q's shared
  // memory.
  if (pipeline.drainPending)
    lowerDrain(kc, pipeline);
  int64_t dTiles = kc.d / 8;
  auto ifRow = [&](Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  };
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value localRow = kc.add(kc.warpRow(mt), kc.add(kc.g, kc.c(8 * h)));
      Value inside = kc.cmp(arith::CmpIPredicate::slt, localRow, rows);
      Value row = kc.add(row0, localRow);
      if (!isO) {
        // LSE: the quad's first lane writes its row.
        Value first = kc.cmp(arith::CmpIPredicate::eq, kc.tq, kc.c(0));
        ifRow(arith::AndIOp::create(b, loc, first, inside), [&] {
          Value elem = kc.add(plane, kc.mul(row, kt.strideS));
          LLVM::StoreOp::create(b, loc, f->regs[2 * mt + h],
                                kc.globalPtr(kt.ptr, kc.mul(elem, kc.c(4))), 4);
        });
        continue;
      }
      if (!f->packed()) {
        // f32 partial O: two floats per thread and d-tile, straight from
        // the accumulators (no staging through shared memory).
        ifRow(inside, [&] {
          auto v2f32 = VectorType::get({2}, kc.f32);
          for (int64_t dt = 0; dt < dTiles; ++dt) {
            Value pair = LLVM::UndefOp::create(b, loc, v2f32);
            for (int64_t e = 0; e < 2; ++e)
              pair = LLVM::InsertElementOp::create(
                  b, loc, pair, f->regs[kc.frag(mt, dt, 2 * h + e, dTiles)],
                  kc.ci32(e));
            Value elem = kc.add(
                plane, kc.add(kc.mul(row, kt.strideS),
                              kc.add(kc.c(dt * 8), kc.mul(kc.tq, kc.c(2)))));
            LLVM::StoreOp::create(
                b, loc, pair, kc.globalPtr(kt.ptr, kc.mul(elem, kc.c(4))), 8);
          }
        });
        continue;
      }
      for (int64_t dt = 0; dt < dTiles; ++dt) {
        Value off = kc.add(kc.swizzled(localRow, kc.c(dt), kc.bm),
                           kc.mul(kc.tq, kc.c(4)));
        LLVM::StoreOp::create(b, loc,
                              f->regs[kc.frag(mt, dt, 2 * h, dTiles) / 2],
                              kc.smemPtr(off), /*alignment=*/4);
      }
    }
  if (!isO || !f->packed())
    return success();
  kc.syncConsumers();
  // 16-byte chunks of the staged O block; tail rows are not stored.
  int64_t chunksPerRow = kc.d / 8, total = kc.bm * chunksPerRow;
  auto v4i32 = VectorType::get({4}, kc.i32);
  for (int64_t i = 0; i * kc.threads < total; ++i) {
    Value id = kc.add(kc.tid, kc.c(i * kc.threads));
    Value r = arith::DivUIOp::create(b, loc, id, kc.c(chunksPerRow));
    Value ch = arith::RemUIOp::create(b, loc, id, kc.c(chunksPerRow));
    // row0 + r < row0 + rows, not r < rows: LLVM merges row0 + r with the
    // Q tile copy's row (the same expression), and r alone would be one
    // more value per pass kept live from the prologue across the KV loops
    // (ptxas: the sm_90a wgmma d64 kernel took 119 registers, not 96).
    Value row = kc.add(row0, r);
    Value ok = kc.cmp(arith::CmpIPredicate::slt, row, kc.add(row0, rows));
    if (total % kc.threads != 0)
      ok = arith::AndIOp::create(
          b, loc, ok, kc.cmp(arith::CmpIPredicate::ult, id, kc.c(total)));
    ifRow(ok, [&] {
      Value chunk = LLVM::LoadOp::create(
          b, loc, v4i32, kc.smemPtr(kc.swizzled(r, ch, kc.bm)), 16);
      Value elem =
          kc.add(plane, kc.add(kc.mul(row, kt.strideS), kc.mul(ch, kc.c(8))));
      LLVM::StoreOp::create(b, loc, chunk,
                            kc.globalPtr(kt.ptr, kc.mul(elem, kc.c(2))), 16);
    });
  }
  return success();
}

} // namespace mlir::flash::gpu_kernel
