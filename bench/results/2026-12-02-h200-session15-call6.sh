#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 6 (1 x H200): compute-sanitizer memcheck and
# racecheck on the kernels 4bc7a18 changed (mma.sync causal, longest
# first): build/gpuS15-d{32,96} hold call 2's suite library with a manifest
# of attn_bf16_d32_causal / attn_bf16_d96_causal alone, so that
# correctness.py --sanitize's three cases (Sq < Sk, Sq > Sk with rows that
# see no key, GQA) run that kernel. Then the same tools on the mods kernels
# 03eeafe changed (build/art-fin: this commit's mods library; pp-manifest.json
# lists the d128 document mask kernels, causal and not, on the ping-pong
# config), gpu-mods-check.py --quick --sanitize.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c6; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python PYTORCH_NO_CUDA_MEMORY_CACHING=1
S=/usr/local/cuda/bin/compute-sanitizer
for d in 32 96; do
  A=build/gpuS15-d$d
  FLASHRT_LIB=$PWD/$A/libflashrt.so timeout 120 $S --tool memcheck --leak-check no \
    --error-exitcode 86 python3 bench/correctness.py --artifacts $A --sanitize > $R/memcheck-d$d.log 2>&1
  echo "memcheck d$d rc=$?"
  FLASHRT_LIB=$PWD/$A/libflashrt.so timeout 120 $S --tool racecheck --racecheck-report all \
    --error-exitcode 86 python3 bench/correctness.py --artifacts $A --sanitize > $R/racecheck-d$d.log 2>&1
  echo "racecheck d$d rc=$?"
done
for tool in memcheck racecheck; do
  extra=(); [ $tool = memcheck ] && extra=(--leak-check no); [ $tool = racecheck ] && extra=(--racecheck-report all)
  FLASHRT_LIB=$PWD/build/art-fin/libflashrt.so timeout 100 $S --tool $tool "${extra[@]}" --error-exitcode 86 \
    python3 scripts/gpu-mods-check.py --artifacts build/art-fin --manifest pp-manifest.json --quick --sanitize \
    > $R/mods-$tool.log 2>&1
  echo "mods $tool rc=$?"
done
grep -hE "cases \(sanitize\)|passed|ERROR SUMMARY|RACECHECK SUMMARY" $R/*.log
tar czf $OUT/s15c6.tgz -C $R . && rm -rf $R
