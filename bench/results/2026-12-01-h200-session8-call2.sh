#!/usr/bin/env bash
# Session 8, device call 2 (1 x H200). build/art-modsN2: the mods kernels
# with capture reads issued before the wgmma score GEMM's wait (commit
# "flash-to-gpu: capture reads that need no tile element ..."); build/gpuF:
# suite/decode kernels, PTX byte-identical to this commit's
# (scripts/compare-ptx.sh against dc9a3fa); build/gpu-old: 3c847b8's.
#  1. mods correctness (FA2 rule vs torch f32) and timing (paired rounds)
#  2. the four rows call 1 put at or below 0.97, and their neighbours, with
#     31 ABBA rounds; the same rows A/A (3c847b8 against a copy of itself):
#     the instrument's own spread
#  3. mods kernels under compute-sanitizer racecheck and memcheck
#     (gpu-mods-check.py --sanitize: only our kernels on the GPU)
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s8c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
M=build/art-modsN2
FLASHRT_LIB=$PWD/$M/libflashrt.so timeout 200 python3 scripts/gpu-mods-check.py \
  --artifacts $M --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|timing mods_(docmask|softcap_fast|prefixlm)" $R/mods.log
export FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so
ROWS="--table fa2 --hdims 64,128 --seqlens 4096,8192,16384 --rounds 31"
timeout 150 python3 bench/ab.py --a build/gpu-old --b build/gpuF $ROWS --out $R/ab2.json > $R/ab2.log 2>&1
echo "ab2 rc=$?"; tail -15 $R/ab2.log
cp -r build/gpu-old /tmp/gpu-old2
timeout 150 python3 bench/ab.py --a build/gpu-old --b /tmp/gpu-old2 $ROWS --out $R/aa.json > $R/aa.log 2>&1
echo "aa rc=$?"; tail -15 $R/aa.log
export FLASHRT_LIB=$PWD/$M/libflashrt.so
CS=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 120 $CS --tool racecheck --racecheck-report all --error-exitcode 86 \
  python3 scripts/gpu-mods-check.py --artifacts $M --quick --sanitize > $R/mods-racecheck.log 2>&1
echo "racecheck rc=$?"; tail -3 $R/mods-racecheck.log
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 100 $CS --tool memcheck --leak-check no --error-exitcode 86 \
  python3 scripts/gpu-mods-check.py --artifacts $M --quick --sanitize > $R/mods-memcheck.log 2>&1
echo "memcheck rc=$?"; tail -3 $R/mods-memcheck.log
