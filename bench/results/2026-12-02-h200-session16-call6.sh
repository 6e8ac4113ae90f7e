#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 6: the final commit's suite library (build/s16a:
# gen-variants.py's module through flash-compile --chip=sm_90a; byte-identical
# with and without flash-occupancy) end to end: the correctness matrix and
# bench/benchmark.py against torch SDPA (FA2, cuDNN) in the same process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c6; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
FLASHRT_LIB=$PWD/build/s16a/libflashrt.so T_CORRECTNESS=170 T_BENCHMARK=150 \
  SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/s16a $R/suite > $R/suite.log 2>&1
echo "suite rc=$?"; grep -iE "passed|geomean|verified" $R/suite.log | tail -8
cd $OUT && tar czf s16c6.tgz s16c6 && rm -rf s16c6
