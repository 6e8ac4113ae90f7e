#!/usr/bin/env bash
# Session 9, device call 2 (1 x H200), the final commit's kernels:
# build/gpuG (suite + decode; flash-compile at the final commit rebuilds
# both .so byte-identical, `cmp`) and build/art-modsH (the mods kernels incl.
# docmask_bm, the document mask with its block_mask hint).
#  1. benchmark against torch SDPA (FA2, cuDNN) in the same process
#  2. decode correctness
#  3. mods correctness (incl. docmask_bm) and timing
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s9c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/art-modsH/libflashrt.so timeout 230 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsH --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20; grep -E "timing mods_(docmask|plain)" $R/mods.log
export FLASHRT_LIB=$PWD/build/gpuG/libflashrt.so
T_BENCHMARK=200 SUITE_STEPS=benchmark scripts/gpu-suite.sh build/gpuG $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "verified|geomean" $R/suite/*.log | tail -4
LD_LIBRARY_PATH=$PWD/build/gpuG timeout 80 python3 bench/decode.py --artifacts build/gpuG \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
grep "decode-correctness:" $R/decode-correctness.log
