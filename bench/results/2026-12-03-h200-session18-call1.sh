#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 18, device call 1: the column-bound fold (ColumnBounds, wgmma
# only). build/artA = the libraries of 34c45de (the commit before), build/artB
# = this change's (scripts: gen-variants.py, gen-decode-variants.py,
# gen-mods-variants.py --configs through flash-compile --chip=sm_90a). decode.so
# is cmp-equal in both; the suite and mods libraries differ (wgmma kernels with
# causal/window masks and the prefix-LM mask_mod). The code measured is
# -call1-merge.patch (on 34c45de): every tested-only column position folded,
# and tests of one position in one direction merged under and/or.
# 1. Suite correctness (full matrix) and mods correctness (full matrix), B.
# 2. The no-regression A/B, B over A, FA2 sweep (bench/ab.py, one process).
# 3. The prefix-LM kernels B over A, and B's mask bar (prefixlm:plain),
#    steady windows (bench/maskbar.py).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s18c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artB/suite/libflashrt.so T_CORRECTNESS=170 SUITE_STEPS=correctness \
  scripts/gpu-suite.sh build/artB/suite $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed" $R/suite/*.log | tail -2
FLASHRT_LIB=$PWD/build/artB/mods/libflashrt.so timeout 150 python3 scripts/gpu-mods-check.py \
  --artifacts build/artB/mods --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
FLASHRT_LIB=$PWD/build/artB/suite/libflashrt.so timeout 120 python3 bench/ab.py --a build/artA/suite \
  --b build/artB/suite --table fa2 --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -1 $R/ab.log
FLASHRT_LIB=$PWD/build/artB/mods/libflashrt.so timeout 130 python3 bench/maskbar.py --artifacts build/artB/mods \
  --base-artifacts build/artA/mods --pairs prefixlm:@base --dims 64,128 --out $R/ab-prefixlm.json > $R/ab-prefixlm.log 2>&1
echo "ab-prefixlm rc=$?"; grep "^maskbar" $R/ab-prefixlm.log | sed 's/;.*//'
FLASHRT_LIB=$PWD/build/artB/mods/libflashrt.so timeout 80 python3 bench/maskbar.py --artifacts build/artB/mods \
  --pairs prefixlm:plain --dims 64,128 --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
cd $OUT && tar czf s18c1.tgz s18c1 && rm -rf s18c1
