#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 23, device call 4 (an experiment,
# not landed): what the scan itself costs over one document. build/art-forced
# is this commit's mods library built with -call4-noscan.patch (flash-tile
# emits no scan and takes the one-document answer as the hint: unsound in
# general, right for one document spanning the sequence), timed against
# build/art-new (call 1's library, this commit's kernels) and the unmasked
# kernel over one document.
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 PYTHONPATH=python FLASHRT_LIB=build/art-new/libflashrt.so
mkdir -p $OUT/c4
python3 bench/maskbar.py --artifacts build/art-forced --base-artifacts build/art-new \
  --pairs docmask:@base,docmask:plain --dims 64,128 --docs one \
  --rounds 2 --samples 6 --warm-ms 300 --out $OUT/c4/maskbar.json > $OUT/c4/maskbar.log 2>&1
echo "=== [maskbar] rc=$?"; grep '^maskbar' $OUT/c4/maskbar.log | sed 's/; docmask.*//; s/ short [0-9.]*,//'
# Then, on the same machine, the scan's SASS (kept: -call4-docmask-d64.sass,
# the kernel's first 520 lines): ptxas -arch=sm_90a on call 1's PTX of
# mods_docmask_bf16_d64_kernel here, carried as build/sass/*.cubin, and
#   /usr/local/cuda-13.0/bin/cuobjdump -sass build/sass/mods_docmask_bf16_d64_kernel.cubin
