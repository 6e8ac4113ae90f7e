#!/usr/bin/env bash
# Date 2026-12-04, 1 x NVIDIA H200 (sm_90a); run from the repository root
# with $OUT set. Session 22, device call 5: the final commit's mods library
# (flash-plan with uniform-blocks: d64 document masks on 128 x 64 with 8
# warps, the non-causal d128 one on the producer config without turns;
# those kernels' PTX is call 4's docmask_m128 / docmask_p kernels' but for
# labels and names), built as calls 1-2's art-new (build/art-plan), against
# e76c504's (build/art-new): correctness of every kernel, sanitizers on the
# docmask kernels, and the A/B of the docmask kernels in one process.
set -u
cd "$(dirname "$0")/../.."
STEPS=check,memcheck,racecheck PAIRS=docmask:@base DIMS=64,128 DOCS=one,random \
  bench/mods-call.sh build/art-plan "" $OUT/s22c5
STEPS=maskbar PAIRS=docmask:@base,docmask:plain DIMS=64,128 DOCS=one,random MASKBAR_ARGS="--rounds 2 --samples 6 --warm-ms 300" \
  bench/mods-call.sh build/art-plan build/art-new $OUT/s22c5 | sed 's/; docmask.*//; s/ short [0-9.]*,//'
