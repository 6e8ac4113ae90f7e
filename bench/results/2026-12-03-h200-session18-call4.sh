#!/usr/bin/env bash
# Date 2026-12-03, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 18, device call 4: the second keyVisible form (not landed: call 5
# found the mma.sync d32 causal kernel 0.91x; the code is
# -call4-keyvisible.patch against 34c45de, ColumnBounds as landed).
# build/artE = its libraries: keyVisible's upper bounds as
# j < min(Sk, diag + 1 [+ right])
# (Sk kept as the bound: the j <= min(Sk - 1, diag) of calls 2-3 made ptxas
# spill the causal ALiBi d64 kernel at 96 registers, this form does not),
# and the column-bound fold in main and mask_mod loops (wgmma);
# build/artA = 34c45de's (the commit before this work).
# 1. The no-regression A/B, E over A (bench/ab.py, FA2 sweep + decode).
# 2. The changed mods kernels E over A (steady windows; non-causal ALiBi,
#    softcap region and relbias are unchanged: A/A controls); the
#    prefix-LM mask bar on E.
# 3. gpu-suite.sh on E: correctness (full matrix), memcheck, racecheck,
#    the benchmark against torch SDPA (FA2, cuDNN); decode correctness;
#    mods correctness.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s18c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/artE/suite/libflashrt.so timeout 100 python3 bench/ab.py --a build/artA/suite \
  --b build/artE/suite --table both --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; grep -E "BELOW|~" $R/ab.log | head; tail -1 $R/ab.log
FLASHRT_LIB=$PWD/build/artE/mods/libflashrt.so timeout 200 python3 bench/maskbar.py --artifacts build/artE/mods \
  --base-artifacts build/artA/mods --pairs prefixlm:@base,alibi:@base,softcap_mod:@base,relbias:@base \
  --dims 64,128 --rounds 2 --out $R/ab-mods.json > $R/ab-mods.log 2>&1
echo "ab-mods rc=$?"; grep "^maskbar" $R/ab-mods.log | sed 's/;.*//; s/ B=.*S=/ /'
FLASHRT_LIB=$PWD/build/artE/mods/libflashrt.so timeout 40 python3 bench/maskbar.py --artifacts build/artE/mods \
  --pairs prefixlm:plain --dims 64 --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep "^maskbar" $R/maskbar.log | sed 's/;.*//'
FLASHRT_LIB=$PWD/build/artE/suite/libflashrt.so T_CORRECTNESS=100 T_MEMCHECK=60 T_RACECHECK=60 T_BENCHMARK=60 \
  SUITE_STEPS=correctness,memcheck,racecheck,benchmark \
  scripts/gpu-suite.sh build/artE/suite $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean|ERROR SUMMARY|RACECHECK SUMMARY" $R/suite/*.log | tail -8
LD_LIBRARY_PATH=$PWD/build/artE/suite FLASHRT_LIB=$PWD/build/artE/suite/libflashrt.so timeout 60 \
  python3 bench/decode.py --artifacts build/artE/suite --manifest decode-manifest.json \
  --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/artE/mods/libflashrt.so timeout 80 python3 scripts/gpu-mods-check.py \
  --artifacts build/artE/mods --no-timing --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -5
cd $OUT && tar czf s18c4.tgz s18c4 && rm -rf s18c4
