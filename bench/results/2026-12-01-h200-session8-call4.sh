#!/usr/bin/env bash
# Session 8, device call 4 (1 x H200), final commit's kernels: build/gpuF
# (suite + decode, PTX byte-identical to this commit's by
# scripts/compare-ptx.sh) and build/art-modsN2 (flash-compile at this commit
# rebuilds it byte-identical). The end-to-end check and the benchmark
# against torch SDPA (FA2, cuDNN) in the same process, decode correctness,
# the mods check.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s8c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so
T_CORRECTNESS=150 T_BENCHMARK=200 SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/gpuF $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; tail -3 $R/suite.out; grep -hE "passed|geomean" $R/suite/*.log | tail -4
LD_LIBRARY_PATH=$PWD/build/gpuF timeout 80 python3 bench/decode.py --artifacts build/gpuF \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/art-modsN2/libflashrt.so timeout 200 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsN2 --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness" $R/mods.log; grep -E "timing mods_(softcap_fast|docmask)" $R/mods.log
