#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set. Kernels built at 078f311.
# Session 14, device call 1 (1 x H200).
#  1. Occupancy of the head-dim-64 mask kernels. build/art-m64:
#     `gen-mods-variants.py --block-mask --dims=64` compiled by flash-compile
#     (--chip=sm_90a); build/art-m64-min5: the same module with every d64
#     kernel compiled for 5 programs per SM (nvvm.minctasm = 5, an
#     experiment's environment switch in flash-to-gpu, not landed). Both
#     builds' kernels timed on the same tensors in one process, plus the
#     min5 build's correctness (FA2 rule, float32 torch reference).
#  2. A/B against 3c847b8 (the commit before #11), FA2 sweep + decode table
#     (bench/ab.py; build/gpu-old: 3c847b8's gen-variants/gen-decode-variants
#     and scripts/flash-compile.sh; build/gpuS: this commit's).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/art-m64-min5/libflashrt.so timeout 200 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-m64-min5 --base-artifacts build/art-m64 \
  --ab-kinds plain,docmask,prefixlm,alibi,relbias,softcap_mod,softcap_fast,docmask_bm \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head
grep -E "base build" $R/mods.log
grep -E "timing mods_(docmask|prefixlm)_bf16_d64(_causal)? vs mods_plain" $R/mods.log
FLASHRT_LIB=$PWD/build/gpuS/libflashrt.so timeout 300 python3 bench/ab.py --a build/gpu-old \
  --b build/gpuS --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -40 $R/ab.log
