#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the repository
# root with $OUT set. Session 24,
# device call 3: the final commit's artifacts (build/art-final24: suite,
# decode and mods libraries compiled by a227959's flash-compile --chip=sm_90a;
# the kernels' PTX is call 2's, the ABI records now list every kernel an
# entry may launch under "kernels"): the correctness matrix, decode and mods
# correctness through the binding, and the records as the binding reads
# them (every listed kernel's name is in the artifact).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s24c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
A=$PWD/build/art-final24
export FLASHRT_LIB=$A/libflashrt.so
nvidia-smi -L
T_CORRECTNESS=200 SUITE_STEPS=correctness scripts/gpu-suite.sh build/art-final24 $R/suite > $R/suite.out 2>&1
echo "suite rc=$?"; grep -hE "passed|failed" $R/suite/correctness.log | tail -2
LD_LIBRARY_PATH=$A timeout 90 python3 bench/decode.py --artifacts build/art-final24 \
  --manifest decode-manifest.json --skip speed,latency --out $R/decode-correctness.json > $R/decode-correctness.log 2>&1
echo "decode rc=$?"; grep "decode-correctness:" $R/decode-correctness.log
timeout 200 python3 scripts/gpu-mods-check.py --artifacts build/art-final24 --no-timing \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness" $R/mods.log
python3 - > $R/abi.log 2>&1 <<'PY'
import json, flashmlir
A = "build/art-final24"
n = multi = 0
for man in ("manifest.json", "decode-manifest.json", "mods-manifest.json"):
    for e in json.load(open(f"{A}/{man}")):
        path = f"{A}/{e['so']}"
        names = [x["kernel"] for x in flashmlir.Kernel(path, e["func"]).abi["kernels"]]
        blob = open(path, "rb").read()
        assert names and all(x.encode() in blob for x in names), (e["func"], names)
        n += 1
        multi += len(names) > 1
print(f"abi kernels: {n} entries read through the binding, {multi} with more than one kernel, every name in its artifact")
PY
echo "abi rc=$?"; tail -2 $R/abi.log
