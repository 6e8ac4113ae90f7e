#!/usr/bin/env bash
# Session 8, device call 3 (1 x H200): the embedding paths of s8/embed.
# build/art-embed/cache: flashmlir.attention's kernel cache for the six
# calls of test/Python/Inputs/ops_mods_check.py (precompiled here with
# `ops_mods_check.py precompile`); build/art-embed/libmods.so: its `emit`
# functions through scripts/flash-compile.sh --chip=sm_90a; flash-run-gpu
# and libflashrt.so of the same commit.
#  1. flashmlir.attention with alibi_slopes / score_mod / mask_mod /
#     captures against a float32 torch reference (FA2's rule), one call
#     traced by torch.compile(fullgraph=True) against eager
#  2. flash-run-gpu --alibi on ALiBi entries, against its reference
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s8c3; mkdir -p $R
A=build/art-embed
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/$A/lib/libflashrt.so
timeout 200 python3 test/Python/Inputs/ops_mods_check.py gpu $A/cache > $R/ops-mods.log 2>&1
echo "ops_mods_check rc=$?"; tail -12 $R/ops-mods.log
timeout 100 $A/bin/flash-run-gpu --artifact=$A/libmods.so --func=attn_bf16_d64_causal_alibi --alibi --layout=bshd --seed=1 \
  --shapes='2,8,2,300,300;1,16,16,17,300;4,8,1,255,113;1,8,8,1000,1024;3,8,4,1,300' > $R/run-gpu-alibi.log 2>&1
echo "flash-run-gpu alibi rc=$?"; tail -7 $R/run-gpu-alibi.log
timeout 100 $A/bin/flash-run-gpu --artifact=$A/libmods.so --func=attn_bf16_d64_cap30p0_alibib --alibi --seed=1 \
  --shapes='2,8,2,300,300;3,8,1,113,255' > $R/run-gpu-alibib.log 2>&1
echo "flash-run-gpu alibib rc=$?"; tail -4 $R/run-gpu-alibib.log
