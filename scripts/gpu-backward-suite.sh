#!/usr/bin/env bash
# The backward's GPU correctness matrix (flash.attention_backward, issue #39):
# every region-free function of bench/backward-variants.mlir, compiled for
# sm_90a and sm_90, run by flash-run-gpu over SHAPES in both storage orders
# (fresh random inputs per case, poisoned gradients, FA2's backward rule:
# each of dQ, dK, dV within 2x the same backward in the kernel's dtype).
# The functions with regions are the Python training checks' (they need a
# reference of the region: scripts/gpu_training_checks.py).
#
#   scripts/gpu-backward-suite.sh compile DIR   # the compiler machine: DIR gets
#                                               # the artifacts, flash-run-gpu
#                                               # and libflashrt.so
#   scripts/gpu-backward-suite.sh run DIR       # the GPU machine
#
# Prints one summary line per (chip, function, layout) and a total; exit 1 if
# any case failed. BUILD (default build/) is the build directory; SHAPES
# (B,Hq,Hkv,Sq,Sk;...) replaces the case list, CHIPS the chips.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -eq 2 ] || { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
mode=$1 dir=$2
src=$root/bench/backward-variants.mlir
CHIPS=${CHIPS:-"sm_90a sm_90"}
FUNCS="bwd_d32_bf16 bwd_d32_bf16_causal bwd_d64_bf16 bwd_d64_bf16_causal bwd_d64_f16_window
       bwd_d128_bf16 bwd_d128_bf16_causal bwd_d128_f16_causal bwd_d64_bf16_softcap
       bwd_d64_bf16_alibi_causal"
SHAPES=${SHAPES:-'2,4,2,128,128;1,2,2,100,37;2,4,1,77,200;1,1,1,1,65;1,2,1,200,64;3,8,2,333,257;1,4,4,1024,1024;2,6,3,64,1;1,2,1,513,129;4,2,2,17,300;1,16,2,256,512;2,4,4,700,700'}
case $mode in
compile)
  build=${BUILD:-$root/build}
  mkdir -p "$dir" || exit 2
  for chip in $CHIPS; do
    "$build/bin/flash-compile" "$src" -o "$dir/bwd-$chip.so" --chip="$chip" || exit 1
  done
  cp "$build/bin/flash-run-gpu" "$build/lib/libflashrt.so" "$dir/" ;;
run)
  dir=$(cd "$dir" && pwd)
  export LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  pass=0 total=0 rc=0
  for chip in $CHIPS; do
    for f in $FUNCS; do
      extra=
      [ "$f" = bwd_d64_bf16_alibi_causal ] && extra=--alibi
      for layout in bhsd bshd; do
        log=$("$dir/flash-run-gpu" --artifact="$dir/bwd-$chip.so" --func="$f" \
              --shapes="$SHAPES" --layout=$layout --seed=$RANDOM $extra 2>&1)
        [ $? -eq 0 ] || rc=1
        echo "$log" | grep -E "FAIL|error" | head -3
        line=$(echo "$log" | grep -E "cases passed" | tail -1)
        echo "$chip $f $layout: ${line:-no summary}"
        p=$(echo "$line" | sed -nE 's/.*: ([0-9]+)\/([0-9]+) cases passed.*/\1/p')
        t=$(echo "$line" | sed -nE 's/.*: ([0-9]+)\/([0-9]+) cases passed.*/\2/p')
        pass=$((pass + ${p:-0})) total=$((total + ${t:-0}))
      done
    done
  done
  echo "gpu-backward-suite: $pass/$total cases passed"
  [ $rc -eq 0 ] && [ "$pass" -eq "$total" ] && [ "$total" -gt 0 ] ;;
*) echo "unknown mode $mode (compile or run)" >&2; exit 2 ;;
esac
