#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a; lent for nvidia-h200 calls);
# run from the repository root with $OUT set. Session 24,
# device call 2: the final commit's kernels, for #11's "must hold" list.
# build/art-suite: this commit's suite and decode libraries
#   (scripts/gen-variants.py, scripts/gen-decode-variants.py, flash-compile
#   --chip=sm_90a, libflashrt.so);
# build/art-pre11: 3c847b8's (the commit before #11; its own gen-variants,
#   gen-decode-variants and scripts/flash-compile.sh --chip=sm_90a, built in
#   a worktree);
# build/art-redux: this commit's mods library (cmp-equal PTX to call 1's).
# `$0 ab`: 1. the no-regression A/B (bench/ab.py, FA2 sweep + decode table,
#   3c847b8 = A, this commit = B); 2. gpu-suite.sh: the correctness matrix
#   and the benchmark against torch SDPA (FA2, cuDNN) in one process.
# `$0 rest`: 3. decode correctness; 4. the suite's sanitizers; 5. softcap as
#   a score_mod against the attribute form, the mask bars (maskbar.py).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s24c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
S=$PWD/build/art-suite
if [ "${1:-ab}" = ab ]; then
  nvidia-smi -L
  FLASHRT_LIB=$S/libflashrt.so timeout 200 python3 bench/ab.py --a build/art-pre11 \
    --b build/art-suite --table both --out $R/ab.json > $R/ab.log 2>&1
  echo "ab rc=$?"; grep -E "BELOW|~" $R/ab.log | head; tail -1 $R/ab.log
  FLASHRT_LIB=$S/libflashrt.so T_CORRECTNESS=200 T_BENCHMARK=90 SUITE_STEPS=correctness,benchmark \
    scripts/gpu-suite.sh build/art-suite $R/suite > $R/suite.out 2>&1
  echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
  exit 0
fi
LD_LIBRARY_PATH=$S FLASHRT_LIB=$S/libflashrt.so timeout 90 \
  python3 bench/decode.py --artifacts build/art-suite --manifest decode-manifest.json \
  --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$S/libflashrt.so T_MEMCHECK=120 T_RACECHECK=120 SUITE_STEPS=memcheck,racecheck \
  scripts/gpu-suite.sh build/art-suite $R/san > $R/san.out 2>&1
echo "sanitizers rc=$?"; grep -hE "passed|ERROR SUMMARY|RACECHECK SUMMARY" $R/san/*.log | tail -6
FLASHRT_LIB=$PWD/build/art-redux/libflashrt.so timeout 150 python3 bench/maskbar.py \
  --artifacts build/art-redux --pairs softcap_fast:softcap_attr,prefixlm:plain,causalmod:plain@causal \
  --dims 64,128 --rounds 2 --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//; s/ (.*//'
# 6. The plant (build/art-plant24, --dims 64, flash-compile with every lane
#    of the warps' exchange reading warp 0's slot): must fail.
FLASHRT_LIB=$PWD/build/art-plant24/libflashrt.so timeout 120 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-plant24 --kinds docmask --no-timing > $R/plant.log 2>&1
echo "plant rc=$? (nonzero expected)"; grep -c FAIL $R/plant.log; tail -n 2 $R/plant.log
