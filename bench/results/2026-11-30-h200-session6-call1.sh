#!/usr/bin/env bash
# Session 6 device call 1 (2 x H200): the one-softmax GPU path (#11 step 2)
# — suite correctness, decode correctness, A/B vs the previous commit's
# kernels in one process — and ring attention (#15) check + bench.
set -u
cd "$(dirname "$0")/../.."
R=/tmp/res1; mkdir -p $R
export PYTHONUNBUFFERED=1 FLASHRT_LIB=$PWD/build/gpu2/libflashrt.so
nvidia-smi -L > $R/gpus.txt
( SUITE_STEPS=correctness scripts/gpu-suite.sh build/gpu2 $R/suite > $R/suite.out 2>&1; tail -6 $R/suite.out ) &
SUITE=$!
wait $SUITE
LD_LIBRARY_PATH=$PWD/build/gpu2 timeout 150 python3 bench/decode.py --artifacts build/gpu2 \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
grep "decode-correctness" $R/decode-correctness.log | tail -2
CUDA_VISIBLE_DEVICES=0 timeout 300 python3 bench/ab.py --a build/gpu-old --b build/gpu2 --out $R/ab.json > $R/ab.log 2>&1
tail -30 $R/ab.log
# Ring attention (#15) on both GPUs, the ring branch's runtime and kernels.
export FLASHMLIR_COMPILER=none FLASHRT_LIB=$PWD/build/ring-lib/libflashrt.so NCCL_NVLS_ENABLE=0
timeout 240 torchrun --nproc-per-node=2 examples/ring_attention.py --cache-dir=build/ring-kcache \
  --seq=16384,32768,65536 --out=$R/ring-check.json > $R/ring-check.log 2>&1
tail -15 $R/ring-check.log
timeout 300 torchrun --nproc-per-node=2 examples/ring_attention.py --cache-dir=build/ring-kcache \
  --bench --out=$R/ring-bench.json > $R/ring-bench.log 2>&1
tail -25 $R/ring-bench.log
tar czf $OUT/call1.tgz -C $R .
