#!/usr/bin/env bash
# Session 6 device call 2: the final kernels (built by the C++ flash-compile,
# byte-identical to call 1's suite/decode): memcheck + racecheck of the
# one-softmax kernels, the PyTorch checks (example, torch.compile, CUDA
# graphs, GPT block) and the benchmark vs FA2/cuDNN with plots.
set -u
cd "$(dirname "$0")/../.."
R=/tmp/res2; mkdir -p $R
export PYTHONUNBUFFERED=1 FLASHRT_LIB=$PWD/build/gpu3/libflashrt.so CUDA_VISIBLE_DEVICES=0
SUITE_STEPS=memcheck,racecheck scripts/gpu-suite.sh build/gpu3 $R/suite > $R/suite.out 2>&1
tail -6 $R/suite.out
SUITE_ARTIFACTS=build/gpu3 LD_LIBRARY_PATH=$PWD/build/gpu3 timeout 420 \
  scripts/gpu-python-checks.sh build/kcache $R > $R/checks.out 2>&1
grep -E "passed|ok$|FAIL|gpt_block|\| " $R/python-checks.log | tail -14
grep -E "geomean" $R/benchmark.log
tar czf $OUT/call2.tgz -C $R .
cp $R/*.png $OUT/ 2>/dev/null; true
