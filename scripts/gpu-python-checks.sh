#!/usr/bin/env bash
# The PyTorch integration's GPU checks (scripts/gpu-python-checks.py) in one
# run on the GPU machine, from a checkout with build/lib/libflashrt.so and a
# kernel cache precompiled elsewhere (the GPU machine has no MLIR):
#
#   scripts/gpu-python-checks.sh CACHE_DIR [OUT_DIR]
#
# Writes OUT_DIR/python-checks.{log,json} (OUT_DIR default: $OUT, else
# bench/results/python-checks-DATE). Environment:
#   STEPS            comma list (default correctness,example,compile,graphs,overhead,blockmask)
#   QUICK=1          the quick case matrices
#   SUITE_ARTIFACTS  a gpu-suite artifact directory (manifest.json and
#                    decode-manifest.json): also runs bench/benchmark.py and
#                    bench/decode.py --skip correctness on it, whose JSON come
#                    with their PNG plots (bench/plot.py)
#   PYTHON           interpreter (default python3)
# Exit status: nonzero if any part failed.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 1 ] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
cache=$(cd "$1" 2>/dev/null && pwd) || { echo "no such cache directory: $1" >&2; exit 2; }
out=${2:-${OUT:-$root/bench/results/python-checks-$(date +%Y%m%d-%H%M%S)}}
mkdir -p "$out" && out=$(cd "$out" && pwd)
PY=${PYTHON:-python3}
export PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}"
rc=0
"$PY" "$root/scripts/gpu-python-checks.py" --cache-dir="$cache" --out="$out/python-checks.json" \
  ${STEPS:+--steps=$STEPS} ${QUICK:+--quick} 2>&1 | tee "$out/python-checks.log"
[ "${PIPESTATUS[0]}" = 0 ] || rc=1
if [ -n "${SUITE_ARTIFACTS:-}" ]; then
  art=$(cd "$SUITE_ARTIFACTS" && pwd)
  [ -f "$art/libflashrt.so" ] && export FLASHRT_LIB="$art/libflashrt.so"
  "$PY" "$root/bench/decode.py" --artifacts "$art" --manifest decode-manifest.json \
    --skip correctness --out "$out/decode.json" 2>&1 | tee "$out/decode.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
  "$PY" "$root/bench/benchmark.py" --artifacts "$art" --out "$out/benchmark.json" 2>&1 \
    | tee "$out/benchmark.log"
  [ "${PIPESTATUS[0]}" = 0 ] || rc=1
fi
ls -l "$out"
exit $rc
