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

Value KernelEmitter::loadCapture(memref::LoadOp load, ValueRange indices) {
  Value memref = load.getMemRef();
  Operation *owner = memref.getDefiningOp();
  if (!owner)
    owner = memref.getParentBlock()->getParentOp();
  if (t.grid->isAncestor(owner)) {
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
  auto it = lifted.find(memref);
  if (it == lifted.end())
    it = lifted.insert({memref, liftTensor(memref, -1, /*staticLayout=*/true)})
             .first;
  KernelTensor &kt = it->second;
  // No clamping here: the indices are the region's own, computed from
  // positions flash-online-softmax already clamped into the sequences, so
  // a read is in bounds exactly when it is on the CPU (memref.load's rule).
  Value ptr = globalPtr(
      kt.ptr, mulNsw(elementOffset(kt, indices, /*nsw=*/true), c(kt.eltBytes)));
  // Read-only for the kernel's lifetime: ld.global.nc.
  return LLVM::LoadOp::create(b, loc, elt, ptr, kt.eltBytes,
                              /*isVolatile=*/false, /*isNonTemporal=*/false,
                              /*isInvariant=*/true);
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
  Value tileBytes = c(smem.kvTileBytes());
  Value kOff = add(c(smem.kOffset()), mul(stage, tileBytes));
  Value vOff = add(c(smem.vOffset()), mul(stage, tileBytes));
  Value full = cmp(arith::CmpIPredicate::sle, add(kvStart, c(bn)), seqK);
  auto ifOp = scf::IfOp::create(b, loc, full, /*withElse=*/true);
  OpBuilder::InsertionGuard guard(b);
  for (bool predicated : {false, true}) {
    b.setInsertionPointToStart(predicated ? &ifOp.getElseRegion().front()
                                          : &ifOp.getThenRegion().front());
    emitTileCopy(k, kvStart, seqK, kPlane, kOff, bn, predicated,
                 /*gather=*/bool(t.table()));
    emitTileCopy(v, kvStart, seqK, vPlane, vOff, bn, predicated,
                 /*gather=*/bool(t.table()));
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

LogicalResult KernelEmitter::lowerStore(TileStoreOp op, IRMapping &map) {
  bool isO = op == t.oStore;
  if (!isO && op != t.lseStore)
    return op.emitOpError("flash-to-gpu: only O and LSE are stored");
  FailureOr<Fragment> f = fragmentOf(op.getTile(), op);
  if (failed(f))
    return failure();
  if ((f->kind == Fragment::Acc) != isO || (isO && f->cols != d))
    return op.emitOpError("flash-to-gpu: O must be a [block_m, head_dim] "
                          "tile and LSE a [block_m] vector");
  KernelTensor &kt = isO ? o : lse;
  Value plane = isO ? oPlane : lsePlane;
  Value row0 = lift(op.getIndices().back(), map);
  Value rows = lift(op.getCount(), map);
  if (!row0 || !rows)
    return failure();
  // The pipeline's drain (Pipeline.cpp), before O overwrites Q's shared
  // memory.
  if (drainPending)
    lowerDrain();
  int64_t dTiles = d / 8;
  auto ifRow = [&](Value cond, function_ref<void()> body) {
    auto ifOp = scf::IfOp::create(b, loc, cond, /*withElse=*/false);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(&ifOp.getThenRegion().front());
    body();
  };
  for (int64_t mt = 0; mt < mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      Value localRow = add(warpRow(mt), add(g, c(8 * h)));
      Value inside = cmp(arith::CmpIPredicate::slt, localRow, rows);
      Value row = add(row0, localRow);
      if (!isO) {
        // LSE: the quad's first lane writes its row.
        Value first = cmp(arith::CmpIPredicate::eq, tq, c(0));
        ifRow(arith::AndIOp::create(b, loc, first, inside), [&] {
          Value elem = add(plane, mul(row, kt.strideS));
          LLVM::StoreOp::create(b, loc, f->regs[2 * mt + h],
                                globalPtr(kt.ptr, mul(elem, c(4))), 4);
        });
        continue;
      }
      if (!f->packed()) {
        // f32 partial O: two floats per thread and d-tile, straight from
        // the accumulators (no staging through shared memory).
        ifRow(inside, [&] {
          auto v2f32 = VectorType::get({2}, f32);
          for (int64_t dt = 0; dt < dTiles; ++dt) {
            Value pair = LLVM::UndefOp::create(b, loc, v2f32);
            for (int64_t e = 0; e < 2; ++e)
              pair = LLVM::InsertElementOp::create(
                  b, loc, pair, f->regs[frag(mt, dt, 2 * h + e, dTiles)],
                  ci32(e));
            Value elem = add(plane, add(mul(row, kt.strideS),
                                        add(c(dt * 8), mul(tq, c(2)))));
            LLVM::StoreOp::create(b, loc, pair,
                                  globalPtr(kt.ptr, mul(elem, c(4))), 8);
          }
        });
        continue;
      }
      for (int64_t dt = 0; dt < dTiles; ++dt) {
        Value off = add(swizzled(localRow, c(dt), bm), mul(tq, c(4)));
        LLVM::StoreOp::create(b, loc, f->regs[frag(mt, dt, 2 * h, dTiles) / 2],
                              smemPtr(off), /*alignment=*/4);
      }
    }
  if (!isO || !f->packed())
    return success();
  syncConsumers();
  // 16-byte chunks of the staged O block; tail rows are not stored.
  int64_t chunksPerRow = d / 8, total = bm * chunksPerRow;
  auto v4i32 = VectorType::get({4}, i32);
  for (int64_t i = 0; i * threads < total; ++i) {
    Value id = add(tid, c(i * threads));
    Value r = arith::DivUIOp::create(b, loc, id, c(chunksPerRow));
    Value ch = arith::RemUIOp::create(b, loc, id, c(chunksPerRow));
    // row0 + r < row0 + rows, not r < rows: LLVM merges row0 + r with the
    // Q tile copy's row (the same expression), and r alone would be one
    // more value per pass kept live from the prologue across the KV loops
    // (ptxas: the sm_90a wgmma d64 kernel took 119 registers, not 96).
    Value row = add(row0, r);
    Value ok = cmp(arith::CmpIPredicate::slt, row, add(row0, rows));
    if (total % threads != 0)
      ok = arith::AndIOp::create(b, loc, ok,
                                 cmp(arith::CmpIPredicate::ult, id, c(total)));
    ifRow(ok, [&] {
      Value chunk = LLVM::LoadOp::create(b, loc, v4i32,
                                         smemPtr(swizzled(r, ch, bm)), 16);
      Value elem = add(plane, add(mul(row, kt.strideS), mul(ch, c(8))));
      LLVM::StoreOp::create(b, loc, chunk, globalPtr(kt.ptr, mul(elem, c(2))),
                            16);
    });
  }
  return success();
}

} // namespace mlir::flash::gpu_kernel
