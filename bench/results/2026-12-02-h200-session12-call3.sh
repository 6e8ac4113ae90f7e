#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a), kernels built at a9e18bd;
# every command below, run from the repository root with $OUT set.
# Session 12, device call 3 (1 x H200): compute-sanitizer racecheck on the
# hinted kernels (their runs changed this session; call 2 ran memcheck),
# and the SASS of the d128 producer kernels' KV loops (scripts/sass-loops.py
# with Triton's cuobjdump; the machine has no CUDA toolkit otherwise):
# the unmasked kernel, the document mask and prefix-LM at 64 / 216, and
# prefix-LM at 40 / 232 -- where the mask's cost goes after ptxas.
# build/sass/mods128*.cubin: `gen-mods-variants.py --dims=128 --configs`
# through `flash-opt --flash-lower-to-gpu="chip=sm_90a format=bin
# [producer-regs=40]"` and scripts/extract-gpu-object.py.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s12c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods-new/libflashrt.so
python3 - <<'PY'
import json
m = json.load(open("build/art-mods-new/mods-manifest.json"))
json.dump([e for e in m if "docmask_bm" in e["func"]],
          open("build/art-mods-new/bm-manifest.json", "w"))
PY
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 200 compute-sanitizer --tool racecheck \
  --racecheck-report all --error-exitcode 86 python3 scripts/gpu-mods-check.py \
  --artifacts build/art-mods-new --manifest bm-manifest.json --quick --sanitize \
  > $R/racecheck.log 2>&1
echo "racecheck rc=$?"; tail -3 $R/racecheck.log
for k in plain_p docmask prefixlm; do
  python3 scripts/sass-loops.py build/sass/mods128.cubin mods_${k}_bf16_d128_kernel
done > $R/sass.txt 2>&1
python3 scripts/sass-loops.py build/sass/mods128-r40.cubin mods_prefixlm_bf16_d128_kernel \
  mods_docmask_bf16_d128_kernel > $R/sass-r40.txt 2>&1
cat $R/sass.txt $R/sass-r40.txt
