#!/usr/bin/env bash
# Session 9, device call 3 (1 x H200): the final commit's kernels under
# compute-sanitizer. build/gpuG (suite; rebuilt byte-identical at the final
# commit): memcheck and racecheck on bench/correctness.py --sanitize
# (scripts/gpu-suite.sh steps); build/art-modsH (mods incl. docmask_bm):
# gpu-mods-check.py --quick --sanitize under racecheck and memcheck.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s9c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
M=build/art-modsH
FLASHRT_LIB=$PWD/build/gpuG/libflashrt.so T_MEMCHECK=110 T_RACECHECK=110 SUITE_STEPS=memcheck,racecheck \
  scripts/gpu-suite.sh build/gpuG $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; tail -4 $R/suite.out
export FLASHRT_LIB=$PWD/$M/libflashrt.so
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 130 $CS --tool racecheck --racecheck-report all --error-exitcode 86 \
  python3 scripts/gpu-mods-check.py --artifacts $M --quick --sanitize > $R/mods-racecheck.log 2>&1
echo "racecheck rc=$?"; tail -3 $R/mods-racecheck.log
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 110 $CS --tool memcheck --leak-check no --error-exitcode 86 \
  python3 scripts/gpu-mods-check.py --artifacts $M --quick --sanitize > $R/mods-memcheck.log 2>&1
echo "memcheck rc=$?"; tail -3 $R/mods-memcheck.log
