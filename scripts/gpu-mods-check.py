#!/usr/bin/env python3
"""GPU checks of ALiBi, score_mod and mask_mod kernels (issue #11), for the H200.

  gpu-mods-check.py --artifacts DIR [--quick] [--out F.json] [--no-timing]
  gpu-mods-check.py --artifacts DIR --quick --sanitize   # for compute-sanitizer
  gpu-mods-check.py --self-test      # CPU: the reference's own invariants
  gpu-mods-check.py --artifacts DIR --base-artifacts OLD_DIR [--ab-only]
                     # + (or only) --ab-kinds' kernels against OLD_DIR's, one process

DIR holds the artifact and mods-manifest.json that scripts/gen-mods-variants.py
describes (compiled with scripts/flash-compile.sh). For every kernel and case
(causal and not; GQA 8/8, 8/2, 8/1; Sq x Sk including ragged and Sq != Sk
both ways; BHSD and BSHD storage) it draws fresh random bf16 inputs and
captures, runs the kernel through the Python binding (captures=[...]) into
NaN-poisoned outputs with guard zones, twice (bit-identical), and compares
with a float32 reference written here in torch, independently of the
compiler's reference library: bench/correctness.py's attention math with the
modification below (class Mods) applied to the scores, and its verdict, FA2's
tolerance rule (o_tolerance: error <= 2x that of PyTorch computing the same
in bf16, plus a floor) with LSE within 1e-3 and rows that see no key at O = 0,
LSE = -inf. Then the timing lines: softcap as a score_mod vs the softcap
attribute, the document mask_mod vs the unmasked kernel, on the same shapes
and tensors, median CUDA-event times in this one process.

--sanitize (for compute-sanitizer, whose racecheck would otherwise spend its
time in, and report the races of, cuBLAS's kernels under the torch
reference): two small cases per kernel (Sq < Sk with GQA 8/2 in BSHD, Sq > Sk
with MQA in BHSD: rows that see no key when causal), only our kernel on the
GPU, into NaN-filled outputs without guard zones (so that memcheck sees an
overrun), twice (bit-identical), then invariants that need no matmul, on
the host: no NaN left, O and LSE finite on rows that see a key (from the
causal rule and the mask_mod, no scores), O = 0 and LSE = -inf on rows
that see none, |O| <= max|V| (O is a convex combination of V's rows). No
timing.

Exit status: 0 when every case passed (the timing is reported, not judged).

Building the artifacts (on the compiler machine, once the IR side of issue
#11 is merged; the H200 has no MLIR), then running on the H200:

  python3 scripts/gen-mods-variants.py art-mods/mods.mlir art-mods/mods-manifest.json libmods.so
  scripts/flash-compile.sh art-mods/mods.mlir art-mods/libmods.so --chip=sm_90a
  python3 scripts/gpu-mods-check.py --artifacts art-mods --out mods.json
  PYTORCH_NO_CUDA_MEMORY_CACHING=1 compute-sanitizer --tool racecheck \
      --racecheck-report all --error-exitcode 86 python3 scripts/gpu-mods-check.py \
      --artifacts art-mods --quick --sanitize          # and --tool memcheck --leak-check no
"""
import argparse
import json
import os
import statistics
import sys
import traceback
import zlib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("python", "bench", "scripts"):
    sys.path.insert(0, os.path.join(ROOT, sub))

import correctness as C  # noqa: E402
from flashmlir.blockmask import doc_block_mask  # noqa: E402  (the hint of a document mask)

PAIRS = [(1, 1), (1, 300), (17, 17), (113, 255), (255, 113), (128, 128), (1000, 1024),
         (1024, 1024), (2048, 2048)]
QUICK_PAIRS = [(17, 17), (113, 255), (255, 113), (1024, 1024)]
DOC_PAIRS = [(255, 113), (1000, 1024), (2048, 2048)]
# More keys than one chunk of flash-tile's scan of a program's keys (3072,
# UniformBlocks.h): random documents too.
LONG_DOC_PAIRS = [(257, 7001), (3100, 3100)]
GQAS = [(8, 8), (8, 2), (8, 1)]
# Documents of 1 to max(4, S / 3) tokens, capped here: at least ~3 per
# sequence, so that blocks mix documents; prefix-LM prefixes up to Sk.
MAX_DOC = 300
TIMING_SHAPES = [(4, 16, 4096, 4096), (1, 16, 16384, 16384)]
# --sanitize: (B, Hq, Hkv, Sq, Sk, layout) per kernel.
SANITIZE_SHAPES = [(2, 8, 2, 113, 255, "bshd"), (1, 8, 1, 255, 113, "bhsd")]


def _gen_variants():
    """scripts/gen-mods-variants.py as a module (its name has dashes)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "gen_mods_variants", os.path.join(ROOT, "scripts", "gen-mods-variants.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


class Mods:
    """One kernel's score / mask modification and its capture tensors, the
    float32 (or bf16, for the baseline) statement of what the MLIR regions
    of gen-mods-variants.py compute, in the op's order: ALiBi, score_mod,
    then the mask (causal / window AND mask_mod). i, j are the query and key
    positions, b the batch, h the query head. A document mask's ids: `docs`
    None draws random documents, "one" puts every token in one document,
    and N makes documents of N tokens each."""

    def __init__(self, kind, b, hq, sq, sk, device, gen, radius, softcap, block_rows=128,
                 docs=None):
        import torch
        # gen-mods-variants.py --configs: the same modification, another config.
        kind = _gen_variants().split_config(kind)[0]
        self.kind, self.radius, self.softcap = kind, radius, softcap
        self.i = torch.arange(sq, device=device).view(1, 1, sq, 1)
        self.j = torch.arange(sk, device=device).view(1, 1, 1, sk)
        self.sq, self.sk = sq, sk
        self.captures = []
        if gen is None:
            return  # captures given by the caller
        if kind == "alibi":  # FA2's slopes 2^(-8 h / Hq), h = 1..Hq
            h = torch.arange(1, hq + 1, device=device, dtype=torch.float32)
            self.captures = [torch.pow(2.0, -8.0 * h / hq)]
        elif kind == "relbias":
            self.captures = [torch.randn(hq, 2 * radius + 1, generator=gen, device=device)]
        elif kind in ("docmask", "docmask_bm"):
            s = max(sq, sk)
            longest = min(MAX_DOC, max(4, s // 3))
            lengths = torch.randint(1, longest + 1, (b, s), generator=gen, device=device)
            if docs == "one":
                lengths.fill_(s)
            elif docs is not None:  # documents of `docs` tokens each
                lengths.fill_(int(docs))
            starts = torch.cumsum(lengths, dim=1)  # doc d covers [starts[d-1], starts[d])
            pos = torch.arange(s, device=device).expand(b, s).contiguous()
            doc = torch.searchsorted(starts, pos, right=True).to(torch.int32)
            self.captures = [doc]
            if kind == "docmask_bm":
                self.captures = [doc_block_mask(doc, hq, sq, sk, block_rows), doc]
        elif kind == "prefixlm":
            self.captures = [torch.randint(0, sk + 1, (b,), generator=gen, device=device,
                                           dtype=torch.int32)]

    def score(self, s):
        import torch
        if self.kind == "alibi":
            slope = self.captures[0].view(1, -1, 1, 1)
            dist = (self.i + (self.sk - self.sq) - self.j).abs()
            return s - (slope * dist).to(s.dtype)
        if self.kind == "relbias":
            at = (self.j - self.i + self.radius).clamp(0, 2 * self.radius)
            table = self.captures[0]  # [Hq, 2R + 1] -> [1, Hq, Sq, Sk]
            bias = table[:, at.view(-1)].view(1, table.shape[0], self.sq, self.sk)
            return s + bias.to(s.dtype)
        if self.kind in ("softcap_mod", "softcap_fast"):
            return self.softcap * torch.tanh(s / self.softcap)
        return s

    def mask(self, m):
        if self.kind in ("docmask", "docmask_bm"):
            doc = self.captures[-1].long()  # [B, S]
            di = doc[:, :self.sq].view(-1, 1, self.sq, 1)
            dj = doc[:, :self.sk].view(-1, 1, 1, self.sk)
            mod = di == dj
        elif self.kind == "prefixlm":
            prefix = self.captures[0].long().view(-1, 1, 1, 1)
            mod = (self.j <= self.i) | (self.j < prefix)
        elif self.kind == "causalmod":
            mod = self.j <= self.i
        elif self.kind in ("windowmod", "window32"):
            window = _gen_variants().WINDOW
            mod = (self.i - self.j <= window) & (self.i >= self.j)
        else:
            return m
        return mod if m is None else mod & m


class Case:
    """One case, in the fields bench/correctness.py's helpers read."""

    def __init__(self, idx, entry, b, hq, hkv, sq, sk, layout, docs=None):
        self.idx, self.entry = idx, entry
        self.batch, self.hq, self.hkv, self.sq, self.sk, self.layout = b, hq, hkv, sq, sk, layout
        self.large = False
        self.docs = docs
        self.name = (f"{entry['func']} B={b} Hq={hq} Hkv={hkv} Sq={sq} Sk={sk} {layout}"
                     + (f" docs={docs}" if docs is not None else ""))
        self.seed = zlib.crc32(self.name.encode())

    def as_dict(self):
        return {"idx": self.idx, "name": self.name, "seed": self.seed}


def make_cases(entries, quick, sanitize=False):
    cases = []
    for e in entries:
        if quick and e["kind"] in ("plain", "softcap_attr", "plain_p", "plain_q",
                                   "docmask_w12", "prefixlm_w12"):
            continue  # the timing's baselines; run in full mode
        if sanitize:
            for b, hq, hkv, sq, sk, layout in SANITIZE_SHAPES:
                cases.append(Case(len(cases), e, b, hq, hkv, sq, sk, layout))
            continue
        for n, (sq, sk) in enumerate(QUICK_PAIRS if quick else PAIRS):
            hq, hkv = GQAS[n % len(GQAS)]
            layout = "bshd" if n % 2 else "bhsd"
            b = 2 if sq * sk <= 1 << 20 else 1
            cases.append(Case(len(cases), e, b, hq, hkv, sq, sk, layout))
        if e["kind"] in ("docmask", "docmask_bm"):
            # flash-tile's uniform blocks: one document (every block whole)
            # and documents of 160 tokens (blocks whole, empty and mixed
            # side by side), beside the random documents above.
            for n, (sq, sk) in enumerate(DOC_PAIRS):
                for docs in ("one", 160):
                    hq, hkv = GQAS[n % len(GQAS)]
                    cases.append(Case(len(cases), e, 1, hq, hkv, sq, sk,
                                      "bshd" if n % 2 else "bhsd", docs))
            if not quick:
                for n, (sq, sk) in enumerate(LONG_DOC_PAIRS):
                    for docs in (None, "one", 160):
                        hq, hkv = GQAS[(n + 1) % len(GQAS)]
                        cases.append(Case(len(cases), e, 1, hq, hkv, sq, sk,
                                          "bhsd" if n % 2 else "bshd", docs))
    return cases


def semantics(kernel):
    """The kernel's own statement of what it computes (its ABI record)."""
    a = kernel.abi
    return {"scale": float(a["scale"]), "softcap": float(a.get("softcap") or 0.0),
            "causal": bool(a["causal"]), "window": C.common.norm_window(a.get("window")),
            "dtype": a["dtype"], "head_dim": int(a["head_dim"]),
            "head_dim_v": int(a.get("head_dim_v") or a["head_dim"]), "lse": bool(a["lse"])}


def prepare_case(kernel, case, radius, softcap, device, guard, why):
    """A case's ABI, fresh inputs, captures (Mods) and the guarded call of
    the kernel into poisoned outputs (guard zones of `guard` elements)."""
    import torch
    abi = semantics(kernel)
    q, k, v = C.make_inputs(case, abi, device)
    gen = torch.Generator(device=device)
    gen.manual_seed(case.seed + 1)
    mods = Mods(case.entry["kind"], case.batch, case.hq, case.sq, case.sk, device, gen,
                radius, softcap, case.entry.get("block_mask_rows", 128),
                docs=case.docs)

    def call():
        return C.guarded_call(
            lambda out, lse: kernel(q, k, v, out=out, lse=lse, captures=mods.captures),
            (case.batch, case.hq, case.sq, abi["head_dim_v"]), (case.batch, case.hq, case.sq),
            case.layout, q.dtype, device, guard, why)

    return abi, q, k, v, mods, call


def finish(res, why):
    res["ok"] = not why
    if why:
        res["why"] = "; ".join(dict.fromkeys(why))
    return res


def run_case(kernel, case, radius, softcap, device="cuda"):
    import torch
    res, why = case.as_dict(), []
    abi, q, k, v, mods, call = prepare_case(kernel, case, radius, softcap, device, C.GUARD, why)
    out, lse = call()
    nan_o = C.check_written_and_repeatable(out, lse, call, True, why)
    ref_o, ref_l = C.attention_math(q, k, v, abi, torch.float32, mods)
    base_o = C.attention_math(q, k, v, abi, q.dtype, mods)[0]
    C.check_outputs(out, lse, ref_o, ref_l, base_o, abi["dtype"], C.ATOL_FLOOR, nan_o, res,
                    why)
    return finish(res, why)


def live_rows(abi, mods, case):
    """[B, Hq, Sq] bool: the rows that see at least one key, from the
    causal / window rule and the mask_mod alone (no scores; our score_mods
    keep scores finite)."""
    import torch
    m = mods.mask(C.visible(case.sq, case.sk, abi["causal"], abi["window"], "cpu"))
    if m is None:
        return torch.ones(case.batch, case.hq, case.sq, dtype=torch.bool)
    return m.any(-1).expand(case.batch, case.hq, case.sq)


def check_invariants(out, lse, v, live, res, why):
    """--sanitize's verdict on host copies of O, LSE and V: finite where a
    row sees a key, O = 0 and LSE = -inf where it sees none, and
    |O| <= max|V| up to bf16 rounding."""
    import torch
    o, dead = out.float(), ~live
    res["dead_rows"] = int(dead.sum())
    if not bool(torch.isfinite(o[live]).all()):
        why.append("O not finite on rows that see a key")
    if res["dead_rows"] and not bool((o[dead] == 0).all()):
        why.append("O is not exactly 0 on rows that see no key")
    bound = float(v.float().abs().max()) * (1 + 2.0 ** -7)
    res["max_abs_o"] = float(torch.nan_to_num(o, nan=float("inf")).abs().max())
    if not res["max_abs_o"] <= bound:
        why.append(f"max|O| {res['max_abs_o']:.4g} > max|V| {bound:.4g}: not a mix of V's rows")
    if not bool(torch.isfinite(lse[live]).all()):
        why.append("LSE not finite on rows that see a key")
    if res["dead_rows"] and not bool(torch.isneginf(lse[dead]).all()):
        why.append("LSE is not -inf on rows that see no key")


def run_sanitize_case(kernel, case, radius, softcap, device="cuda"):
    """A case for compute-sanitizer: our kernel is the only GPU work beyond
    filling tensors (no reference matmul); the verdict is check_invariants'."""
    res, why = case.as_dict(), []
    abi, q, k, v, mods, call = prepare_case(kernel, case, radius, softcap, device, 0, why)
    kind = case.entry["kind"]
    out, lse = call()
    C.check_written_and_repeatable(out, lse, call, True, why)
    host = Mods(kind, case.batch, case.hq, case.sq, case.sk, "cpu", None, radius, softcap)
    host.captures = [c.cpu() for c in mods.captures]
    check_invariants(out.cpu(), lse.cpu(), v.cpu(), live_rows(abi, host, case), res, why)
    return finish(res, why)


def median_ms(fn, warmup=5, reps=30):
    import torch
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def timing(kernels, log, rounds=5, base_kernels=None, ab_kinds=(), pairs=True):
    """Pairs on the same shapes and tensors, one process: (what, ours,
    baseline), timed alternately (mine, base, base, mine per round); the
    ratio is the median of the rounds' ratios. The bars of issue #11 are on
    softcap_fast (a softcap as a score_mod, within 5 % of the attribute) and
    docmask (a mask_mod, within 10 % of no mask); the other rows inform.
    Short samples of kernels that draw different power per cycle are
    biased: at the H200's power cap a sample starts at the clock the other
    kernel left (the unmasked kernel runs at ~1700 MHz, a mask kernel at
    ~1950), so the mask's cost reads high; bench/maskbar.py times the bar
    with a settled clock per kernel
    (bench/results/2026-12-02-h200-maskbar-protocol.log)."""
    import torch
    rows = []
    # docmask_bm: the document mask with its block_mask hint, over random
    # documents (most blocks skipped) and over one document spanning the
    # sequence (every block full: the hint's own cost against no mask).
    kind_pairs = [("softcap_fast", "softcap_attr", None), ("softcap_mod", "softcap_attr", None),
             ("docmask", "plain", None), ("docmask_bm", "plain", False),
             ("docmask_bm", "plain", True), ("docmask_bm", "docmask", False),
             ("prefixlm", "plain", None), ("alibi", "plain", None), ("relbias", "plain", None),
             # --configs artifacts (d128, not causal): the mask's cost on the
             # producer config, the unmasked kernel on both configs, and the
             # mask_mod kernels against the config flash-plan gave them before
             # the producer config (the A/B of that change)
             ("docmask", "plain_p", None), ("prefixlm", "plain_p", None),
             ("plain_p", "plain", None), ("docmask", "docmask_w12", None),
             ("prefixlm", "prefixlm_w12", None),
             # d64: the producer configs against flash-plan's one warpgroup
             ("docmask_p", "plain", None), ("docmask_q", "plain", None),
             ("prefixlm_p", "plain", None), ("prefixlm_q", "plain", None),
             ("plain_p", "plain", None), ("plain_q", "plain", None),
             ("docmask_p", "plain_p", None), ("docmask_q", "plain_q", None),
             # d128 ping-pong: against the same config without turns, and
             # the masks against flash-plan's unmasked kernel (the bar)
             ("plain_pp", "plain_p", None), ("docmask_pp", "docmask", None),
             ("prefixlm_pp", "prefixlm", None), ("docmask_pp", "plain", None),
             ("prefixlm_pp", "plain", None), ("docmask_pp", "plain_pp", None),
             ("prefixlm_pp", "plain_pp", None),
             # d64 ping-pong on both producer configs, and d128 causal
             ("docmask_qp", "plain", None), ("prefixlm_qp", "plain", None),
             ("docmask_qp", "docmask", None), ("docmask_pp", "docmask", None),
             ("plain_pp", "plain", None), ("plain_qp", "plain", None),
             # d128 ping-pong with 128-key blocks
             ("docmask_pc", "docmask", None), ("prefixlm_pc", "prefixlm", None),
             ("docmask_pc", "plain", None), ("prefixlm_pc", "plain", None)]
    split = lambda kind: _gen_variants().split_config(kind)[0]  # noqa

    def time_pair(km, kb, mine, base, one_doc, d, name_m, name_b):
        for (b, h, sq, sk) in TIMING_SHAPES:
            gen = torch.Generator(device="cuda")
            gen.manual_seed(b * h + sq)
            q, k, v = (torch.randn(b, h, s, d, generator=gen, device="cuda",
                                   dtype=torch.bfloat16) for s in (sq, sk, sk))
            mods = Mods(mine, b, h, sq, sk, "cuda", gen, 0, 30.0,
                        docs="one" if one_doc else None)
            # the baseline on the same documents (the same kind under
            # another config or build takes the same captures)
            same = split(base) == split(mine)
            base_caps = (mods.captures if same else
                         mods.captures[-1:] if base == "docmask" else [])
            out = torch.empty_like(q)
            lse = torch.empty(b, h, sq, device="cuda")
            run_m = lambda: km(q, k, v, out=out, lse=lse, captures=mods.captures)  # noqa
            run_b = lambda: kb(q, k, v, out=out, lse=lse, captures=base_caps)  # noqa
            ratios, tm, tb = [], [], []
            for _ in range(rounds):
                m1, b1, b2, m2 = (median_ms(f) for f in (run_m, run_b, run_b, run_m))
                tm += [m1, m2]
                tb += [b1, b2]
                ratios.append((m1 + m2) / (b1 + b2))
            t_m, t_b = statistics.median(tm), statistics.median(tb)
            ratio = statistics.median(ratios)
            docs = {None: "", False: " (random documents)",
                    True: " (one document)"}[one_doc]
            row = {"mine": name_m + docs, "base": name_b, "shape": [b, h, sq, sk],
                   "ms": t_m, "base_ms": t_b, "ratio": ratio,
                   "ratio_min": min(ratios), "ratio_max": max(ratios)}
            rows.append(row)
            log(f"timing {name_m}{docs} vs {name_b} B={b} H={h} S={sq}x{sk}: "
                f"{t_m:.3f} ms vs {t_b:.3f} ms, ratio {ratio:.3f} "
                f"[{min(ratios):.3f}, {max(ratios):.3f}]")

    for (mine, base, one_doc) in (kind_pairs if pairs else ()):
        for d in (64, 128):
            for causal in (False, True):
                key = lambda kind: f"mods_{kind}_bf16_d{d}{'_causal' if causal else ''}"  # noqa
                if key(mine) not in kernels or key(base) not in kernels:
                    continue
                time_pair(kernels[key(mine)], kernels[key(base)], mine, base, one_doc, d,
                          key(mine), key(base))
    # --base-artifacts: each kernel of ab_kinds against the same kernel of
    # the other build (the previous commit's), same tensors and captures.
    for kind in ab_kinds if base_kernels else ():
        for d in (64, 128):
            for causal in (False, True):
                name = f"mods_{kind}_bf16_d{d}{'_causal' if causal else ''}"
                if name not in kernels or name not in base_kernels:
                    continue
                for one_doc in ((False, True) if kind == "docmask_bm" else (None,)):
                    time_pair(kernels[name], base_kernels[name], kind, kind, one_doc, d,
                              name, name + " (base build)")
    return rows


def self_test(log):
    """CPU: the reference's invariants, and the tolerance rule catching a
    wrong mask (the check must be able to fail)."""
    import torch
    gen = torch.Generator()
    gen.manual_seed(7)
    b, hq, hkv, sq, sk, d = 2, 4, 2, 37, 53, 32
    q, k, v = (torch.randn(b, h, s, d, generator=gen, dtype=torch.bfloat16)
               for h, s in ((hq, sq), (hkv, sk), (hkv, sk)))
    abi = {"scale": d ** -0.5, "softcap": 0.0, "causal": False, "window": (-1, -1)}
    plain = C.attention_math(q, k, v, abi, torch.float32)
    failures = []

    def same(what, a, ref, tol=1e-5):
        err = C.max_err(a[0], ref[0])
        ok = err <= tol
        log(f"self-test {what}: max err {err:.3g} {'ok' if ok else 'FAIL'}")
        if not ok:
            failures.append(what)

    def mods(kind, fill=None):
        m = Mods(kind, b, hq, sq, sk, "cpu", gen, 4, 30.0)
        if fill is not None:
            m.captures[0].fill_(fill)
        return m

    capped = C.attention_math(q, k, v, dict(abi, softcap=30.0), torch.float32)
    same("softcap as score_mod == attribute", C.attention_math(
        q, k, v, abi, torch.float32, mods("softcap_mod")), capped)
    same("one document == no mask", C.attention_math(
        q, k, v, abi, torch.float32, mods("docmask", 0)), plain)
    same("zero slopes == no ALiBi", C.attention_math(
        q, k, v, abi, torch.float32, mods("alibi", 0.0)), plain)
    same("zero bias table == no bias", C.attention_math(
        q, k, v, abi, torch.float32, mods("relbias", 0.0)), plain)
    # Prefix 0 with Sq == Sk: causal (j <= i).
    n = min(sq, sk)
    qs, ks, vs = q[:, :, :n], k[:, :, :n], v[:, :, :n]
    m = Mods("prefixlm", b, hq, n, n, "cpu", gen, 0, 0.0)
    m.captures[0].zero_()
    same("prefix 0 == causal", C.attention_math(qs, ks, vs, abi, torch.float32, m),
         C.attention_math(qs, ks, vs, dict(abi, causal=True), torch.float32))
    same("causal mask_mod == causal", C.attention_math(
        qs, ks, vs, abi, torch.float32, Mods("causalmod", b, hq, n, n, "cpu", gen, 0, 0.0)),
         C.attention_math(qs, ks, vs, dict(abi, causal=True), torch.float32))
    assert n <= _gen_variants().WINDOW
    same("window mask_mod wider than the keys == causal", C.attention_math(
        qs, ks, vs, abi, torch.float32, Mods("windowmod", b, hq, n, n, "cpu", gen, 0, 0.0)),
         C.attention_math(qs, ks, vs, dict(abi, causal=True), torch.float32))
    # ALiBi by hand on one element: s - slope[h] |i + Sk - Sq - j|.
    m = mods("alibi")
    s = torch.zeros(1, hq, sq, sk)
    h, i, j = 3, 5, 40
    want = -float(m.captures[0][h]) * abs(i + sk - sq - j)
    got = float(m.score(s)[0, h, i, j])
    log(f"self-test ALiBi element: {got:.6g} vs {want:.6g} {'ok' if got == want else 'FAIL'}")
    if got != want:
        failures.append("alibi element")
    # The verdict must catch a kernel that ignored the mask_mod.
    doc = mods("docmask")
    ref = C.attention_math(q, k, v, abi, torch.float32, doc)
    base = C.attention_math(q, k, v, abi, torch.bfloat16, doc)[0]
    res, why = {}, []
    C.check_outputs(plain[0].to(torch.bfloat16), plain[1], ref[0], ref[1], base, "bf16",
                    C.ATOL_FLOOR, 0, res, why)
    log(f"self-test an unmasked kernel fails the docmask check: {'ok' if why else 'FAIL'}")
    if not why:
        failures.append("planted mask bug not caught")
    res, why = {}, []
    C.check_outputs(base, ref[1], ref[0], ref[1], base, "bf16", C.ATOL_FLOOR, 0, res, why)
    log(f"self-test the bf16 baseline itself passes: {'FAIL ' + str(why) if why else 'ok'}")
    if why:
        failures.append("baseline rejected")
    # run_case's plumbing on the CPU: a stand-in kernel computing the
    # reference from the captures it is given passes every kind; one that
    # drops its captures fails the kinds that read them.
    gv = _gen_variants()
    for kind in gv.KINDS:
        for honest in (True, False):
            entry = {"func": f"mods_{kind}_bf16_d32", "kind": kind}
            case = Case(0, entry, 2, 4, 2, 19, 45, "bshd")
            kernel = _HostKernel(kind, honest, gv.RELBIAS_RADIUS, gv.SOFTCAP)
            res = run_case(kernel, case, gv.RELBIAS_RADIUS, gv.SOFTCAP, device="cpu")
            want = honest or not kernel.reads_captures()
            log(f"self-test run_case {kind} {'honest' if honest else 'captures dropped'}: "
                f"{'passed' if res['ok'] else 'failed'} {'ok' if res['ok'] == want else 'FAIL'}")
            if res["ok"] != want:
                failures.append(f"run_case {kind} {honest}")
    # --sanitize's verdict on the CPU, Sq > Sk: every kind passes honestly,
    # causal or not; each planted bug fails (document mask, not causal:
    # rows that see keys and rows that see none).
    runs = [(kd, c, None) for kd in gv.KINDS for c in (False, True)]
    runs += [("docmask", False, bug) for bug in _HostKernel.BUGS]
    for kind, causal, bug in runs:
        case = Case(0, {"func": f"mods_{kind}_bf16_d32", "kind": kind}, 2, 4, 2, 45, 19, "bhsd")
        kernel = _HostKernel(kind, True, gv.RELBIAS_RADIUS, gv.SOFTCAP, bug=bug)
        kernel.abi["causal"] = causal
        res = run_sanitize_case(kernel, case, gv.RELBIAS_RADIUS, gv.SOFTCAP, device="cpu")
        what = f"bug {bug}" if bug else f"{kind}{' causal' if causal else ''} honest"
        mixed = 0 < res["dead_rows"] < 2 * 4 * 45
        ok = res["ok"] == (bug is None) and (mixed or bug is None)
        log(f"self-test sanitize {what}: {'passed' if res['ok'] else 'failed'} "
            f"{'ok' if ok else 'FAIL'}{'' if res['ok'] else ' (' + res['why'] + ')'}")
        if not ok:
            failures.append(f"sanitize {what}")
    return not failures


class _HostKernel:
    """A stand-in for flashmlir.Kernel in --self-test: the float32 reference
    on the CPU, rounded to bf16, written into out= / lse=; with honest=False
    it drops its captures (as a kernel that never read them)."""

    # --sanitize's planted bugs: a row left unwritten, garbage on rows that
    # see no key, O not divided by the row sum, a finite LSE where no key is
    # seen, a second run that differs (a race).
    BUGS = ("unwritten_row", "dead_garbage", "unnormalized", "dead_lse", "race")

    def __init__(self, kind, honest, radius, softcap, bug=None):
        self.kind, self.honest, self.radius, self.softcap = kind, honest, radius, softcap
        self.bug, self.calls = bug, 0
        self.abi = {"scale": 32 ** -0.5, "causal": False, "window": [-1, -1], "dtype": "bf16",
                    "head_dim": 32, "head_dim_v": 32, "lse": True,
                    "softcap": softcap if kind == "softcap_attr" else 0.0}

    def reads_captures(self):
        return self.kind in ("alibi", "relbias", "docmask", "prefixlm")

    def __call__(self, q, k, v, out, lse, captures=()):
        import torch
        mods = Mods(self.kind, q.shape[0], q.shape[1], q.shape[2], k.shape[2], "cpu", None,
                    self.radius, self.softcap)
        mods.captures = list(captures)
        if not self.honest and self.reads_captures():
            mods.kind = "plain"
        o, l = C.attention_math(q, k, v, semantics(self), torch.float32, mods)
        self.calls += 1
        dead = torch.isinf(l)
        if self.bug == "dead_garbage":
            o = o.masked_fill(dead.unsqueeze(-1), 1.0)
        elif self.bug == "unnormalized":  # as if O were never divided by the row sum
            o = k.shape[2] * o
        elif self.bug == "dead_lse":
            l = l.masked_fill(dead, 0.0)
        elif self.bug == "race" and self.calls % 2 == 0:
            o = o.clone()
            o.view(-1)[-1] += 0.25
        out.copy_(o.to(out.dtype))
        lse.copy_(l)
        if self.bug == "unwritten_row":
            out[:, :, -1] = float("nan")
        return out, lse


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--artifacts")
    p.add_argument("--manifest", default="mods-manifest.json")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-timing", action="store_true")
    p.add_argument("--sanitize", action="store_true",
                   help="2 small cases per kernel, no torch reference, invariants only, no timing "
                        "(for compute-sanitizer)")
    p.add_argument("--out")
    p.add_argument("--base-artifacts",
                   help="another build's artifacts (same gen-mods-variants flags): its "
                        "--ab-kinds kernels are timed against this build's")
    p.add_argument("--ab-kinds", default="docmask_bm",
                   help="comma-separated kinds for --base-artifacts (default docmask_bm)")
    p.add_argument("--ab-only", action="store_true",
                   help="with --base-artifacts: only the A/B timing (no correctness, no pairs)")
    p.add_argument("--kinds", help="comma-separated kinds to check (default: every kernel)")
    p.add_argument("--self-test", action="store_true")
    a = p.parse_args(argv)
    log = print
    if a.self_test:
        return 0 if self_test(log) else 1
    if not a.artifacts:
        p.error("--artifacts DIR is required (or --self-test)")
    import torch
    import flashmlir
    gv = _gen_variants()
    entries = C.common.read_manifest(a.artifacts, a.manifest)
    if a.kinds:
        entries = [e for e in entries if e["kind"] in a.kinds.split(",")]
        if not entries:
            p.error(f"--kinds {a.kinds}: no such kernel in the manifest")
    kernels = {e["func"]: flashmlir.Kernel(e["path"], e["func"]) for e in entries}
    results = []
    run = run_sanitize_case if a.sanitize else run_case
    base_kernels = None
    if a.base_artifacts:
        base_kernels = {e["func"]: flashmlir.Kernel(e["path"], e["func"])
                        for e in C.common.read_manifest(a.base_artifacts, a.manifest)}
    if a.ab_only:
        if not base_kernels:
            p.error("--ab-only needs --base-artifacts")
        rows = timing(kernels, log, base_kernels=base_kernels,
                      ab_kinds=a.ab_kinds.split(","), pairs=False)
        if a.out:
            with open(a.out, "w") as f:
                json.dump({"cases": [], "timing": rows}, f, indent=1)
        return 0
    for case in make_cases(entries, a.quick, a.sanitize):
        try:
            res = run(kernels[case.entry["func"]], case, gv.RELBIAS_RADIUS, gv.SOFTCAP)
        except Exception as ex:  # noqa: BLE001
            res = case.as_dict()
            res.update(ok=False, why=f"{type(ex).__name__}: {str(ex)[:300]}")
            traceback.print_exc()
        results.append(res)
        if not res["ok"]:
            log(f"FAIL #{case.idx} {case.name} seed={case.seed}: {res['why']}")
        if case.sq * case.sk >= 1 << 22:
            torch.cuda.empty_cache()
    passed = sum(bool(r["ok"]) for r in results)
    log(f"mods {'sanitize' if a.sanitize else 'correctness'}: {passed}/{len(results)} passed")
    rows = [] if a.no_timing or a.sanitize else timing(
        kernels, log, base_kernels=base_kernels, ab_kinds=a.ab_kinds.split(","))
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"cases": results, "timing": rows}, f, indent=1)
    return 0 if passed == len(results) else 1


if __name__ == "__main__":
    sys.exit(main())
