//===- KernelEmitter.cpp - Moving the tile IR into an FA2 kernel ---------===//
//
// What every kernel shares: host values and memrefs become kernel arguments
// (KernelArgs: lift, capture, liftTensor), and emit() builds the FA2 forward
// kernel from the grid: its prologue sets the KernelContext's values (block
// ids for the grid's axes, thread ids, shared memory, the tensors and their
// planes), then the K/V pipeline's start (Pipeline.cpp lowers
// flash-pipeline-kv's ops), and then the grid's own ops in order, each
// lowered by its family's lowering with the state that family touches
// (lowerOp): the KV loops as scf.for loops carrying their tiles' registers
// and the pipeline's slot, their bodies (the GEMMs and the online softmax
// as flash-online-softmax wrote it) and the epilogue.
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

Value KernelArgs::capture(Value hostValue) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  auto it = captureArgs.find(hostValue);
  if (it != captureArgs.end())
    return it->second;
  Block &entry = kc.entry;
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
  OpBuilder host(kc.t.grid);
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

Value KernelArgs::lift(Value v, IRMapping &map, const ScopeState &scope,
                       size_t ifDepth, bool inLoop) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  if (Value mapped = map.lookupOrNull(v))
    return mapped;
  Operation *def = v.getDefiningOp();
  // A value from above the scf.if being lowered (e.g. a constant that
  // canonicalize hoisted out of both branches) is lifted before the
  // kernel's scf.if: lifted inside one branch, its mapping would not
  // dominate the other.
  if (ifDepth > 0) {
    auto [src, dst] = scope.ifScopes[ifDepth - 1];
    if (!src->isAncestor(def ? def : v.getParentBlock()->getParentOp())) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPoint(dst);
      return lift(v, map, scope, ifDepth - 1, inLoop);
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
  if (inLoop && scope.curLoop && scope.outerMap &&
      !scope.curLoop->isAncestor(owner)) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(scope.curFor);
    Value outer = lift(v, *scope.outerMap, scope, ifDepth, /*inLoop=*/false);
    if (outer)
      map.map(v, outer);
    return outer;
  }
  bool inside = def ? kc.t.grid->isProperAncestor(def)
                    : kc.t.grid->isAncestor(v.getParentBlock()->getParentOp());
  if (!inside) {
    Value arg = capture(v);
    map.map(v, arg);
    return arg;
  }
  // The size of a host memref: computed on the host, passed in.
  if (auto dim = dyn_cast_or_null<memref::DimOp>(def)) {
    if (!kc.t.grid->isAncestor(
            dim.getSource().getParentBlock()->getParentOp())) {
      if (Value index = dim.getIndex();
          !kc.t.grid->isAncestor(index.getParentBlock()->getParentOp()) ||
          index.getDefiningOp<arith::ConstantOp>()) {
        OpBuilder host(kc.t.grid);
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
    if (!kc.t.grid->isAncestor(
            load.getMemRef().getParentBlock()->getParentOp())) {
      SmallVector<Value> idx;
      for (Value i : load.getIndices())
        if (!idx.emplace_back(lift(i, map, scope, ifDepth, inLoop)))
          return {};
      const KernelTensor &kt = tensor(load.getMemRef());
      Value ptr = kc.globalPtr(
          kt.ptr, kc.mul(kc.elementOffset(kt, idx), kc.c(kt.eltBytes)));
      // A region capture (read by a mask_mod's key bounds, MaskKeys.h) is
      // read-only for the kernel's lifetime, as in the regions:
      // ld.global.nc. Other host memrefs (kv_lens, the hint, the combine's
      // partials) keep their plain loads.
      bool capture = llvm::is_contained(kc.t.captures, load.getMemRef());
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
    (def ? def : kc.t.grid.getOperation())
        ->emitOpError("flash-to-gpu: cannot move this computation into the "
                      "kernel");
    return {};
  }
  for (Value operand : def->getOperands())
    if (!lift(operand, map, scope, ifDepth, inLoop))
      return {};
  Operation *clone = b.clone(*def, map);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

Value KernelContext::elementOffset(const KernelTensor &kt, ValueRange indices,
                                   bool nsw) const {
  Value off = c(0);
  for (auto [i, stride] : llvm::zip(indices, kt.strides))
    off = nsw ? addNsw(off, mulNsw(i, stride)) : add(off, mul(i, stride));
  return off;
}

KernelTensor KernelArgs::liftTensor(Value memref, int64_t seqDim,
                                    bool staticLayout) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  auto type = cast<MemRefType>(memref.getType());
  KernelTensor kt;
  kt.eltBytes = type.getElementTypeBitWidth() / 8;
  // Host side: the aligned pointer, offset and strides of the descriptor.
  OpBuilder host(kc.t.grid);
  auto meta = memref::ExtractStridedMetadataOp::create(host, loc, memref);
  Value alignedIdx =
      memref::ExtractAlignedPointerAsIndexOp::create(host, loc, memref);
  Value alignedI64 =
      arith::IndexCastOp::create(host, loc, host.getI64Type(), alignedIdx);
  Value ptr = LLVM::IntToPtrOp::create(
      host, loc, LLVM::LLVMPointerType::get(kc.ctx), alignedI64);
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
  OpBuilder top = OpBuilder::atBlockBegin(&kc.entry);
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
    b.setInsertionPointToStart(&kc.entry);
  Value global = LLVM::AddrSpaceCastOp::create(
      b, loc, LLVM::LLVMPointerType::get(kc.ctx, 1), ptrArg);
  kt.ptr = kc.globalPtr(global, kc.mul(offset, kc.c(kt.eltBytes)));
  return kt;
}

const KernelTensor &KernelArgs::tensor(Value memref, bool staticLayout) {
  auto it = lifted.find(memref);
  if (it == lifted.end())
    it = lifted.insert({memref, liftTensor(memref, -1, staticLayout)}).first;
  return it->second;
}

LogicalResult KernelArgs::getHostArgs(SmallVectorImpl<Value> &hostArgs) const {
  if (llvm::any_of(captured, [](Value v) { return !v; }))
    return failure();
  hostArgs.assign(captured.begin(), captured.end());
  return success();
}

LogicalResult KernelEmitter::emit(SmallVectorImpl<Value> &hostArgs) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  b.setInsertionPointToStart(&kc.entry);
  IRMapping map;
  // The grid's induction variables are the block ids: x = Q row block
  // (reversed under a causal mask, below), y = query head, z = batch
  // (flash-tile's scf.parallel order).
  ValueRange ivs = kc.t.grid.getInductionVars();
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x);
  if (kc.t.partial()) {
    // Split-KV: x = split * (Q row blocks) + Q row block.
    Value mBlocks = args.lift(kc.t.grid.getUpperBounds()[0], map, scope);
    map.map(ivs[0], arith::RemUIOp::create(b, loc, bx, mBlocks));
    map.map(ivs[3], arith::DivUIOp::create(b, loc, bx, mBlocks));
  } else if (kc.t.grid.getCausal() && (kc.wg || !kc.t.table())) {
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
    map.map(ivs[0], kc.sub(kc.sub(blocks, kc.c(1)), bx));
  } else {
    map.map(ivs[0], bx);
  }
  map.map(ivs[1], gpu::BlockIdOp::create(b, loc, gpu::Dimension::y));
  map.map(ivs[2], gpu::BlockIdOp::create(b, loc, gpu::Dimension::z));
  kc.setThreadIds();

  // Dynamic shared memory: [Q | K stages | V stages], bytes.
  kc.smemPtrType = LLVM::LLVMPointerType::get(kc.ctx, 3);
  kc.smemBase = LLVM::AddressOfOp::create(b, loc, kc.smemPtrType, "flash_smem");
  if (kc.wg) {
    // Align the base up to 1024 bytes (smemBytes() reserved the slack):
    // wgmma's swizzle is a function of the address, ours of the offset.
    Value addr = LLVM::PtrToIntOp::create(b, loc, kc.i32, kc.smemBase);
    Value pad =
        arith::AndIOp::create(b, loc, kc.sub(kc.ci32(0), addr), kc.ci32(1023));
    kc.smemBase = LLVM::GEPOp::create(b, loc, kc.smemPtrType, b.getI8Type(),
                                      kc.smemBase, ValueRange{pad});
  }

  kc.q = args.liftTensor(kc.t.qLoad.getSource());
  kc.k = args.liftTensor(kc.t.kSrc());
  kc.v = args.liftTensor(kc.t.vSrc());
  int64_t split = kc.t.partial() ? 1 : 0;
  kc.o = args.liftTensor(kc.t.oStore.getDest(), 2 + split);
  if (kc.t.lseStore)
    kc.lse = args.liftTensor(kc.t.lseStore.getDest(), 2 + split);

  // The rows the tile loads may read: Q's and the keys' ends.
  kc.seqQ = args.lift(kc.t.qLoad.getLimit(), map, scope);
  kc.seqK = args.lift(kc.t.kLoads.front().getLimit(), map, scope);
  Value row0 = args.lift(kc.t.qLoad.getStart(), map, scope);
  // ([split,] batch, head) planes: every index of a tile read or write but
  // the last (the row).
  auto planeOf = [&](ValueRange indices, const KernelTensor &kt,
                     IRMapping &mp) -> Value {
    Value plane = kc.c(0);
    for (auto [i, index] : llvm::enumerate(indices.drop_back()))
      plane = kc.add(plane, kc.mul(args.lift(index, mp, scope), kt.strides[i]));
    return plane;
  };
  auto loadIndices = [](TileLoadOp load) -> SmallVector<Value> {
    return {load.getBatch(), load.getHead(), load.getStart()};
  };
  kc.qPlane = planeOf(loadIndices(kc.t.qLoad), kc.q, map);
  kc.oPlane = planeOf(kc.t.oStore.getIndices(), kc.o, map);
  if (kc.t.lseStore)
    kc.lsePlane = planeOf(kc.t.lseStore.getIndices(), kc.lse, map);

  // The K/V pipeline starts where flash-pipeline-kv put its start op: the
  // tile values before it that the runs' bounds read (a scan of the keys,
  // UniformBlocks.h) are lowered by then.
  auto startPipeline = [&] {
    // The KV sequence of every loop: trip count, and the block start of
    // iteration j (cloned from the loop body with the iv mapped to j).
    pipeline.trips.clear();
    for (KVLoopOp loop : kc.t.loops) {
      // Upper bound first: the order the bounds' computations are cloned in.
      Value ub = args.lift(loop.getUpper(), map, scope);
      Value lb = args.lift(loop.getLower(), map, scope);
      pipeline.trips.push_back(kc.sub(ub, lb));
    }
    // K and V head planes: the reads' (batch, head) do not depend on the KV
    // iteration (matchGrid checked that every loop reads the same plane).
    // Each uses its own tensor's strides: K and V may be laid out apart (V a
    // slice of a fused QKV projection, K a separate tensor). V's plane is
    // folded into its base pointer once, so the loop keeps as many live
    // registers as with one shared plane (a second plane register made the
    // d256 wgmma kernels spill).
    if (kc.t.table()) {
      // Paged: the KV head's plane; pages are added per row.
      kc.table = args.liftTensor(kc.t.table(), -1);
      kc.tableRow =
          kc.mul(args.lift(kc.t.kLoads.front().getBatch(), map, scope),
                 kc.table.strides[0]);
      OpBuilder host(kc.t.grid);
      kc.pageSize =
          args.capture(memref::DimOp::create(host, loc, kc.t.kSrc(), 2));
      Value kvHead = args.lift(kc.t.kLoads.front().getHead(), map, scope);
      kc.kPlane = kc.mul(kvHead, kc.k.strideH);
      kc.vPlane = kc.mul(kvHead, kc.v.strideH);
    } else {
      kc.kPlane = planeOf(loadIndices(kc.t.kLoads.front()), kc.k, map);
      kc.vPlane = planeOf(loadIndices(kc.t.vLoads.front()), kc.v, map);
    }
    kc.v.ptr = kc.globalPtr(kc.v.ptr, kc.mul(kc.vPlane, kc.c(kc.v.eltBytes)));
    kc.vPlane = kc.c(0);
    // The K/V pipeline's start: the blocks in flight before the loops, or
    // the producer warpgroup and the consumers' own Q (Pipeline.cpp).
    lowerPipelineStart(kc, args, scope, pipeline, map, row0);
  };

  // The grid's ops in order: the initial state, the pipeline's start, the
  // KV loops (their bodies lowered op by op), the epilogue and the stores.
  // Scalar index computations are lifted where they are used.
  int64_t li = 0;
  for (Operation &op : kc.t.grid.getBody().front().without_terminator()) {
    if (&op == kc.t.pipelineStart) {
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
  if (pipeline.consumerRole)
    b.setInsertionPointAfter(pipeline.consumerRole);
  return finishKernel(hostArgs);
}

Value startAt(const KernelContext &kc, KernelArgs &args,
              const ScopeState &scope, int64_t li, Value j, IRMapping &local) {
  // Iteration j of a loop visits block ub - 1 - j (reversed) or lb + j.
  KVLoopOp loop = kc.t.loops[li];
  Value block =
      loop.getReversed()
          ? kc.sub(kc.sub(args.lift(loop.getUpper(), local, scope), kc.c(1)), j)
          : kc.add(args.lift(loop.getLower(), local, scope), j);
  local.map(loop.getBlockIndex(), block);
  return args.lift(kc.t.kLoads[li].getStart(), local, scope);
}

LogicalResult KernelEmitter::lowerOp(Operation *op, IRMapping &map) {
  auto lowerBlockFn = [&](Block &body, IRMapping &m) {
    return lowerBlock(body, m);
  };
  // A tile nobody reads (the LSE of an entry without an LSE output).
  if (isOpTriviallyDead(op))
    return success();
  if (auto fill = dyn_cast<linalg::FillOp>(op))
    switch (fragmentKind(fill.getResult(0))) {
    case Fragment::Uniform:
    case Fragment::Spread:
    case Fragment::Cta:
      return lowerFreeFill(kc, args, scope, fs, fill, map);
    default:
      return lowerFill(kc, args, scope, fs, fill, map);
    }
  if (auto matmul = dyn_cast<linalg::MatmulOp>(op))
    return lowerMatmul(kc, scope, fs, matmul, map);
  if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
    if (!generic.hasPureTensorSemantics() || generic.getNumResults() != 1)
      return op->emitOpError("flash-to-gpu: a tile op computes one tensor");
    Fragment::Kind kind = fragmentKind(generic.getResult(0));
    if (kind == Fragment::Spread || kind == Fragment::Cta)
      return lowerSpread(kc, args, scope, fs, generic, map);
    if (kind == Fragment::Uniform)
      return lowerUniformReduction(kc, args, scope, fs, generic, map);
    if (generic.getNumReductionLoops() == 0)
      return lowerElementwise(kc, args, scope, fs, generic, map);
    return lowerRowReduction(kc, args, scope, fs, generic, map);
  }
  if (auto store = dyn_cast<TileStoreOp>(op))
    return lowerStore(kc, args, scope, fs, pipeline, store, map);
  if (auto extract = dyn_cast<tensor::ExtractOp>(op))
    return lowerExtract(fs, extract, map);
  if (auto ifOp = dyn_cast<scf::IfOp>(op))
    return lowerIf(kc, args, scope, fs, ifOp, map, lowerBlockFn);
  if (auto forOp = dyn_cast<scf::ForOp>(op))
    return lowerFor(kc, args, scope, fs, pipeline, forOp, map, lowerBlockFn);
  if (isPipelineOp(op))
    return lowerPipelineOp(kc, fs, pipeline, op, map);
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

LogicalResult KernelEmitter::lowerBlock(Block &body, IRMapping &map) {
  return lowerBody(kc, fs, body, map,
                   [&](Operation *op, IRMapping &m) { return lowerOp(op, m); });
}

/// The fragment of `v` (a loop init or yielded value) in the layout of the
/// KV loop's iter_arg `arg`.
static FailureOr<Fragment> stateFragment(const KernelContext &kc,
                                         FragmentState &fs, Value v,
                                         BlockArgument arg) {
  Fragment::Kind kind = fragmentKind(arg);
  FailureOr<Fragment> f = fragmentOf(kc, fs, v, arg.getOwner()->getParentOp(),
                                     kind == Fragment::RowPartial);
  if (succeeded(f) && f->kind != kind)
    return arg.getOwner()->getParentOp()->emitOpError(
               "flash-to-gpu: a loop-carried row vector changes layout"),
           failure();
  return f;
}

LogicalResult KernelEmitter::emitKVLoop(int64_t li, IRMapping &map) {
  OpBuilder &b = kc.b;
  Location loc = kc.loc;
  KVLoopOp kvLoop = kc.t.loops[li];
  LoopPipeline &pipe = kc.t.pipes[li];
  // The loop state: every tile iter_arg's registers, then the pipeline's
  // slot (and, with a producer, its phase parity): checkPipeline.
  auto tileArgs = kvLoop.getRegionIterArgs().take_front(pipe.stateBegin);
  SmallVector<Value> state;
  SmallVector<Fragment> inits;
  for (auto [init, arg] : llvm::zip(kvLoop.getInits(), tileArgs)) {
    auto type = cast<RankedTensorType>(init.getType());
    if (!type.getElementType().isF32() || type.getDimSize(0) != kc.bm)
      return kvLoop.emitOpError("flash-to-gpu: the KV loop's state must be "
                                "f32 [block_m] and [block_m, n] tiles");
    FailureOr<Fragment> f = stateFragment(kc, fs, init, arg);
    if (failed(f))
      return failure();
    llvm::append_range(state, f->regs);
    inits.push_back(*f);
  }
  int64_t stageIdx = state.size();
  for (Value init : kvLoop.getInits().drop_front(pipe.stateBegin))
    state.push_back(map.lookup(init));

  auto loop =
      scf::ForOp::create(b, loc, kc.c(0), pipeline.trips[li], kc.c(1), state);
  // The run's role, for reading the kernel's IR (tests, listings).
  loop->setAttr("flash.kv_loop",
                b.getStringAttr(stringifyKVLoopRole(kvLoop.getRole())));
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(loop.getBody());
  Value j = loop.getInductionVar();
  SmallVector<Value> iterArgs(loop.getRegionIterArgs());
  // The loop's own values: its block index is iteration j's block, its
  // pipeline state the scf.for's.
  IRMapping local = map;
  for (auto [arg, value] :
       llvm::zip(kvLoop.getRegionIterArgs().drop_front(pipe.stateBegin),
                 ArrayRef(iterArgs).drop_front(stageIdx)))
    local.map(arg, value);
  Value col0 = startAt(kc, args, scope, li, j, local);
  SmallVector<Value> next = lowerIterationStart(kc, pipeline, li, col0, local);

  // The body's ops on this iteration's registers.
  fs.bind(tileArgs, inits, iterArgs);
  scope.curLoop = kvLoop;
  scope.curLoopIndex = li;
  scope.outerMap = &map;
  scope.curFor = loop;
  auto done = llvm::make_scope_exit([&] {
    scope.curLoop = {};
    scope.outerMap = nullptr;
    scope.curFor = nullptr;
  });
  Block &body = kvLoop.getBody().front();
  if (failed(lowerBlock(body, local)))
    return failure();
  SmallVector<Value> yield;
  for (auto [value, arg] :
       llvm::zip(cast<YieldOp>(body.getTerminator()).getValues(), tileArgs)) {
    FailureOr<Fragment> f = stateFragment(kc, fs, value, arg);
    if (failed(f))
      return failure();
    llvm::append_range(yield, f->regs);
  }
  yield.append(next);
  scf::YieldOp::create(b, loc, yield);

  fs.bind(kvLoop.getResults(), inits, loop.getResults());
  for (auto [result, value] :
       llvm::zip(kvLoop.getResults().drop_front(pipe.stateBegin),
                 loop.getResults().drop_front(stageIdx)))
    map.map(result, value);
  b.setInsertionPointAfter(loop);
  return success();
}

void FragmentState::bind(ValueRange values, ArrayRef<Fragment> layouts,
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
  gpu::ReturnOp::create(kc.b, kc.loc);
  return args.getHostArgs(hostArgs);
}

} // namespace mlir::flash::gpu_kernel
