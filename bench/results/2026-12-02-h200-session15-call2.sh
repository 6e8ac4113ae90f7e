#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 2 (1 x H200), at 4bc7a18 (+ bench/maskbar.py):
# (bench/maskbar.py's first version: its --kinds docmask,prefixlm is
# today's --pairs docmask:plain,prefixlm:plain; the protocols are unchanged,
# measure_pair() is the same code moved into a function.)
# 1. the #11 mask bar timed two ways (bench/maskbar.py: gpu-mods-check's
#    short alternating samples, and steady ABBA windows with the SM clock and
#    power read after each) on build/art-e0 (`gen-mods-variants.py
#    --block-mask`, flash-compile --chip=sm_90a; these mods kernels are
#    cmp-equal to 9b05e5b's, session 14's art-modsZ);
# 2. build/gpuL = this commit's suite and decode libraries (gen-variants.py,
#    gen-decode-variants.py, flash-compile --chip=sm_90a): end-to-end
#    correctness and the benchmark against torch SDPA, decode correctness;
# 3. the A/B of the kernels this commit changed (mma.sync causal d32/d96:
#    longest first) against build/gpuZ (9b05e5b's), bench/ab.py.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/art-e0/libflashrt.so timeout 240 python3 bench/maskbar.py \
  --artifacts build/art-e0 --kinds docmask,prefixlm --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; sed 's/mods_//g; s/_bf16//g' $R/maskbar.log
FLASHRT_LIB=$PWD/build/gpuL/libflashrt.so T_CORRECTNESS=170 T_BENCHMARK=150 SUITE_STEPS=correctness,benchmark \
  scripts/gpu-suite.sh build/gpuL $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -4
LD_LIBRARY_PATH=$PWD/build/gpuL timeout 90 python3 bench/decode.py --artifacts build/gpuL \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
FLASHRT_LIB=$PWD/build/gpuL/libflashrt.so timeout 100 python3 bench/ab.py --a build/gpuZ \
  --b build/gpuL --table fa2 --causal true --hdims 32,96 --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -14 $R/ab.log
tar czf $OUT/s15c2.tgz -C $R . && rm -rf $R
