//===- FlashToGPU.cpp - flash.grid -> FA2 kernels and their launches ------===//
//
// flash-to-gpu: lowers each attention grid of tile-level ops after
// flash-online-softmax (flash.grid holding the Q/K/V flash.tile_loads,
// flash.kv_loop runs whose bodies are the online softmax's linalg ops, the
// epilogue's ops and the flash.tile_store of O and LSE) to a
// FlashAttention-2 forward kernel, a gpu.func in the gpu.module
// @flash_kernels, and replaces the grid by its gpu.launch_func; each combine
// grid (split-KV) likewise. The tiles' layouts are flash-assign-layouts'
// (#flash.frag encodings): a grid without them is refused. This file
// matches the grid's ops, checks what the kernels support, builds the
// launch and the artifact's ABI record;
// KernelEmitter.h lists where each FA2 idea of the kernel itself is emitted.
//
//===----------------------------------------------------------------------===//

#include "KernelEmitter.h"

#include "flash/Conversion/Passes.h"
#include "flash/Target/Targets.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHTOGPU
#include "flash/Conversion/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;
using namespace mlir::flash::gpu_kernel;

namespace {

/// The K/V loads of every KV loop must read the same plane of the same
/// tensors (the kernel streams one sequence of blocks through one ring).
static bool samePlane(TileLoadOp a, TileLoadOp b) {
  return a.getSource() == b.getSource() && a.getBatch() == b.getBatch() &&
         a.getHead() == b.getHead() && a.getLimit() == b.getLimit() &&
         a.getBlockTable() == b.getBlockTable();
}

/// True when `op` (with its nested ops, where its effects are theirs: an
/// scf.if) has no memory effect but reads (unknown effects count).
static bool readsAtMost(Operation *op) {
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  return effects &&
         llvm::all_of(*effects, [](const MemoryEffects::EffectInstance &e) {
           return isa<MemoryEffects::Read>(e.getEffect());
         });
}

/// The K and V tile reads of a KV loop, by the role flash-tile gave them.
static LogicalResult matchKVLoads(KVLoopOp loop, TileLoadOp &k, TileLoadOp &v) {
  for (auto load : loop.getBody().front().getOps<TileLoadOp>()) {
    TileLoadOp &slot = load.getRole() == TileRole::K ? k : v;
    if (slot)
      return load.emitOpError("flash-to-gpu: a KV loop reads one K tile and "
                              "one V tile");
    slot = load;
  }
  if (!k || !v)
    return loop.emitOpError("flash-to-gpu: a KV loop must read one K tile "
                            "(S = Q K^T) and one V tile (O += P V)");
  return success();
}

/// The argument of `f`'s entry block that `v` is, through views and buffer
/// casts (memref.cast, subview, reinterpret_cast, to_buffer, to_tensor).
static std::optional<unsigned> entryArgument(Value v, func::FuncOp f) {
  while (v) {
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() != &f.getBody().front())
        return std::nullopt;
      return arg.getArgNumber();
    }
    Operation *def = v.getDefiningOp();
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      v = view.getViewSource();
    else if (auto toBuffer = dyn_cast<bufferization::ToBufferOp>(def))
      v = toBuffer.getTensor();
    else if (auto toTensor = dyn_cast<bufferization::ToTensorOp>(def))
      v = toTensor.getBuffer();
    else
      return std::nullopt;
  }
  return std::nullopt;
}

/// The captures of the attention grid `t` (see the file comment), in the
/// entry's argument order, then in the order of their definitions.
static SmallVector<Value>
capturesOf(GridOp grid, const DenseSet<Value> &excluded, func::FuncOp f);

static SmallVector<Value> findCaptures(TiledAttention &t, func::FuncOp f) {
  GridOp grid = t.grid;
  DenseSet<Value> excluded = {t.qLoad.getSource(), t.oStore.getDest()};
  if (t.lseStore)
    excluded.insert(t.lseStore.getDest());
  // Q/K/V/O/LSE, the block table and the grid's own operands (kv_lens and
  // the block-mask hint, which bound the KV loops) are no region captures.
  for (auto [k, v] : llvm::zip(t.kLoads, t.vLoads)) {
    excluded.insert(k.getSource());
    excluded.insert(v.getSource());
    if (Value table = k.getBlockTable())
      excluded.insert(table);
  }
  for (Value bound : {grid.getKvLens(), grid.getBlockMask()})
    if (bound)
      excluded.insert(bound);
  return capturesOf(grid, excluded, f);
}

/// The memrefs from outside `grid` that its ops read but `excluded`, in the
/// entry's argument order, then in the order of their definitions.
static SmallVector<Value>
capturesOf(GridOp grid, const DenseSet<Value> &excluded, func::FuncOp f) {
  auto outside = [&](Value v) {
    Operation *owner = v.getDefiningOp();
    if (!owner)
      owner = v.getParentBlock()->getParentOp();
    return !grid->isAncestor(owner);
  };
  llvm::SetVector<Value> found;
  grid.getBody().walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()) && outside(operand) &&
          !excluded.contains(operand))
        found.insert(operand);
  });
  // Definition order of the function's ops, after its arguments.
  DenseMap<Operation *, unsigned> position;
  f.walk([&](Operation *op) { position[op] = position.size(); });
  unsigned numArgs = f.getNumArguments();
  auto key = [&](Value v) -> uint64_t {
    if (std::optional<unsigned> arg = entryArgument(v, f))
      return *arg;
    Operation *def = v.getDefiningOp();
    return uint64_t(numArgs) +
           (def ? position.lookup(def) : position.lookup(
                                              v.getParentBlock()->getParentOp()));
  };
  SmallVector<Value> captures(found.begin(), found.end());
  llvm::stable_sort(captures,
                    [&](Value a, Value b) { return key(a) < key(b); });
  return captures;
}

/// The capture memref the host value of a kernel argument describes (its
/// pointer, offset, a stride or a size), or null.
static Value describedMemref(Value hostArg) {
  while (Operation *def = hostArg.getDefiningOp()) {
    if (isa<arith::IndexCastOp, LLVM::IntToPtrOp>(def)) {
      hostArg = def->getOperand(0);
      continue;
    }
    if (isa<memref::ExtractStridedMetadataOp,
            memref::ExtractAlignedPointerAsIndexOp, memref::DimOp>(def))
      return def->getOperand(0);
    return {};
  }
  return {};
}

/// Moves the kernel arguments of the captures after the other ones, in the
/// captures' order (each capture's own arguments keep their order).
static void moveCaptureArgsLast(gpu::GPUFuncOp func,
                                SmallVectorImpl<Value> &hostArgs,
                                ArrayRef<Value> captures) {
  Block &entry = func.getBody().front();
  unsigned n = entry.getNumArguments();
  SmallVector<unsigned> order;
  SmallVector<std::pair<unsigned, unsigned>> moved; // (capture, arg)
  for (unsigned i = 0; i < n; ++i) {
    const Value *it = llvm::find(captures, describedMemref(hostArgs[i]));
    if (it == captures.end())
      order.push_back(i);
    else
      moved.push_back({unsigned(it - captures.begin()), i});
  }
  if (moved.empty())
    return;
  llvm::stable_sort(moved, [](auto a, auto b) { return a.first < b.first; });
  for (auto [capture, arg] : moved)
    order.push_back(arg);
  SmallVector<Value> newHostArgs;
  for (unsigned i : order) {
    BlockArgument old = entry.getArgument(i);
    old.replaceAllUsesWith(entry.addArgument(old.getType(), old.getLoc()));
    newHostArgs.push_back(hostArgs[i]);
  }
  entry.eraseArguments(0, n);
  hostArgs.assign(newHostArgs.begin(), newHostArgs.end());
}

/// The ABI record's description of capture argument `arg` of `f`, or
/// failure (with a diagnostic) when the runtime could not describe it.
static FailureOr<llvm::json::Object> captureRecord(func::FuncOp f,
                                                   unsigned arg) {
  auto type = dyn_cast<MemRefType>(f.getArgument(arg).getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type || failed(type.getStridesAndOffset(strides, offset)))
    return f.emitOpError("flash-to-gpu: capture argument ")
           << arg << " must be a memref with a strided layout, not "
           << f.getArgument(arg).getType();
  Type elt = type.getElementType();
  std::string dtype = elt.isF32()        ? "f32"
                      : elt.isInteger(32) ? "i32"
                      : elt.isBF16()      ? "bf16"
                      : elt.isF16()       ? "f16"
                                          : "";
  if (dtype.empty())
    llvm::raw_string_ostream(dtype) << elt; // The runtime refuses it.
  llvm::json::Array shape, strideList;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    shape.push_back(type.isDynamicDim(i) ? -1 : type.getDimSize(i));
    strideList.push_back(ShapedType::isDynamic(strides[i]) ? -1 : strides[i]);
  }
  return llvm::json::Object{{"dtype", dtype},
                            {"rank", type.getRank()},
                            {"arg", arg},
                            {"shape", std::move(shape)},
                            {"strides", std::move(strideList)},
                            {"contiguous", type.getLayout().isIdentity()}};
}

/// The ABI record's "captures": captureRecord of each of `args`.
static FailureOr<llvm::json::Array>
captureRecords(func::FuncOp f, ArrayRef<unsigned> args) {
  llvm::json::Array list;
  for (unsigned arg : args) {
    FailureOr<llvm::json::Object> record = captureRecord(f, arg);
    if (failed(record))
      return failure();
    list.push_back(std::move(*record));
  }
  return list;
}

FailureOr<TiledAttention> matchGrid(GridOp grid) {
  TiledAttention t;
  t.grid = grid;
  WalkResult unexpanded = grid.getBody().walk([&](Operation *op) {
    if (!isa<TileUpdateOp, TileFinalizeOp>(op))
      return WalkResult::advance();
    op->emitOpError("flash-to-gpu: run flash-online-softmax first (it "
                    "expands the online softmax this op stands for)");
    return WalkResult::interrupt();
  });
  if (unexpanded.wasInterrupted())
    return failure();
  for (Operation &op : grid.getBody().front().without_terminator()) {
    if (auto loop = dyn_cast<KVLoopOp>(op)) {
      TileLoadOp kLoad, vLoad;
      if (failed(matchKVLoads(loop, kLoad, vLoad)))
        return failure();
      if (!t.kLoads.empty() && (!samePlane(t.kLoads.front(), kLoad) ||
                                !samePlane(t.vLoads.front(), vLoad)))
        return loop.emitOpError("flash-to-gpu: every KV loop must read the "
                                "same K/V plane");
      WalkResult effects = loop.getBody().walk([&](Operation *inner) {
        if (readsAtMost(inner) || isPipelineOp(inner))
          return WalkResult::advance();
        inner->emitOpError("flash-to-gpu: unexpected op with memory effects "
                           "in a KV loop");
        return WalkResult::interrupt();
      });
      if (effects.wasInterrupted())
        return failure();
      t.loops.push_back(loop);
      t.kLoads.push_back(kLoad);
      t.vLoads.push_back(vLoad);
    } else if (auto load = dyn_cast<TileLoadOp>(op)) {
      // The verifier keeps K and V loads inside KV loops.
      if (t.qLoad)
        return load.emitOpError("flash-to-gpu: an attention grid reads one "
                                "Q tile");
      t.qLoad = load;
    } else if (auto store = dyn_cast<TileStoreOp>(op)) {
      TileStoreOp &slot =
          store.getRole() == TileRole::O ? t.oStore : t.lseStore;
      if (slot)
        return store.emitOpError("flash-to-gpu: only the epilogue's O and "
                                 "LSE are stored, once each");
      slot = store;
    } else if (!readsAtMost(&op) && !isPipelineOp(&op)) {
      // Index arithmetic is cloned into the kernel where it is used and the
      // state's initial tiles are registers there; an op with effects of
      // its own would be lost.
      return op.emitOpError("flash-to-gpu: unexpected op in an attention "
                            "grid");
    }
  }
  if (t.loops.empty() || !t.qLoad || !t.oStore)
    return grid.emitOpError("flash-to-gpu: an attention grid needs KV loops, "
                            "the Q tile load and the store of O");
  return t;
}

struct FlashToGpuPass : flash::impl::FlashToGpuBase<FlashToGpuPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkChipOption(module, "flash-to-gpu", chip, features)) ||
        failed(checkOptionRange(module, "flash-to-gpu", "smem-kb",
                                smemLimitKB, 1, 1024)) ||
        failed(checkOptionRange(module, "flash-to-gpu", "producer-regs",
                                producerRegs, RegisterSplit::kMinProducerRegs,
                                RegisterSplit::kMaxProducerRegs)))
      return signalPassFailure();
    // The range is refused above in every pass's words; the granule here.
    if (getRegisterSplit(producerRegs).error != RegisterSplit::Error::None) {
      module.emitError() << "flash-to-gpu: producer-regs must be a multiple "
                            "of 8 (setmaxnreg), not "
                         << int64_t(producerRegs);
      return signalPassFailure();
    }
    records.clear();
    SmallVector<GridOp> grids, combines;
    module.walk([&](GridOp grid) {
      (grid.getCombine() ? combines : grids).push_back(grid);
    });
    if (grids.empty() && combines.empty())
      return;
    // Precondition: grids are host code, in a func.func (the kernel is named
    // after it and launched from it), not inside a gpu.func or llvm.func.
    for (GridOp grid : llvm::concat<GridOp>(grids, combines))
      if (!grid->getParentOfType<func::FuncOp>()) {
        Operation *parent =
            grid->getParentWithTrait<OpTrait::IsIsolatedFromAbove>();
        grid.emitOpError("flash-to-gpu: the attention's grid must be host "
                         "code inside a func.func, not inside '")
            << (parent ? parent->getName().getStringRef() : "?") << "'";
        return signalPassFailure();
      }
    for (GridOp grid : grids)
      if (failed(grid.getBackward() ? lowerBackward(module, grid)
                                    : lower(module, grid)))
        return signalPassFailure();
    for (GridOp grid : combines)
      if (failed(lowerCombine(module, grid)))
        return signalPassFailure();
    emitAbiRecords(module);
    allocateWorkspaces(module);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                    UnitAttr::get(&getContext()));
  }

  gpu::GPUModuleOp getOrCreateGpuModule(ModuleOp module);
  LogicalResult lower(ModuleOp module, GridOp grid);
  LogicalResult lowerCombine(ModuleOp module, GridOp grid);
  /// One of flash.attention_backward's grids (Backward.cpp emits it).
  LogicalResult lowerBackward(ModuleOp module, GridOp grid);
  /// Each entry's `<func>_flash_abi` global: the record of its first grid,
  /// with every kernel the entry launches listed under "kernels".
  void emitAbiRecords(ModuleOp module);
  /// The ABI records by entry point, in the order the grids were lowered.
  llvm::MapVector<StringRef, llvm::json::Object> records;
  /// `kernel`'s row of its entry's "kernels" list.
  void addKernelRecord(func::FuncOp hostFunc, llvm::json::Object kernel) {
    llvm::json::Object &record = records[hostFunc.getName()];
    if (!record.getArray("kernels"))
      record["kernels"] = llvm::json::Array();
    record.getArray("kernels")->push_back(std::move(kernel));
  }
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
  auto qType = cast<MemRefType>(t.qLoad.getSource().getType());
  auto kType = cast<MemRefType>(t.kSrc().getType());
  auto vType = cast<MemRefType>(t.vSrc().getType());
  auto oType = cast<MemRefType>(t.oStore.getDest().getType());
  elt = qType.getElementType();
  headDim = qType.getDimSize(3);
  Operation *anchor = t.grid;
  if (!elt.isBF16() && !elt.isF16())
    return anchor->emitOpError("flash-to-gpu: element type ")
           << elt << " is not supported on the GPU (bf16 or f16)";
  if (kType.getElementType() != elt || vType.getElementType() != elt ||
      oType.getElementType() != (t.partial() ? Type(b32(elt)) : elt))
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
  auto qTile = cast<RankedTensorType>(t.qLoad.getType());
  auto kTile = cast<RankedTensorType>(t.kLoads.front().getType());
  int64_t bm = qTile.getDimSize(0), bn = kTile.getDimSize(0);
  // The grid's verified configuration; the tile shapes carry the same
  // block sizes.
  ConfigAttr planned = *t.grid.getConfig();
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
  int64_t smem = planned.getKernelSharedMemoryBytes(
      headDim, elt.getIntOrFloatBitWidth() / 8);
  if (smem > smemLimitKB * 1024)
    return anchor->emitOpError("flash-to-gpu: the tiles need ")
           << smem << " bytes of shared memory, over the target's "
           << int64_t(smemLimitKB) << " KiB";
  return success();
}

LogicalResult FlashToGpuPass::lower(ModuleOp module, GridOp grid) {
  FailureOr<TiledAttention> matched = matchGrid(grid);
  // Where each tile lives is flash-assign-layouts' decision, read here.
  if (failed(matched) || failed(checkLayouts(grid)))
    return failure();
  TiledAttention &t = *matched;
  ConfigAttr config;
  Type elt;
  int64_t headDim;
  // The K/V copy schedule is flash-pipeline-kv's, read here.
  if (failed(checkSupported(t, config, elt, headDim)) ||
      failed(checkPipeline(t)))
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
  int64_t threads = config.getProgramThreads();
  func.setKnownBlockSizeAttr(
      kb.getDenseI32ArrayAttr({int32_t(threads), 1, 1}));
  // setmaxnreg needs the register count at entry, which ptxas derives from
  // the block size and one program per SM (.minnctapersm).
  if (config.getProducer() && threads > 256)
    func->setAttr("nvvm.minctasm", kb.getI32IntegerAttr(1));

  t.captures = findCaptures(t, hostFunc);
  ArrayRef<Value> captures = t.captures;
  KernelEmitter emitter(kb, loc, t, func, config, elt, headDim);
  // A config's own producer_regs (verified) wins over the pass option.
  emitter.setRegisterSplit(getRegisterSplit(
      config.getProducerRegs() ? config.getProducerRegs() : producerRegs));
  SmallVector<Value> hostArgs;
  if (failed(emitter.emit(hostArgs)))
    return failure();
  moveCaptureArgsLast(func, hostArgs, captures);
  Block &entry = func.getBody().front();
  func.setFunctionType(
      FunctionType::get(&getContext(), entry.getArgumentTypes(), {}));

  // The launch replaces the grid: one program per grid iteration.
  OpBuilder hb(grid);
  SmallVector<Value> ub(grid.getUpperBounds());
  // Split-KV: the split axis is folded into x (see KernelEmitter::emit).
  if (t.partial())
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
  // Serving lengths (a grid operand) and split-KV.
  bool kvLens = false, splitKV = false;
  hostFunc.walk([&](Operation *op) {
    auto g = dyn_cast<GridOp>(op);
    if ((g && g.getCombine()) || isa<WorkspaceOp>(op))
      splitKV = true;
    kvLens |= g && g.getKvLens();
  });
  // The captures that are entry arguments, in order (a capture's views
  // share its argument).
  SmallVector<unsigned> captureArgs;
  for (Value capture : captures)
    if (std::optional<unsigned> arg = entryArgument(capture, hostFunc))
      if (!llvm::is_contained(captureArgs, *arg))
        captureArgs.push_back(*arg);
  // A block_mask hint bounds the KV loops, so it is the grid's operand and
  // no region capture; the runtime passes it with the captures, in argument
  // order, and the record names it.
  std::optional<unsigned> hintArg;
  if (Value hint = grid.getBlockMask()) {
    hintArg = entryArgument(hint, hostFunc);
    if (!hintArg)
      return grid.emitOpError("flash-to-gpu: the block_mask hint must be an "
                              "argument of the entry function (the runtime "
                              "passes it)");
    if (!llvm::is_contained(captureArgs, *hintArg))
      captureArgs.push_back(*hintArg);
  }
  llvm::sort(captureArgs);
  FailureOr<llvm::json::Array> captureList = captureRecords(hostFunc, captureArgs);
  if (failed(captureList))
    return failure();
  // The entry's static Q and K sizes (-1 = any), for the runtime to check.
  auto staticShape = [&](unsigned arg) {
    llvm::json::Array dims;
    if (arg < hostFunc.getNumArguments())
      if (auto type = dyn_cast<MemRefType>(hostFunc.getArgument(arg).getType()))
        for (int64_t i = 0; i < type.getRank(); ++i)
          dims.push_back(type.isDynamicDim(i) ? -1 : type.getDimSize(i));
    return dims;
  };
  // What the entry computes, as flash-tile recorded it on the grid.
  int64_t left, right;
  std::tie(left, right) = getWindowBounds(grid.getWindow());
  // f32 attributes as doubles: the exact value of the float, which reads
  // back as the same float.
  double cap = grid.getSoftcap() ? grid.getSoftcap()->convertToDouble() : 0.0;
  llvm::json::Object record{{"kind", "forward"},
                            {"func", hostFunc.getName()},
                            {"dtype", elt.isBF16() ? "bf16" : "f16"},
                            {"head_dim", headDim},
                            {"head_dim_v", headDim},
                            {"causal", grid.getCausal()},
                            {"window", llvm::json::Array{left, right}},
                            {"softcap", cap},
                            {"scale", grid.getScale()->convertToDouble()},
                            {"lse", bool(t.lseStore)},
                            {"arch", chip},
                            {"block_m", config.getBlockM()},
                            {"block_n", config.getBlockN()},
                            {"warps", config.getNumWarps()},
                            {"stages", config.getNumStages()},
                            {"smem_bytes", emitter.smemBytes()},
                            {"kernel", name},
                            {"kv_lens", kvLens},
                            {"paged", bool(t.table())},
                            {"split_kv", splitKV},
                            {"q_shape", staticShape(0)},
                            {"kv_shape", staticShape(1)},
                            {"num_args", hostFunc.getNumArguments()}};
  // Only entries with captures have the key: today's records stay as they
  // were.
  if (!captureList->empty())
    record["captures"] = std::move(*captureList);
  if (hintArg)
    record["block_mask"] = llvm::json::Object{
        {"arg", *hintArg}, {"rows", *grid.getBlockMaskRows()}};
  // One record per entry point, its first grid's (the split-KV path's
  // kernels and long-causal-rows' pair sit behind the same entry); every
  // kernel the entry may launch is one row of "kernels".
  if (!records.count(hostFunc.getName()))
    records[hostFunc.getName()] = std::move(record);
  addKernelRecord(hostFunc, llvm::json::Object{
                                {"kernel", name},
                                {"role", t.partial() ? "split" : "attention"},
                                {"block_m", config.getBlockM()},
                                {"block_n", config.getBlockN()},
                                {"warps", config.getNumWarps()},
                                {"stages", config.getNumStages()},
                                {"threads", threads},
                                {"smem_bytes", emitter.smemBytes()}});

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

LogicalResult FlashToGpuPass::lowerCombine(ModuleOp module, GridOp grid) {
  Location loc = grid.getLoc();
  // Threads: the head dim (the inner loop's static bound), in whole warps.
  int64_t dv = 0;
  grid.getBody().walk([&](scf::ParallelOp inner) {
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
                                        /*producer=*/false,
                                        /*pingpong=*/false,
                                        /*producerRegs=*/0,
                                        /*keyBounds=*/true,
                                        /*uniformBlocks=*/false),
                        kb.getF32Type(), dv);
  SmallVector<Value> hostArgs;
  if (failed(emitter.emitCombine(hostArgs)))
    return failure();
  Block &entry = func.getBody().front();
  func.setFunctionType(
      FunctionType::get(&getContext(), entry.getArgumentTypes(), {}));
  OpBuilder hb(grid);
  auto ub = grid.getUpperBounds();
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value block = arith::ConstantIndexOp::create(hb, loc, threads);
  gpu::LaunchFuncOp::create(hb, loc, func, gpu::KernelDim3{ub[0], ub[1], ub[2]},
                            gpu::KernelDim3{block, one, one}, Value(),
                            hostArgs);
  // Its entry's record exists: the attention grids were lowered first.
  if (records.count(hostFunc.getName()))
    addKernelRecord(hostFunc, llvm::json::Object{{"kernel", func.getName()},
                                                 {"role", "combine"},
                                                 {"threads", threads},
                                                 {"smem_bytes", 0}});
  grid.erase();
  return success();
}

/// The role of each argument of a backward entry, by the tiles its grids
/// read and write ("capture" for a region's operand).
static llvm::json::Array backwardArgs(func::FuncOp f) {
  SmallVector<std::string> roles(f.getNumArguments(), "capture");
  auto name = [&](Value memref, TileRole role) {
    if (std::optional<unsigned> arg = entryArgument(memref, f))
      roles[*arg] = stringifyTileRole(role).str();
  };
  f.walk([&](Operation *op) {
    if (auto load = dyn_cast<TileLoadOp>(op))
      name(load.getSource(), load.getRole());
    else if (auto store = dyn_cast<TileStoreOp>(op))
      name(store.getDest(), store.getRole());
  });
  llvm::json::Array args;
  for (std::string &role : roles)
    args.push_back(std::move(role));
  return args;
}

LogicalResult FlashToGpuPass::lowerBackward(ModuleOp module, GridOp grid) {
  if (failed(checkLayouts(grid)))
    return failure();
  Location loc = grid.getLoc();
  ConfigAttr config = *grid.getConfig();
  // The operands' element type and head dim: any 16-bit [rows, D] tile the
  // grid reads or writes.
  Type elt;
  int64_t headDim = 0;
  grid.getBody().walk([&](Operation *op) {
    Value tile;
    if (auto load = dyn_cast<TileLoadOp>(op))
      tile = load.getResult();
    else if (auto store = dyn_cast<TileStoreOp>(op))
      tile = store.getTile();
    auto type =
        tile ? cast<RankedTensorType>(tile.getType()) : RankedTensorType();
    if (!elt && type && type.getRank() == 2 &&
        type.getElementType().getIntOrFloatBitWidth() == 16) {
      elt = type.getElementType();
      headDim = type.getDimSize(1);
    }
  });
  if (!elt || !(elt.isBF16() || elt.isF16()))
    return grid.emitOpError("flash-to-gpu: a backward grid computes on bf16 "
                            "or f16 tiles");
  if (headDim < 16 || headDim > 256 || headDim % 16)
    return grid.emitOpError("flash-to-gpu: the backward's head dim must be a "
                            "multiple of 16 from 16 to 256, not ")
           << headDim;
  int64_t bm = config.getBlockM(), bn = config.getBlockN();
  int64_t warps = config.getNumWarps(), threads = 32 * warps;
  if (config.getWgmma() || config.getProducer() || config.getPingpong())
    return grid.emitOpError("flash-to-gpu: the backward's kernels are "
                            "mma.sync programs (a config without wgmma, "
                            "producer or pingpong)");
  if (bm != bn || bn % 64 || bm % (16 * warps))
    return grid.emitOpError("flash-to-gpu: the backward's tiles must be "
                            "square, a multiple of 64 rows and of 16 rows a "
                            "warp (block_m = ")
           << bm << ", block_n = " << bn << ", warps = " << warps << ")";
  if ((bm * headDim / 8) % threads)
    return grid.emitOpError("flash-to-gpu: the threads must split a tile's "
                            "16-byte chunks evenly");
  BackwardStep step = *grid.getBackward();
  if (step == BackwardStep::KV &&
      backwardSmemBytes(config, elt, headDim) > smemLimitKB * 1024)
    return grid.emitOpError("flash-to-gpu: the backward's KV program needs ")
           << backwardSmemBytes(config, elt, headDim)
           << " bytes of shared memory, more than " << smemLimitKB << " KiB";

  auto hostFunc = grid->getParentOfType<func::FuncOp>();
  std::string role = ("backward_" + stringifyBackwardStep(step)).str();
  if (step == BackwardStep::Delta)
    role = "delta";
  gpu::GPUFuncOp func = createKernel(
      module, loc, (hostFunc.getName() + "_" + role).str(), threads);
  TiledAttention t;
  t.grid = grid;
  // Every memref a tile op of the grid reads or writes is an operand of the
  // step; the others its regions read are captures.
  DenseSet<Value> excluded;
  grid.getBody().walk([&](Operation *op) {
    if (auto load = dyn_cast<TileLoadOp>(op))
      excluded.insert(load.getSource());
    else if (auto store = dyn_cast<TileStoreOp>(op))
      excluded.insert(store.getDest());
    else if (auto acc = dyn_cast<TileAccumulateOp>(op))
      excluded.insert(acc.getDest());
  });
  t.captures = capturesOf(grid, excluded, hostFunc);
  OpBuilder kb(func.getContext());
  SmallVector<Value> hostArgs;
  int64_t smemBytes = 0;
  if (failed(emitBackwardKernel(kb, loc, t, func, config, elt, headDim,
                                hostArgs, smemBytes)))
    return failure();
  moveCaptureArgsLast(func, hostArgs, t.captures);
  Block &entry = func.getBody().front();
  func.setFunctionType(
      FunctionType::get(&getContext(), entry.getArgumentTypes(), {}));
  OpBuilder hb(grid);
  SmallVector<Value> ub(grid.getUpperBounds());
  Value one = arith::ConstantIndexOp::create(hb, loc, 1);
  Value block = arith::ConstantIndexOp::create(hb, loc, threads);
  Value smem = arith::ConstantOp::create(
      hb, loc, hb.getI32IntegerAttr(int32_t(smemBytes)));
  gpu::LaunchFuncOp::create(hb, loc, func, gpu::KernelDim3{ub[0], ub[1], ub[2]},
                            gpu::KernelDim3{block, one, one}, smem, hostArgs);
  hostFunc->setAttr("llvm.emit_c_interface", hb.getUnitAttr());

  if (!records.count(hostFunc.getName())) {
    // The captures that are entry arguments, once each, in argument order
    // (as the forward's record lists them).
    SmallVector<unsigned> captureArgs;
    for (Value capture : t.captures)
      if (std::optional<unsigned> arg = entryArgument(capture, hostFunc))
        if (!llvm::is_contained(captureArgs, *arg))
          captureArgs.push_back(*arg);
    llvm::sort(captureArgs);
    FailureOr<llvm::json::Array> captureList =
        captureRecords(hostFunc, captureArgs);
    if (failed(captureList))
      return failure();
    int64_t left, right;
    std::tie(left, right) = getWindowBounds(grid.getWindow());
    double cap = grid.getSoftcap() ? grid.getSoftcap()->convertToDouble() : 0.0;
    llvm::json::Object record{
        {"kind", "backward"},
        {"func", hostFunc.getName()},
        {"dtype", elt.isBF16() ? "bf16" : "f16"},
        {"head_dim", headDim},
        {"head_dim_v", headDim},
        {"causal", grid.getCausal()},
        {"window", llvm::json::Array{left, right}},
        {"softcap", cap},
        {"scale", grid.getScale()->convertToDouble()},
        {"lse", false},
        {"arch", chip},
        {"block_m", bm},
        {"block_n", bn},
        {"warps", warps},
        {"stages", config.getNumStages()},
        {"smem_bytes", backwardSmemBytes(config, elt, headDim)},
        {"kernel", func.getName()},
        {"kv_lens", false},
        {"paged", false},
        {"split_kv", false},
        {"num_args", hostFunc.getNumArguments()},
        {"args", backwardArgs(hostFunc)}};
    if (!captureList->empty())
      record["captures"] = std::move(*captureList);
    records[hostFunc.getName()] = std::move(record);
  }
  addKernelRecord(hostFunc, llvm::json::Object{{"kernel", func.getName()},
                                               {"role", role},
                                               {"block_m", bm},
                                               {"block_n", bn},
                                               {"warps", warps},
                                               {"threads", threads},
                                               {"smem_bytes", smemBytes}});
  grid.erase();
  return success();
}

void FlashToGpuPass::emitAbiRecords(ModuleOp module) {
  OpBuilder mb = OpBuilder::atBlockEnd(module.getBody());
  for (auto &[func, record] : records) {
    std::string abi;
    llvm::raw_string_ostream(abi) << llvm::json::Value(std::move(record));
    abi.push_back('\0');
    LLVM::GlobalOp::create(mb, module.getLoc(),
                           LLVM::LLVMArrayType::get(mb.getI8Type(), abi.size()),
                           /*isConstant=*/true, LLVM::Linkage::External,
                           (func + "_flash_abi").str(), mb.getStringAttr(abi));
  }
  records.clear();
}

void FlashToGpuPass::allocateWorkspaces(ModuleOp module) {
  SmallVector<WorkspaceOp> allocs;
  module.walk([&](WorkspaceOp a) { allocs.push_back(a); });
  auto tokenType = gpu::AsyncTokenType::get(&getContext());
  for (WorkspaceOp a : allocs) {
    OpBuilder b(a);
    Location loc = a.getLoc();
    // Stream-ordered on the caller's stream (the runtime maps every
    // stream the host code creates to it).
    Value t0 = gpu::WaitOp::create(b, loc, tokenType, ValueRange{})
                   .getAsyncToken();
    auto alloc = gpu::AllocOp::create(b, loc, a.getType(), tokenType,
                                      ValueRange{t0}, a.getDynamicSizes(),
                                      ValueRange{}, /*hostShared=*/false);
    Value ready = alloc.getAsyncToken();
    // A zeroed workspace (the backward's f32 dQ, which every KV program
    // adds into) is cleared in the same stream order.
    if (a.getZeroed()) {
      Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
      ready = gpu::MemsetOp::create(b, loc, tokenType, ValueRange{ready},
                                    alloc.getMemref(), zero)
                  .getAsyncToken();
    }
    gpu::WaitOp::create(b, loc, Type(), ValueRange{ready});
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
