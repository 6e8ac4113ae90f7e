#!/usr/bin/env bash
# Session 11, device call 1 (1 x H200): flash-plan gives a mask_mod at head
# dim 128 (not causal) FA3's producer warpgroup (128x96, 8 consumer warps,
# 3 stages) and producer kernels split registers 64 / 216 (was 40 / 232).
# build/art-mods11 is `scripts/gen-mods-variants.py ... --block-mask
# --configs` compiled for sm_90a at the session's commit: every mods kernel,
# plus plain_p (the unmasked kernel on the producer config) and
# docmask_w12 / prefixlm_w12 (the mask_mod kernels on the 192x96 lockstep
# config flash-plan gave them before: the A/B of the change, same process).
# Correctness of every kernel (FA2's rule, float32 torch reference), then
# the timing pairs; then compute-sanitizer on the quick sanitize cases.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s11c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods11/libflashrt.so
nvidia-smi -L
timeout 420 python3 scripts/gpu-mods-check.py --artifacts build/art-mods11 \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "timing mods_(docmask|plain|prefixlm)" $R/mods.log | grep "d128 vs\|d128 (\|w12\|plain_p"
for tool in memcheck racecheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  [ $tool = memcheck ] && extra="--leak-check no"
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 150 compute-sanitizer --tool $tool $extra \
    --error-exitcode 86 python3 scripts/gpu-mods-check.py --artifacts build/art-mods11 \
    --quick --sanitize > $R/sanitize-$tool.log 2>&1
  echo "$tool rc=$?"; tail -3 $R/sanitize-$tool.log
done
