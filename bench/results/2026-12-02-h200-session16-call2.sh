#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 2: #11's mask bar for FlexAttention (torch 2.11,
# torch.compile -> Triton) beside ours on the same tensors in one process
# (bench/flex-maskbar.py): the document mask applied to every score (a
# BlockMask with every block partial) over Flex's unmasked kernel, at head
# dims 64 and 128, 4x16x4k, steady windows; build/art16 = this commit's mods
# library (the kernels of session 15's final commit).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art16/libflashrt.so
timeout 540 python3 bench/flex-maskbar.py --artifacts build/art16 --dims 64,128 --shapes 4k \
  > $R/flex-maskbar.log 2>&1
echo "flex-maskbar rc=$?"
grep -v "^W\|^I" $R/flex-maskbar.log | tail -40
cd $OUT && tar czf s16c2.tgz s16c2 && rm -rf s16c2
