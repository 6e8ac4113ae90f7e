#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 20, device call 1. build/artO = f1a48df's suite library (session
# 19's final commit; gen-variants.py, its own flash-compile --chip=sm_90a);
# build/artS = this session's (flash-plan's long-causal-rows: the causal
# head-dim-128 entry points launch the producer config, 128 x 96 with 8
# consumer warps and 3 stages, for Sq >= 2048 and 64 x 96 below);
# build/artA = this session's mods library (gen-mods-variants.py --configs,
# with window32: FlexAttention's window written in i32).
# 1. A/B in one process (bench/ab.py, the FA2 sweep, both causal values),
#    S / O.
# 2. gpu-suite.sh on S: the correctness matrix (2016 cases: 1800 + the
#    pairs at and past Sq = 2048) and the benchmark against torch SDPA.
# 3. Mods correctness, the whole matrix.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s20c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/artS/libflashrt.so
nvidia-smi -L
timeout 150 python3 bench/ab.py --a build/artO --b build/artS --table fa2 \
  --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; grep -E "^fa2|geomean|BELOW" $R/ab.log | head -30
T_CORRECTNESS=200 T_BENCHMARK=70 SUITE_STEPS=correctness,benchmark \
  scripts/gpu-suite.sh build/artS $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
grep -hE "attn_bf16_d128_causal" $R/suite/correctness.log | head -3
FLASHRT_LIB=$PWD/build/artA/libflashrt.so timeout 170 python3 scripts/gpu-mods-check.py \
  --artifacts build/artA --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
grep -E "window32" $R/mods.log | head -4
