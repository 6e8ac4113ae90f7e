#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 20, device call 4: call 1's suite library (build/artS, cmp-equal
# to the final commit's) against torch SDPA (FA2, cuDNN) with do_bench's
# 25 ms warm-up and with 500 ms (each kernel at its own settled clock under
# the power cap, session 15's protocol), so that the d128 causal rows of
# long-causal-rows have a settled-clock figure against cuDNN.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s20c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/artS/libflashrt.so
nvidia-smi -L
for w in 25 500; do
  timeout 250 python3 bench/benchmark.py --artifacts build/artS --warmup $w \
    --out $R/benchmark-w$w.json > $R/benchmark-w$w.log 2>&1
  echo "benchmark warmup $w rc=$?"; grep -E "^ +128 +True|geomean" $R/benchmark-w$w.log
done
