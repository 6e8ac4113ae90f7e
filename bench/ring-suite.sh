#!/usr/bin/env bash
# Ring attention (#15) on one host with two GPUs (measured on 2 x H200):
#   1. correctness against one GPU at 16k/32k/64k tokens, causal and not
#      (also: lengths exchanged by the call give the same bits as given ones);
#   2. the per-step profile (RingProfile) at 128k and 512k tokens, per NCCL
#      stream priority (the default group and high_priority_group()) and
#      with the exchange off;
#   3. the bench at 128k-1M tokens (causal, d128, GQA 32/8): per rank and
#      max over ranks, total, compute-only (exchange off), exchange-only and
#      hidden = (compute + exchange - total) / exchange, with the events'
#      exposed wait next to it, per priority.
# About 4-5 minutes of device time (the 1M bench is ~75 s of it); every
# step has its own timeout (150 + 100 + 300 s at most).
#
# Before the run, on the build machine (the GPU host has no compiler):
#   PYTHONPATH=python python3 -m flashmlir precompile --chip=sm_90a \
#     --cache-dir=build/ring-kcache $(python3 examples/ring_attention.py --variants)
# and copy build/ring-kcache and build/lib/libflashrt.so to the GPU host.
#
# Usage: bench/ring-suite.sh [OUTDIR]     (default $OUT/ring, else /tmp/ring-suite)
# Environment: KCACHE (default build/ring-kcache), FLASHRT_LIB (default
# build/lib/libflashrt.so), ONE_GPU=1 to add the one-GPU baseline to the bench
# (+~100 s: the 1M split-view run alone is ~70 s).
set -u
cd "$(dirname "$0")/.."
R=${1:-${OUT:+$OUT/ring}}
R=${R:-/tmp/ring-suite}
mkdir -p "$R"
KCACHE=${KCACHE:-build/ring-kcache}
export PYTHONUNBUFFERED=1 FLASHMLIR_COMPILER=none NCCL_NVLS_ENABLE=0
export FLASHRT_LIB=${FLASHRT_LIB:-$PWD/build/lib/libflashrt.so}
RUN=(torchrun --nproc-per-node=2 examples/ring_attention.py --cache-dir="$KCACHE")
NOISE='^W[0-9]|^\*+$|OMP_NUM_THREADS|UserWarning|return func|^\[rank[0-9]+\]:\[W'
{ nvidia-smi -L; ls "$KCACHE"/sm_90a/*.so; echo "FLASHRT_LIB=$FLASHRT_LIB"; } > "$R/env.txt" 2>&1

timeout 150 "${RUN[@]}" --seq=16384,32768,65536 --reps=3 --out="$R/ring-check.json" \
  > "$R/ring-check.log" 2>&1
echo "== check: rc $?"
grep -vE "$NOISE" "$R/ring-check.log" | tail -20

timeout 100 "${RUN[@]}" --profile --profile-seqs=131072,524288 --out="$R/ring-profile.json" \
  > "$R/ring-profile.log" 2>&1
echo "== profile: rc $?"
grep -vE "$NOISE" "$R/ring-profile.log" | tail -40

SKIP=--skip-one-gpu
[ "${ONE_GPU:-0}" = 1 ] && SKIP=
timeout 300 "${RUN[@]}" --bench $SKIP --out="$R/ring-bench.json" > "$R/ring-bench.log" 2>&1
echo "== bench: rc $?"
grep -vE "$NOISE" "$R/ring-bench.log" | tail -45
