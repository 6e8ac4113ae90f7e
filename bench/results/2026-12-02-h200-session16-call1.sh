#!/usr/bin/env bash
# Date 2026-12-02, 1 x NVIDIA H200 (sm_90a); every command below, run from the
# repository root with $OUT set.
# Session 16, device call 1: why a mask_mod costs 1.17-1.21x at head dim 64
# and 1.02-1.07x at 128 (session 15, steady clocks). Nsight Compute on the
# unmasked, document-mask and prefix-LM kernels (flash-plan's configs,
# non-causal, 4x16x4k), build/art16 = this commit's mods library:
# issue-slot use, warp stall reasons, pipe use, occupancy. Clocks are left
# alone (--clock-control none).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/s16c1; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python FLASHRT_LIB=$PWD/build/art16/libflashrt.so
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
K=mods_plain_bf16_d64,mods_docmask_bf16_d64,mods_prefixlm_bf16_d64,mods_plain_bf16_d128,mods_docmask_bf16_d128,mods_prefixlm_bf16_d128
timeout 400 $NCU --clock-control none --launch-skip 0 \
  --section SpeedOfLight --section SchedulerStats --section WarpStateStats \
  --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats \
  --section InstructionStats \
  --metrics smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg,sm__cycles_elapsed.avg.per_second \
  --print-units base --csv --page details \
  python3 bench/profile-mods.py --artifacts build/art16 --kernels $K --calls 2 > $R/ncu.csv 2> $R/ncu.err
echo "ncu rc=$?"
tail -5 $R/ncu.err
wc -l $R/ncu.csv
cd $OUT && tar czf s16c1.tgz s16c1 && rm -rf s16c1
