#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 18, device call 2: commit 3be3be7, timed. build/artD = its
# libraries: keyVisible's upper bounds as one (j <= min(Sk - 1, diag)),
# on both targets and every chip, and the column-bound fold in main and
# mask_mod loops only (wgmma); build/artA = 34c45de's (the commit before).
# 1. The no-regression A/B, D over A (bench/ab.py, FA2 sweep + decode).
# 2. The changed mods kernels D over A (steady windows; the non-causal
#    ALiBi and softcap-region kernels are unchanged: A/A controls), and
#    the prefix-LM mask bar on D.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s18c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artD/suite/libflashrt.so timeout 120 python3 bench/ab.py --a build/artA/suite \
  --b build/artD/suite --table both --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; grep -E "BELOW|~" $R/ab.log | head; tail -1 $R/ab.log
FLASHRT_LIB=$PWD/build/artD/mods/libflashrt.so timeout 260 python3 bench/maskbar.py --artifacts build/artD/mods \
  --base-artifacts build/artA/mods --pairs prefixlm:@base,alibi:@base,softcap_mod:@base \
  --dims 64,128 --out $R/ab-mods.json > $R/ab-mods.log 2>&1
echo "ab-mods rc=$?"; grep "^maskbar" $R/ab-mods.log | sed 's/;.*//; s/ B=.*S=/ /'
FLASHRT_LIB=$PWD/build/artD/mods/libflashrt.so timeout 60 python3 bench/maskbar.py --artifacts build/artD/mods \
  --pairs prefixlm:plain --dims 64 --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
cd $OUT && tar czf s18c2.tgz s18c2 && rm -rf s18c2
