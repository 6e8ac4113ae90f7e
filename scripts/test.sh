#!/usr/bin/env bash
# Builds FlashMLIR (installing what is missing) and runs every test: the lit
# suite (dialect, passes, the GPU lowering's formulas, CPU numerics, bench/'s
# Python self-test with torch) and the GoogleTest unit tests, all through lit.
# Ends with lit's summary line. No test executes a kernel on a GPU: test/PTX
# compiles the GPU variants to PTX and checks them with ptxas (`REQUIRES:
# ptxas`, i.e. where the CUDA toolkit is found); the GPU runs are bench/'s,
# on an H200 (bench/README.md). torch is required here, not optional.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
export FLASH_REQUIRE_TORCH=1
exec /usr/lib/llvm-22/bin/lit -sv "$build/test"
