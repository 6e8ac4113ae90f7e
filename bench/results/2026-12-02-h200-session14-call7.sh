#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 14, device call 7 (1 x H200): the final commit's kernels, exactly.
# build/gpuZ: gen-variants.py / gen-decode-variants.py compiled by this
# commit's flash-compile --chip=sm_90a (decode.so cmp-equal to 078f311's);
# build/art-modsZ: gen-mods-variants.py --block-mask, same compiler;
# build/gpuS: 078f311's kernels (the previous commit's, as in call 1).
#  1. end-to-end correctness matrix + benchmark against torch SDPA (FA2,
#     cuDNN) in one process (scripts/gpu-suite.sh);
#  2. decode correctness; mods correctness (FA2 rule, float32 torch ref);
#  3. bench/ab.py: 078f311's kernels against these in one process, the FA2
#     sweep + decode table, then the causal rows of head dims 192 and 256.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c7; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/gpuZ/libflashrt.so T_CORRECTNESS=170 T_BENCHMARK=200 SUITE_STEPS=correctness,benchmark \
  scripts/gpu-suite.sh build/gpuZ $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
LD_LIBRARY_PATH=$PWD/build/gpuZ timeout 90 python3 bench/decode.py --artifacts build/gpuZ \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/art-modsZ/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsZ --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head
FLASHRT_LIB=$PWD/build/gpuZ/libflashrt.so timeout 150 python3 bench/ab.py --a build/gpuS \
  --b build/gpuZ --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -1 $R/ab.log
FLASHRT_LIB=$PWD/build/gpuZ/libflashrt.so timeout 100 python3 bench/ab.py --a build/gpuS \
  --b build/gpuZ --table fa2 --causal true --hdims 192,256 --out $R/ab-d192-256.json > $R/ab-d192-256.log 2>&1
echo "ab rc=$?"; tail -1 $R/ab-d192-256.log
