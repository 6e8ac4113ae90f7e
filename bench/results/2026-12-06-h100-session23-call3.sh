#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 23, device call 3 (an experiment,
# not landed): the mods library built with -call3-reads-first.patch
# (build/art-final: lowerSpread clones every register's capture reads before
# the rest of the body, so that the scan's loads are in flight together)
# against call 1's (build/art-new: this commit's kernels) and against the
# unmasked kernel, in one process; correctness of every kernel and the
# sanitizers on the docmask kernels first. A/A within noise (0.994-1.012):
# ptxas had batched the loads already (-call4-docmask-d64.sass), so the
# patch was reverted.
# Build: as call 1's art-new, with this commit's flash-compile and the patch.
set -u
cd "$(dirname "$0")/../.."
STEPS=check,memcheck,racecheck SAN_KINDS=docmask,docmask_bm \
  bench/mods-call.sh build/art-final "" $OUT/c3
STEPS=maskbar PAIRS=docmask:@base,docmask:plain DIMS=64,128 DOCS=one,random \
  MASKBAR_ARGS="--rounds 2 --samples 6 --warm-ms 300" \
  bench/mods-call.sh build/art-final build/art-new $OUT/c3 | sed 's/; docmask.*//; s/ short [0-9.]*,//'
