#!/usr/bin/env bash
# Session 9, device call 1 (1 x H200). build/gpuG: suite + decode kernels
# with the wgmma softmax emitted one thread row at a time (lowerBody);
# build/gpu-old: 3c847b8's kernels; build/art-modsG: the mods kernels.
#  1. A/B of 3c847b8 vs the new kernels, FA2 sweep + decode table (bench/ab.py)
#  2. mods correctness (FA2 rule vs torch f32) and timing
#  3. suite correctness (full matrix) of the new kernels
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s9c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/gpuG/libflashrt.so timeout 290 python3 bench/ab.py --a build/gpu-old \
  --b build/gpuG --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -45 $R/ab.log
FLASHRT_LIB=$PWD/build/art-modsG/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsG --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness" $R/mods.log; grep -E "timing" $R/mods.log | tail -40
FLASHRT_LIB=$PWD/build/gpuG/libflashrt.so T_CORRECTNESS=140 SUITE_STEPS=correctness scripts/gpu-suite.sh build/gpuG $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed" $R/suite/*.log | tail -3
