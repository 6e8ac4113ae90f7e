#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 1 (1 x H200): the mask_mod's compares before the
# score GEMM's wait (experiment). build/art-e{0,1,2}: `gen-mods-variants.py
# --block-mask` compiled by 9b05e5b's flash-compile --chip=sm_90a with the
# experiment's switches (`-call1-early.patch`): e0 none (9b05e5b's kernels,
# cmp-equal to session 14's art-modsZ), e1 FLASH_EARLY_PRED=1 (every op of an
# element-wise body that reads only capture loads and index arithmetic --
# the document mask's id compare -- goes above the wait, with the loads), e2
# e1 plus FLASH_MINCTAS=5 on the d64 kernels (.minnctapersm 5). A/B in one
# process each (same tensors and documents), then e1's correctness.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-e0/libflashrt.so
nvidia-smi -L
K=docmask,prefixlm,plain,docmask_bm,relbias,softcap_mod
for v in e1 e2; do
  timeout 240 python3 scripts/gpu-mods-check.py --artifacts build/art-$v \
    --base-artifacts build/art-e0 --ab-kinds $K --ab-only > $R/ab-$v.log 2>&1
  echo "ab $v rc=$?"; grep -E "base build" $R/ab-$v.log | sed 's/mods_//; s/_bf16//g'
done
timeout 200 python3 scripts/gpu-mods-check.py --artifacts build/art-e1 --no-timing \
  > $R/mods-e1.log 2>&1
echo "mods e1 rc=$?"; grep -E "mods correctness|FAIL" $R/mods-e1.log | head
