#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set. Kernels built at 078f311.
# Session 14, device call 2 (1 x H200): the causal kernels' program order.
# build/gpuR and build/art-ml: the suite and the mods modules compiled with
# the heaviest query block first on causal grids (block x -> Q row block
# gridDim.x - 1 - x, an experiment's environment switch in flash-to-gpu);
# build/gpuS and build/art-mb: the same modules as committed (x -> x).
#  1. bench/ab.py, FA2 sweep causal rows, A = as committed, B = reversed.
#  2. gpu-mods-check --ab-only: the same mods kernels of both builds in one
#     process (causal kinds and their non-causal twins).
#  3. decode correctness of build/gpuS (bench/decode.py).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s14c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
nvidia-smi -L
FLASHRT_LIB=$PWD/build/gpuS/libflashrt.so timeout 150 python3 bench/ab.py --a build/gpuS \
  --b build/gpuR --table fa2 --causal true --out $R/ab.json > $R/ab.log 2>&1
echo "ab rc=$?"; tail -15 $R/ab.log
FLASHRT_LIB=$PWD/build/art-ml/libflashrt.so timeout 200 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-ml --base-artifacts build/art-mb --ab-only \
  --ab-kinds plain,docmask,alibi,softcap_fast,docmask_bm \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "base build" $R/mods.log
LD_LIBRARY_PATH=$PWD/build/gpuS timeout 100 python3 bench/decode.py --artifacts build/gpuS \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
