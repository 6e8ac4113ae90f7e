#!/usr/bin/env bash
# compare-ptx: the gate of a refactor of the GPU lowering. Compiles every
# kernel variant the GPU suite runs (scripts/gen-variants.py, the decode
# variants, the producer-warpgroup configs, the score_mod / mask_mod library
# of scripts/gen-mods-variants.py with its block-mask hints, and the
# bundled example) with two
# flash-opt binaries, for sm_80, sm_90 and sm_90a, and diffs the PTX.
#
#   scripts/compare-ptx.sh OLD_FLASH_OPT NEW_FLASH_OPT WORKDIR [EXTRA_FLAGS]
#
# EXTRA_FLAGS (one argument, e.g. a --pass-pipeline=...; @CHIP@ is replaced
# by the chip) replace the default
# --flash-lower-to-gpu for the NEW binary only, so a pipeline variant (say
# with canonicalize,cse between the flash passes) can be compared against
# the plain pipeline. Exits 1 and lists the modules whose PTX differs.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
[ $# -ge 3 ] || { echo "usage: $0 OLD NEW WORKDIR [EXTRA_FLAGS]" >&2; exit 2; }
OLD=$1 NEW=$2 W=$3 EXTRA=${4:-}
mkdir -p "$W"
python3 "$ROOT/scripts/gen-variants.py" "$W/suite.mlir" "$W/suite.json" k.so
python3 "$ROOT/scripts/gen-decode-variants.py" "$W/decode.mlir" "$W/decode.json" d.so
echo '[[128, 96, 8, 3, true, true, 128, true], [128, 96, 8, 3, true, false, 128, true], [192, 96, 12, 2, true, false, 128], [64, 96, 4, 2, true, true, 128]]' \
  > "$W/configs.json"
python3 "$ROOT/scripts/gen-variants.py" "$W/tune.mlir" "$W/tune.json" t.so \
  --configs="$W/configs.json"
python3 "$ROOT/scripts/gen-mods-variants.py" "$W/mods.mlir" "$W/mods.json" m.so \
  --block-mask
cp "$ROOT/examples/attention-bf16.mlir" "$W/example.mlir"
status=0
for mod in suite decode tune mods example; do
  for chip in sm_80 sm_90 sm_90a; do
    [ "$mod" = tune ] && [ "$chip" != sm_90a ] && continue
    [ "$mod" = mods ] && [ "$chip" = sm_80 ] && continue
    for side in old new; do
      bin=$OLD; flags=("--flash-lower-to-gpu=chip=$chip format=isa")
      if [ $side = new ]; then
        bin=$NEW
        [ -n "$EXTRA" ] && flags=("${EXTRA//@CHIP@/$chip}")
      fi
      "$bin" "$W/$mod.mlir" "${flags[@]}" -o "$W/$mod.$chip.$side.mlir"
      python3 "$ROOT/scripts/extract-gpu-object.py" "$W/$mod.$chip.$side.mlir" \
        "$W/$mod.$chip.$side.ptx"
    done
    if cmp -s "$W/$mod.$chip.old.ptx" "$W/$mod.$chip.new.ptx"; then
      echo "same      $mod $chip ($(grep -c '^.visible .entry\|^.entry' "$W/$mod.$chip.new.ptx") kernels)"
    else
      echo "DIFFERENT $mod $chip: diff $W/$mod.$chip.old.ptx $W/$mod.$chip.new.ptx"
      status=1
    fi
  done
done
exit $status
