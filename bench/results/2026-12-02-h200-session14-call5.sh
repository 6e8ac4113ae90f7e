#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 14, device call 5 (1 x H200): d128 causal mask kernels with the
# longest-first order (this commit's kernels). build/art-c128:
# `gen-mods-variants.py --block-mask --configs --dims=128` compiled by this
# commit's flash-compile --chip=sm_90a: flash-plan's causal 64 x 96 kernels
# and the 128 x 96 producer ping-pong ones (_pp, causal included), every
# kernel's correctness (FA2 rule, float32 torch reference) and the timing
# pairs in one process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
FLASHRT_LIB=$PWD/build/art-c128/libflashrt.so timeout 300 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-c128 --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head
grep -E "timing mods_(docmask|plain|prefixlm)(_pp)?_bf16_d128(_causal)? vs" $R/mods.log
