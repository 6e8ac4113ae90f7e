#!/usr/bin/env bash
# Installs what FlashMLIR needs on Debian 12 (LLVM/MLIR 22 from Debian's
# packages, CMake, Ninja, GoogleTest, and python3-torch for bench/'s CPU
# self-test under lit) when it is missing, then configures and
# builds into ${FLASH_BUILD_DIR:-build}. Safe to re-run: it only installs
# what is absent and ninja only rebuilds what changed.
# FLASH_WITH_FUZZER=1 also installs clang-22 and libFuzzer.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}

pkgs=(libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools cmake ninja-build
      g++ libgtest-dev python3
      # test/Integration/Python (pip install into a venv, the torch operator, the plots)
      # and test/Bench (bench/test_bench_logic.py on torch)
      python3-venv python3-setuptools python3-pip python3-torch python3-matplotlib)
[ "${FLASH_WITH_FUZZER:-0}" = 1 ] && pkgs+=(clang-22 libfuzzer-22-dev libclang-rt-22-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_BUILD_TYPE=Release >"$build.cmake.log" 2>&1 ||
    { cat "$build.cmake.log"; exit 1; }
fi
ninja -C "$build" -j"$(nproc)" | grep -vE '_GLIBCXX_USE_CXX11_ABI|previous definition' | tail -n 2
