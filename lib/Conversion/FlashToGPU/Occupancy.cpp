//===- Occupancy.cpp - Programs an SM from ptxas's register counts --------===//
//
// flash-occupancy: ptxas sizes each kernel's registers for its own schedule,
// and the count decides how many programs share an SM. Where that is fewer
// than shared memory, threads and the block limit allow, this pass asks
// ptxas for more (`.minnctapersm`, as `nvvm.minctasm` on the kernel) and
// keeps the request only where ptxas then spills nothing: the decision needs
// ptxas's answer, so the pass serializes each gpu.module to PTX through its
// own #nvvm.target and runs ptxas -v on it (the same tool
// gpu-module-to-binary runs next), rather than guessing registers from the
// IR. It runs on the LLVM-dialect kernels, just before gpu-module-to-binary.
//
//===----------------------------------------------------------------------===//

#include "flash/Conversion/Passes.h"
#include "flash/Target/Targets.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Target/LLVM/NVVM/Utils.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

namespace mlir::flash {
#define GEN_PASS_DEF_FLASHOCCUPANCY
#include "flash/Conversion/Passes.h.inc"
} // namespace mlir::flash

using namespace mlir;
using namespace mlir::flash;

namespace {

/// What ptxas -v reports for one entry.
struct PtxasReport {
  int64_t registers = -1;
  int64_t spillBytes = 0;
};

/// A kernel's launch: threads a program and dynamic shared memory bytes.
struct Launch {
  int64_t threads = 0, smem = 0;
};

/// ptxas -v's report, per entry function ("Compiling entry function 'f'",
/// then its spill and register lines).
llvm::StringMap<PtxasReport> parseReport(StringRef log) {
  llvm::StringMap<PtxasReport> out;
  PtxasReport *current = nullptr;
  SmallVector<StringRef> lines;
  log.split(lines, '\n');
  for (StringRef line : lines) {
    if (size_t at = line.find("Compiling entry function '");
        at != StringRef::npos) {
      StringRef name = line.drop_front(at + 26);
      current = &out[name.take_until([](char c) { return c == '\''; })];
      continue;
    }
    if (!current)
      continue;
    auto numberBefore = [&](StringRef what) -> int64_t {
      size_t at = line.find(what);
      if (at == StringRef::npos)
        return -1;
      StringRef head = line.take_front(at).rtrim();
      StringRef digits = head.drop_front(head.find_last_of(' ') + 1);
      int64_t v;
      return digits.getAsInteger(10, v) ? -1 : v;
    };
    if (int64_t stores = numberBefore(" bytes spill stores"); stores >= 0)
      current->spillBytes = stores + std::max<int64_t>(
                                         0, numberBefore(" bytes spill loads"));
    if (int64_t regs = numberBefore(" registers"); regs >= 0 &&
                                                   line.contains("Used "))
      current->registers = regs;
  }
  return out;
}

/// The PTX with `.minnctapersm n` in the directives of each entry of
/// `targets` (before its body's opening brace).
std::string withMinPrograms(StringRef ptx,
                            const llvm::StringMap<int64_t> &targets) {
  std::string out = ptx.str();
  for (const auto &entry : targets) {
    std::string decl = (".entry " + entry.getKey() + "(").str();
    size_t at = out.find(decl);
    if (at == std::string::npos)
      continue;
    size_t body = out.find("\n{", at);
    if (body == std::string::npos)
      continue;
    out.insert(body + 1, ".minnctapersm " + std::to_string(entry.getValue()) +
                             "\n");
  }
  return out;
}

/// ptxas -v on `ptx` for `entries`; the report, or an error at `at`
/// (failure without a diagnostic when `quiet`).
FailureOr<llvm::StringMap<PtxasReport>>
runPtxas(Operation *at, StringRef tool, StringRef chip, StringRef ptx,
         ArrayRef<StringRef> entries, bool quiet = false) {
  SmallString<128> input, log, output;
  if (llvm::sys::fs::createTemporaryFile("flash-occupancy", "ptx", input) ||
      llvm::sys::fs::createTemporaryFile("flash-occupancy", "log", log) ||
      llvm::sys::fs::createTemporaryFile("flash-occupancy", "cubin", output))
    return at->emitError("flash-occupancy: cannot create temporary files");
  auto cleanup = llvm::make_scope_exit([&] {
    for (StringRef f : {input.str(), log.str(), output.str()})
      llvm::sys::fs::remove(f);
  });
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(input, ec);
    if (ec)
      return at->emitError("flash-occupancy: cannot write ") << input;
    os << ptx;
  }
  SmallVector<StringRef> argv{tool, "-arch", chip, "-v", "-o", output};
  for (StringRef e : entries) {
    argv.push_back("-e");
    argv.push_back(e);
  }
  argv.push_back(input);
  std::optional<StringRef> redirects[] = {std::nullopt, log.str(), log.str()};
  std::string message;
  int rc = llvm::sys::ExecuteAndWait(tool, argv, std::nullopt, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &message);
  auto text = llvm::MemoryBuffer::getFile(log);
  StringRef report = text ? (*text)->getBuffer() : StringRef();
  if (rc != 0 && quiet)
    return failure();
  if (rc != 0)
    return at->emitError("flash-occupancy: '")
           << tool << "' failed" << (message.empty() ? "" : ": ") << message
           << "\n"
           << report;
  return parseReport(report);
}

struct FlashOccupancyPass
    : public flash::impl::FlashOccupancyBase<FlashOccupancyPass> {
  using Base::Base;
  void runOnOperation() override;
};

} // namespace

std::optional<SmallVector<char, 0>>
flash::serializeToPTX(gpu::GPUModuleOp module,
                      gpu::TargetAttrInterface target) {
  OwningOpRef<gpu::GPUModuleOp> copy = module.clone();
  gpu::TargetOptions options({}, {}, {}, {}, gpu::CompilationTarget::Assembly);
  return target.serializeToObject(*copy, options);
}

void FlashOccupancyPass::runOnOperation() {
  ModuleOp module = getOperation();
  // The ptxas to ask: the one gpu-module-to-binary runs next (PATH's, then
  // the CUDA toolkit's).
  std::string tool = ptxasPath;
  if (tool.empty()) {
    SmallString<128> inToolkit(NVVM::getCUDAToolkitPath());
    llvm::sys::path::append(inToolkit, "bin", "ptxas");
    if (auto onPath = llvm::sys::findProgramByName("ptxas"))
      tool = *onPath;
    else if (!NVVM::getCUDAToolkitPath().empty())
      tool = std::string(inToolkit);
  }
  if (tool.empty() || !llvm::sys::fs::can_execute(tool)) {
    module.emitError("flash-occupancy: no ptxas (set ptxas-path, "
                     "CUDA_ROOT, or PATH)");
    return signalPassFailure();
  }

  // Each kernel's launch, where every launch of it has constant sizes.
  llvm::StringMap<std::optional<Launch>> launches;
  module.walk([&](gpu::LaunchFuncOp launch) {
    auto constant = [](Value v) -> int64_t {
      APInt value;
      return v && matchPattern(v, m_ConstantInt(&value)) ? value.getSExtValue()
                                                          : -1;
    };
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    int64_t x = constant(block.x), y = constant(block.y),
            z = constant(block.z);
    int64_t smem = launch.getDynamicSharedMemorySize()
                       ? constant(launch.getDynamicSharedMemorySize())
                       : 0;
    std::string key = (launch.getKernelModuleName().getValue() + "::" +
                       launch.getKernelName().getValue())
                          .str();
    auto [it, inserted] = launches.try_emplace(key, std::nullopt);
    if (x < 1 || y < 1 || z < 1 || smem < 0) {
      it->second = std::nullopt; // not constant: left alone
      return;
    }
    Launch here{x * y * z, smem};
    if (inserted)
      it->second = here;
    else if (it->second && it->second->threads == here.threads)
      it->second->smem = std::max(it->second->smem, here.smem);
    else
      it->second = std::nullopt;
  });

  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>()) {
    ArrayAttr targets = gpuModule.getTargetsAttr();
    auto nvvm = targets && targets.size() == 1
                    ? dyn_cast<NVVM::NVVMTargetAttr>(targets[0])
                    : NVVM::NVVMTargetAttr();
    if (!nvvm)
      continue;
    const ChipInfo *chip = lookupChip(nvvm.getChip());
    if (!chip)
      continue;
    // The most programs an SM that shared memory, threads and the block
    // limit allow, per kernel without an occupancy request of its own.
    llvm::StringMap<int64_t> limit;
    llvm::StringMap<int64_t> warps;
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>()) {
      if (!func->hasAttr(NVVM::NVVMDialect::getKernelFuncAttrName()) ||
          func->hasAttr(NVVM::NVVMDialect::getMinctasmAttrName()))
        continue;
      auto it = launches.find(
          (gpuModule.getName() + "::" + func.getName()).str());
      if (it == launches.end() || !it->second)
        continue;
      const Launch &l = *it->second;
      int64_t programs = std::min(
          {chip->smemPerSMKB * 1024 / (l.smem + ChipInfo::kReservedSmemBytes),
           chip->threadsPerSM / l.threads, chip->programsPerSM});
      limit[func.getName()] = programs;
      warps[func.getName()] = (l.threads + 31) / 32;
    }
    if (limit.empty())
      continue;
    // Programs an SM at `regs` registers a thread (allocated per warp in
    // units of 256, that is 8 a thread).
    auto byRegisters = [&](StringRef name, int64_t regs) -> int64_t {
      return ChipInfo::kRegistersPerSM /
             (llvm::alignTo(regs, 8) * 32 * warps.lookup(name));
    };

    std::optional<SmallVector<char, 0>> object = serializeToPTX(
        gpuModule, cast<gpu::TargetAttrInterface>(Attribute(nvvm)));
    if (!object) {
      gpuModule.emitError("flash-occupancy: cannot serialize to PTX");
      return signalPassFailure();
    }
    StringRef ptx(object->data(), object->size());
    ptx = ptx.take_until([](char c) { return c == '\0'; });
    SmallVector<StringRef> names;
    for (const auto &entry : limit)
      names.push_back(entry.getKey());
    FailureOr<llvm::StringMap<PtxasReport>> base =
        runPtxas(gpuModule, tool, nvvm.getChip(), ptx, names);
    if (failed(base))
      return signalPassFailure();

    // Candidates: fewer programs by registers than the limit. Each round
    // asks ptxas for every candidate's current target at once; a target
    // that spills falls by one, down to the count the kernel has anyway.
    llvm::StringMap<int64_t> want;
    llvm::StringMap<int64_t> floor;
    for (const auto &entry : limit) {
      auto report = base->find(entry.getKey());
      if (report == base->end() || report->second.registers < 0)
        continue;
      int64_t now = byRegisters(entry.getKey(), report->second.registers);
      if (now < entry.getValue()) {
        want[entry.getKey()] = entry.getValue();
        floor[entry.getKey()] = now;
      }
    }
    llvm::StringMap<int64_t> granted;
    while (!want.empty()) {
      SmallVector<StringRef> asked;
      for (const auto &entry : want)
        asked.push_back(entry.getKey());
      FailureOr<llvm::StringMap<PtxasReport>> probe =
          runPtxas(gpuModule, tool, nvvm.getChip(), withMinPrograms(ptx, want),
                   asked, /*quiet=*/true);
      // A request ptxas cannot meet at all (C7600: register allocation
      // failed at the count it implies) fails the whole run: then ask each
      // kernel alone, so that its failure is its own "no".
      llvm::StringMap<PtxasReport> reports;
      if (succeeded(probe)) {
        reports = std::move(*probe);
      } else {
        for (StringRef name : asked) {
          llvm::StringMap<int64_t> one;
          one[name] = want.lookup(name);
          FailureOr<llvm::StringMap<PtxasReport>> single =
              runPtxas(gpuModule, tool, nvvm.getChip(),
                       withMinPrograms(ptx, one), {name}, /*quiet=*/true);
          if (succeeded(single))
            if (auto it = single->find(name); it != single->end())
              reports[name] = it->second;
        }
      }
      llvm::StringMap<int64_t> next;
      for (const auto &entry : want) {
        StringRef name = entry.getKey();
        auto report = reports.find(name);
        bool ok = report != reports.end() && report->second.registers >= 0 &&
                  report->second.spillBytes == 0 &&
                  byRegisters(name, report->second.registers) >=
                      entry.getValue();
        if (ok)
          granted[name] = entry.getValue();
        else if (entry.getValue() - 1 > floor.lookup(name))
          next[name] = entry.getValue() - 1;
      }
      want = std::move(next);
    }
    Builder b(gpuModule.getContext());
    for (auto func : gpuModule.getOps<LLVM::LLVMFuncOp>())
      if (auto it = granted.find(func.getName()); it != granted.end())
        func->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                      b.getI32IntegerAttr(it->second));
  }
}
