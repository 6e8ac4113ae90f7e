#!/usr/bin/env python3
"""Structured generator of flash dialect IR for the fuzz driver (run_fuzz.py).

`generate(seed)` returns one Case: a module holding random *valid* or
*near-valid* IR, and how flash-run can execute it on the CPU (when it can).
Three generators, chosen by the seed:

  attention  flash.attention on tensors or memrefs, static or dynamic dims,
             f16/bf16/f32, GQA/MQA, causal, window, scale, softcap, LSE, the
             serving operands (alibi, kv_lens, block_table with paged K/V,
             cu_seqlens), a #flash.config or none, contiguous or any-strided
             (bshd) memrefs.
  run        the subset flash-run executes (f32 memrefs, no alibi/varlen),
             with --shapes that match the static dims.
  tile       flash.tile_update + flash.tile_finalize, the tile-level IR
             flash-tile emits and flash-online-softmax / flash-to-gpu read.

A near-valid case applies one mutation from MUTATIONS (a zero or huge size,
an out-of-range attribute, a config at the integer limits, a wrong element
type, ...): the tools must answer it with a diagnostic or compute it
correctly, never crash, hang or miscompute.
"""

import random
from dataclasses import dataclass, field

INT64_MAX = 2**63 - 1
HUGE = [2**31, 2**32 + 1, 2**40, 2**56, 2**61, 2**62, INT64_MAX]


@dataclass
class Case:
    seed: int
    generator: str
    mutation: str  # "" for a valid case
    mlir: str
    # flash-run arguments when the case can run on the CPU, else None.
    run_args: list = field(default=None)


def _f32(x):
    return "%.6e : f32" % x


class Attention:
    """Random choices for one flash.attention; `text()` prints the module."""

    def __init__(self, rng, runnable):
        r = rng
        self.rng = r
        self.runnable = runnable
        self.memref = runnable or r.random() < 0.6
        self.dtype = "f32" if runnable else r.choice(["f16", "bf16", "f32"])
        self.d = r.choice([16, 32, 64, 64, 128, 8, 96, 256])
        self.dv = self.d if r.random() < 0.8 else r.choice([16, 32, 64, 128])
        self.b = r.choice([1, 2, 3])
        self.hkv = r.choice([1, 2])
        self.hq = self.hkv * r.choice([1, 2, 4])
        self.sq = r.choice([1, 5, 17, 64, 100])
        self.sk = r.choice([1, 16, 33, 64, 130])
        # Which of B, Hq, Hkv, Sq, Sk are static in the IR.
        self.static = {n: r.random() < (0.3 if runnable else 0.5)
                       for n in ("b", "hq", "hkv", "sq", "sk")}
        self.strided = self.memref and r.random() < 0.6
        self.lse = r.random() < 0.6
        self.causal = r.random() < 0.5
        self.window = None
        if r.random() < 0.35:
            pick = lambda: r.choice([-1, -1, 0, 1, 7, 64, 1000, INT64_MAX])
            self.window = [pick(), pick()]
        self.scale = r.choice([None, None, 0.125, 1.0, 0.01, 3.0])
        self.softcap = r.choice([None, None, None, 30.0, 5.0, 1.0])
        self.kv_lens = self.memref and r.random() < 0.25
        self.paged = self.memref and r.random() < 0.2
        self.page = r.choice([1, 16, 32])
        self.page_static = r.random() < 0.7 or runnable
        self.alibi = not runnable and r.random() < 0.1
        self.varlen = not runnable and not self.kv_lens and not self.paged \
            and r.random() < 0.05
        if self.paged and runnable:
            self.sk = self.page * r.choice([1, 2, 5])
        if self.varlen:
            self.b = 1
        self.config = None
        if r.random() < 0.6:
            bm = r.choice([16, 32, 64, 128])
            warps = r.choice([1, 2, 4, 8])
            self.config = dict(block_m=bm, block_n=r.choice([16, 32, 64, 128]),
                               warps=warps, stages=r.choice([1, 2, 3]))
            if r.random() < 0.15:
                self.config["splits"] = r.choice([0, 2, 4])
            if r.random() < 0.15:
                self.config.update(block_m=64, warps=4, wgmma="true")
                if r.random() < 0.5:
                    self.config["producer"] = "true"
                    # ping-pong: valid with two consumer warpgroups only
                    if r.random() < 0.5:
                        self.config["pingpong"] = "true"
                        if r.random() < 0.5:
                            self.config.update(block_m=128, warps=8)
        self.elem = self.dtype
        self.extra_attrs = []

    # -- types ---------------------------------------------------------------
    def dim(self, name, value):
        return str(value) if self.static[name] else "?"

    def shaped(self, dims, elem, strided=None):
        strided = self.strided if strided is None else strided
        body = "x".join(list(dims) + [elem])
        if not self.memref:
            return "tensor<%s>" % body
        if strided and len(dims) == 4:
            return "memref<%s, strided<[?, ?, ?, 1], offset: ?>>" % body
        return "memref<%s>" % body

    def types(self):
        b, hq, hkv = self.dim("b", self.b), self.dim("hq", self.hq), self.dim("hkv", self.hkv)
        sq, sk = self.dim("sq", self.sq), self.dim("sk", self.sk)
        if self.paged:
            page = str(self.page) if self.page_static else "?"
            k = ["?", hkv, page, str(self.d)]
            v = ["?", hkv, page, str(self.dv)]
        else:
            k = [b, hkv, sk, str(self.d)]
            v = [b, hkv, sk, str(self.dv)]
        t = dict(q=self.shaped([b, hq, sq, str(self.d)], self.elem),
                 k=self.shaped(k, self.elem), v=self.shaped(v, self.elem),
                 o=self.shaped([b, hq, sq, str(self.dv)], self.elem),
                 lse=self.shaped([b, hq, sq], "f32", strided=False))
        if self.kv_lens:
            t["lens"] = self.shaped([b], "i32", strided=False)
        if self.paged:
            t["table"] = self.shaped([b, "?"], "i32", strided=False)
        if self.alibi:
            t["alibi"] = self.shaped([hq], "f32", strided=False)
        if self.varlen:
            t["cuq"] = self.shaped(["?"], "i32", strided=False)
            t["cuk"] = self.shaped(["?"], "i32", strided=False)
        return t

    def attrs(self):
        a = []
        if self.causal:
            a.append("causal")
        if self.window is not None:
            a.append("window = array<i64: %s>" % ", ".join(map(str, self.window)))
        if self.scale is not None:
            a.append("scale = " + _f32(self.scale))
        if self.softcap is not None:
            a.append("softcap = " + _f32(self.softcap))
        if self.config is not None:
            c = self.config
            s = "block_m = %d, block_n = %d, warps = %d, stages = %d" % (
                c["block_m"], c["block_n"], c["warps"], c["stages"])
            for key in ("splits", "wgmma", "producer", "pingpong"):
                if key in c:
                    s += ", %s = %s" % (key, c[key])
            a.append("config = #flash.config<%s>" % s)
        a += self.extra_attrs
        return "{" + ", ".join(a) + "}" if a else ""

    def text(self):
        t = self.types()
        args = [("q", t["q"]), ("k", t["k"]), ("v", t["v"])]
        serving = ""
        for name, kw in (("alibi", "alibi"), ("lens", "kv_lens"),
                         ("table", "block_table")):
            if name in t:
                args.append((name, t[name]))
                serving += " %s(%%%s : %s)" % (kw, name, t[name])
        if "cuq" in t:
            args += [("cuq", t["cuq"]), ("cuk", t["cuk"])]
            serving += " cu_seqlens(%%cuq, %%cuk : %s, %s)" % (t["cuq"], t["cuk"])
        outs = [("o", t["o"])] + ([("lse", t["lse"])] if self.lse else [])
        ins = "ins(%%q, %%k, %%v : %s, %s, %s)" % (t["q"], t["k"], t["v"])
        attrs = self.attrs()
        if self.memref:
            sig = ", ".join("%%%s: %s" % a for a in args + outs)
            body = "  flash.attention %s%s outs(%s : %s) %s\n  return\n" % (
                ins, serving, ", ".join("%" + n for n, _ in outs),
                ", ".join(ty for _, ty in outs), attrs)
            return "func.func @f(%s) {\n%s}\n" % (sig, body)
        sig = ", ".join("%%%s: %s" % a for a in args)
        res = ", ".join(ty for _, ty in outs)
        names = ", ".join("%%r%d" % i for i in range(len(outs)))
        body = "  %s = flash.attention %s%s %s -> %s\n  return %s : %s\n" % (
            names, ins, serving, attrs, res, names, res)
        return "func.func @f(%s) -> (%s) {\n%s}\n" % (sig, res, body)

    def run_args(self):
        shapes = "%d,%d,%d,%d,%d" % (self.b, self.hq, self.hkv, self.sq, self.sk)
        layout = "bshd" if self.strided and self.rng.random() < 0.5 else "bhsd"
        return ["--func=f", "--shapes=" + shapes, "--layout=" + layout,
                "--tol=1e-4", "--seed=1"]


# Near-valid mutations: name -> function(Attention, rng). Each makes one
# thing invalid or extreme.
def _set(attr, value):
    def apply(a, r):
        setattr(a, attr, value(r) if callable(value) else value)
    return apply


def _static(name, value):
    def apply(a, r):
        a.static[name] = True
        setattr(a, name, value(r) if callable(value) else value)
    return apply


def _config(**kv):
    def apply(a, r):
        a.config = a.config or dict(block_m=64, block_n=64, warps=4, stages=2)
        a.config.update({k: (v(r) if callable(v) else v) for k, v in kv.items()})
    return apply


def _paged_zero(a, r):
    a.memref, a.paged, a.page, a.page_static = True, True, 0, True


MUTATIONS = {
    "head_dim_0": _set("d", 0),
    "head_dim_v_0": _set("dv", 0),
    "page_size_0": _paged_zero,
    "seq_q_huge": _static("sq", lambda r: r.choice(HUGE)),
    "seq_k_huge": _static("sk", lambda r: r.choice(HUGE)),
    "batch_huge": _static("b", lambda r: r.choice(HUGE)),
    "heads_zero": _static("hkv", 0),
    "heads_not_multiple": lambda a, r: (_static("hq", 3)(a, r), _static("hkv", 2)(a, r)),
    "window_int64_max": _set("window", lambda r: r.choice(
        [[-1, INT64_MAX], [INT64_MAX, INT64_MAX], [INT64_MAX, 0], [2**62, -1]])),
    "window_bad": _set("window", lambda r: r.choice([[-2, 0], [1, 2, 3], [], [-INT64_MAX - 1, 0]])),
    "scale_extreme": _set("scale", lambda r: r.choice([1e9, 1e30, 3e38, 1e-30, 1e-38, 1e-45, -1.0, 0.0])),
    "softcap_extreme": _set("softcap", lambda r: r.choice([1e-30, 1e-38, 3e38, 1e9, -2.0, 0.0])),
    "block_huge": _config(block_n=lambda r: r.choice(HUGE + [0, -16, 2**16 + 16])),
    "block_m_huge": _config(block_m=lambda r: r.choice(HUGE + [0, 2**17])),
    "splits_huge": _config(splits=lambda r: r.choice(HUGE + [-1, 2**16 + 1])),
    "warps_extreme": _config(warps=lambda r: r.choice([0, 33, 1024, 2**40])),
    "stages_extreme": _config(stages=lambda r: r.choice([0, 65, 2**20, 2**62])),
    "int_elements": _set("elem", lambda r: r.choice(["i32", "i8", "f64", "f8E4M3FN"])),
    "extra_attr": lambda a, r: a.extra_attrs.append(r.choice(
        ["masked", "foo = 1 : i64", "scale = 1.0 : f64", "window = 3 : i64"])),
}


def gen_tile(rng, mutation):
    """flash.tile_update + flash.tile_finalize on tensors."""
    r = rng
    bm, bn = r.choice([16, 32, 64]), r.choice([16, 32, 64])
    d, dv = r.choice([16, 32, 64]), r.choice([16, 32, 64])
    et = r.choice(["f16", "bf16", "f32"])
    ot = r.choice(["f16", "bf16", "f32"])
    attrs = ["scale = " + _f32(r.choice([0.125, 1.0, 0.01]))]
    if r.random() < 0.5:
        attrs.append("masked")
    if r.random() < 0.4:
        attrs.append("causal")
    window = None
    if r.random() < 0.4:
        window = [r.choice([-1, 0, 5, 100, INT64_MAX]), r.choice([-1, 0, 5, INT64_MAX])]
    softcap = 30.0 if r.random() < 0.3 else None
    if mutation == "tile_window_empty":
        window = []
    elif mutation == "tile_window_long":
        window = [1, 2, 3]
    elif mutation == "tile_int_elements":
        et = r.choice(["i32", "i8", "i16"])
    elif mutation == "tile_int_out":
        ot = r.choice(["i32", "i1"])
    elif mutation == "tile_scale_bad":
        attrs[0] = "scale = " + _f32(r.choice([0.0, -1.0, 1e-45, 3e38]))
    elif mutation == "tile_zero_rows":
        bm = 0
    if window is not None:
        attrs.append("window = array<i64: %s>" % ", ".join(map(str, window)))
    if softcap:
        attrs.append("softcap = " + _f32(softcap))
    t = lambda *dims: "tensor<%s>" % "x".join(list(map(str, dims[:-1])) + [dims[-1]])
    tq, tk, tv = t(bm, d, et), t(bn, d, et), t(bn, dv, et)
    ta, tr, to = t(bm, dv, "f32"), t(bm, "f32"), t(bm, dv, ot)
    fin = ["scale = " + _f32(0.125)] + (["softcap = " + _f32(softcap)] if softcap else [])
    return (
        "func.func @t(%%q: %s, %%k: %s, %%v: %s, %%acc: %s, %%m: %s, %%l: %s, "
        "%%row: index, %%col: index, %%sq: index, %%sk: index) -> (%s, %s) {\n"
        "  %%a, %%mm, %%ll = flash.tile_update %%q, %%k, %%v, %%acc, %%m, %%l "
        "at(%%row, %%col) bounds(%%sq, %%sk) {%s} : %s, %s, %s, %s, %s, %s\n"
        "  %%o, %%lse = flash.tile_finalize %%a, %%mm, %%ll {%s} : %s, %s, %s -> %s, %s\n"
        "  return %%o, %%lse : %s, %s\n}\n" % (
            tq, tk, tv, ta, tr, tr, to, tr, ", ".join(attrs), tq, tk, tv, ta, tr, tr,
            ", ".join(fin), ta, tr, tr, to, tr, to, tr))


TILE_MUTATIONS = ["tile_window_empty", "tile_window_long", "tile_int_elements",
                  "tile_int_out", "tile_scale_bad", "tile_zero_rows"]


def generate(seed):
    """The case of `seed`: generator and mutation follow from it."""
    r = random.Random(seed)
    kind = r.choices(["attention", "run", "tile"], weights=[5, 3, 2])[0]
    near = r.random() < 0.45
    if kind == "tile":
        mutation = r.choice(TILE_MUTATIONS) if near else ""
        return Case(seed, kind, mutation, gen_tile(r, mutation))
    a = Attention(r, runnable=(kind == "run"))
    mutation = ""
    if near:
        mutation = r.choice(sorted(MUTATIONS))
        MUTATIONS[mutation](a, r)
    run = a.run_args() if kind == "run" and not mutation else None
    # A window mutation keeps the case runnable: INT64_MAX must mean
    # unbounded, and flash-run checks that against the reference.
    if kind == "run" and mutation == "window_int64_max":
        run = a.run_args()
    return Case(seed, kind, mutation, a.text(), run)


if __name__ == "__main__":
    import sys
    for s in sys.argv[1:] or ["0"]:
        c = generate(int(s))
        print("// seed %d: %s %s %s" % (c.seed, c.generator, c.mutation or "valid",
                                       " ".join(c.run_args or [])))
        print(c.mlir)
