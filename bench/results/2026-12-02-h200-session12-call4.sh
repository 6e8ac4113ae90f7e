#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 12, device call 4 (1 x H200): flash-simplify-mods (a prefix-LM
# mask `j <= i or j < p` becomes `j <= max(i, p - 1)`: one compare and one
# select per score element instead of a compare and two selects).
# build/art-mods-s: `gen-mods-variants.py --block-mask --configs` compiled at
# this commit; build/art-mods-new: the same module at a9e18bd (before the
# pass), the A/B base. Correctness of every kernel (FA2's rule, float32 torch
# reference), the timing pairs, the prefix-LM kernels against a9e18bd's in
# one process; the Python blockmask step (its prefix-LM kernels too) from
# build/kcache-bm13 (this commit's blockmask variants, precompiled).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s12c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods-s/libflashrt.so
timeout 420 python3 scripts/gpu-mods-check.py --artifacts build/art-mods-s \
  --base-artifacts build/art-mods-new --ab-kinds prefixlm,prefixlm_p,prefixlm_q,prefixlm_w12 \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "base build" $R/mods.log
grep -E "timing mods_(docmask|prefixlm)_bf16_d(64|128)(_causal)? vs mods_plain_bf16" $R/mods.log
STEPS=blockmask timeout 120 scripts/gpu-python-checks.sh build/kcache-bm13 $R/py | tail -3
echo "python blockmask rc=$?"
