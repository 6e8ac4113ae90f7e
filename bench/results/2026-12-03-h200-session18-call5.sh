#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200; every command below, run from the
# repository root with $OUT set.
# Session 18, device call 5: the mma.sync kernels of call 4's form. The
# suite compiled for sm_90 (not sm_90a: mma.sync at every head dim), by
# 34c45de (build/art90A) and by call 4's code (build/art90E); on sm_90 the
# causal d256 kernel spills 384 bytes instead of 380 (ptx.test), so the
# causal kernels' time is measured: bench/ab.py, causal rows of the FA2 sweep at every
# head dim of the suite, both builds on the same tensors in one process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s18c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/art90E/libflashrt.so timeout 200 python3 bench/ab.py --a build/art90A \
  --b build/art90E --table fa2 --causal true --hdims 32,64,96,128,192,256 --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; grep -E "^fa2" $R/ab.log | awk '{print $2,$3,$4,$7,$8,$9,$NF}'; tail -1 $R/ab.log
cd $OUT && tar czf s18c5.tgz s18c5 && rm -rf s18c5
