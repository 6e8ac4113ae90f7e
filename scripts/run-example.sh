#!/usr/bin/env bash
# The main job on the bundled example: builds FlashMLIR (installing what is
# missing), then
#  * where a GPU is present (libcuda and a device): compiles
#    examples/attention-bf16.mlir with flash-lower-to-gpu into an artifact
#    (scripts/flash-compile.sh) and runs it with flash-run-gpu on random
#    inputs, checking O and LSE against the double-precision reference and
#    timing it (median of CUDA-event-timed runs);
#  * otherwise: compiles examples/attention.mlir (the same op in f32) with
#    flash-lower-to-cpu, JITs it and checks it the same way.
# FLASH_EXAMPLE_DEVICE=cpu|gpu forces one path.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
"$root/scripts/setup.sh"
shapes="1,8,2,512,512;2,8,2,333,1000;1,8,2,1,1000;1,8,2,1000,17;4,32,8,4096,4096"
device=${FLASH_EXAMPLE_DEVICE:-}
if [ -z "$device" ]; then
  device=cpu
  if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
    device=gpu
  fi
fi
if [ "$device" = gpu ]; then
  # The GPU's own arch: sm_90a (warpgroup MMA) on H100/H200, else sm_XY.
  cc=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d ' .')
  chip=sm_${cc:-90}
  wgmma=false
  if [ "$chip" = sm_90 ]; then chip=sm_90a; wgmma=true; fi
  echo "== flash-plan: the configuration chosen for the example ($chip)"
  "$build/bin/flash-opt" "$root/examples/attention-bf16.mlir" --flash-plan="wgmma=$wgmma" | grep -o '#flash.config<[^>]*>'
  mkdir -p "$build/examples"
  echo "== flash-compile: flash-lower-to-gpu -> cubin + host launch code"
  "$root/scripts/flash-compile.sh" "$root/examples/attention-bf16.mlir" \
    "$build/examples/attention-bf16.so" --chip="$chip"
  echo "== flash-run-gpu: random bf16 inputs vs the reference, on the GPU"
  exec "$build/bin/flash-run-gpu" --artifact="$build/examples/attention-bf16.so" \
    --func=attention --shapes="$shapes" --layout=bshd --repeat=20
fi
echo "== no GPU here: the CPU path (flash-lower-to-cpu) on examples/attention.mlir"
echo "== flash-plan: the configuration chosen for the example"
"$build/bin/flash-opt" "$root/examples/attention.mlir" --flash-plan | grep -o '#flash.config<[^>]*>'
echo "== flash-run: flash-lower-to-cpu, JIT, random inputs vs the reference"
exec "$build/bin/flash-run" "$root/examples/attention.mlir" --repeat=3 \
  --shapes="1,8,2,512,512;2,8,2,333,1000;1,8,2,1,1000;1,8,2,1000,17" \
  --layout=bshd --tol=1e-5
