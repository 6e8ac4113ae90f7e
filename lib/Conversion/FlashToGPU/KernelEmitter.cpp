//===- KernelEmitter.cpp - Moving the tile IR into an FA2 kernel ---------===//
//
// What every kernel shares: host values and memrefs become kernel arguments
// (lift, capture, liftTensor), and emit() builds the FA2 forward kernel from
// the grid: block ids for the grid's axes, shared memory, the K/V
// pipeline's start (Pipeline.cpp lowers flash-pipeline-kv's ops), and then
// the grid's own ops in order, each lowered by its pattern (lowerOp): the
// KV loops as scf.for loops carrying their tiles' registers and the
// pipeline's slot, their bodies (the GEMMs and the online softmax as
// flash-online-softmax wrote it) and the epilogue.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/ScopeExit.h"

#include <limits>

using namespace mlir;
using namespace mlir::flash;

namespace mlir::flash::gpu_kernel {

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
  // A value from above the scf.if being lowered (e.g. a constant that
  // canonicalize hoisted out of both branches) is lifted before the
  // kernel's scf.if: lifted inside one branch, its mapping would not
  // dominate the other.
  if (!ifScopes.empty()) {
    auto [src, dst] = ifScopes.back();
    if (!src->isAncestor(def ? def : v.getParentBlock()->getParentOp())) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(dst);
      ifScopes.pop_back();
      Value lifted = lift(v, map);
      ifScopes.push_back({src, dst});
      return lifted;
    }
  }
  if (def && def->hasTrait<OpTrait::ConstantLike>()) {
    Operation *clone = b.clone(*def);
    map.map(v, clone->getResult(0));
    return clone->getResult(0);
  }
  Operation *owner = def ? def : v.getParentBlock()->getParentOp();
  // A value of the grid that does not vary with the KV loop being emitted
  // is computed once, before it.
  if (curLoop && outerMap && !curLoop->isAncestor(owner)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(curFor);
    KVLoopOp loop = curLoop;
    curLoop = {};
    Value outer = lift(v, *outerMap);
    curLoop = loop;
    if (outer)
      map.map(v, outer);
    return outer;
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
  // A scalar read of a host memref (kv_lens[b], a capture a mask_mod's key
  // bounds read): a global load.
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
      // A region capture (read by a mask_mod's key bounds, MaskKeys.h) is
      // read-only for the kernel's lifetime, as in the regions:
      // ld.global.nc. Other host memrefs (kv_lens, the hint, the combine's
      // partials) keep their plain loads.
      bool capture = llvm::is_contained(t.captures, load.getMemRef());
      Value val = LLVM::LoadOp::create(b, loc, load.getType(), ptr,
                                       kt.eltBytes, /*isVolatile=*/false,
                                       /*isNonTemporal=*/false,
                                       /*isInvariant=*/capture);
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

Value KernelEmitter::elementOffset(KernelTensor &kt, ValueRange indices,
                                   bool nsw) {
  Value off = c(0);
  for (auto [i, stride] : llvm::zip(indices, kt.strides))
    off = nsw ? addNsw(off, mulNsw(i, stride)) : add(off, mul(i, stride));
  return off;
}

KernelTensor KernelEmitter::liftTensor(Value memref, int64_t seqDim,
                                      bool staticLayout) {
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
  // With `staticLayout`, the strides and offset the type knows are
  // constants in the kernel (a capture's unit innermost stride lets LLVM
  // fold its per-register index constants into the load's immediate
  // offset); the others are arguments. The tile tensors keep every stride
  // an argument: their copies use them once per block, and constants there
  // only reshuffle the paged decode kernels' registers (more spills).
  SmallVector<int64_t> staticStrides;
  int64_t staticOffset = ShapedType::kDynamic;
  if (!staticLayout ||
      failed(type.getStridesAndOffset(staticStrides, staticOffset))) {
    staticStrides.assign(type.getRank(), ShapedType::kDynamic);
    staticOffset = ShapedType::kDynamic;
  }
  OpBuilder top = OpBuilder::atBlockBegin(&func.getBody().front());
  auto known = [&](int64_t v, Value dynamic) -> Value {
    if (ShapedType::isDynamic(v))
      return capture(dynamic);
    return arith::ConstantIndexOp::create(top, loc, v);
  };
  Value offset = known(staticOffset, meta.getOffset());
  for (auto [s, stride] : llvm::zip(staticStrides, meta.getStrides()))
    kt.strides.push_back(known(s, stride));
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

LogicalResult KernelEmitter::emit(SmallVectorImpl<Value> &hostArgs) {
  Block &entry = func.getBody().front();
  b.setInsertionPointToStart(&entry);
  IRMapping map;
  // The grid's induction variables are the block ids: x = Q row block
  // (reversed under a causal mask, below), y = query head, z = batch
  // (flash-tile's scf.parallel order).
  ValueRange ivs = t.grid.getInductionVars();
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  if (t.partial()) {
    // Split-KV: x = split * (Q row blocks) + Q row block.
    Value mBlocks = lift(t.grid.getUpperBounds()[0], map);
    map.map(ivs[0], arith::RemUIOp::create(b, loc, bx, mBlocks));
    map.map(ivs[3], arith::DivUIOp::create(b, loc, bx, mBlocks));
  } else if (t.grid.getCausal() && (wg || !t.table())) {
    // Longest first (FA3's LPT order): under a causal mask Q row block m
    // visits about m + 1 key blocks, and the GPU starts programs in block-id
    // order. Block x runs row block gridDim.x - 1 - x, so the last programs
    // to start are the short ones instead of a tail of long ones (H200,
    // causal 16k: d128 1.08x, d192 1.14x, d256 1.16x, mma.sync d96 1.03x
    // faster, no row slower;
    // bench/results/2026-12-02-h200-causal-longest-first.log). Not on paged
    // mma.sync grids: those serve decode (a row block or two, nothing to
    // order), where the block id stays a free special register (the d64
    // causal paged decode chunk spilled 4 bytes with the reversed one).
    Value blocks = gpu::GridDimOp::create(b, loc, gpu::Dimension::x);
    map.map(ivs[0], sub(sub(blocks, c(1)), bx));
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

  q = liftTensor(t.qLoad.getSource());
  k = liftTensor(t.kSrc());
  v = liftTensor(t.vSrc());
  int64_t split = t.partial() ? 1 : 0;
  o = liftTensor(t.oStore.getDest(), 2 + split);
  if (t.lseStore)
    lse = liftTensor(t.lseStore.getDest(), 2 + split);

  // The rows the tile loads may read: Q's and the keys' ends.
  seqQ = lift(t.qLoad.getLimit(), map);
  seqK = lift(t.kLoads.front().getLimit(), map);
  Value row0 = lift(t.qLoad.getStart(), map);
  // ([split,] batch, head) planes: every index of a tile read or write but
  // the last (the row).
  auto planeOf = [&](ValueRange indices, KernelTensor &kt,
                     IRMapping &mp) -> Value {
    Value plane = c(0);
    for (auto [i, index] : llvm::enumerate(indices.drop_back()))
      plane = add(plane, mul(lift(index, mp), kt.strides[i]));
    return plane;
  };
  auto loadIndices = [](TileLoadOp load) -> SmallVector<Value> {
    return {load.getBatch(), load.getHead(), load.getStart()};
  };
  qPlane = planeOf(loadIndices(t.qLoad), q, map);
  oPlane = planeOf(t.oStore.getIndices(), o, map);
  if (t.lseStore)
    lsePlane = planeOf(t.lseStore.getIndices(), lse, map);

  // The K/V pipeline starts where flash-pipeline-kv put its start op: the
  // tile values before it that the runs' bounds read (a scan of the keys,
  // UniformBlocks.h) are lowered by then.
  auto startPipeline = [&] {
    // The KV sequence of every loop: trip count, and the block start of
    // iteration j (cloned from the loop body with the iv mapped to j).
    trips.clear();
    for (KVLoopOp loop : t.loops) {
      // Upper bound first: the order the bounds' computations are cloned in.
      Value ub = lift(loop.getUpper(), map);
      Value lb = lift(loop.getLower(), map);
      trips.push_back(sub(ub, lb));
    }
    // K and V head planes: the reads' (batch, head) do not depend on the KV
    // iteration (matchGrid checked that every loop reads the same plane).
    // Each uses its own tensor's strides: K and V may be laid out apart (V a
    // slice of a fused QKV projection, K a separate tensor). V's plane is
    // folded into its base pointer once, so the loop keeps as many live
    // registers as with one shared plane (a second plane register made the
    // d256 wgmma kernels spill).
    if (t.table()) {
      // Paged: the KV head's plane; pages are added per row.
      table = liftTensor(t.table(), -1);
      tableRow = mul(lift(t.kLoads.front().getBatch(), map), table.strides[0]);
      OpBuilder host(t.grid);
      pageSize = capture(memref::DimOp::create(host, loc, t.kSrc(), 2));
      Value kvHead = lift(t.kLoads.front().getHead(), map);
      kPlane = mul(kvHead, k.strideH);
      vPlane = mul(kvHead, v.strideH);
    } else {
      kPlane = planeOf(loadIndices(t.kLoads.front()), k, map);
      vPlane = planeOf(loadIndices(t.vLoads.front()), v, map);
    }
    v.ptr = globalPtr(v.ptr, mul(vPlane, c(v.eltBytes)));
    vPlane = c(0);
    // The K/V pipeline's start: the blocks in flight before the loops, or
    // the producer warpgroup and the consumers' own Q (Pipeline.cpp).
    lowerPipelineStart(map, row0);
  };

  // The grid's ops in order: the initial state, the pipeline's start, the
  // KV loops (their bodies lowered op by op), the epilogue and the stores.
  // Scalar index computations are lifted where they are used.
  int64_t li = 0;
  for (Operation &op : t.grid.getBody().front().without_terminator()) {
    if (&op == t.pipelineStart) {
      startPipeline();
      continue;
    }
    if (isa<KVLoopOp>(op)) {
      if (failed(emitKVLoop(li++, map)))
        return failure();
      continue;
    }
    if (failed(lowerOp(&op, map)))
      return failure();
  }
  if (consumerRole)
    b.setInsertionPointAfter(consumerRole);
  return finishKernel(hostArgs);
}

Value KernelEmitter::startAt(int64_t li, Value j, IRMapping &local) {
  // Iteration j of a loop visits block ub - 1 - j (reversed) or lb + j.
  KVLoopOp loop = t.loops[li];
  Value block = loop.getReversed()
                    ? sub(sub(lift(loop.getUpper(), local), c(1)), j)
                    : add(lift(loop.getLower(), local), j);
  local.map(loop.getBlockIndex(), block);
  return lift(t.kLoads[li].getStart(), local);
}

LogicalResult KernelEmitter::lowerOp(Operation *op, IRMapping &map) {
  // A tile nobody reads (the LSE of an entry without an LSE output).
  if (isOpTriviallyDead(op))
    return success();
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    switch (fragmentKind(fill.getResult(0))) {
    case Fragment::Uniform:
    case Fragment::Spread:
    case Fragment::Cta:
      return lowerFreeFill(fill, map);
    default:
      return lowerFill(fill, map);
    }
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return lowerMatmul(matmul, map);
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureTensorSemantics() || generic.getNumResults() != 1)
      return op->emitOpError("flash-to-gpu: a tile op computes one tensor");
    Fragment::Kind kind = fragmentKind(generic.getResult(0));
    if (kind == Fragment::Spread || kind == Fragment::Cta)
      return lowerSpread(generic, map);
    if (kind == Fragment::Uniform)
      return lowerUniformReduction(generic, map);
    if (generic.getNumReductionLoops() == 0)
      return lowerElementwise(generic, map);
    return lowerRowReduction(generic, map);
  }
  if (auto store = dyn_cast<TileStoreOp>(op))
    return lowerStore(store, map);
  if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    return lowerExtract(extract, map);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(ifOp, map);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(forOp, map);
  if (isPipelineOp(op))
    return lowerPipelineOp(op, map);
  // The copy schedule issues the tile loads; tensor.empty is only a shape.
  if (isa<TileLoadOp, tensor::EmptyOp>(op))
    return success();
  // Scalars (index math, a kv_lens read) are lifted where they are used.
  if (llvm::none_of(op->getResultTypes(),
                    [](Type type) { return isa<ShapedType>(type); }) &&
      (isMemoryEffectFree(op) || isa<memref::LoadOp>(op)))
    return success();
  return op->emitOpError("flash-to-gpu: no GPU lowering for this op in an "
                         "attention grid");
}

FailureOr<Fragment> KernelEmitter::stateFragment(Value v, BlockArgument arg) {
  Fragment::Kind kind = fragmentKind(arg);
  FailureOr<Fragment> f =
      fragmentOf(v, arg.getOwner()->getParentOp(), kind == Fragment::RowPartial);
  if (succeeded(f) && f->kind != kind)
    return arg.getOwner()->getParentOp()->emitOpError(
               "flash-to-gpu: a loop-carried row vector changes layout"),
           failure();
  return f;
}

LogicalResult KernelEmitter::emitKVLoop(int64_t li, IRMapping &map) {
  KVLoopOp kvLoop = t.loops[li];
  LoopPipeline &pipe = t.pipes[li];
  // The loop state: every tile iter_arg's registers, then the pipeline's
  // slot (and, with a producer, its phase parity): checkPipeline.
  auto tileArgs = kvLoop.getRegionIterArgs().take_front(pipe.stateBegin);
  SmallVector<Value> state;
  SmallVector<Fragment> inits;
  for (auto [init, arg] : llvm::zip(kvLoop.getInits(), tileArgs)) {
    auto type = cast<RankedTensorType>(init.getType());
    if (!type.getElementType().isF32() || type.getDimSize(0) != bm)
      return kvLoop.emitOpError("flash-to-gpu: the KV loop's state must be "
                                "f32 [block_m] and [block_m, n] tiles");
    FailureOr<Fragment> f = stateFragment(init, arg);
    if (failed(f))
      return failure();
    llvm::append_range(state, f->regs);
    inits.push_back(*f);
  }
  int64_t stageIdx = state.size();
  for (Value init : kvLoop.getInits().drop_front(pipe.stateBegin))
    state.push_back(map.lookup(init));

  auto loop = scf::ForOp::create(b, loc, c(0), trips[li], c(1), state);
  // The run's role, for reading the kernel's IR (tests, listings).
  loop->setAttr("flash.kv_loop",
                b.getStringAttr(stringifyKVLoopRole(kvLoop.getRole())));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  SmallVector<Value> args(loop.getRegionIterArgs());
  // The loop's own values: its block index is iteration j's block, its
  // pipeline state the scf.for's.
  IRMapping local = map;
  for (auto [arg, value] :
       llvm::zip(kvLoop.getRegionIterArgs().drop_front(pipe.stateBegin),
                 ArrayRef(args).drop_front(stageIdx)))
    local.map(arg, value);
  Value col0 = startAt(li, j, local);
  SmallVector<Value> next = lowerIterationStart(li, col0, local);

  // The body's ops on this iteration's registers.
  bindRegs(tileArgs, inits, args);
  curLoop = kvLoop;
  curLoopIndex = li;
  outerMap = &map;
  curFor = loop;
  auto done = llvm::make_scope_exit([&] {
    curLoop = {};
    outerMap = nullptr;
    curFor = nullptr;
  });
  Block &body = kvLoop.getBody().front();
  if (failed(lowerBody(body, local)))
    return failure();
  SmallVector<Value> yield;
  for (auto [value, arg] :
       llvm::zip(cast<YieldOp>(body.getTerminator()).getValues(), tileArgs)) {
    FailureOr<Fragment> f = stateFragment(value, arg);
    if (failed(f))
      return failure();
    llvm::append_range(yield, f->regs);
  }
  yield.append(next);
  scf::YieldOp::create(b, loc, yield);

  bindRegs(kvLoop.getResults(), inits, loop.getResults());
  for (auto [result, value] :
       llvm::zip(kvLoop.getResults().drop_front(pipe.stateBegin),
                 loop.getResults().drop_front(stageIdx)))
    map.map(result, value);
  b.setInsertionPointAfter(loop);
  return success();
}

void KernelEmitter::bindRegs(ValueRange values, ArrayRef<Fragment> layouts,
                             ValueRange regs) {
  int64_t pos = 0;
  for (auto [v, f] : llvm::zip(values, layouts)) {
    Fragment cur = f;
    for (Value &r : cur.regs)
      r = regs[pos++];
    frags[v] = std::move(cur);
  }
}

LogicalResult KernelEmitter::finishKernel(SmallVectorImpl<Value> &hostArgs) {
  gpu::ReturnOp::create(b, loc);
  if (llvm::any_of(captured, [](Value v) { return !v; }))
    return failure();
  hostArgs.assign(captured.begin(), captured.end());
  return success();
}

} // namespace mlir::flash::gpu_kernel
