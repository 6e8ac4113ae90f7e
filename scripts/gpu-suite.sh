#!/usr/bin/env bash
# GPU end-to-end suite, one run on the GPU machine (H100 or H200):
#   1. nvidia-smi -L
#   2. bench/correctness.py (full matrix)
#   3. compute-sanitizer --tool memcheck  on bench/correctness.py --sanitize
#   4. compute-sanitizer --tool racecheck on bench/correctness.py --sanitize
#   5. bench/benchmark.py (FA2 paper sweep against torch SDPA FA2 and cuDNN)
# Each step's output goes to OUT_DIR/<step>.log (and JSON where the step
# writes one); a failing step is reported and the next one still runs. The
# exit status is nonzero if any step failed.
#
# Usage: scripts/gpu-suite.sh ARTIFACT_DIR [OUT_DIR]
#   ARTIFACT_DIR  directory holding manifest.json and the kernel .so files
#   OUT_DIR       where logs and JSON go (default: $OUT, else bench/results/suite-DATE)
# Environment:
#   FLASHRT_LIB   path of libflashrt.so (default: ARTIFACT_DIR/libflashrt.so if
#                 present, else the binding's own default)
#   PYTHON        interpreter (default python3)
#   SUITE_STEPS   steps to run, comma separated (default
#                 smi,correctness,memcheck,racecheck,benchmark)
#   SUITE_QUICK=1 run correctness.py --quick instead of the full matrix
#   T_CORRECTNESS T_MEMCHECK T_RACECHECK T_BENCHMARK  per-step time limits in
#                 seconds (defaults 150 120 120 180: the sum fits in 10 minutes)
#   CORRECTNESS_ARGS BENCHMARK_ARGS  extra arguments for those scripts
set -u

root=$(cd "$(dirname "$0")/.." && pwd)
if [ $# -lt 1 ] || [ "${1:-}" = "-h" ] || [ "${1:-}" = "--help" ]; then
  sed -n '2,24p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
fi
art=$(cd "$1" 2>/dev/null && pwd) || { echo "gpu-suite: no such artifact directory: $1" >&2; exit 2; }
out=${2:-${OUT:-$root/bench/results/suite-$(date +%Y%m%d-%H%M%S)}}
mkdir -p "$out" || { echo "gpu-suite: cannot create $out" >&2; exit 2; }
out=$(cd "$out" && pwd)

# after any $PYTHONPATH given, so that a binding named there (bench/fake) wins
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$root/python"
if [ -z "${FLASHRT_LIB:-}" ] && [ -f "$art/libflashrt.so" ]; then
  export FLASHRT_LIB="$art/libflashrt.so"
fi
[ -n "${FLASHRT_LIB:-}" ] && export FLASHRT_LIB
PY=${PYTHON:-python3}
steps=",${SUITE_STEPS:-smi,correctness,memcheck,racecheck,benchmark},"

sanitizer=""
if [ -x /usr/local/cuda/bin/compute-sanitizer ]; then
  sanitizer=/usr/local/cuda/bin/compute-sanitizer
elif command -v compute-sanitizer >/dev/null 2>&1; then
  sanitizer=$(command -v compute-sanitizer)
fi

have_timeout=""
command -v timeout >/dev/null 2>&1 && have_timeout=1

declare -a names=() results=() secs=()
failed=0

# step NAME LIMIT_SECONDS CMD...: runs CMD with its output shown and logged.
step() {
  local name=$1 limit=$2
  shift 2
  local log="$out/$name.log" t0 rc
  echo
  echo "=== [$name] $*"
  t0=$(date +%s)
  {
    echo "# $(date '+%F %T') $*"
    if [ -n "$have_timeout" ] && [ "$limit" -gt 0 ]; then
      timeout -k 15 "$limit" "$@"
    else
      "$@"
    fi
  } 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  local dt=$(( $(date +%s) - t0 ))
  local res="ok"
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    res="TIMEOUT after ${limit}s (rc=$rc)"
  elif [ "$rc" -ne 0 ]; then
    res="FAILED (rc=$rc)"
  fi
  [ "$res" = "ok" ] || { failed=1; echo "=== [$name] $res — see $log"; }
  names+=("$name"); results+=("$res"); secs+=("$dt")
  return 0
}

skip() {
  names+=("$1"); results+=("skipped: $2"); secs+=(0)
  echo
  echo "=== [$1] skipped: $2"
}

echo "gpu-suite: repo $root"
echo "gpu-suite: artifacts $art"
echo "gpu-suite: output $out"
echo "gpu-suite: PYTHONPATH=$PYTHONPATH FLASHRT_LIB=${FLASHRT_LIB:-<binding default>} python=$(command -v "$PY")"

if [[ $steps == *,smi,* ]]; then
  if command -v nvidia-smi >/dev/null 2>&1; then
    step smi 60 nvidia-smi -L
  else
    skip smi "nvidia-smi not found"
  fi
fi

if [[ $steps == *,correctness,* ]]; then
  quick=()
  [ "${SUITE_QUICK:-0}" = 1 ] && quick=(--quick)
  # shellcheck disable=SC2086
  step correctness "${T_CORRECTNESS:-150}" "$PY" "$root/bench/correctness.py" --artifacts "$art" \
    "${quick[@]}" --out "$out/correctness.json" ${CORRECTNESS_ARGS:-}
fi

for tool in memcheck racecheck; do
  [[ $steps == *,$tool,* ]] || continue
  if [ -z "$sanitizer" ]; then
    skip "$tool" "compute-sanitizer not found"
    continue
  fi
  extra=()
  [ "$tool" = memcheck ] && extra=(--leak-check no)
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  limit_var="T_${tool^^}"
  # PYTORCH_NO_CUDA_MEMORY_CACHING: one cudaMalloc per tensor, so memcheck
  # sees an access past a tensor's end instead of landing in a cached block.
  step "$tool" "${!limit_var:-120}" env PYTORCH_NO_CUDA_MEMORY_CACHING=1 \
    "$sanitizer" --tool "$tool" "${extra[@]}" --error-exitcode 86 \
    "$PY" "$root/bench/correctness.py" --artifacts "$art" --sanitize
done

if [[ $steps == *,benchmark,* ]]; then
  # shellcheck disable=SC2086
  step benchmark "${T_BENCHMARK:-180}" "$PY" "$root/bench/benchmark.py" --artifacts "$art" \
    --out "$out/benchmark.json" ${BENCHMARK_ARGS:-}
fi

# ---- summary
line_of() { [ -f "$out/$1.log" ] && grep -E "$2" "$out/$1.log" | tail -n "${3:-1}"; }
{
  echo
  echo "===================== gpu-suite summary ====================="
  line_of smi '^GPU ' 8
  for i in "${!names[@]}"; do
    printf '%-12s %-38s %5ss\n' "${names[$i]}" "${results[$i]}" "${secs[$i]}"
  done
  line_of correctness '^correctness: '
  for tool in memcheck racecheck; do
    line_of "$tool" 'ERROR SUMMARY|RACECHECK SUMMARY|^correctness: ' 3 | sed "s/^/$tool: /"
  done
  if [ -f "$out/benchmark.log" ]; then
    grep -E '^hdim causal|^ *[0-9]+ +(True|False) |^# skip|^benchmark: ' "$out/benchmark.log"
  fi
  echo "logs and JSON: $out"
  if [ "$failed" -ne 0 ]; then echo "gpu-suite: FAILED"; else echo "gpu-suite: all steps passed"; fi
} | tee "$out/summary.txt"
exit "$failed"
