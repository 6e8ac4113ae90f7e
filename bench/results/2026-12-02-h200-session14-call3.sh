#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set. build/gpuF was compiled with the
# longest-first order on every causal grid (as call 2's experiment); the
# final commit keeps it for the wgmma kernels only: their PTX is this
# build's, the mma.sync causal kernels' PTX is 078f311's (compared kernel
# by kernel), the decode library is byte-identical to 078f311's.
# Session 14, device call 3 (1 x H200): the final kernels, with causal grids
# longest first (block x -> Q row block gridDim.x - 1 - x). build/gpuF: the
# suite and decode modules (gen-variants.py / gen-decode-variants.py)
# compiled by flash-compile --chip=sm_90a (suite.so is byte-identical to
# call 2's build/gpuR; the final decode library is 078f311's, measured in
# call 2); the end-to-end correctness matrix
# and the benchmark against torch SDPA (FA2, cuDNN) in one process; decode
# correctness.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so
nvidia-smi -L
T_CORRECTNESS=170 T_BENCHMARK=220 SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/gpuF $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
LD_LIBRARY_PATH=$PWD/build/gpuF timeout 90 python3 bench/decode.py --artifacts build/gpuF \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
