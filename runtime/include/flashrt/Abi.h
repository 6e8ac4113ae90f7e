//===- Abi.h - The artifact's ABI record ------------------------*- C++ -*-===//
//
// Each entry point of an artifact comes with `<func>_flash_abi`, a JSON object
// describing what the kernel expects (element type, head dims, LSE output,
// GPU architecture) and computes (causal, window, softcap, scale), and
// whether it is a forward or a backward entry ("kind", with the backward's
// argument roles in "args"). The
// runtime needs a handful of fields, so this is a small tolerant reader: it
// finds top-level keys by name and parses their scalar or small-array values,
// and ignores everything else rather than pulling in a JSON library.
//
//===----------------------------------------------------------------------===//

#ifndef FLASHRT_ABI_H
#define FLASHRT_ABI_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace flashrt {

/// Finds the value of top-level `key` in the JSON object `json`.
std::optional<std::string> abiString(const std::string &json,
                                     const std::string &key);
std::optional<double> abiNumber(const std::string &json,
                                const std::string &key);
std::optional<bool> abiBool(const std::string &json, const std::string &key);
std::optional<std::vector<double>> abiNumbers(const std::string &json,
                                              const std::string &key);
/// The elements of the array value of `key`, each as its JSON text (an
/// object's text can be read with the functions above).
std::optional<std::vector<std::string>> abiElements(const std::string &json,
                                                    const std::string &key);
/// The JSON text of the object value of `key` (nullopt if absent or not an
/// object).
std::optional<std::string> abiObject(const std::string &json,
                                     const std::string &key);

/// One read-only tensor a score_mod / mask_mod reads ("captures" entry):
/// what flash-to-gpu compiled the entry for.
struct CaptureAbi {
  int dtype = 0; // FLASHRT_DTYPE_*
  int rank = 0;
  /// The entry function's argument this tensor is.
  int arg = 0;
  /// Static sizes and strides, -1 where dynamic.
  std::vector<int64_t> shape, strides;
  /// The memref has the identity layout: the kernel computes the strides
  /// from the sizes (row-major), so the tensor must be laid out so.
  bool contiguous = false;
};

/// The role of one argument of a backward entry ("args"). ALiBi's slopes
/// and a score_mod / mask_mod's tensors both come with a "captures" record
/// and are passed with the captures.
enum class ArgRole { Q, K, V, O, Lse, DO, DQ, DK, DV, Alibi, Capture };

/// The name of `role` in "args".
const char *argRoleName(ArgRole role);

/// The fields the runtime checks tensors against.
struct Abi {
  /// "kind": a forward entry (flash.attention; also a record without the
  /// key, as older artifacts have) or a backward one
  /// (flash.attention_backward), which the run functions keep apart.
  bool backward = false;
  /// Backward entries: the role of each argument, in order ("args"); the
  /// runtime builds the descriptors in this order. Empty for forward ones.
  std::vector<ArgRole> args;
  int dtype = 0; // FLASHRT_DTYPE_*
  std::string dtypeName;
  int64_t headDim = 0, headDimV = 0;
  bool lse = false;
  std::string arch; // "sm_90", "sm_90a", "" if absent.
  int archMajor = 0, archMinor = 0;
  bool archSpecific = false; // "sm_90a": runs on exactly that arch.
  /// Width of the kernel's index arithmetic ("index_bits", default 32: the
  /// kernels address tensors with 32-bit offsets).
  int indexBits = 32;
  /// Serving operands: an i32 [B] kv_lens after V, an i32 [B, pages] block
  /// table after it (K/V are then page pools); split_kv is informative.
  bool kvLens = false, paged = false, splitKv = false;
  /// Static dims the kernel was compiled for: [B, Hq, Sq, D] and K's
  /// [B or pages, Hkv, Sk or page_size, D]; -1 = dynamic; empty if absent.
  std::vector<int64_t> qShape, kvShape;
  /// Capture tensors (empty: none), in the order of the entry's arguments.
  std::vector<CaptureAbi> captures;
  /// The block_mask hint ("block_mask": {"arg": N, "rows": QB}): which of
  /// the captures it is (-1: none) and its query rows per hint row. The
  /// kernel reads hint[b or 0, h or 0, i / QB] for every query row i
  /// without bounds checks, so the runtime checks its sizes against Q.
  int blockMaskCapture = -1;
  int64_t blockMaskRows = 0;
  /// The entry's argument count ("num_args"; -1 if absent): checked
  /// against the operands the ABI names, so that a record the runtime
  /// misreads cannot make it call the entry with the wrong arity.
  int numArgs = -1;
  /// The descriptors the entry takes, in order (see Call::run).
  int entryArity() const {
    if (backward)
      return int(args.size());
    return 4 + kvLens + paged + lse + int(captures.size());
  }
  /// "forward" or "backward", for messages.
  const char *kindName() const { return backward ? "backward" : "forward"; }
};

/// Parses the fields of Abi; returns "" or what is missing or malformed.
std::string parseAbi(const std::string &json, Abi &abi);

/// Element size in bytes of a FLASHRT_DTYPE_*, 0 if unknown.
int dtypeBytes(int dtype);
const char *dtypeName(int dtype);

} // namespace flashrt

#endif // FLASHRT_ABI_H
