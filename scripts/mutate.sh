#!/usr/bin/env bash
# Mutation check: plants each bug of a small list of representative ones
# (one per pass, the GPU lowering, the runtime, the reference, the op
# accessor, the fuzz replay), alone, rebuilds, runs the lit tests that
# should catch it, and reports caught / MISSED / "patch does not apply" per
# bug. Exits 1 unless every bug is caught.
#
#   scripts/mutate.sh [NAME...]      # all mutations, or the named ones
#   scripts/mutate.sh --list
#
# Each mutation replaces one exact text (a formula line, which survives
# restructuring) in one file; if that text is not found exactly once the
# mutation reports "patch does not apply" and counts as a failure, never as
# caught. The file is restored from a copy after the run (and on any exit or
# interrupt), then the build is brought back; a file with uncommitted
# changes is refused, so the tree is never left dirty (do not edit or commit
# in the tree while it runs). Only the binaries and lit
# tests meant to catch a mutation are rebuilt and run (the full suite takes
# far longer); the table says which. Needs a configured build
# (${FLASH_BUILD_DIR:-build}).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FLASH_BUILD_DIR:-$root/build}
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-/work}
lit=/usr/lib/llvm-22/bin/lit

# name | file | exact text | replacement | lit tests (space-separated, under test/)
mutations=$(cat <<'EOF'
plan-warps|lib/Dialect/Flash/Transforms/FlashPlan.cpp|int64_t warps = d <= 128 ? 4 : 8;|int64_t warps = 4;|Dialect/Flash/flash-plan.mlir
fold-gqa-head-stride|lib/Dialect/Flash/Transforms/FlashFoldGQA.cpp|strides[kHeadsPos] = b.getIndexAttr(g * sh);|strides[kHeadsPos] = b.getIndexAttr(sh);|Dialect/Flash/flash-fold-gqa.mlir Integration/CPU/kvcache.mlir
split-kv-plain-path|lib/Dialect/Flash/Transforms/FlashSplitKV.cpp|numSplits, ci(1));|numSplits, ci(2));|Dialect/Flash/flash-split-kv.mlir Integration/CPU/split-kv.mlir
tile-right-band|include/flash/Dialect/Flash/Utils/TileArith.h|a.c(blockM + mask.right)|a.c(blockM - 1 + mask.right)|Integration/CPU/causal.mlir Integration/CPU/window.mlir
softmax-no-max|lib/Dialect/Flash/Transforms/FlashOnlineSoftmax.cpp|return arith::MaxNumFOp::create(b, l, a[0], a[1]);|return tb.f32(0.0);|Integration/CPU/large-logits.mlir
gpu-fragment-column|lib/Conversion/FlashToGPU/Elementwise.cpp|: 8 * nt + e));|: 8 * nt + 1 - e));|Conversion/FlashToGPU/math.mlir
gpu-partial-sum-quad|lib/Conversion/FlashToGPU/Elementwise.cpp|    r = kc.fadd(x, kc.shflXor(x, 2));|    r = kc.fadd(x, kc.shflXor(x, 1));|Conversion/FlashToGPU/math.mlir
mask-causal-strict|include/flash/Dialect/Flash/Utils/TileArith.h|visible = a.land(visible, a.le(j, diag));|visible = a.land(visible, a.lt(j, diag));|Integration/CPU/causal.mlir Dialect/Flash/flash-online-softmax.mlir
tile-to-scf-reversed|lib/Conversion/FlashTileToSCF/FlashTileToSCF.cpp|? lib.sub(lib.sub(ub, lib.c(1)), iv)|? lib.sub(ub, iv)|Conversion/FlashTileToSCF/flash-tile-to-scf.mlir Integration/CPU/causal.mlir
runtime-batch-stride|runtime/lib/Call.cpp|for (int d = 0; d < 3; ++d)|for (int d = 1; d < 3; ++d)|Unit
reference-causal-offset|lib/Reference/Reference.cpp|const int64_t offset = sk - sq;|const int64_t offset = 0;|Integration/CPU/causal.mlir Integration/CPU/naive-kvcache.mlir
scale-from-dv|lib/Dialect/Flash/IR/AttentionVerifier.h|return 1.0 / std::sqrt(double(qType.getDimSize(kDimPos)));|return 1.0 / std::sqrt(double(cast<ShapedType>(op.getValue().getType()).getDimSize(kDimPos)));|Integration/CPU/head-dims.mlir
tile-kv-role|lib/Dialect/Flash/Transforms/FlashTile.cpp|tileOf(k, bn), TileRole::K,|tileOf(k, bn), TileRole::V,|Dialect/Flash/flash-tile.mlir
smem-v-offset|lib/Conversion/FlashToGPU/MMA.cpp|Value vBase = kc.add(kc.c(kc.smem.vOffset()),|Value vBase = kc.add(kc.c(kc.smem.kOffset()),|Conversion/FlashToGPU/mma-sync.mlir Conversion/FlashToGPU/wgmma.mlir
plan-uniform-pingpong|lib/Dialect/Flash/Transforms/FlashPlan.cpp|uniformBlocks && !pingpong);|uniformBlocks);|Dialect/Flash/flash-plan.mlir
reference-bwd-no-d|lib/Reference/Reference.cpp|probs[j - lo] * (dprobs[j - lo] - dsum) *|probs[j - lo] * dprobs[j - lo] *|Unit
reference-bwd-no-mod-prime|lib/Reference/Reference.cpp|fprime[j - lo] * p.scale;|p.scale;|Unit
backward-dk-shape|lib/Dialect/Flash/IR/FlashBackwardOps.cpp|{getKey(), "dk", "K's [B, Hkv, Sk, D]"},|{getQuery(), "dk", "K's [B, Hkv, Sk, D]"},|Dialect/Flash/attention-backward-roundtrip.mlir Dialect/Flash/attention-backward-invalid.mlir
bwd-wrong-d|lib/Dialect/Flash/Transforms/FlashTileBackward.cpp|Value p = arith::MulFOp::create(nb, l, x, y);|Value p = arith::MulFOp::create(nb, l, x, x);|Integration/CPU/backward.mlir
bwd-p-without-lse|lib/Dialect/Flash/Transforms/FlashBackwardRecompute.cpp|arith::MulFOp::create(b, l, a[0], tb.f32(kLog2e));|tb.f32(0.0);|Integration/CPU/backward.mlir
bwd-empty-row-lse|lib/Dialect/Flash/Transforms/FlashBackwardRecompute.cpp|tb.f32(inf), scaled);|scaled, scaled);|Integration/CPU/backward.mlir
bwd-no-mod-prime|lib/Dialect/Flash/Transforms/FlashBackwardRecompute.cpp|x = arith::MulFOp::create(b, l, x, a[2]);|(void)a[2];|Integration/CPU/backward.mlir
bwd-ds-no-scale|lib/Dialect/Flash/Transforms/FlashBackwardRecompute.cpp|x = arith::MulFOp::create(b, l, x, tb.f32(scale));|(void)scale;|Integration/CPU/backward.mlir
bwd-dk-operand-swapped|lib/Dialect/Flash/Transforms/FlashBackwardRecompute.cpp|Value dk = tb.matmul(dsElt, op.getQuery(), op.getDk(),|Value dk = tb.matmul(dsElt, op.getKey(), op.getDk(),|Integration/CPU/backward.mlir
bwd-unmasked-band|lib/Dialect/Flash/Transforms/FlashTileBackward.cpp|ib.sub(ib.sub(ib.add(col0, ib.c(bn - 1)), off), ib.c(right));|ib.sub(ib.sub(col0, off), ib.c(right));|Integration/CPU/backward.mlir
bwd-query-blocks-causal|lib/Dialect/Flash/Transforms/FlashTileBackward.cpp|lo = ib.min(ib.divui(first, ib.c(bm)), numM);|lo = ib.min(ib.add(ib.divui(first, ib.c(bm)), ib.c(1)), numM);|Integration/CPU/backward.mlir
derivative-tanh|lib/Dialect/Flash/Utils/ModDerivative.cpp|return mul(d[0], add(constant(t, 1.0), neg(mul(r, r))));|return mul(d[0], add(constant(t, 1.0), mul(r, r)));|Unit
bwd-gpu-layout-all-smem|lib/Dialect/Flash/Transforms/FlashAssignLayouts.cpp|  if (!grid.getBackward())|  if (true)|Dialect/Flash/flash-assign-layouts-backward.mlir Pipelines/backward-gpu.mlir
bwd-gpu-dq-not-zeroed|lib/Conversion/FlashToGPU/FlashToGPU.cpp|    if (a.getZeroed()) {|    if (false) {|Conversion/FlashToGPU/backward.mlir Pipelines/backward-gpu.mlir
region-extf-flags|lib/Conversion/FlashToGPU/Elementwise.cpp|              kc.ctx, (flags ? flags.getValue()|              kc.ctx, (true ? flags.getValue()|Pipelines/region-extf.mlir
bwd-gpu-copy-no-wait|lib/Conversion/FlashToGPU/Backward.cpp|    NVVM::CpAsyncWaitGroupOp::create(kc.b, kc.loc, 0);|    NVVM::CpAsyncWaitGroupOp::create(kc.b, kc.loc, 1);|Conversion/FlashToGPU/backward.mlir
fuzz-nul-terminator|fuzz/FlashParseFuzzer.cpp|parseSourceString<ModuleOp>(source, config, "fuzz-input");|parseSourceString<ModuleOp>(StringRef(reinterpret_cast<const char *>(data), size), config, "fuzz-input");|Tools/Fuzz/corpus-replay.test
EOF
)

if [ "${1:-}" = --list ]; then
  cut -d'|' -f1,2,5 <<<"$mutations" | column -t -s'|'
  exit 0
fi
want=" $* "
[ ! -f "$build/build.ninja" ] && { echo "mutate: no build in $build"; exit 2; }

backup=$(mktemp -d)
current=""
restore() {
  if [ -n "$current" ]; then
    cp "$backup/file" "$root/$current"
    current=""
  fi
}
trap 'restore; rm -rf "$backup"' EXIT
trap 'exit 130' INT TERM

# The binaries the given lit tests run (only those are rebuilt per mutation;
# the whole build is brought back at the end).
targets() {
  local t out=()
  for t in "$@"; do
    case $t in
      Dialect/*|Conversion/*|Pipelines/*) out+=(flash-opt) ;;
      Integration/CPU/*) out+=(flash-run) ;;
      Tools/Fuzz/corpus-replay*) out+=(flash-fuzz-parse) ;;
      Unit) out+=(FlashRuntimeTests FlashRuntimeFakeDriverTests FlashReferenceTests
                  FlashUtilsTests FlashTileArithTests) ;;
      *) out+=(all) ;;
    esac
  done
  printf '%s\n' "${out[@]}" | sort -u
}
rebuild() { ninja -C "$build" -j"$(nproc)" "$@" >"$backup/ninja.log" 2>&1; }

results=()
missed=0
while IFS='|' read -r name file text repl tests; do
  [ -z "$name" ] && continue
  [ "$want" != "  " ] && [[ "$want" != *" $name "* ]] && continue
  if ! git -C "$root" diff --quiet HEAD -- "$file"; then
    results+=("$name|$file|uncommitted changes, refused|-")
    missed=$((missed + 1))
    continue
  fi
  count=$(python3 -c 'import sys; print(open(sys.argv[1]).read().count(sys.argv[2]))' \
            "$root/$file" "$text")
  if [ "$count" != 1 ]; then
    results+=("$name|$file|patch does not apply (text found $count times)|-")
    missed=$((missed + 1))
    continue
  fi
  cp "$root/$file" "$backup/file"
  current=$file
  python3 -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); open(p, "w").write(s.replace(a, b, 1))' \
    "$root/$file" "$text" "$repl"
  paths=()
  for t in $tests; do paths+=("$build/test/$t"); done
  mapfile -t tgts < <(targets $tests)
  [[ " ${tgts[*]} " == *" all "* ]] && tgts=()
  if ! rebuild "${tgts[@]}"; then
    # A mutation is a valid program by construction: a failed build is a
    # broken mutation (or an interrupted build), never a catch.
    verdict="BUILD FAILED ($(grep -m1 -E 'error' "$backup/ninja.log" | cut -c1-80))"
    missed=$((missed + 1))
  elif "$lit" -q "${paths[@]}" >"$backup/lit.log" 2>&1; then
    verdict="MISSED"
    missed=$((missed + 1))
  else
    verdict="caught ($(grep -cE '^ *FAIL|^FAIL' "$backup/lit.log" || true) failing: $(grep -oE 'FAIL: [^ ]+ :: [^ ]+' "$backup/lit.log" | sed 's/FAIL: [^ ]* :: //' | sort -u | tr '\n' ' '))"
  fi
  restore
  results+=("$name|$file|$verdict|$tests")
  echo "mutate: $name: $verdict" >&2
done <<<"$mutations"

rebuild || { echo "mutate: the restored tree does not build"; exit 2; }
printf '%s\n' "${results[@]}" | column -t -s'|' -N MUTATION,FILE,RESULT,TESTS-RUN
echo "mutate: $(( ${#results[@]} - missed ))/${#results[@]} caught"
[ "$missed" = 0 ]
