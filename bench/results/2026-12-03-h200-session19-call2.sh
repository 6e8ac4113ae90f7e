#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 19, device call 2: FA3's producer config for the causal attribute
# at head dim 128 (call 1 found causal written as a mask_mod, which
# flash-plan gives 128 x 96 with the producer warpgroup and 3 stages, 0.91-0.94x
# the time of the causal attribute's 64 x 96 kernel).
# build/suiteA = the suite library at 3234b9a + the swap/nc mends (d128 causal:
# 64 x 96, 4 warps); build/suiteV1 = the same with flash-plan giving the
# d128 causal kernels (no mask_mod) 128 x 96, 8 consumer warps, 3 stages,
# producer; build/suiteV2 = V1 with FA3's ping-pong turns (the experiment's
# switch: -call2-causal.patch).
# 1. A/B in one process (bench/ab.py, FA2-sweep causal rows, d128), V1 / A
#    and V2 / A.
# 2. The suite's correctness matrix and the benchmark against torch SDPA on
#    V1 and V2.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s19c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
for V in V1 V2; do
  FLASHRT_LIB=$PWD/build/suiteA/libflashrt.so timeout 100 python3 bench/ab.py --a build/suiteA \
    --b build/suite$V --table fa2 --causal true --hdims 128 --out $R/ab-$V.json > $R/ab-$V.log 2>&1
  echo "ab $V rc=$?"; grep -E "^fa2|geomean|BELOW" $R/ab-$V.log | head -12
done
for V in V1 V2; do
  FLASHRT_LIB=$PWD/build/suite$V/libflashrt.so T_CORRECTNESS=120 T_BENCHMARK=60 \
    SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/suite$V $R/suite-$V > $R/suite-$V.out 2>&1
  echo "suite $V rc=$?"; grep -hE "passed|failed|geomean" $R/suite-$V/*.log | tail -4
  grep -hE "d128.*causal|hdim=128.*causal" $R/suite-$V/benchmark.log | head -8
done
