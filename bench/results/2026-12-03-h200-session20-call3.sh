#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 20, device call 3: call 2's racecheck of the long causal kernel
# counted 16247 hazards, every one of the 100 it displayed in cuBLAS's
# nvjet kernel (torch's bf16 baseline matmul on the GPU). Here the same four
# cases run the --sanitize way (reference and baseline on the CPU:
# correctness.py --sanitize --filter), so that our kernel is the only GPU
# code the tool watches: racecheck, then memcheck.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s20c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python PYTORCH_NO_CUDA_MEMORY_CACHING=1
export FLASHRT_LIB=$PWD/build/artS/libflashrt.so
nvidia-smi -L
LONG='attn_bf16_d128_causal B=1 (H=8/1 Sq=2048 Sk=512 bshd|H=8/8 Sq=2048 Sk=2048 bhsd|H=8/2 Sq=2111 Sk=2111 bshd|H=8/1 Sq=2049 Sk=4000 bhsd)'
timeout 300 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 86 \
  python3 bench/correctness.py --artifacts build/artS --sanitize --filter "$LONG" --no-repeat \
  > $R/racecheck-long.log 2>&1
echo "racecheck long rc=$?"; grep -E "passed|RACECHECK SUMMARY" $R/racecheck-long.log | tail -3
grep -E "^=========     (Read|Write) Thread" $R/racecheck-long.log | sed 's/.* at //; s/+0x.*//' | sort | uniq -c
timeout 200 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 86 \
  python3 bench/correctness.py --artifacts build/artS --sanitize --filter "$LONG" --no-repeat \
  > $R/memcheck-long.log 2>&1
echo "memcheck long rc=$?"; grep -E "passed|ERROR SUMMARY" $R/memcheck-long.log | tail -3
