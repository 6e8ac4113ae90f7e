#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 19, device call 1: flash-tile's key bounds (MaskKeys.h).
# build/artN = this commit's mods library (gen-mods-variants.py --configs,
# flash-compile --chip=sm_90a: key bounds on, the default); build/artE = the
# same source with flash-compile --key-bounds=false (every block runs the
# mask_mod, as at 679dc31).
# 1. Mods correctness on N (the whole matrix, causalmod new), and the
#    sanitizers on the kernels that change (prefix-LM, causalmod).
# 2. N over E (steady windows): prefix-LM with key bounds against the
#    element-wise prefix-LM; ALiBi, unchanged, as the A/A control.
# 3. N's mask kernels against the unmasked ones: prefix-LM and the
#    document mask against plain, causal written as a mask_mod against the
#    causal attribute; E's prefix-LM against plain (the element-wise bar).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s19c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artN/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artN --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
FLASHRT_LIB=$PWD/build/artN/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artN --manifest mods-manifest-kb.json --quick --sanitize > $R/sanitize.log 2>&1
echo "sanitize rc=$?"; grep -E "passed|ERROR SUMMARY|RACECHECK SUMMARY|FAIL" $R/sanitize.log | sort | uniq -c | head
FLASHRT_LIB=$PWD/build/artN/libflashrt.so timeout 120 python3 bench/maskbar.py --artifacts build/artN \
  --base-artifacts build/artE --pairs prefixlm:@base,alibi:@base \
  --dims 64,128 --rounds 2 --out $R/ab-mods.json > $R/ab-mods.log 2>&1
echo "ab-mods rc=$?"; grep "^maskbar" $R/ab-mods.log | sed 's/;.*//; s/ B=.*S=/ /'
FLASHRT_LIB=$PWD/build/artN/libflashrt.so timeout 150 python3 bench/maskbar.py --artifacts build/artN \
  --pairs prefixlm:plain,causalmod:plain@causal,docmask:plain --dims 64,128 --out $R/maskbar.json \
  > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
FLASHRT_LIB=$PWD/build/artE/libflashrt.so timeout 60 python3 bench/maskbar.py --artifacts build/artE \
  --pairs prefixlm:plain --dims 64 --out $R/maskbar-elementwise.json > $R/maskbar-elementwise.log 2>&1
echo "maskbar-e rc=$?"; grep "^maskbar" $R/maskbar-elementwise.log | sed 's/;.*//'
