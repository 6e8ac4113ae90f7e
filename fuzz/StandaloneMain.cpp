//===- StandaloneMain.cpp - Replay fuzzer inputs without libFuzzer --------===//
//
// Runs LLVMFuzzerTestOneInput on each file named on the command line, so the
// fuzz corpus and every crash found are regression tests on any compiler
// (CI builds with g++, which has no libFuzzer and no ASan). Each input is
// handed over the way libFuzzer hands it: exactly `size` bytes with no NUL
// after them. Without ASan an over-read of a heap buffer goes unnoticed, so
// the bytes are placed at the very end of a readable mapping followed by an
// inaccessible guard page: reading one byte past the input faults at once.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

namespace {

/// Calls the target on a copy of `bytes` that ends right before a PROT_NONE
/// page. Returns false if the mapping cannot be made.
bool replayGuarded(const std::string &bytes) {
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  const size_t dataPages = (bytes.size() + page - 1) / page;
  const size_t total = (dataPages + 1) * page;
  void *map = mmap(nullptr, total, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (map == MAP_FAILED)
    return false;
  auto *base = static_cast<uint8_t *>(map);
  uint8_t *guard = base + dataPages * page;
  if (mprotect(guard, page, PROT_NONE) != 0) {
    munmap(map, total);
    return false;
  }
  uint8_t *data = guard - bytes.size();
  std::memcpy(data, bytes.data(), bytes.size());
  LLVMFuzzerTestOneInput(data, bytes.size());
  munmap(map, total);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::fprintf(stderr, "error: cannot read '%s'\n", argv[i]);
      return 1;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    if (!replayGuarded(bytes)) {
      std::fprintf(stderr, "error: cannot map a guarded buffer for '%s'\n",
                   argv[i]);
      return 1;
    }
  }
  std::printf("replayed %d input(s) without a crash\n", argc - 1);
  return 0;
}
