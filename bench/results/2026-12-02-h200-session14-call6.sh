#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 14, device call 6 (1 x H200): the longest-first grid order on the
# head dims call 2 did not time. build/gpuR (call 2's experiment build: every
# causal grid reversed; its d192 / d256 wgmma kernels are the final commit's,
# PTX compared kernel by kernel) against build/gpuS (078f311) in one process,
# bench/ab.py's FA2-sweep rows for head dims 192 and 256 (wgmma, landed) and
# 32 and 96 (mma.sync, not landed: for the record), causal only.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c6; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
FLASHRT_LIB=$PWD/build/gpuS/libflashrt.so timeout 400 python3 bench/ab.py --a build/gpuS \
  --b build/gpuR --table fa2 --causal true --hdims 192,256,32,96 --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -28 $R/ab.log
