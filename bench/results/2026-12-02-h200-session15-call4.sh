#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 4 (1 x H200): does the benchmark against torch SDPA
# hang on the clock the previous kernel left (call 2: the power cap holds
# each kernel at its own clock)? bench/benchmark.py on build/gpuL (call 2's
# suite library, 4bc7a18's kernels) with do_bench's default 25 ms warm-up,
# then with 500 ms (each kernel settles at its own clock before its 100 ms of
# timed calls), then the default again; nvidia-smi's clock and power are
# read once a second beside them.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/gpuL/libflashrt.so
nvidia-smi -L
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_event_reasons.active \
  --format=csv,noheader -l 1 > $R/smi.csv 2>&1 &
SMI=$!
i=0
for w in 25 500 25; do
  i=$((i + 1))
  timeout 200 python3 bench/benchmark.py --artifacts build/gpuL --warmup $w \
    --out $R/benchmark-$i-w$w.json > $R/benchmark-$i-w$w.log 2>&1
  echo "benchmark $i warmup $w rc=$?"
done
kill $SMI
for f in $R/benchmark-*.log; do echo "== $f"; grep -E "^ +(64|128) |geomean" $f; done
tar czf $OUT/s15c4.tgz -C $R . && rm -rf $R
