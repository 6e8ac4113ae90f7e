#!/usr/bin/env bash
# The main job on the bundled example: builds FlashMLIR (installing what is
# missing) and runs the flash pipeline on examples/attention.mlir, printing
# the result.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
echo "== flash-opt: parse, verify and print examples/attention.mlir"
"$build/bin/flash-opt" "$root/examples/attention.mlir"
