#!/usr/bin/env bash
# Session 7 device call 2 (1 x H200): register-pressure fixes of
# flash-to-gpu (#11): A/B in one process against 3c847b8's kernels
# (build/gpu-old, the commit before the one-softmax work) for build/gpuB
# (both fixes) and build/gpuA (the epilogue predicate unchanged), the
# correctness matrix and the decode checks on build/gpuB.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/res2; mkdir -p $R
export PYTHONUNBUFFERED=1 FLASHRT_LIB=$PWD/build/gpuB/libflashrt.so
timeout 200 python3 bench/ab.py --a build/gpu-old --b build/gpuB --out $R/ab-B.json > $R/ab-B.log 2>&1
echo "== A/B gpuB"; tail -30 $R/ab-B.log
T_CORRECTNESS=140 SUITE_STEPS=correctness scripts/gpu-suite.sh build/gpuB $R/suite > $R/suite.out 2>&1
tail -4 $R/suite.out
LD_LIBRARY_PATH=$PWD/build/gpuB timeout 80 python3 bench/decode.py --artifacts build/gpuB \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json \
  > $R/decode-correctness.log 2>&1
tail -2 $R/decode-correctness.log
timeout 150 python3 bench/ab.py --a build/gpu-old --b build/gpuA --out $R/ab-A.json > $R/ab-A.log 2>&1
echo "== A/B gpuA"; tail -30 $R/ab-A.log
