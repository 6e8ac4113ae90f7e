#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 20, device call 2, on call 1's libraries (build/artS: the suite
# with flash-plan's long-causal-rows; build/artA: the mods library with
# window32).
# 1. window32 (FlexAttention's window in i32) and windowmod (the same in
#    index) against the causal attribute, steady windows (bench/maskbar.py).
# 2. compute-sanitizer memcheck and racecheck: on the window32 kernels
#    (gpu-mods-check.py --quick --sanitize on their manifest) and on the
#    long causal kernel (correctness.py on the four cases of
#    attn_bf16_d128_causal with Sq >= 2048 in one layout: 2048 x 512, where
#    rows see no key, 2048 x 2048, 2111 x 2111 and 2049 x 4000).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s20c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python PYTORCH_NO_CUDA_MEMORY_CACHING=1
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artA/libflashrt.so timeout 150 python3 bench/maskbar.py --artifacts build/artA \
  --pairs window32:plain@causal,windowmod:plain@causal --dims 64,128 --out $R/maskbar.json \
  > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
LONG='attn_bf16_d128_causal B=1 (H=8/1 Sq=2048 Sk=512 bshd|H=8/8 Sq=2048 Sk=2048 bhsd|H=8/2 Sq=2111 Sk=2111 bshd|H=8/1 Sq=2049 Sk=4000 bhsd)'
for tool in memcheck racecheck; do
  extra=""; leak="--leak-check no"; [ $tool = racecheck ] && extra="--racecheck-report all" leak=""
  FLASHRT_LIB=$PWD/build/artA/libflashrt.so timeout 150 compute-sanitizer --tool $tool $extra $leak \
    --error-exitcode 86 python3 scripts/gpu-mods-check.py --artifacts build/artA \
    --manifest mods-manifest-w32.json --quick --sanitize > $R/$tool-w32.log 2>&1
  echo "$tool w32 rc=$?"; grep -E "passed|ERROR SUMMARY|RACECHECK SUMMARY" $R/$tool-w32.log | tail -3
  FLASHRT_LIB=$PWD/build/artS/libflashrt.so timeout 150 compute-sanitizer --tool $tool $extra $leak \
    --error-exitcode 86 python3 bench/correctness.py --artifacts build/artS --filter "$LONG" \
    --no-repeat > $R/$tool-long.log 2>&1
  echo "$tool long rc=$?"; grep -E "passed|ERROR SUMMARY|RACECHECK SUMMARY" $R/$tool-long.log | tail -3
done
