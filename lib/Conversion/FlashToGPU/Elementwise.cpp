//===- Elementwise.cpp - Element-wise ops and row reductions on fragments -===//
//
// The patterns for the tile math flash-online-softmax writes (the same ops
// the CPU pipeline runs): linalg.fill becomes a register splat; an
// element-wise linalg.generic is cloned once per register of its result,
// each block argument replaced by the register holding that element (a
// row vector broadcast along the columns reads its row's register) and
// linalg.index by the element's coordinate; a row reduction is an
// in-thread pairwise tree over the row's registers plus two xor-shuffles
// across the quad that owns the row (none for a thread-partial sum,
// #flash.frag<row_partial>). The scalar math ops are selected to one instruction each:
// exp2 as MUFU.EX2 (ex2.approx.ftz, FA2's exp2f under --use_fast_math),
// tanh as tanh.approx, log through lg2.approx, fma and max as intrinsics;
// the other arith ops (index arithmetic, casts, compares, selects) are
// cloned, math.absi/absf become max(x, -x) / fabs; a memref.load of a capture (a score_mod or
// mask_mod operand) is a read-only global load (Memory.cpp). In the loops
// that run for most of the keys, a test of a key position compares the
// register's constant column with one bound a row (ColumnBounds.h).
//
//===----------------------------------------------------------------------===//

#include "ColumnBounds.h"
#include "KernelEmitter.h"

#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

LogicalResult lowerFill(const KernelContext &kc, KernelArgs &args,
                        const ScopeState &scope, FragmentState &fs,
                        linalg::FillOp op, IRMapping &map) {
  auto type = dyn_cast<RankedTensorType>(op.getResult(0).getType());
  Value scalar = op.getInputs()[0];
  if (!type || type.getDimSize(0) != kc.bm || type.getRank() > 2 ||
      !scalar.getType().isF32())
    return op.emitOpError("flash-to-gpu: only f32 [block_m] and [block_m, n] "
                          "tiles can be filled in registers");
  Fragment f;
  f.elt = kc.f32;
  if (type.getRank() == 2) {
    f.kind = Fragment::Acc;
    f.cols = type.getDimSize(1);
  } else {
    f.kind = fragmentKind(op.getResult(0));
  }
  Value v = args.lift(scalar, map, scope);
  if (!v)
    return failure();
  f.regs.assign(kc.numRegs(op.getResult(0)), v);
  fs.frags[op.getResult(0)] = std::move(f);
  return success();
}

FailureOr<Fragment> fragmentOf(const KernelContext &kc, FragmentState &fs,
                               Value v, Operation *user, bool keepPartial) {
  auto it = fs.frags.find(v);
  if (it == fs.frags.end())
    return user->emitOpError("flash-to-gpu: an operand is not a tile in "
                             "registers (only Q/K/V tile loads feed matmuls)"),
           failure();
  if (it->second.kind != Fragment::RowPartial || keepPartial)
    return it->second;
  Fragment part = it->second;
  auto total = fs.rowTotals.find(v);
  if (total != fs.rowTotals.end() &&
      llvm::all_of(llvm::enumerate(total->second.regs), [&](auto r) {
        return !fs.emitsRow(r.index()) || r.value();
      }))
    return total->second;
  // The row's total: the quad's parts summed by two xor-shuffles (in a
  // row-local run, only the row being emitted).
  Fragment &row = fs.rowTotals[v];
  if (row.regs.empty()) {
    row = part;
    row.kind = Fragment::Row;
    if (fs.onlyRow)
      row.regs.assign(part.regs.size(), Value());
  }
  for (auto [n, r] : llvm::enumerate(row.regs)) {
    if (!fs.emitsRow(n))
      continue;
    Value x = part.regs[n];
    x = kc.fadd(x, kc.shflXor(x, 1));
    r = kc.fadd(x, kc.shflXor(x, 2));
  }
  return row;
}

LogicalResult
lowerBody(const KernelContext &kc, FragmentState &fs, Block &body,
          IRMapping &map,
          function_ref<LogicalResult(Operation *, IRMapping &)> lowerOp) {
  // Row-local: an element-wise op or row reduction (each lowering checks
  // its maps; both read and write only the elements of the row they
  // compute), or a value with no registers (tensor.empty, scalars).
  auto rowLocal = [](Operation &op) {
    if (isa<linalg::GenericOp>(op)) {
      Fragment::Kind kind = fragmentKind(op.getResult(0));
      return kind != Fragment::Spread && kind != Fragment::Cta &&
             kind != Fragment::Uniform;
    }
    return isa<tensor::EmptyOp>(op) ||
           (llvm::none_of(op.getResultTypes(),
                          [](Type t) { return isa<ShapedType>(t); }) &&
            isMemoryEffectFree(&op));
  };
  // The run is emitted row after row, as FA2 writes its softmax: each
  // row's temporaries die before the next row starts, where emitting op
  // after op keeps every row's live at once (the d64 causal wgmma kernel
  // took 122 registers that way and 96 row by row: 5 programs per SM
  // instead of 4).
  auto ops = llvm::make_pointer_range(body.without_terminator());
  SmallVector<Operation *> all(ops.begin(), ops.end());
  for (size_t i = 0; i < all.size();) {
    size_t end = i;
    int64_t generics = 0;
    while (end < all.size() && rowLocal(*all[end]))
      generics += isa<linalg::GenericOp>(all[end++]);
    if (generics < 2) {
      for (end = std::max(end, i + 1); i < end; ++i)
        if (failed(lowerOp(all[i], map)))
          return failure();
      continue;
    }
    // A body may be emitted more than once (loop copies): the rows kept
    // across the run must be this emission's.
    for (size_t k = i; k < end; ++k)
      for (Value r : all[k]->getResults()) {
        fs.frags.erase(r);
        fs.rowTotals.erase(r);
      }
    auto reset = llvm::make_scope_exit([&] { fs.onlyRow.reset(); });
    int64_t group = kc.rowGroup();
    for (int64_t row = 0; row < 2 * kc.mTiles; row += group) {
      fs.onlyRow = {row, row + group};
      for (size_t k = i; k < end; ++k)
        if (failed(lowerOp(all[k], map)))
          return failure();
    }
    i = end;
  }
  return success();
}

static Value element(const KernelContext &kc, const Fragment &f, int64_t idx) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (!f.packed())
    return f.regs[idx];
  Value pair = LLVM::BitcastOp::create(b, loc, VectorType::get({2}, f.elt),
                                       f.regs[idx / 2]);
  return LLVM::ExtractElementOp::create(b, loc, pair, kc.ci32(idx % 2));
}

Value selectScalar(const KernelContext &kc, KernelArgs &args, Operation &op,
                   IRMapping &m) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  auto arg = [&](unsigned i) { return m.lookup(op.getOperand(i)); };
  if (op.getNumResults() == 1 && op.getResult(0).getType().isF32()) {
    if (isa<math::Exp2Op>(op))
      return kc.exp2(arg(0));
    if (isa<math::FmaOp>(op))
      return kc.fma(arg(0), arg(1), arg(2));
    if (isa<math::TanhOp>(op))
      return kc.tanh(arg(0));
    if (isa<math::LogOp>(op))
      return kc.log(arg(0));
    if (isa<arith::MaxNumFOp>(op))
      return kc.fmax(arg(0), arg(1));
  }
  if (auto load = dyn_cast<memref::LoadOp>(op)) {
    SmallVector<Value> indices;
    for (Value i : load.getIndices())
      indices.push_back(m.lookup(i));
    return loadCapture(kc, args, load, indices);
  }
  // |x| without libdevice (gpu-to-nvvm maps math.absi/absf to __nv_abs /
  // __nv_fabsf, which may be left unresolved): max(x, -x), one abs.s32 /
  // abs.f32 in PTX.
  if (isa<math::AbsIOp>(op))
    return arith::MaxSIOp::create(
        b, loc, arg(0),
        arith::SubIOp::create(
            b, loc,
            arith::ConstantOp::create(b, loc, b.getZeroAttr(arg(0).getType())),
            arg(0)));
  if (isa<math::AbsFOp>(op) && op.getResult(0).getType().isF32())
    return kc.intrinsic("llvm.fabs.f32", {arg(0)});
  if (isa<arith::ArithDialect>(op.getDialect()) && op.getNumRegions() == 0 &&
      op.getNumResults() == 1) {
    Operation *clone = b.clone(op, m);
    // A multiply feeding an add may fuse into one FFMA, as nvcc's default
    // --fmad=true allows (FA2's l = l * alpha + rowsum P is one FFMA).
    // (extf and truncf carry the flags optionally: none is none.)
    if (auto fm = dyn_cast<arith::ArithFastMathInterface>(clone)) {
      arith::FastMathFlagsAttr flags = fm.getFastMathFlagsAttr();
      clone->setAttr(
          fm.getFastMathAttrName(),
          arith::FastMathFlagsAttr::get(
              kc.ctx, (flags ? flags.getValue() : arith::FastMathFlags::none) |
                          arith::FastMathFlags::contract));
    }
    return clone->getResult(0);
  }
  op.emitOpError("flash-to-gpu: no register-level lowering for this op in a "
                 "tile computation");
  return {};
}

LogicalResult cloneBody(Block &body, IRMapping &m, Operation *skip,
                        function_ref<Value(Value)> outside,
                        function_ref<Value(Operation &)> select,
                        function_ref<bool(Operation &)> only) {
  for (Operation &op : body.without_terminator()) {
    // `skip`, and ops an earlier phase cloned (capture reads hoisted above
    // the score GEMM's wait).
    if (&op == skip || m.contains(op.getResult(0)) || (only && !only(op)))
      continue;
    for (Value operand : op.getOperands())
      // A memref (a capture) is not a value of the kernel: its loads
      // are selected as global reads.
      if (!m.contains(operand) && !isa<MemRefType>(operand.getType())) {
        Value lifted = outside(operand);
        if (!lifted)
          return failure();
        m.map(operand, lifted);
      }
    Value r = select(op);
    if (!r)
      return failure();
    m.map(op.getResult(0), r);
  }
  return success();
}

LogicalResult lowerElementwise(const KernelContext &kc, KernelArgs &args,
                               const ScopeState &scope, FragmentState &fs,
                               linalg::GenericOp op, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  Value result = op.getResult(0);
  auto type = cast<RankedTensorType>(result.getType());
  int64_t rank = type.getRank();
  if (rank > 2 || type.getDimSize(0) != kc.bm ||
      !op.getIndexingMapsArray().back().isIdentity())
    return op.emitOpError("flash-to-gpu: an element-wise tile op must write "
                          "a [block_m] or [block_m, n] tile in order");
  Fragment out;
  out.kind = fragmentKind(result);
  out.elt = type.getElementType();
  out.cols = rank == 2 ? type.getDimSize(1) : 0;
  if (rank == 2 && out.cols % 8 != 0)
    return op.emitOpError("flash-to-gpu: tile columns must be a multiple of 8");
  bool keepPartial = out.kind == Fragment::RowPartial;

  // Each used operand: its fragment, and whether it is a row vector read
  // along a [block_m, n] iteration space (broadcast over the columns).
  struct Source {
    BlockArgument arg;
    Fragment frag;
    bool broadcast;
  };
  SmallVector<Source> sources;
  MLIRContext *mctx = op.getContext();
  AffineMap rowOf2 = AffineMap::get(2, 0, getAffineDimExpr(0, mctx), mctx);
  for (OpOperand &operand : op->getOpOperands()) {
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty())
      continue;
    AffineMap m = op.getMatchingIndexingMap(&operand);
    bool broadcast = rank == 2 && m == rowOf2;
    if (!m.isIdentity() && !broadcast)
      return op.emitOpError("flash-to-gpu: an element-wise tile op may read "
                            "tiles in order or row vectors along the columns");
    // Only the init of a partial result stays partial (row_partial); an
    // input is read as its row total.
    FailureOr<Fragment> f = fragmentOf(kc, fs, operand.get(), op,
                                       keepPartial && op.isDpsInit(&operand));
    if (failed(f))
      return failure();
    if (!broadcast && f->cols != out.cols)
      return op.emitOpError("flash-to-gpu: operand and result tiles differ");
    sources.push_back({arg, *f, broadcast});
  }

  // A 16-bit result is packed in pairs: a final truncf is done per pair
  // (one cvt.rn.bf16x2.f32), the rest of the body per element.
  Block &body = *op.getBody();
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *narrow = nullptr;
  if (out.packed())
    if (auto trunc = yielded.getDefiningOp<arith::TruncFOp>();
        trunc && trunc->getBlock() == &body && trunc->hasOneUse() &&
        trunc.getIn().getType().isF32())
      narrow = trunc;

  // An offset from outside the body plus an element's coordinate (say
  // flash-tile's row + linalg.index 0): the thread's part of the coordinate
  // is added to the offset once and each register adds a constant. Cloned
  // literally, every register's coordinate is loop-invariant, LLVM hoists
  // them all out of the KV loop and they stay live across it (a causal d32
  // kernel spilled 16 bytes for its column offsets).
  //
  // Capture reads that need no tile element (a mask_mod's doc[b, j]) are
  // issued for every register before the wait of the score GEMM when that
  // GEMM is wgmma's and in this block, so that their latency overlaps the
  // tensor cores instead of following them: the loads and their index
  // arithmetic, and with ping-pong turns what consumes only them (below).
  // (mma.sync is synchronous: ptxas schedules those loads freely.)
  // A tile element (a non-memref block argument), and the body op that
  // defines a value (null when it comes from outside the body).
  auto isElement = [&](Value v) {
    return isa<BlockArgument>(v) && v.getParentBlock() == &body &&
           !isa<MemRefType>(v.getType());
  };
  auto bodyDef = [&](Value v) -> Operation * {
    Operation *d = v.getDefiningOp();
    return d && d->getBlock() == &body ? d : nullptr;
  };
  llvm::SetVector<Operation *> early;
  Operation *wait = fs.scoresWaitHere(b);
  if (wait)
    for (auto load : body.getOps<memref::LoadOp>()) {
      SmallVector<Operation *> slice{load};
      llvm::SetVector<Operation *> seen;
      bool free = true;
      while (!slice.empty() && free) {
        Operation *o = slice.pop_back_val();
        if (!seen.insert(o))
          continue;
        for (Value v : o->getOperands()) {
          if (isElement(v))
            free = false;
          else if (Operation *d = bodyDef(v))
            slice.push_back(d);
        }
      }
      if (free)
        early.insert(seen.begin(), seen.end());
    }
  // With FA3's ping-pong turns, what consumes only those reads (a document
  // mask's id compare) goes above the wait too: the other warpgroup's
  // softmax runs under this one's GEMM, and the consumers' register budget
  // holds the predicates across it (H200: causal document mask d128 0.967x
  // the time, the other turn kernels unchanged). On a one-warpgroup d64
  // kernel the 32 predicates live across the wait made it 1.16x slower
  // (bench/results/2026-12-02-h200-mask-compares-above-wait.log).
  if (wait && !early.empty() && kc.config.getPingpong())
    for (Operation &o : body.without_terminator()) {
      if (early.contains(&o) || o.getNumResults() != 1)
        continue;
      // Every operand from the body is early (and there is one), none is
      // a tile element.
      bool readsEarly = false, onlyEarly = true;
      for (Value v : o.getOperands()) {
        Operation *d = bodyDef(v);
        readsEarly |= d != nullptr;
        onlyEarly &= !isElement(v) && (!d || early.contains(d));
      }
      if (readsEarly && onlyEarly)
        early.insert(&o);
    }
  OpBuilder::InsertPoint late = b.saveInsertionPoint();
  if (!early.empty())
    b.setInsertionPoint(wait);

  DenseMap<Operation *, std::pair<Value, int64_t>> offsetAdds;
  for (auto addOp : body.getOps<arith::AddIOp>())
    for (unsigned k = 0; k < 2; ++k) {
      auto index = addOp.getOperand(k).getDefiningOp<linalg::IndexOp>();
      Value offset = addOp.getOperand(1 - k);
      if (!index || op.getRegion().isAncestor(offset.getParentRegion()))
        continue;
      Value base = args.lift(offset, map, scope);
      if (!base)
        return failure();
      int64_t dim = index.getDim();
      offsetAdds[addOp] = {
          kc.add(base, dim == 0 ? kc.add(kc.mul(kc.warp, kc.c(16)), kc.g)
                                : kc.mul(kc.tq, kc.c(2))),
          dim};
      break;
    }

  // Bound tests of a column position compare the register's constant
  // with one value per row (ColumnBounds.h), in the loops that run for
  // most of the keys (`main`, and `mask_mod` blocks a hint left partial):
  // a masked band runs a few blocks a program at most, and there the fold
  // measured 5-6 % slower (the d128 non-causal kernel, whose band is its
  // ragged last block; H200,
  // bench/results/2026-12-03-h200-column-fold.log). Only on the wgmma
  // path: the mma.sync kernels hold 4 rows a thread at up to 255
  // registers, and the bounds' live ranges made ptxas spill (d32, d64).
  SmallVector<Operation *> columns;
  KVLoopOp loop = scope.curLoop;
  if (kc.wg && loop &&
      (loop.getRole() == KVLoopRole::Main ||
       loop.getRole() == KVLoopRole::MaskMod))
    for (auto &[add, at] : offsetAdds)
      if (at.second == 1)
        columns.push_back(add);
  ColumnBounds columnBounds(body, columns);
  auto baseOf = [&](Operation *position) {
    return offsetAdds.lookup(position).first;
  };

  int64_t nTiles = out.cols / 8;
  int64_t count = rank == 2 ? kc.mTiles * nTiles * 4 : kc.mTiles * 2;
  auto position = [&](int64_t idx) {
    int64_t mt, h, nt = 0, e = 0;
    if (rank == 2) {
      mt = idx / (nTiles * 4);
      nt = (idx / 4) % nTiles;
      h = (idx % 4) / 2;
      e = idx % 2;
    } else {
      mt = idx / 2;
      h = idx % 2;
    }
    return std::make_tuple(mt, h, nt, e);
  };
  // Per register, in phase 0 (only with early ops) the early ops, in phase
  // 1 the rest; linalg.index is the element's row and column in the tile.
  SmallVector<IRMapping> maps(count);
  SmallVector<Value> values(count);
  // In a row-local run (lowerBody), only the registers of its rows.
  SmallVector<int64_t> order;
  for (int64_t idx = 0; idx < count; ++idx) {
    auto [mt, h, nt, e] = position(idx);
    if (fs.emitsRow(2 * mt + h))
      order.push_back(idx);
  }
  int64_t first = early.empty() ? 1 : 0;
  for (int64_t phase = first; phase < 2; ++phase)
  for (int64_t idx : order) {
    auto [mt, h, nt, e] = position(idx);
    IRMapping &m = maps[idx];
    if (phase == 1)
      for (Source &s : sources)
        m.map(s.arg, s.broadcast ? s.frag.regs[2 * mt + h]
                     : s.frag.kind == Fragment::Acc ? element(kc, s.frag, idx)
                                                    : s.frag.regs[idx]);
    if (phase == first)
      for (auto index : body.getOps<linalg::IndexOp>()) {
        Value coord = index.getDim() == 0
                          ? kc.add(kc.warpRow(mt), kc.add(kc.g, kc.c(8 * h)))
                          : kc.add(kc.c(8 * nt + e), kc.mul(kc.tq, kc.c(2)));
        m.map(index.getResult(), coord);
      }
    auto outside = [&](Value v) { return args.lift(v, map, scope); };
    auto select = [&](Operation &o) -> Value {
      if (isa<linalg::IndexOp>(o))
        return m.lookup(o.getResult(0));
      // A tile position (no overflow: below the sequence length plus a
      // tile), nsw so that a capture load folds the constant into its
      // address.
      if (auto it = offsetAdds.find(&o); it != offsetAdds.end())
        return kc.addNsw(it->second.first, kc.c(it->second.second == 0
                                                    ? mt * 16 * kc.warps + 8 * h
                                                    : 8 * nt + e));
      if (Value test = columnBounds.lower(b, loc, o, m, 8 * nt + e, baseOf))
        return test;
      return selectScalar(kc, args, o, m);
    };
    if (phase == 0) {
      // The early ops only, in body order.
      if (failed(cloneBody(body, m, narrow, outside, select,
                           [&](Operation &o) { return early.contains(&o); })))
        return failure();
      if (idx == order.back())
        b.restoreInsertionPoint(late);
      continue;
    }
    if (failed(cloneBody(body, m, narrow, outside, select)))
      return failure();
    values[idx] = m.lookup(narrow ? narrow->getOperand(0) : yielded);
  }
  // In a row-local run, the rows emitted before this one are kept.
  if (auto done = fs.frags.find(result); fs.onlyRow && done != fs.frags.end())
    out.regs = done->second.regs;
  else
    out.regs.assign(out.packed() ? count / 2 : count, Value());
  for (int64_t i : order) {
    if (!out.packed()) {
      out.regs[i] = values[i];
      continue;
    }
    if (i % 2)
      continue;
    if (narrow) {
      out.regs[i / 2] = kc.packPair(values[i], values[i + 1]);
      continue;
    }
    Type pairType = VectorType::get({2}, out.elt);
    Value pair = LLVM::PoisonOp::create(b, loc, pairType);
    for (int64_t k = 0; k < 2; ++k)
      pair = LLVM::InsertElementOp::create(b, loc, pair, values[i + k],
                                           kc.ci32(k));
    out.regs[i / 2] = LLVM::BitcastOp::create(b, loc, kc.i32, pair);
  }
  fs.frags[result] = std::move(out);
  return success();
}

LogicalResult lowerRowReduction(const KernelContext &kc, KernelArgs &args,
                                const ScopeState &scope, FragmentState &fs,
                                linalg::GenericOp op, IRMapping &map) {
  MLIRContext *mctx = op.getContext();
  AffineMap rowOf2 = AffineMap::get(2, 0, getAffineDimExpr(0, mctx), mctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  Block &body = *op.getBody();
  if (op.getNumDpsInputs() != 1 || maps.size() != 2 ||
      !maps[0].isIdentity() || maps[1] != rowOf2 ||
      op.getIteratorTypesArray()[0] != utils::IteratorType::parallel ||
      !body.getOps<linalg::IndexOp>().empty())
    return op.emitOpError("flash-to-gpu: only reductions of a [block_m, n] "
                          "tile along its rows into a [block_m] vector are "
                          "lowered");
  Value result = op.getResult(0);
  bool partial = fragmentKind(result) == Fragment::RowPartial;
  FailureOr<Fragment> in = fragmentOf(kc, fs, op.getDpsInputs()[0], op);
  FailureOr<Fragment> init =
      fragmentOf(kc, fs, op.getDpsInits()[0], op, partial);
  if (failed(in) || failed(init))
    return failure();
  if (in->kind != Fragment::Acc || in->packed())
    return op.emitOpError("flash-to-gpu: a row reduction reads an f32 tile");
  BlockArgument inArg = body.getArgument(0), accArg = body.getArgument(1);
  Value yielded = body.getTerminator()->getOperand(0);
  bool failedClone = false;
  // The body as a binary op: combine(x, y) = body(in = x, acc = y).
  auto combine = [&](Value x, Value y) -> Value {
    IRMapping m;
    m.map(inArg, x);
    m.map(accArg, y);
    if (failed(cloneBody(
            body, m, nullptr, [&](Value v) { return args.lift(v, map, scope); },
            [&](Operation &o) { return selectScalar(kc, args, o, m); }))) {
      failedClone = true;
      return x;
    }
    return m.lookup(yielded);
  };
  Operation *yieldDef = yielded.getDefiningOp();
  bool idempotent =
      !partial && yieldDef &&
      isa<arith::MaxNumFOp, arith::MaximumFOp, arith::MinNumFOp,
          arith::MinimumFOp>(yieldDef) &&
      llvm::is_contained(yieldDef->getOperands(), inArg) &&
      llvm::is_contained(yieldDef->getOperands(), accArg);
  int64_t nTiles = in->cols / 8;
  Fragment out = *init;
  // In a row-local run, the rows emitted before this one are kept.
  if (auto done = fs.frags.find(result); fs.onlyRow && done != fs.frags.end())
    out = done->second;
  out.kind = partial ? Fragment::RowPartial : Fragment::Row;
  for (int64_t mt = 0; mt < kc.mTiles; ++mt)
    for (int64_t h = 0; h < 2; ++h) {
      if (!fs.emitsRow(2 * mt + h))
        continue;
      SmallVector<Value> vals;
      for (int64_t nt = 0; nt < nTiles; ++nt)
        for (int64_t e = 0; e < 2; ++e)
          vals.push_back(in->regs[kc.frag(mt, nt, 2 * h + e, nTiles)]);
      Value part = kc.tree(vals, combine);
      Value &r = out.regs[2 * mt + h];
      r = init->regs[2 * mt + h];
      // An idempotent combine (max, min) takes the init, the same in the
      // quad's lanes, before the shuffles, as FA2 does: one chain.
      if (idempotent)
        part = combine(part, r);
      // A row's 4 owners are one quad: xor 1 and 2 reach the other three.
      if (!partial) {
        part = combine(part, kc.shflXor(part, 1));
        part = combine(part, kc.shflXor(part, 2));
      }
      r = idempotent ? part : combine(part, r);
    }
  if (failedClone)
    return failure();
  fs.frags[result] = std::move(out);
  return success();
}

} // namespace mlir::flash::gpu_kernel
