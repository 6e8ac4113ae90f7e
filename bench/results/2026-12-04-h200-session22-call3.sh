#!/usr/bin/env bash
# Date 2026-12-04, 1 x NVIDIA H200 (sm_90a); run from the repository root
# with $OUT set. Session 22, device call 3: an experiment, not landed.
# -call3-ahead.patch (on e76c504) decides each KV block one iteration ahead
# in flash-tile (the next block's id loads in flight during this block's
# GEMMs; the decision carried as two i1 kv_loop iter_args, the run's first
# block decided before the loop under scf.if), with flash-to-gpu's scalar
# iter_args and scf.if results. Built as calls 1-2's art-new into
# build/art-v3; timed against art-new (e76c504) and the unmasked kernel.
# (The first command ran without FLASHRT_LIB and loaded nothing; the memcheck
# step is the call's correctness record: 16/16 --sanitize cases.)
set -u
cd "$(dirname "$0")/../.."
STEPS=memcheck,maskbar PAIRS=docmask:plain,docmask:@base DOCS=one,random \
  bench/mods-call.sh build/art-v3 build/art-new $OUT/v3
