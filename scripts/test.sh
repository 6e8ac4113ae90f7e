#!/usr/bin/env bash
# Builds FlashMLIR (installing what is missing) and runs every test: the lit
# suite (dialect, passes, CPU numerics, PTX checks) and the GoogleTest unit
# tests, all through lit. Ends with lit's summary line. GPU-executing tests
# run only where a GPU is present (see test/GPU/lit.local.cfg).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
exec /usr/lib/llvm-22/bin/lit -sv "$build/test"
