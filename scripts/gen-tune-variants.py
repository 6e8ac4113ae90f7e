#!/usr/bin/env python3
"""Writes hand-configured bf16 prefill entries for a tile sweep.

  scripts/gen-tune-variants.py CONFIGS.json OUT.mlir OUT-MANIFEST.json

CONFIGS.json lists [block_m, block_n, warps, stages, wgmma, causal, head_dim]
rows (an optional 8th field `true` adds a producer warpgroup); each becomes one BSHD/BHSD-agnostic (dynamic-stride) entry
`tune_d<D>[_c]_<BM>x<BN>w<W>s<S>[_wg]` whose #flash.config is that row, and
the manifest lists [func, head_dim, causal] for bench/tune.py. Compile with
scripts/flash-compile.sh (--chip=sm_90a when a row has wgmma).
"""
import json
import sys

T = "memref<?x?x?x{D}xbf16, strided<[?, ?, ?, 1], offset: ?>>"
L = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
out, manifest = [], []
for row in json.load(open(sys.argv[1])):
    bm, bn, warps, stages, wgmma, causal, d = row[:7]
    producer = len(row) > 7 and row[7]
    name = (f"tune_d{d}_{'c_' if causal else ''}{bm}x{bn}w{warps}s{stages}"
            f"{'_wg' if wgmma else ''}{'_p' if producer else ''}")
    t = T.format(D=d)
    attrs = ("causal, " if causal else "") + (
        f"config = #flash.config<block_m = {bm}, block_n = {bn}, warps = {warps}, "
        f"stages = {stages}" + (", wgmma = true" if wgmma else "") +
        (", producer = true" if producer else "") + ">")
    out.append(f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}, %o: {t}, %lse: {L}) {{\n"
               f"  flash.attention ins(%q, %k, %v : {t}, {t}, {t}) outs(%o, %lse : {t}, {L})"
               f" {{{attrs}}}\n  return\n}}\n")
    manifest.append([name, d, causal])
open(sys.argv[2], "w").write("\n".join(out))
json.dump(manifest, open(sys.argv[3], "w"))
