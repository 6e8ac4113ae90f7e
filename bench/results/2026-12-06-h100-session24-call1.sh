#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a; the device tool lent an
# H100 for this call); run from the repository root with $OUT set. Session 24,
# device call 1: the scan's and the rows' integer reductions by redux.sync
# (its result is a uniform register to ptxas), in the mods library built at
# this commit (build/art-redux), against a2ef876's (build/art-final,
# cmp-equal to session 23 call 1's): the SASS of the docmask kernels (is the
# KV loops' index math back on the uniform datapath?), the A/B and the ratio
# to the unmasked kernel in one process (`$0 bar`), then correctness and
# sanitizers (`$0 check`).
# Build (compiler machine):
#   scripts/gen-mods-variants.py build/art-redux/mods.mlir build/art-redux/mods-manifest.json mods.so --block-mask
#   build/bin/flash-compile build/art-redux/mods.mlir -o build/art-redux/mods.so --chip=sm_90a --ptx=build/art-redux/mods.ptx
#   ptxas -arch=sm_90a build/art-redux/mods.ptx -o build/sass/redux.cubin; cp build/lib/libflashrt.so build/art-redux/
# Kept: -call1-docmask-d64.sass (the d64 kernel's instruction lines, encodings
# stripped; scripts/sass-loops.py counts its KV loops' opcodes), -call1-maskbar.*
# (the bar), -call1-{check,memcheck,racecheck}.* (the check).
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-bar}" = bar ]; then
  mkdir -p $OUT/s
  nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
  for k in mods_docmask_bf16_d64_kernel mods_docmask_bf16_d64_causal_kernel mods_docmask_bf16_d128_kernel; do
    /usr/local/cuda-13.0/bin/cuobjdump -sass -fun $k build/sass/redux.cubin | grep -E "^\s+/\*[0-9a-f]{4}\*/" > $OUT/s/$k.sass
  done
  wc -l $OUT/s/*
  STEPS=maskbar PAIRS=docmask:@base,docmask:plain DIMS=64,128 DOCS=one,random \
    MASKBAR_ARGS="--rounds 2 --samples 6 --warm-ms 300" \
    bench/mods-call.sh build/art-redux build/art-final $OUT/c1
  exit 0
fi
STEPS=check,memcheck,racecheck SAN_KINDS=docmask,docmask_bm \
  bench/mods-call.sh build/art-redux "" $OUT/c1
