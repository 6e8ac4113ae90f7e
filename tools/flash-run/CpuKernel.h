//===- CpuKernel.h - flash-run's function under test ------------*- C++ -*-===//
//
// The JIT mode's kernel: the function flash-run checks (--func, else the
// only one, else the only one holding flash.attention), what it computes
// (read from the op's attribute dictionary, or --reference-attrs for a
// hand-written kernel), the role of each argument, and its lowering to the
// LLVM dialect and JIT compilation.
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_CPUKERNEL_H
#define FLASH_TOOLS_FLASH_RUN_CPUKERNEL_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <string>

namespace flash::run::cpu {

/// A string error (flash-run reports it and exits with 2).
llvm::Error makeError(const llvm::Twine &msg);

/// `type` as the IR prints it.
std::string typeString(mlir::Type type);

/// Attention semantics the reference is configured with.
struct Semantics {
  std::optional<double> scale; // None: 1/sqrt(D).
  bool causal = false;
  int64_t windowLeft = -1, windowRight = -1;
  double softcap = 0.0;
  bool kvLens = false; // The op has kv_lens.
  bool paged = false;  // The op has block_table.
  unsigned alibiRank = 0;   // The op's alibi slopes: 0 (none), 1 or 2.
  int64_t blockMaskRows = 0; // The op's block_mask_rows (0: no block_mask).
  unsigned numCaptures = 0; // The op's captures(...).
};

/// What each function argument is; the values index per-role arrays
/// (Capture, one role for all captures, has none).
/// A backward function's O and LSE are inputs, dO its output gradient and
/// dQ, dK, dV its outputs.
// clang-format off
enum ArgRole : unsigned {
  Q, K, V, Alibi, KvLens, Table, Hint, Capture, O, Lse, DO, DQ, DK, DV,
  NumRoles
};
inline constexpr const char *kArgNames[] = {
    "Q", "K", "V", "alibi", "kv_lens", "block_table", "block_mask", "capture",
    "O", "LSE", "dO", "dQ", "dK", "dV"};
// clang-format on

/// The rank of a role's argument (a capture's is its type's).
inline unsigned roleRank(ArgRole role, unsigned alibiRank = 1) {
  return role == Lse      ? 3
         : role == KvLens ? 1
         : role == Table  ? 2
         : role == Alibi  ? alibiRank
                          : 4;
}

/// The function under test and what it computes.
struct Kernel {
  mlir::func::FuncOp func;
  Semantics sem;
  /// It holds flash.attention_backward: (Q, K, V, O, LSE, dO, [alibi],
  /// [captures...], dQ, dK, dV).
  bool backward = false;
  /// The role and type of each argument, in order.
  llvm::SmallVector<ArgRole, 7> roles;
  llvm::SmallVector<mlir::MemRefType, 7> argTypes;
  int64_t pageSize = 0; // 0 unless paged.
  /// The score_mod / mask_mod regions (null if absent), in a copy of the
  /// module taken before lowering: the reference evaluates the user's IR.
  std::shared_ptr<mlir::OwningOpRef<mlir::ModuleOp>> oracle;
  mlir::Region *scoreMod = nullptr, *maskMod = nullptr;
  bool has(ArgRole role) const { return llvm::is_contained(roles, role); }
  mlir::MemRefType type(ArgRole role) const {
    return argTypes[llvm::find(roles, role) - roles.begin()];
  }
  /// The capture argument types, in order.
  llvm::SmallVector<mlir::MemRefType> captureTypes() const {
    llvm::SmallVector<mlir::MemRefType> types;
    for (auto [role, type] : llvm::zip_equal(roles, argTypes))
      if (role == Capture)
        types.push_back(type);
    return types;
  }
  bool hasLse() const { return has(Lse); }
  int64_t headDim() const { return type(Q).getDimSize(3); }
  int64_t headDimV() const { return type(V).getDimSize(3); }
};

/// How the kernel is chosen and what the command line adds to it.
struct KernelOptions {
  std::string inputFile; // For messages.
  std::string funcName;  // "": the only function (holding the op).
  std::optional<std::string> referenceAttrs; // --reference-attrs
  std::optional<int64_t> pageSize;           // --page-size
};

/// Picks the function (--func, else the only one, else the only one holding
/// flash.attention) and reads its semantics and signature.
llvm::Expected<Kernel> selectKernel(mlir::ModuleOp module,
                                    const KernelOptions &opts);

/// Runs `pipeline` (none if empty) over the module of `inputFile`, prints
/// the result if `printIR`, and checks that only LLVM-translatable ops are
/// left.
llvm::Error lowerToLLVM(mlir::ModuleOp module, llvm::StringRef pipeline,
                        llvm::StringRef inputFile, bool printIR);

/// JIT-compiles the lowered module at -O2 and returns the packed wrapper of
/// `_mlir_ciface_<name>`: `void (void **args)`, one pointer per argument.
llvm::Expected<void (*)(void **)>
compile(mlir::ModuleOp module, llvm::StringRef name,
        std::unique_ptr<mlir::ExecutionEngine> &engine);

} // namespace flash::run::cpu

#endif // FLASH_TOOLS_FLASH_RUN_CPUKERNEL_H
