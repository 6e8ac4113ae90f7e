#!/usr/bin/env bash
# Date 2026-12-04, 1 x NVIDIA H200 (sm_90a); run from the repository root
# with $OUT set. Session 22, device call 6: the causal d128 document mask on
# the producer config without turns (docmask_p causal: uniform blocks on)
# against flash-plan's ping-pong config (docmask causal: the mask on every
# block), each against the unmasked causal kernel on the same tensors.
# Library: gen-mods-variants.py --dims=128 --configs, only
# mods_{docmask,plain,docmask_p}_bf16_d128_causal kept, flash-compile at
# bc47b30 (build/art-c128).
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art-c128/libflashrt.so
R=$OUT/s22c6; mkdir -p $R
timeout 120 python3 scripts/gpu-mods-check.py --artifacts build/art-c128 --no-timing \
  --kinds docmask_p,docmask --out $R/check.json > $R/check.log 2>&1
echo "check rc=$? $(tail -n 1 $R/check.log)"
SAN_KINDS=docmask_p STEPS=memcheck bench/mods-call.sh build/art-c128 "" $R
timeout 240 python3 bench/maskbar.py --artifacts build/art-c128 --dims 128 --docs one,random \
  --pairs docmask_p:plain,docmask:plain --out $R/maskbar.json > $R/maskbar.log 2>&1
echo "maskbar rc=$?"; grep '^maskbar' $R/maskbar.log | sed 's/; docmask.*//; s/ short [0-9.]*,//'
