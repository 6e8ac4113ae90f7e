#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 23, device call 5: Nsight Compute
# on the d64 document mask over one document (4x16x4k), this commit's
# kernel (build/art-new, with the scan) against call 4's build without the
# scan (build/art-forced) and the unmasked kernel: time, instructions,
# issue use and warp stall reasons, to find the scan's cost. Clocks are
# left alone (--clock-control none).
set -u
cd "$(dirname "$0")/../.."
R=$OUT/c5; mkdir -p $R
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/python
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/bin/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
for art in art-new art-forced; do
  FLASHRT_LIB=$PWD/build/$art/libflashrt.so timeout 150 $NCU --clock-control none \
    --section SpeedOfLight --section SchedulerStats --section WarpStateStats \
    --section Occupancy --section LaunchStats --section InstructionStats \
    --metrics gpu__time_duration.sum,smsp__inst_executed.sum,smsp__cycles_active.avg,smsp__issue_active.avg.pct_of_peak_sustained_active \
    --print-units base --csv --page details \
    python3 bench/profile-mods.py --artifacts build/$art --docs one --calls 1 \
    --kernels mods_docmask_bf16_d64,mods_plain_bf16_d64 > $R/ncu-$art.csv 2> $R/ncu-$art.err
  echo "ncu $art rc=$?"; tail -2 $R/ncu-$art.err
done
wc -l $R/*.csv
# Kept: -call5-ncu-{new,forced}.csv, the rows of the two mods kernels.
