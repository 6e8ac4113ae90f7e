#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 13, device call 3 (1 x H200): the d128 ping-pong mask kernels'
# tile and register split. build/art-pp3: `gen-mods-variants.py --block-mask
# --configs --dims=128` at this commit (flash-plan's mask kernels are the
# 128 x 96 ping-pong ones; _pc: 128 x 128 with 3 stages, ping-pong; a first run with 2 stages (_pb) hung: see NOTES),
# `flash-compile --chip=sm_90a`; build/art-pp3-r40: the same module with
# `--producer-regs=40` (consumers 232 registers), the A/B base.
# Correctness of every kernel, the timing pairs, and each mask kernel
# against its 40 / 232 build in one process (ratio = 64 / 216 time over
# 40 / 232 time).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s13c3; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
export FLASHRT_LIB=$PWD/build/art-pp3/libflashrt.so
timeout 300 python3 scripts/gpu-mods-check.py --artifacts build/art-pp3 \
  --base-artifacts build/art-pp3-r40 \
  --ab-kinds docmask,prefixlm,docmask_pc,prefixlm_pc \
  --out $R/mods.json > $R/mods.log 2>&1
echo "mods rc=$?"; grep -E "mods correctness|FAIL" $R/mods.log | head -20
grep -E "timing mods_(docmask|prefixlm)(_pc)?_bf16_d128 vs mods_(plain|docmask|prefixlm)_bf16" $R/mods.log
grep -E "base build" $R/mods.log
