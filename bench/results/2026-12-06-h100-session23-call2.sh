#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a; the warm machine of
# call 1); run from the repository root with $OUT set. Session 23, device
# call 2: where the d64 document mask's one-document cost goes now that no
# block is tested on its own (every ratio two kernels in one process):
#   1. the plant of call 1 again, unbuffered (it timed out at 90 s again
#      with nothing printed: gpu-mods-check prints its summary only);
#   2. build/art-tiles (this commit's compiler, gen-mods-variants --dims 64
#      --tiles): the 128 x 64 8-warp config's own cost (plain_m128 / plain),
#      the document mask against the unmasked kernel on that config
#      (docmask_m128 / plain_m128) and against flash-plan's unmasked one;
#   3. build/art-cfg (this commit's compiler with -call2-plan.patch: flash-plan giving a
#      uniform-block mask the unmasked kernel's config: d64 64 x 64 with 4
#      warps, d128 192 x 96 / 64 x 96; an experiment, not landed) against
#      build/art-new (the committed plan).
set -u
cd "$(dirname "$0")/../.."
export PYTHONUNBUFFERED=1 PYTHONPATH=python
mkdir -p $OUT/c2
FLASHRT_LIB=build/art-plant/libflashrt.so timeout 90 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-plant --kinds docmask --no-timing > $OUT/c2/plant.log 2>&1
echo "=== [plant] rc=$? (nonzero expected)"; tail -n 3 $OUT/c2/plant.log
FLASHRT_LIB=build/art-tiles/libflashrt.so python3 bench/maskbar.py --artifacts build/art-tiles \
  --pairs plain_m128:plain,docmask_m128:plain_m128,docmask:plain --dims 64 --docs one,random \
  --rounds 2 --samples 6 --warm-ms 300 --out $OUT/c2/maskbar-tiles.json > $OUT/c2/maskbar-tiles.log 2>&1
echo "=== [tiles] rc=$?"; grep '^maskbar' $OUT/c2/maskbar-tiles.log | sed 's/; docmask.*//; s/; plain.*//; s/ short [0-9.]*,//'
FLASHRT_LIB=build/art-new/libflashrt.so python3 bench/maskbar.py --artifacts build/art-new \
  --base-artifacts build/art-cfg --pairs docmask:@base --dims 64,128 --docs one,random \
  --rounds 2 --samples 6 --warm-ms 300 --out $OUT/c2/maskbar-cfg.json > $OUT/c2/maskbar-cfg.log 2>&1
echo "=== [cfg] rc=$?"; grep '^maskbar' $OUT/c2/maskbar-cfg.log | sed 's/; docmask.*//; s/ short [0-9.]*,//'
