//===- SizeGuard.h - Overflow-checked case sizes for flash-run --*- C++ -*-===//
//
// The one statement of how flash-run's two modes (JIT and --artifact) size a
// case: element counts multiplied with overflow checks, and the host memory
// a case needs compared with what the machine has, so that a typo or a
// hostile --shapes ends in a message and exit code, never in a wrapped size,
// std::length_error or an out-of-memory kill. Plain C++ (GpuRun has no LLVM).
//
//===----------------------------------------------------------------------===//

#ifndef FLASH_TOOLS_FLASH_RUN_SIZEGUARD_H
#define FLASH_TOOLS_FLASH_RUN_SIZEGUARD_H

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <unistd.h>

namespace flash::run {

/// Elements in one tensor that flash-run allocates at most.
constexpr int64_t kMaxTensorElements = int64_t(1) << 32;

/// The product of `factors`, or nullopt if one is negative or it overflows.
inline std::optional<int64_t> checkedProduct(std::initializer_list<int64_t> factors) {
  int64_t product = 1;
  for (int64_t f : factors)
    if (f < 0 || __builtin_mul_overflow(product, f, &product))
      return std::nullopt;
  return product;
}

/// a + b, or nullopt on overflow (either nullopt gives nullopt).
inline std::optional<int64_t> checkedSum(std::optional<int64_t> a,
                                         std::optional<int64_t> b) {
  int64_t sum;
  if (!a || !b || __builtin_add_overflow(*a, *b, &sum))
    return std::nullopt;
  return sum;
}

/// Physical memory of this machine in bytes (INT64_MAX if unknown).
inline int64_t physicalMemoryBytes() {
  long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  std::optional<int64_t> bytes = checkedProduct({pages, page});
  return pages > 0 && page > 0 && bytes ? *bytes : INT64_MAX;
}

/// "" when a tensor of `elements` (nullopt: overflowed) may be allocated,
/// else why not.
inline std::string checkTensorElements(std::optional<int64_t> elements) {
  if (!elements || *elements > kMaxTensorElements)
    return "too large (over 2^32 elements in one tensor)";
  return "";
}

/// "" when `bytes` of host memory (nullopt: overflowed) fit in half the
/// machine's memory, else why not.
inline std::string checkHostBytes(std::optional<int64_t> bytes) {
  int64_t limit = physicalMemoryBytes() / 2;
  if (bytes && *bytes <= limit)
    return "";
  auto gib = [](int64_t b) { return std::to_string(b >> 30) + " GiB"; };
  return "needs " + (bytes ? "about " + gib(*bytes) : std::string("over 2^63 bytes")) +
         " of host memory, over half of this machine's " +
         gib(physicalMemoryBytes());
}

} // namespace flash::run

#endif // FLASH_TOOLS_FLASH_RUN_SIZEGUARD_H
