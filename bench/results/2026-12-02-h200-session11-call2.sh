#!/usr/bin/env bash
# Session 11, device call 2 (1 x H200): does the producer warpgroup also
# cut the mask_mod's cost at head dim 64, where flash-plan runs one
# warpgroup (64x64) and nothing overlaps its mask work? build/art-mods64 is
# the head-dim-64 subset of `scripts/gen-mods-variants.py --configs
# --dims=64` (plain, docmask, prefixlm; the same with producer configs
# 128x128 s3 (_p) and 128x64 s4 (_q), causal and not), compiled for sm_90a
# at the session's commit, with a manifest of those 15 kernels.
# Correctness of each (FA2's rule), then the timing pairs in this process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s11c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods64/libflashrt.so
nvidia-smi -L
timeout 420 python3 scripts/gpu-mods-check.py --artifacts build/art-mods64 \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "^timing" $R/mods.log | sed -E 's/mods_//g; s/_bf16//g'
