#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 13, device call 1 (1 x H200): FA3's ping-pong turns as IR
# (flash-pingpong, `pingpong = true`). build/art-pp: `gen-mods-variants.py
# --block-mask --configs` (with the new _pp kernels: the d128 producer config
# with turns, plain / document mask / prefix-LM) compiled at this commit by
# `flash-compile --chip=sm_90a`. Correctness of every kernel (FA2's rule,
# float32 torch reference) and the timing pairs in one process (the _pp rows:
# against the same config without turns, and against flash-plan's unmasked
# kernel); racecheck and synccheck (named barriers) on the _pp kernels.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s13c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-pp/libflashrt.so
timeout 400 python3 scripts/gpu-mods-check.py --artifacts build/art-pp \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "timing mods_(docmask|prefixlm|plain)(_pp|_p)?_bf16_d128 vs" $R/mods.log
for tool in racecheck synccheck; do
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 80 compute-sanitizer --tool $tool \
    --error-exitcode 86 python3 scripts/gpu-mods-check.py \
    --artifacts build/art-pp --manifest pp-manifest.json --quick --sanitize \
    > $R/$tool.log 2>&1
  echo "$tool rc=$?"; tail -2 $R/$tool.log
done
