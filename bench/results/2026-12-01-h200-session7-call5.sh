#!/usr/bin/env bash
# Session 7 final device call (1 x H200), artifacts from the final commit
# (build/gpuF: suite + decode, PTX identical to call 2's build/gpuB, ABI
# record now with num_args; build/art-modsF: the mods kernels): correctness
# matrix, decode checks, mods checks, A/B against 3c847b8's kernels and the
# benchmark against torch SDPA (FA2, cuDNN) in one process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/res5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so
T_CORRECTNESS=140 T_BENCHMARK=200 SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/gpuF $R/suite > $R/suite.out 2>&1
tail -3 $R/suite.out; grep -E "passed|geomean" $R/suite/*.log | tail -3
LD_LIBRARY_PATH=$PWD/build/gpuF timeout 80 python3 bench/decode.py --artifacts build/gpuF \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/art-modsF/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsF --out $R/mods.json > $R/mods.log 2>&1
grep "mods correctness" $R/mods.log
timeout 150 python3 bench/ab.py --a build/gpu-old --b build/gpuF --out $R/ab.json > $R/ab.log 2>&1
tail -1 $R/ab.log
