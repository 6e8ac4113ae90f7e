#!/usr/bin/env bash
# Session 7 device call 3 (1 x H200): score_mod / mask_mod / ALiBi on the
# GPU (#11): scripts/gpu-mods-check.py on the 26 kernels of
# scripts/gen-mods-variants.py (float32 torch reference, FA2's rule, timing
# of softcap as score_mod vs the attribute and of a mask_mod vs none), its
# quick set under compute-sanitizer memcheck and racecheck; memcheck and
# racecheck of the suite kernels built with session 7's flash-to-gpu.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/res3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art-mods/libflashrt.so
timeout 200 python3 scripts/gpu-mods-check.py --artifacts build/art-mods --out $R/mods.json > $R/mods.log 2>&1
echo "== mods rc $?"; tail -45 $R/mods.log
CS=$(command -v compute-sanitizer || ls /usr/local/cuda/bin/compute-sanitizer)
timeout 100 $CS --tool memcheck python3 scripts/gpu-mods-check.py --artifacts build/art-mods --quick --no-timing > $R/mods-memcheck.log 2>&1
echo "== mods memcheck rc $?"; tail -4 $R/mods-memcheck.log
timeout 100 $CS --tool racecheck python3 scripts/gpu-mods-check.py --artifacts build/art-mods --quick --no-timing > $R/mods-racecheck.log 2>&1
echo "== mods racecheck rc $?"; tail -4 $R/mods-racecheck.log
export FLASHRT_LIB=$PWD/build/gpuB/libflashrt.so
T_MEMCHECK=100 T_RACECHECK=100 SUITE_STEPS=memcheck,racecheck scripts/gpu-suite.sh build/gpuB $R/suite > $R/suite.out 2>&1
tail -5 $R/suite.out
