#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 4: flash-occupancy (flash-compile --occupancy).
# build/art16o = the mods library compiled with it: ptxas takes
# .minnctapersm 5 without spills for exactly four kernels (ALiBi d64 and its
# causal twin, the softcap region d64, prefix-LM d64; occ-manifest.json
# lists them), every other kernel is the default build's (build/art16).
# 1. Correctness of the four (gpu-mods-check.py, full matrix).
# 2. A/B against the default build, same tensors, one process, steady
#    windows (maskbar.py --base-artifacts, BASE @base); the causal softcap
#    region is unchanged in both builds (an A/A control).
# 3. The mask bar for prefix-LM d64 with the new kernel.
# 4. compute-sanitizer memcheck and racecheck on the four.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art16o/libflashrt.so
timeout 150 python3 scripts/gpu-mods-check.py --artifacts build/art16o --manifest occ-manifest.json \
  --no-timing > $R/mods.log 2>&1
echo "mods rc=$?"; tail -3 $R/mods.log
timeout 200 python3 bench/maskbar.py --artifacts build/art16o --base-artifacts build/art16 \
  --pairs prefixlm:@base,alibi:@base,softcap_mod:@base --dims 64 --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; grep maskbar $R/ab.log
timeout 60 python3 bench/maskbar.py --artifacts build/art16o --pairs prefixlm:plain --dims 64 \
  --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep maskbar $R/maskbar.log
S=/usr/local/cuda/bin/compute-sanitizer
for tool in memcheck racecheck; do
  extra=(); [ $tool = memcheck ] && extra=(--leak-check no); [ $tool = racecheck ] && extra=(--racecheck-report all)
  timeout 100 $S --tool $tool "${extra[@]}" --error-exitcode 86 \
    python3 scripts/gpu-mods-check.py --artifacts build/art16o --manifest occ-manifest.json --quick --sanitize \
    > $R/$tool.log 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed|failed" $R/$tool.log | tail -3
done
cd $OUT && tar czf s16c4.tgz s16c4 && rm -rf s16c4
