#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 15, device call 3 (1 x H200): bench/maskbar.py (with its KIND:BASE
# pairs) on build/art-e0 (call 2's mods kernels, cmp-equal to 9b05e5b's):
# 1. the steady protocol's sensitivity to its warm-up: the d128 document
#    mask rows with 100 ms and 1500 ms windows (call 2: 400 ms);
# 2. the softcap bar (a softcap as a score_mod within 5 % of the attribute):
#    the IEEE-divide region (softcap_mod) and the arcp one (softcap_fast)
#    against the attribute kernel, both protocols.
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s15c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-e0/libflashrt.so
nvidia-smi -L
for w in 100 1500; do
  timeout 200 python3 bench/maskbar.py --artifacts build/art-e0 --pairs docmask:plain \
    --dims 128 --warm-ms $w --out $R/maskbar-warm$w.json > $R/maskbar-warm$w.log 2>&1
  echo "maskbar warm $w rc=$?"; sed 's/mods_//g; s/_bf16//g' $R/maskbar-warm$w.log | grep maskbar
done
timeout 240 python3 bench/maskbar.py --artifacts build/art-e0 \
  --pairs softcap_mod:softcap_attr,softcap_fast:softcap_attr --out $R/maskbar-softcap.json \
  > $R/maskbar-softcap.log 2>&1
echo "maskbar softcap rc=$?"; sed 's/mods_//g; s/_bf16//g' $R/maskbar-softcap.log | grep maskbar
tar czf $OUT/s15c3.tgz -C $R . && rm -rf $R
