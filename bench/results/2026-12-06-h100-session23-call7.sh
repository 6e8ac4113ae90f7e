#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 23, device call 7 (an experiment,
# not landed): the cross-warp totals of the scan broadcast from lane 0
# (shfl.sync.idx, -call7-broadcast.patch), to see whether ptxas then keeps
# the loops' index math on the uniform datapath. build/art-bcast is the mods
# library built with the patch, build/sass2/bcast.cubin its d64 docmask
# kernel (ptxas here); against build/art-new (this commit's) in one process.
# Outcome: the SASS kept the same loops (not kept here), A/A 0.992-1.005.
set -u
mkdir -p $OUT/s
/usr/local/cuda-13.0/bin/cuobjdump -sass build/sass2/bcast.cubin | grep -E "^\s+/\*[0-9a-f]{4}\*/" > $OUT/s/bcast.sass
export PYTHONUNBUFFERED=1 PYTHONPATH=python FLASHRT_LIB=build/art-bcast/libflashrt.so
timeout 150 python3 bench/maskbar.py --artifacts build/art-bcast --base-artifacts build/art-new \
  --pairs docmask:@base,docmask:plain --dims 64 --docs one --rounds 1 --samples 4 --warm-ms 200 \
  --out $OUT/s/maskbar.json > $OUT/s/maskbar.log 2>&1
echo rc=$?; grep '^maskbar' $OUT/s/maskbar.log | sed 's/; docmask.*//; s/ short [0-9.]*,//'
