#!/usr/bin/env bash
# Date 2026-12-04, 1 x NVIDIA H200 (sm_90a); run from the repository root
# with $OUT set. Session 22, device calls 1 and 2: flash-tile's uniform
# blocks (a document mask's blocks decided in the program) on in the GPU
# pipeline. Kernels built here (Debian 12, LLVM/MLIR 22.1.8, ptxas 13.0) at
# the working tree of the session's first commit:
#   scripts/gen-mods-variants.py build/art-new/mods.mlir build/art-new/mods-manifest.json mods.so --block-mask
#   build/bin/flash-compile build/art-new/mods.mlir -o build/art-new/mods.so --chip=sm_90a
#   (art-off: the same with --uniform-blocks=false, whose PTX is cmp-equal
#   to b4d8db8's flash-compile output: the previous commit's kernels)
#   cp build/lib/libflashrt.so build/art-new/ build/art-off/
# Call 1: correctness of every mods kernel (408 cases: the random-document
# ones plus 48 docmask cases over one document and 160-token documents),
# compute-sanitizer memcheck and racecheck on the docmask kernels' 16
# --sanitize cases. Call 2: bench/maskbar.py, docmask against the unmasked
# kernel and against art-off's docmask kernel, d64, three document
# distributions, one process each.
set -u
cd "$(dirname "$0")/../.."
STEPS=check,memcheck,racecheck bench/mods-call.sh build/art-new "" $OUT/mods   # call 1
STEPS=maskbar bench/mods-call.sh build/art-new build/art-off $OUT/mods        # call 2
