#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3; run from the repository root
# with $OUT set. Session 24, device call 4: the mods library compiled for
# sm_90 (the mma.sync path, which sm_80 shares; build/art-sm90 =
# build/art-redux/mods.mlir through 4f67b37's flash-compile --chip=sm_90),
# whose document-mask kernels reduce the scan with redux.sync too: mods
# correctness of every kernel, and memcheck/racecheck on the docmask cases.
set -u
cd "$(dirname "$0")/../.."
nvidia-smi -L
STEPS=check,memcheck,racecheck SAN_KINDS=docmask,docmask_bm \
  bench/mods-call.sh build/art-sm90 "" $OUT/c4
