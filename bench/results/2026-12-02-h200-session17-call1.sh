#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 17, device call 1: session 16's final commit (f1a2e76)'s suite library (build/s16a:
# gen-variants.py's module through flash-compile --chip=sm_90a; byte-identical
# with and without flash-occupancy) end to end: the correctness matrix and
# bench/benchmark.py against torch SDPA (FA2, cuDNN) in the same process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s17c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
FLASHRT_LIB=$PWD/build/s16a/libflashrt.so T_CORRECTNESS=170 T_BENCHMARK=150 \
  SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/s16a $R/suite > $R/suite.log 2>&1
echo "suite rc=$?"; grep -iE "passed|geomean|verified" $R/suite.log | tail -8
cd $OUT && tar czf s17c1.tgz s17c1 && rm -rf s17c1
