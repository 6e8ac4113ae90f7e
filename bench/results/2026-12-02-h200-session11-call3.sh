#!/usr/bin/env bash
# Session 11, device call 3 (prototype, not landed): FA3 ping-pong between
# the two consumer warpgroups of the producer config (named barriers 2/3:
# turn = {PV(j-1), S(j)}), env-gated FLASH_PINGPONG=1 at compile time.
# libA = this commit's kernels (7e64a33): plain, plain_p, docmask, prefixlm
# at d128, not causal, from `gen-mods-variants.py --configs --dims=128`;
# libB = plain_p, docmask, prefixlm renamed *_pp and compiled with
# FLASH_PINGPONG=1 by flash-compile built with -call3-pingpong.patch applied
# (the patch also adds the _pp suffix and timing pairs to the scripts).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s11c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-pp/libflashrt.so
nvidia-smi -L
timeout 400 python3 scripts/gpu-mods-check.py --artifacts build/art-pp \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "^timing" $R/mods.log | sed -E 's/mods_//g; s/_bf16//g'
