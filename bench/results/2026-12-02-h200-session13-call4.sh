#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 13, device call 4 (1 x H200): compute-sanitizer memcheck on the
# ping-pong kernels flash-plan now gives a d128 mask_mod (document mask,
# prefix-LM) and the causal document mask with turns, from build/art-pp3
# (call 3's module; `flash-compile` at e895039 writes a byte-identical
# library).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s13c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-pp3/libflashrt.so
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 120 compute-sanitizer --tool memcheck \
  --leak-check no --error-exitcode 86 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-pp3 --manifest pp-manifest.json --quick --sanitize \
  > $R/memcheck.log 2>&1
echo "memcheck rc=$?"; tail -2 $R/memcheck.log
