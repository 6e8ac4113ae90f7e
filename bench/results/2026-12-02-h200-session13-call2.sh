#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 13, device call 2 (1 x H200): where else FA3's ping-pong turns
# pay. build/art-pp2: `gen-mods-variants.py --block-mask --configs` compiled
# at this commit (flash-plan now gives a d128 non-causal mask_mod without a
# hint the turns), with ping-pong kernels at head dim 64 (_pp: 128 x 128 s3,
# _qp: 128 x 64 s4) and d128 causal (_pp). Correctness of every kernel, the
# timing pairs in one process. Then the Python blockmask step from
# build/kcache-bm14 (this commit's blockmask variants, precompiled: its
# unhinted d128 kernels take the turns now).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s13c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-pp2/libflashrt.so
timeout 420 python3 scripts/gpu-mods-check.py --artifacts build/art-pp2 \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "timing mods_(docmask|prefixlm|plain)(_pp|_qp|_p|_q)?_bf16_d(64|128)(_causal)? vs mods_(plain|docmask|prefixlm)(_p|_q)?_bf16" $R/mods.log
STEPS=blockmask timeout 150 scripts/gpu-python-checks.sh build/kcache-bm14 $R/py | tail -4
echo "python blockmask rc=$?"
