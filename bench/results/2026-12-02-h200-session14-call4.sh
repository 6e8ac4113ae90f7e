#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set. build/gpuF was compiled with the
# longest-first order on every causal grid (as call 2's experiment); the
# final commit keeps it for the wgmma kernels only: their PTX is this
# build's, the mma.sync causal kernels' PTX is 078f311's (compared kernel
# by kernel), the decode library is byte-identical to 078f311's.
# Session 14, device call 4 (1 x H200): the final kernels under the
# sanitizers and the mods set's correctness. build/gpuF: as call 3;
# build/art-modsF: `gen-mods-variants.py --block-mask` compiled by this
# commit's flash-compile --chip=sm_90a (byte-identical to call 2's
# build/art-ml).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so T_MEMCHECK=150 T_RACECHECK=150 SUITE_STEPS=memcheck,racecheck \
  scripts/gpu-suite.sh build/gpuF $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|hazard|passed" $R/suite/*.log | tail -6
FLASHRT_LIB=$PWD/build/art-modsF/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsF --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head
