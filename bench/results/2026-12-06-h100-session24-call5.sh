#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 24, device call 5: the final
# commit's artifacts after the review (build/art-last: suite, decode and mods
# libraries by 522a87d's flash-compile --chip=sm_90a; the mods PTX is
# cmp-equal to call 1's measured library): the end-to-end GPU check and the
# benchmark against torch SDPA in one process (gpu-suite.sh), decode and mods
# correctness, and the document mask against a2ef876's kernels
# (build/art-final) and against the unmasked kernel in one process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s24c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
A=$PWD/build/art-last
export FLASHRT_LIB=$A/libflashrt.so
nvidia-smi -L
T_CORRECTNESS=200 T_BENCHMARK=90 SUITE_STEPS=correctness,benchmark \
  scripts/gpu-suite.sh build/art-last $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed|geomean" $R/suite/*.log | tail -3
LD_LIBRARY_PATH=$A timeout 90 python3 bench/decode.py --artifacts build/art-last \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
STEPS=check,maskbar PAIRS=docmask:@base,docmask:plain DIMS=64,128 DOCS=one,random \
  MASKBAR_ARGS="--rounds 2 --samples 6 --warm-ms 300" \
  bench/mods-call.sh build/art-last build/art-final $R/mods
