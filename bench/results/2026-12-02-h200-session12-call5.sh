#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a), kernels built at 1bf8099; every
# command below, run from the repository root with $OUT set.
# Session 12, device call 5 (1 x H200): the producer register split again
# after flash-simplify-mods (call 2 measured prefix-LM 7 % faster at 40/232
# before it): build/art-mods-s (64/216, call 4's) against build/art-mods-s40
# (`gen-mods-variants.py --dims=128 --block-mask --configs` compiled with
# `flash-compile --producer-regs=40`), one process, same tensors.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s12c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods-s/libflashrt.so
timeout 200 python3 scripts/gpu-mods-check.py --artifacts build/art-mods-s \
  --base-artifacts build/art-mods-s40 --ab-only \
  --ab-kinds docmask,prefixlm,plain_p --out $R/ab-r40.json > $R/ab-r40.log 2>&1
echo "ab rc=$?"; grep timing $R/ab-r40.log | grep -v causal
