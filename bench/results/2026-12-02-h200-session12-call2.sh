#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a), kernels built at a9e18bd (call 1's base build: 17a194f's flash-opt);
# every command below, run from the repository root with $OUT set.
# Session 12, device call 2 (1 x H200): the producer warpgroup's register
# split (flash-to-gpu producer-regs; default 64 / 216) against 40 / 232 and
# 56 / 224 on the d128 producer kernels (document mask, prefix-LM, the
# unmasked kernel on the producer config, the hinted document mask), one
# process per pair, same tensors; then compute-sanitizer memcheck on the
# hinted kernels (their loops changed this session) and the Python
# blockmask step (hinted and unhinted against a float32 torch reference;
# build/kcache-bm12 is this commit's blockmask variants, precompiled).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s12c2; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-mods-new/libflashrt.so
for r in r40 r56; do
  timeout 170 python3 scripts/gpu-mods-check.py --artifacts build/art-mods-new \
    --base-artifacts build/art-mods-$r --ab-only \
    --ab-kinds docmask,prefixlm,plain_p,docmask_bm --out $R/ab-$r.json > $R/ab-$r.log 2>&1
  echo "ab $r rc=$?"; grep timing $R/ab-$r.log
done
python3 - <<'PY'
import json
m = json.load(open("build/art-mods-new/mods-manifest.json"))
ents = m["kernels"] if isinstance(m, dict) and "kernels" in m else m
keep = [e for e in ents if "docmask_bm" in e["func"]]
if isinstance(m, dict) and "kernels" in m:
    m = dict(m, kernels=keep)
else:
    m = keep
json.dump(m, open("build/art-mods-new/bm-manifest.json", "w"))
print("bm kernels", len(keep))
PY
PYTORCH_NO_CUDA_MEMORY_CACHING=1 timeout 120 compute-sanitizer --tool memcheck --leak-check no \
  --error-exitcode 86 python3 scripts/gpu-mods-check.py --artifacts build/art-mods-new \
  --manifest bm-manifest.json --quick --sanitize > $R/memcheck.log 2>&1
echo "memcheck rc=$?"; tail -3 $R/memcheck.log
STEPS=blockmask timeout 150 scripts/gpu-python-checks.sh build/kcache-bm12 $R/py
echo "python blockmask rc=$?"
