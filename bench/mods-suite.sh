#!/usr/bin/env bash
# The GPU suite of the score_mod / mask_mod kernels (issue #11), one run on
# the GPU machine:
#   1. scripts/gpu-mods-check.py correctness of every kernel in ART (no timing);
#   2. compute-sanitizer memcheck and racecheck on --sanitize cases of $SAN_KINDS;
#   3. bench/maskbar.py $PAIRS at $DIMS over $DOCS, against BASE's library
#      where a pair names @base.
# Each step logs to OUTDIR/<step>.log and JSON; a failing step does not stop
# the next. Build first on the build machine (the GPU host has no MLIR):
#   scripts/gen-mods-variants.py ART/mods.mlir ART/mods-manifest.json mods.so --block-mask
#   build/bin/flash-compile ART/mods.mlir -o ART/mods.so --chip=sm_90a
#   cp build/lib/libflashrt.so ART/
# and copy ART (and BASE) to the GPU host.
#
# Usage: bench/mods-suite.sh ART [BASE] [OUTDIR]   (OUTDIR default $OUT/mods)
# Environment: STEPS (default check,memcheck,racecheck,maskbar), SAN_KINDS
# (default docmask,docmask_bm), PAIRS (default docmask:plain,docmask:@base),
# DIMS (default 64), DOCS (default random,one,160), MASKBAR_ARGS (more
# bench/maskbar.py options, e.g. --rounds 2).
set -u
cd "$(dirname "$0")/.."
ART=$1 BASE=${2:-} R=${3:-${OUT:-/tmp}/mods}
mkdir -p "$R"
export PYTHONUNBUFFERED=1 PYTHONPATH=python FLASHRT_LIB=$ART/libflashrt.so
steps=",${STEPS:-check,memcheck,racecheck,maskbar},"
san=/usr/local/cuda/bin/compute-sanitizer
rc=0
run() {  # run NAME LIMIT CMD...
  local name=$1 limit=$2; shift 2
  echo "=== [$name] $*"
  timeout -k 10 "$limit" "$@" >"$R/$name.log" 2>&1
  local s=$?
  tail -n 3 "$R/$name.log"
  echo "=== [$name] rc=$s"
  [ $s -eq 0 ] || rc=1
}
case $steps in *,check,*)
  run check 240 python3 scripts/gpu-mods-check.py --artifacts "$ART" --no-timing \
    --out "$R/check.json";; esac
for tool in memcheck racecheck; do
  case $steps in *,$tool,*)
    extra=(--leak-check no); [ $tool = racecheck ] && extra=(--racecheck-report all)
    run $tool 150 env PYTORCH_NO_CUDA_MEMORY_CACHING=1 $san --tool $tool "${extra[@]}" \
      --error-exitcode 86 python3 scripts/gpu-mods-check.py \
      --artifacts "$ART" --sanitize --kinds "${SAN_KINDS:-docmask,docmask_bm}";; esac
done
case $steps in *,maskbar,*)
  run maskbar 300 python3 bench/maskbar.py --artifacts "$ART" ${BASE:+--base-artifacts "$BASE"} \
    --pairs "${PAIRS:-docmask:plain,docmask:@base}" --dims "${DIMS:-64}" \
    --docs "${DOCS:-random,one,160}" ${MASKBAR_ARGS:-} --out "$R/maskbar.json"
  grep '^maskbar' "$R/maskbar.log";; esac
exit $rc
