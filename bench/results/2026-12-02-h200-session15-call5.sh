#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 5 (1 x H200): one-warpgroup tiles for the head-dim
# 64 mask kernels. build/art-t64: `gen-mods-variants.py --tiles --dims=64`
# compiled by this commit's flash-compile --chip=sm_90a (flash-plan's 64 x 64
# kernels, and each of plain / document mask / prefix-LM on 64 x 64 in 3
# stages (_s3), 64 x 32 (_n32), 64 x 128 (_n128), 128 x 64 with two
# warpgroups in lockstep (_m128)). bench/maskbar.py against flash-plan's
# unmasked kernel, steady windows (300 ms, 2 ABBA rounds), then every
# kernel's correctness (FA2's rule, float32 torch reference).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-t64/libflashrt.so
nvidia-smi -L
P=docmask:plain,docmask_n32:plain,plain_n32:plain,prefixlm_n32:plain,docmask_s3:plain
P=$P,docmask_m128:plain,docmask_n128:plain
timeout 300 python3 bench/maskbar.py --artifacts build/art-t64 --pairs $P --dims 64 \
  --rounds 2 --warm-ms 300 --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; sed 's/mods_//g; s/_bf16//g; s/ reasons [0-9x\/]*//g' $R/maskbar.log | grep maskbar
timeout 200 python3 scripts/gpu-mods-check.py --artifacts build/art-t64 --no-timing \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head
tar czf $OUT/s15c5.tgz -C $R . && rm -rf $R
