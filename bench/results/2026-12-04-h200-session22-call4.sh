#!/usr/bin/env bash
# Date 2026-12-04, 1 x NVIDIA H200 (sm_90a); run from the repository root
# with $OUT set. Session 22, device call 4.
# 1. Plants: the d64 document-mask kernels built with a bug in the GPU
#    lowering of uniform reductions (Uniform.cpp), each must fail
#    gpu-mods-check: A, min/max without the warp's xor shuffles (each lane
#    decides from its own rows' ids); B, the i1 and-reductions without
#    vote.sync (each lane decides from its own keys: the branch around the
#    block's wgmma diverges).
# 2. Configs and tiles for the document mask with uniform blocks
#    (gen-mods-variants.py --block-mask --configs --tiles, flash-compile at
#    e76c504 + the flash-occupancy probe fix): correctness of the candidate
#    kinds, then bench/maskbar.py each against the unmasked kernel over one
#    document and random documents.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s22c4; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
for p in A B; do
  FLASHRT_LIB=$PWD/build/plant$p/libflashrt.so timeout 120 python3 scripts/gpu-mods-check.py \
    --artifacts build/plant$p --no-timing --quick > $R/plant$p.log 2>&1
  echo "plant $p rc=$? $(grep -c '^FAIL' $R/plant$p.log) failed: $(tail -n 1 $R/plant$p.log)"
done
export FLASHRT_LIB=$PWD/build/art-cfg/libflashrt.so
K=docmask_m128,docmask_n128,docmask_s3,docmask_p,docmask_q
timeout 150 python3 scripts/gpu-mods-check.py --artifacts build/art-cfg --no-timing --quick \
  --kinds $K --out $R/cfg-check.json > $R/cfg-check.log 2>&1
echo "cfg check rc=$? $(tail -n 1 $R/cfg-check.log)"
timeout 330 python3 bench/maskbar.py --artifacts build/art-cfg --dims 64,128 --docs one,random \
  --pairs docmask:plain,docmask_m128:plain,docmask_n128:plain,docmask_s3:plain,docmask_p:plain,docmask_q:plain \
  --rounds 2 --samples 5 --warm-ms 200 --out $R/cfg-maskbar.json > $R/cfg-maskbar.log 2>&1
echo "maskbar rc=$?"
grep '^maskbar' $R/cfg-maskbar.log | sed 's/; docmask.*//; s/ short [0-9.]*,//'
