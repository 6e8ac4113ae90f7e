#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 19, device call 4: bae43f1's mods library (build/artG:
# gen-mods-variants.py --configs, flash-compile --chip=sm_90a), which adds
# windowmod (FlexAttention's sliding window, i - j <= 256 and i >= j: a test
# of a key expression) to call 1's kernels, with and's key intervals
# intersected (call 3's library took their union: windowmod visited every
# block); the other kernels' PTX equals call 1's.
# 1. Mods correctness (the whole matrix) and the sanitizers on the kernels
#    with key bounds (prefix-LM, causalmod, windowmod).
# 2. windowmod and causalmod against the causal attribute (steady windows).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s19c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artG/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artG --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
FLASHRT_LIB=$PWD/build/artG/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artG --manifest mods-manifest-kb.json --quick --sanitize > $R/sanitize.log 2>&1
echo "sanitize rc=$?"; grep -E "passed|FAIL|ERROR SUMMARY|RACECHECK SUMMARY" $R/sanitize.log | sort | uniq -c | head
FLASHRT_LIB=$PWD/build/artG/libflashrt.so timeout 120 python3 bench/maskbar.py --artifacts build/artG \
  --pairs windowmod:plain@causal,causalmod:plain@causal --dims 64,128 --out $R/maskbar.json \
  > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
