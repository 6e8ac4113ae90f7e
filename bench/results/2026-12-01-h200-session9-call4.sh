#!/usr/bin/env bash
# Session 9, device call 4 (1 x H200): the final commit's scripts (the
# review mends touched bench/{ab,benchmark,correctness,decode,common}.py) on
# the final commit's kernels (build/gpuG, build/art-modsH: flash-compile at
# the final commit rebuilds both byte-identical, `cmp`). End-to-end check
# (full correctness matrix) and the benchmark against torch SDPA in one
# process, decode correctness, mods correctness.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s9c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/gpuG/libflashrt.so
T_CORRECTNESS=150 T_BENCHMARK=200 SUITE_STEPS=correctness,benchmark scripts/gpu-suite.sh build/gpuG $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|geomean" $R/suite/*.log | tail -3
LD_LIBRARY_PATH=$PWD/build/gpuG timeout 80 python3 bench/decode.py --artifacts build/gpuG \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/art-modsH/libflashrt.so timeout 120 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsH --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness" $R/mods.log
