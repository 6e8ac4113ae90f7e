#!/usr/bin/env bash
# Session 11, device call 4 (1 x H200): the Python checks after the
# BlockMask merge (flashmlir.BlockMask / attention(block_mask=)), every step
# incl. the new `blockmask` one (random documents and prefix-LM, D 64/128,
# L 1k-4k, hinted and unhinted against a float32 torch reference by FA2's
# rule; kernel time hinted/unhinted). build/kcache-bm is
# `scripts/gpu-python-checks.py --precompile build/kcache-bm` at this commit.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1
nvidia-smi -L
FLASHRT_LIB=$PWD/build/lib/libflashrt.so timeout 420 scripts/gpu-python-checks.sh \
  build/kcache-bm $OUT/s11c4
echo "python-checks rc=$?"
