#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a; the device tool lent an
# H100 for this call, named nvidia-h200); run from the repository root
# with $OUT set. Session 23, device call 1: the document mask's hint read
# off the keys (flash-tile's scan of each program's keys, UniformBlocks.h
# emitScan; FA2's three loops, no per-block test when the conjunct is the
# whole mask_mod), in the mods library built at this commit (build/art-new),
# against 8aa40d0's (build/art-base, the previous commit's flash-compile):
# correctness of every kernel (gpu-mods-check, with documents of more keys
# than one scan chunk), sanitizers on the docmask kernels, and the A/B of
# the docmask kernels and their ratio to the unmasked kernel in one process.
# Build (compiler machine):
#   scripts/gen-mods-variants.py build/art-new/mods.mlir build/art-new/mods-manifest.json mods.so --block-mask
#   build/bin/flash-compile build/art-new/mods.mlir -o build/art-new/mods.so --chip=sm_90a
#   (the same with 8aa40d0's tree into build/art-base); cp build/lib/libflashrt.so into both;
#   build/art-plant: --dims 64, flash-compile with combineWarps' call removed
# Two device commands on one warm machine: `$0 check`, then `$0 bar`.
set -u
cd "$(dirname "$0")/../.."
if [ "${1:-check}" = check ]; then
  STEPS=check,memcheck,racecheck SAN_KINDS=docmask,docmask_bm \
    bench/mods-call.sh build/art-new "" $OUT/c1
  # The plant: the scan's reductions without the warps' exchange (each warp
  # keeps its own total; build/art-plant, --dims 64): must fail.
  PYTHONPATH=python FLASHRT_LIB=build/art-plant/libflashrt.so timeout 120 \
    python3 scripts/gpu-mods-check.py --artifacts build/art-plant --kinds docmask \
    --no-timing > $OUT/c1/plant.log 2>&1
  echo "=== [plant] rc=$? (nonzero expected)"; grep -c FAIL $OUT/c1/plant.log; tail -n 2 $OUT/c1/plant.log
  exit 0
fi
STEPS=maskbar PAIRS=docmask:@base,docmask:plain DIMS=64,128 DOCS=one,random \
  MASKBAR_ARGS="--rounds 2 --samples 6 --warm-ms 300" \
  bench/mods-call.sh build/art-new build/art-base $OUT/c1
