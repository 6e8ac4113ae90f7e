#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 3: bench/flex-maskbar.py at head dim 64 on both
# timing shapes (4x16x4k, 1x16x16k) for the document mask and the prefix-LM
# mask: FlexAttention's mask_mod on every block over its unmasked kernel,
# beside ours over ours, same tensors, one process, steady windows.
# build/art16 = this commit's mods library (session 15's final kernels).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art16/libflashrt.so
timeout 560 python3 bench/flex-maskbar.py --artifacts build/art16 --dims 64 --kinds docmask,prefixlm \
  --shapes all > $R/flex-maskbar.log 2>&1
echo "flex-maskbar rc=$?"
grep -v "^W1\|^I1" $R/flex-maskbar.log | tail -40
cd $OUT && tar czf s16c3.tgz s16c3 && rm -rf s16c3
