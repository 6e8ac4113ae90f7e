#!/usr/bin/env bash
# The main job on the bundled example: builds FlashMLIR (installing what is
# missing), compiles examples/attention.mlir with the flash pipeline and runs
# it on random inputs, printing the error against the double-precision
# reference and the time. The GPU code path (flash-to-gpu) does not exist
# yet, so the example runs on the CPU (flash-lower-to-cpu) everywhere.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "note: a GPU is present, but the GPU lowering is not built yet; running on the CPU"
fi
echo "== flash-plan: the configuration chosen for the example"
"$build/bin/flash-opt" "$root/examples/attention.mlir" --flash-plan | grep -o '#flash.config<[^>]*>'
echo "== flash-run: flash-lower-to-cpu, JIT, random inputs vs the reference"
exec "$build/bin/flash-run" "$root/examples/attention.mlir" --repeat=3 \
  --shapes="1,8,2,512,512;2,8,2,333,1000;1,8,2,1,1000;1,8,2,1000,17" \
  --layout=bshd --tol=1e-5
