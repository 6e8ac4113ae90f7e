#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 19, device call 5: compute-sanitizer (memcheck, racecheck) on the
# kernels with key bounds of call 4's library (build/artG: prefix-LM,
# causalmod, windowmod; gpu-mods-check.py --quick --sanitize on their
# manifest). Calls 1, 3 and 4 ran the --sanitize mode without the tool.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s19c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python PYTORCH_NO_CUDA_MEMORY_CACHING=1
export FLASHRT_LIB=$PWD/build/artG/libflashrt.so
nvidia-smi -L
timeout 200 compute-sanitizer --tool memcheck --leak-check no --error-exitcode 86 python3 scripts/gpu-mods-check.py \
  --artifacts build/artG --manifest mods-manifest-kb.json --quick --sanitize > $R/memcheck.log 2>&1
echo "memcheck rc=$?"; grep -E "passed|ERROR SUMMARY" $R/memcheck.log | tail -3
timeout 320 compute-sanitizer --tool racecheck --racecheck-report all --error-exitcode 86 python3 scripts/gpu-mods-check.py \
  --artifacts build/artG --manifest mods-manifest-kb.json --quick --sanitize > $R/racecheck.log 2>&1
echo "racecheck rc=$?"; grep -E "passed|RACECHECK SUMMARY" $R/racecheck.log | tail -3
