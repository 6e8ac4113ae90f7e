#!/usr/bin/env bash
# Session 8, device call 1 (1 x H200). build/art-modsN: the score_mod /
# mask_mod kernels after the capture-load change (one clamping mechanism,
# static capture strides, nsw offsets) plus softcap_fast (divf arcp);
# build/gpuF: the suite/decode kernels, PTX byte-identical to HEAD's
# (scripts/compare-ptx.sh against dc9a3fa); build/gpu-old: 3c847b8's.
#  1. mods correctness (FA2 rule vs torch f32) and timing (paired rounds)
#  2. A/B of 3c847b8 vs HEAD kernels, FA2 sweep + decode table (bench/ab.py)
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s8c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/art-modsN/libflashrt.so timeout 260 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-modsN --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|timing" $R/mods.log | tail -60
FLASHRT_LIB=$PWD/build/gpuF/libflashrt.so timeout 300 python3 bench/ab.py --a build/gpu-old \
  --b build/gpuF --out $R/ab1.json > $R/ab1.log 2>&1
echo "ab1 rc=$?"; cat $R/ab1.log | tail -40
