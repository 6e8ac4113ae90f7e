#!/usr/bin/env python3
"""Writes the .mlir module of score_mod / mask_mod / ALiBi kernels that
scripts/gpu-mods-check.py runs on the GPU (issue #11), and its manifest.

  scripts/gen-mods-variants.py OUT.mlir MANIFEST.json SO_NAME [--dims=64,128]
                               [--block-mask] [--configs]

One memref-form function per (kind, head dim, causal), bf16, dynamic batch,
heads and lengths, O and LSE, in the syntax of CONTRACT7.md (captures(...),
score_mod / mask_mod regions; block arguments b, h, i, j then the captures):

  alibi         the `alibi(%slopes)` operand, f32 [Hq]
  relbias       score_mod: s + table[h, clamp(j - i + R, 0, 2R)], table f32
                [Hq, 2R + 1] (R = RELBIAS_RADIUS), a captured bias table
  softcap_mod   score_mod: 30 tanh(s / 30), softcap written as a region
                (IEEE division, as arith.divf is on both targets)
  softcap_fast  the same with `arith.divf ... fastmath<arcp>`: division
                by the constant may become a multiply by its reciprocal,
                as the softcap attribute's own scale/cap multiply does
  softcap_attr  the softcap = 30.0 attribute (the timing's baseline)
  docmask       mask_mod: doc[b, i] == doc[b, j], doc i32 [B, S] (document
                mask from captured ids, S >= max(Sq, Sk))
  prefixlm      mask_mod: j <= i or j < prefix[b], prefix i32 [B]
                (non-causal only: causal would hide the prefix)
  causalmod     mask_mod: j <= i, top-left causal written as a mask_mod
                (non-causal only); flash-tile's key bounds (MaskKeys.h) skip
                and keep whole its blocks as the causal attribute's do, so
                its timing baseline is plain's causal kernel (Sq = Sk)
  windowmod     mask_mod: i - j <= WINDOW and i >= j, FlexAttention's
                sliding window (a test of a key expression, non-causal
                only)
  window32      windowmod written in i32 (i and j index_cast to i32), as an
                embedder lowers FlexAttention's int32 q_idx / kv_idx: its
                casts are range-checked and the key bounds are windowmod's
                (non-causal only)
  plain         no modification (the mask_mod timing's baseline)

With --block-mask, also (BLOCK_MASK_KINDS, not in KINDS: their callers
must pass the hint):

  docmask_bm    docmask with a `block_mask(%hint)` operand, i32
                [B, Hq, R, 4], block_mask_rows = BLOCK_MASK_ROWS (QB), R >=
                ceil(Sq / QB): row r of (b, h) holds (vlo, vhi, flo, fhi),
                keys outside [vlo, vhi) hidden and keys in [flo, fhi)
                visible by the document mask for every query of
                [r * QB, (r + 1) * QB) (for sorted document ids: vlo = the
                first key of the row block's first document, vhi = the end
                of its last; [flo, fhi) = that document's keys when the row
                block lies in one document, else empty, e.g. (0, 0)).
                The kernel then skips the blocks outside the documents and
                runs no mask on the blocks inside one (FlexAttention's
                BlockMask). The hint is the argument after V, before the
                document ids: the ABI record lists it first in "captures"
                and names it in "block_mask": {"arg": 3, "rows": QB}, so
                the binding's captures=[hint, doc].

Captures (ALiBi's slopes among them) are the function's arguments after V,
before O, in operand order: the order of the ABI record's "captures" and of
the Python binding's captures=[...]. The syntax exists once the IR side of
issue #11 (s7/mods-ir) is merged; compile then with

  flash-opt OUT.mlir --flash-lower-to-gpu="chip=sm_90a" ... (scripts/flash-compile.sh)
"""
import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from flashmlir.blockmask import DOC_MASK_MOD, PREFIX_LM_MASK_MOD  # noqa: E402
from flashmlir.variants import Variant  # noqa: E402

RELBIAS_RADIUS = 128
WINDOW = 256
SOFTCAP = 30.0
BLOCK_MASK_ROWS = 128
KINDS = ("alibi", "relbias", "softcap_mod", "softcap_fast", "softcap_attr", "docmask", "prefixlm",
         "causalmod", "windowmod", "window32", "plain")
BLOCK_MASK_KINDS = ("docmask_bm",)
# --configs: kernels again under a fixed config (kind suffix), for timing
# pairs in one process. Head dim 128: the unmasked kernel with
# the producer warpgroup flash-plan gives a mask_mod there (_p: the mask's
# own cost on one config), and the mask_mod kernels with the 192 x 96
# lockstep tile flash-plan gave them before the producer config (_w12: the A/B
# baseline). Head dim 64 (flash-plan: 64 x 64, one warpgroup, so nothing
# overlaps its mask work): two producer configs with two consumer
# warpgroups, 128 x 128 (_p) and 128 x 64 (_q), plain and masked, causal
# and not. _pp / _qp: those producer configs with FA3's ping-pong turns
# (flash-pingpong), plain and masked, causal and not (d128: 128 x 96);
# _pc: d128 ping-pong with 128-key blocks and 3 stages (FA3's tile),
# masked.
PRODUCER = {"wgmma": True, "producer": True}
CONFIG_SUFFIXES = {
    "_p": {128: {"block_m": 128, "block_n": 96, "warps": 8, "stages": 3, **PRODUCER},
           64: {"block_m": 128, "block_n": 128, "warps": 8, "stages": 3, **PRODUCER}},
    "_q": {64: {"block_m": 128, "block_n": 64, "warps": 8, "stages": 4, **PRODUCER}},
    "_w12": {128: {"block_m": 192, "block_n": 96, "warps": 12, "stages": 2, "wgmma": True}},
    "_pp": {128: {"block_m": 128, "block_n": 96, "warps": 8, "stages": 3, **PRODUCER,
                  "pingpong": True},
            64: {"block_m": 128, "block_n": 128, "warps": 8, "stages": 3, **PRODUCER,
                 "pingpong": True}},
    "_qp": {64: {"block_m": 128, "block_n": 64, "warps": 8, "stages": 4, **PRODUCER,
                 "pingpong": True}},
    "_pc": {128: {"block_m": 128, "block_n": 128, "warps": 8, "stages": 3, **PRODUCER,
                  "pingpong": True}},
    # --tiles: one-warpgroup tiles at head dim 64 for the mask kernels
    # (flash-plan's is 64 x 64 in 2 stages): 64-key blocks in 3
    # stages (_s3), 32-key blocks (_n32), 128-key blocks (_n128), and two
    # warpgroups in lockstep on 128 x 64 (_m128); each plain and masked,
    # causal and not.
    "_s3": {64: {"block_m": 64, "block_n": 64, "warps": 4, "stages": 3, "wgmma": True}},
    "_n32": {64: {"block_m": 64, "block_n": 32, "warps": 4, "stages": 2, "wgmma": True}},
    "_n128": {64: {"block_m": 64, "block_n": 128, "warps": 4, "stages": 2, "wgmma": True}},
    "_m128": {64: {"block_m": 128, "block_n": 64, "warps": 8, "stages": 2, "wgmma": True}},
}
TILE_KINDS = {64: tuple(f"{k}{t}" for t in ("_s3", "_n32", "_n128", "_m128")
                        for k in ("plain", "docmask", "prefixlm"))}
CONFIG_KINDS = {128: ("plain_p", "docmask_w12", "prefixlm_w12", "plain_pp", "docmask_pp",
                      "prefixlm_pp", "docmask_pc", "prefixlm_pc", "docmask_p"),
                64: ("plain_p", "docmask_p", "prefixlm_p", "plain_q", "docmask_q",
                     "prefixlm_q", "plain_pp", "docmask_pp", "prefixlm_pp", "plain_qp",
                     "docmask_qp", "prefixlm_qp")}


def split_config(kind, d=None):
    """(base kind, fixed config at head dim d or None) of a kind."""
    for suffix, configs in CONFIG_SUFFIXES.items():
        if kind.endswith(suffix):
            return kind[:-len(suffix)], configs.get(d)
    return kind, None

STRIDED = "strided<[?, ?, ?, 1], offset: ?>"


def types(d):
    t = f"memref<?x?x?x{d}xbf16, {STRIDED}>"
    return t, "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"


# The regions' bodies after their block arguments (b, h, i, j, captures...);
# %cap0.. name the captures. One statement each of what gpu-mods-check.py's
# float32 reference computes (its Mods class).
SCORE_MODS = {
    "relbias": ("memref<?x?xf32>", f"""\
        %zero = arith.constant 0 : index
        %radius = arith.constant {RELBIAS_RADIUS} : index
        %last = arith.constant {2 * RELBIAS_RADIUS} : index
        %rel = arith.subi %j, %i : index
        %shifted = arith.addi %rel, %radius : index
        %low = arith.maxsi %shifted, %zero : index
        %at = arith.minsi %low, %last : index
        %bias = memref.load %cap0[%h, %at] : memref<?x?xf32>
        %r = arith.addf %s, %bias : f32
        flash.yield %r : f32"""),
    "softcap_mod": (None, f"""\
        %cap = arith.constant {SOFTCAP} : f32
        %x = arith.divf %s, %cap : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32"""),
    "softcap_fast": (None, f"""\
        %cap = arith.constant {SOFTCAP} : f32
        %x = arith.divf %s, %cap fastmath<arcp> : f32
        %t = math.tanh %x : f32
        %r = arith.mulf %t, %cap : f32
        flash.yield %r : f32"""),
}


def _mask_mod(region):
    """(capture type, body) of a flashmlir.blockmask mask_mod region, in the
    form of SCORE_MODS: its block arguments dropped (func_text writes them)
    and its capture renamed %cap0."""
    header, *lines = region.strip().splitlines()
    m = re.fullmatch(r"\^bb0\(%b: index, %h: index, %i: index, %j: index, "
                     r"%(\w+): (memref<[^>]*>)\):", header)
    if not m:
        raise ValueError(f"not a mask_mod region with one capture: {header}")
    name, ctype = m.groups()
    return ctype, "\n".join("        " + re.sub(rf"%{name}\b", "%cap0", line.strip())
                            for line in lines)


# The mask_mods whose block-mask hints flashmlir.blockmask computes: its
# regions, the one copy of their text.
MASK_MODS = {
    "docmask": _mask_mod(DOC_MASK_MOD),
    "prefixlm": _mask_mod(PREFIX_LM_MASK_MOD),
    "causalmod": (None, "        %past = arith.cmpi sle, %j, %i : index\n"
                        "        flash.yield %past : i1"),
    "windowmod": (None, f"        %w = arith.constant {WINDOW} : index\n"
                        "        %d = arith.subi %i, %j : index\n"
                        "        %near = arith.cmpi sle, %d, %w : index\n"
                        "        %past = arith.cmpi sge, %i, %j : index\n"
                        "        %visible = arith.andi %near, %past : i1\n"
                        "        flash.yield %visible : i1"),
    "window32": (None, f"        %w = arith.constant {WINDOW} : i32\n"
                       "        %i32 = arith.index_cast %i : index to i32\n"
                       "        %j32 = arith.index_cast %j : index to i32\n"
                       "        %d = arith.subi %i32, %j32 : i32\n"
                       "        %near = arith.cmpi sle, %d, %w : i32\n"
                       "        %past = arith.cmpi sge, %i32, %j32 : i32\n"
                       "        %visible = arith.andi %near, %past : i1\n"
                       "        flash.yield %visible : i1"),
}


def func_name(kind, d, causal):
    return f"mods_{kind}_bf16_d{d}{'_causal' if causal else ''}"


def func_text(kind, d, causal):
    """The function of one kernel (plain and softcap_attr through Variant,
    the one template of the unmodified op)."""
    name = func_name(kind, d, causal)
    kind, config = split_config(kind, d)
    if kind in ("plain", "softcap_attr"):
        softcap = SOFTCAP if kind == "softcap_attr" else None
        return Variant("bf16", d, causal=causal, softcap=softcap).func_text(name, config)
    t, lt = types(d)
    attrs = ["causal"] if causal else []
    if config:
        params = ", ".join(f"{k} = {'true' if v is True else v}" for k, v in config.items())
        attrs.append(f"config = #flash.config<{params}>")
    attrs = " {" + ", ".join(attrs) + "}" if attrs else ""
    if kind == "alibi":
        return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}, %slopes: memref<?xf32>, "
                f"%o: {t}, %lse: {lt}) {{\n"
                f"  flash.attention ins(%q, %k, %v : {t}, {t}, {t}) "
                f"alibi(%slopes : memref<?xf32>)\n"
                f"      outs(%o, %lse : {t}, {lt}){attrs}\n"
                f"  return\n}}\n")
    hinted = kind in BLOCK_MASK_KINDS
    if hinted:
        kind = kind[:-len("_bm")]
        attrs = (f" {{{'causal, ' if causal else ''}block_mask_rows = "
                 f"{BLOCK_MASK_ROWS} : i64}}")
    score = kind in SCORE_MODS
    ctype, body = (SCORE_MODS if score else MASK_MODS)[kind]
    cap_arg = f", %c: {ctype}" if ctype else ""
    captures = f" captures(%c : {ctype})" if ctype else ""
    if hinted:
        hint = "memref<?x?x?x4xi32>"
        cap_arg = f", %hint: {hint}" + cap_arg
        captures = f" block_mask(%hint : {hint})" + captures
    block = "^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index" if score else \
        "^bb0(%b: index, %h: index, %i: index, %j: index"
    block += f", %cap0: {ctype}):" if ctype else "):"
    region = "score_mod" if score else "mask_mod"
    return (f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}{cap_arg}, %o: {t}, %lse: {lt}) {{\n"
            f"  flash.attention ins(%q, %k, %v : {t}, {t}, {t}){captures}\n"
            f"      outs(%o, %lse : {t}, {lt}){attrs}\n"
            f"      {region} {{\n      {block}\n{body}\n      }}\n"
            f"  return\n}}\n")


def entries(dims, block_mask=False, configs=False, tiles=False):
    for d in dims:
        kinds = KINDS + (BLOCK_MASK_KINDS if block_mask else ())
        extra = (CONFIG_KINDS.get(d, ()) if configs else ()) + \
            (TILE_KINDS.get(d, ()) if tiles else ())
        for kind in kinds + extra:
            for causal in (False, True):
                # (the d128 extras compare non-causal configs only, but
                # for the ping-pong ones and docmask_p)
                if causal and (kind.startswith("prefixlm") or kind in ("causalmod", "windowmod", "window32") or
                               (kind in extra and d == 128 and
                                not kind.endswith(("_pp", "docmask_p")))):
                    continue
                yield kind, d, causal


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("mlir")
    p.add_argument("manifest")
    p.add_argument("so")
    p.add_argument("--dims", default="64,128")
    p.add_argument("--block-mask", action="store_true",
                   help="also the BLOCK_MASK_KINDS (docmask_bm)")
    p.add_argument("--configs", action="store_true",
                   help="also the CONFIG_KINDS (fixed configs at head dims 64 and 128 for "
                        "timing pairs)")
    p.add_argument("--tiles", action="store_true",
                   help="also the TILE_KINDS (one-warpgroup tiles at head dim 64 for the "
                        "mask kernels)")
    a = p.parse_args(argv)
    funcs, manifest = [], []
    for kind, d, causal in entries((int(x) for x in a.dims.split(",")), a.block_mask,
                                   a.configs, a.tiles):
        funcs.append(func_text(kind, d, causal))
        entry = {"so": a.so, "func": func_name(kind, d, causal), "kind": kind,
                 "dtype": "bf16", "head_dim": d, "causal": causal,
                 "softcap": SOFTCAP if kind == "softcap_attr" else 0.0,
                 "relbias_radius": RELBIAS_RADIUS}
        if kind in BLOCK_MASK_KINDS:
            entry["block_mask_rows"] = BLOCK_MASK_ROWS
        manifest.append(entry)
    with open(a.mlir, "w") as f:
        f.write("// Generated by scripts/gen-mods-variants.py.\n")
        f.write("\n".join(funcs))
    with open(a.manifest, "w") as f:
        json.dump(manifest, f, indent=1)


if __name__ == "__main__":
    main()
