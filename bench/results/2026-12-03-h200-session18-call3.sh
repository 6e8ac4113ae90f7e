#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 18, device call 3: commit 3be3be7, checked. build/artD = its
# libraries: keyVisible's upper bounds as one (j <= min(Sk - 1, diag)),
# on both targets and every chip, and the column-bound fold in main and
# mask_mod loops only (wgmma); build/artA = 34c45de's (the commit before).
# 1. gpu-suite.sh on D: correctness (full matrix), compute-sanitizer
#    memcheck and racecheck, the benchmark against torch SDPA (FA2, cuDNN).
# 2. Decode correctness (the decode kernels change: causal chunks).
# 3. Mods correctness (full matrix).
# (The A/B timings are call 2.)
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s18c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artD/suite/libflashrt.so T_CORRECTNESS=170 T_BENCHMARK=150 \
  SUITE_STEPS=correctness,memcheck,racecheck,benchmark \
  scripts/gpu-suite.sh build/artD/suite $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean|ERROR SUMMARY|RACECHECK SUMMARY" $R/suite/*.log | tail -8
LD_LIBRARY_PATH=$PWD/build/artD/suite FLASHRT_LIB=$PWD/build/artD/suite/libflashrt.so timeout 90 \
  python3 bench/decode.py --artifacts build/artD/suite --manifest decode-manifest.json \
  --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/artD/mods/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artD/mods --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
cd $OUT && tar czf s18c3.tgz s18c3 && rm -rf s18c3
