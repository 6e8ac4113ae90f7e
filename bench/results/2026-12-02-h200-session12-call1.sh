#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a), kernels built at a9e18bd (call 1's base build: 17a194f's flash-opt);
# every command below, run from the repository root with $OUT set.
# Session 12, device call 1 (1 x H200): #11 item 5 -- with a block-mask hint,
# the blocks the hint takes out of the main loop that causal/window/the key
# bound keep whole run the mask_mod only (role mask_mod), not the causal
# check too. build/art-mods-new is `scripts/gen-mods-variants.py
# --block-mask --configs` compiled for sm_90a at this commit,
# build/art-mods-base the same module compiled by the previous commit's
# flash-opt (17a194f). Correctness of every kernel (FA2's rule, float32 torch
# reference), the timing pairs, and the A/B of the docmask_bm kernels (the
# only kernels whose PTX changed: compare-ptx shows suite/decode/tune/example
# byte-identical) against the previous build's, same tensors, one process.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s12c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods-new/libflashrt.so
nvidia-smi -L
timeout 540 python3 scripts/gpu-mods-check.py --artifacts build/art-mods-new \
  --base-artifacts build/art-mods-base --ab-kinds docmask_bm \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "base build" $R/mods.log
grep -E "timing mods_(docmask|plain|prefixlm)" $R/mods.log | grep "d128 vs\|d128 (\|w12\|plain_p" | grep -v "base build"
