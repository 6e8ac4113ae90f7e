#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 5: the final commit's mods library (build/art16f:
# flash-compile's default, flash-occupancy on; cmp-equal to call 4's
# art16o), the whole correctness matrix of gpu-mods-check.py (no timing).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art16f/libflashrt.so
timeout 400 python3 scripts/gpu-mods-check.py --artifacts build/art16f --no-timing > $R/mods.log 2>&1
echo "mods rc=$?"; tail -3 $R/mods.log
cd $OUT && tar czf s16c5.tgz s16c5 && rm -rf s16c5
