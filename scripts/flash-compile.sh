#!/usr/bin/env bash
# flash-compile: compiles a .mlir file of flash.attention functions (bf16/f16
# memref or tensor form) into a loadable artifact: an x86-64 shared object
# whose `_mlir_ciface_<func>` entry points launch the embedded cubin through
# the mgpu* ABI that libflashrt implements, plus `<func>_flash_abi` strings.
# --chip=cpu compiles with flash-lower-to-cpu instead: host loops, no
# runtime needed (functions marked llvm.emit_c_interface get the entry).
#
#   scripts/flash-compile.sh IN.mlir OUT.so [--chip=sm_90|cpu] [--ptx=OUT.ptx]
#                            [--split-min-efficiency=0.85]
#
# A wrapper: it runs the C++ driver (tools/flash-compile: the whole chain in
# one process), found next to $FLASH_OPT or in build/bin, or $FLASH_COMPILE.
# Without one (or with FLASH_COMPILE_LEGACY=1, which the equivalence test
# uses) it runs the old chain: flash-opt --flash-lower-to-gpu (kernels ->
# cubin, host -> LLVM dialect), mlir-translate, llc (PIC object), cc -shared.
# The artifact is not linked against libflashrt: load libflashrt first
# (RTLD_GLOBAL) so that its mgpu* symbols resolve, as flash-run-gpu and the
# Python binding do.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
LLVM_BIN=${LLVM_BIN:-/usr/lib/llvm-22/bin}
FLASH_OPT=${FLASH_OPT:-$ROOT/build/bin/flash-opt}
FLASH_COMPILE=${FLASH_COMPILE:-$(dirname "$FLASH_OPT")/flash-compile}
[ $# -ge 2 ] || { echo "usage: $0 IN.mlir OUT.so [--chip=sm_90|cpu] [--ptx=OUT.ptx] [--split-min-efficiency=0.85]" >&2; exit 2; }
IN=$1 OUT=$2; shift 2
CHIP=sm_90 PTX= EFF=0.85
for a in "$@"; do
  case $a in
    --chip=*) CHIP=${a#--chip=} ;;
    --ptx=*) PTX=${a#--ptx=} ;;
    --split-min-efficiency=*) EFF=${a#--split-min-efficiency=} ;;
    *) echo "flash-compile: unknown option $a" >&2; exit 2 ;;
  esac
done
start=$(date +%s.%N)
if [ "$CHIP" != cpu ] && [ "${FLASH_COMPILE_LEGACY:-0}" != 1 ] && [ -x "$FLASH_COMPILE" ]; then
  "$FLASH_COMPILE" "$IN" -o "$OUT" "$@"
else
  TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
  # flash-occupancy as the driver runs it: on for sm_90a.
  case $CHIP in sm_90a) OCC=true ;; *) OCC=false ;; esac
  if [ "$CHIP" = cpu ]; then
    PIPELINE=--flash-lower-to-cpu
  else
    PIPELINE="--flash-lower-to-gpu=chip=$CHIP format=bin split-min-efficiency=$EFF occupancy=$OCC"
  fi
  "$FLASH_OPT" "$IN" --mlir-print-op-on-diagnostic=false "$PIPELINE" -o "$TMP/host.mlir"
  "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$TMP/host.mlir" -o "$TMP/host.ll"
  "$LLVM_BIN/llc" -O2 -filetype=obj -relocation-model=pic "$TMP/host.ll" -o "$TMP/host.o"
  cc -shared -o "$OUT" "$TMP/host.o" $([ "$CHIP" = cpu ] && echo -lm)
  if [ -n "$PTX" ]; then
    "$FLASH_OPT" "$IN" --mlir-print-op-on-diagnostic=false \
      --flash-lower-to-gpu="chip=$CHIP format=isa split-min-efficiency=$EFF occupancy=$OCC" -o "$TMP/isa.mlir"
    python3 "$ROOT/scripts/extract-gpu-object.py" "$TMP/isa.mlir" "$PTX"
  fi
fi
end=$(date +%s.%N)
awk -v s="$start" -v e="$end" -v i="$IN" -v o="$OUT" -v c="$CHIP" 'BEGIN { printf "flash-compile: %s -> %s (%s) in %.1f s\n", i, o, c, e - s }'
