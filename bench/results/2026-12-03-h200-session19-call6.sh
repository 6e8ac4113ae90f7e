#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 19, device call 6: the final commit's libraries end to end.
# build/suiteF = 8fca644's suite library (scripts/gen-variants.py,
# flash-compile --chip=sm_90a; cmp-equal to call 2's A, whose PTX is
# 679dc31's); build/artG = call 4's mods library (8fca644's mods PTX is
# equal to it).
# 1. gpu-suite.sh: the correctness matrix and the benchmark against torch
#    SDPA (FA2, cuDNN) in the same process.
# 2. Mods correctness, the whole matrix.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s19c6; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/suiteF/libflashrt.so T_CORRECTNESS=120 T_BENCHMARK=60 \
  SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/suiteF $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
FLASHRT_LIB=$PWD/build/artG/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artG --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
