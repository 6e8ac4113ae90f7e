#!/usr/bin/env python3
"""End-to-end correctness of FlashMLIR's compiled attention kernels on the GPU.

For every kernel listed in ARTIFACTS/manifest.json, runs a deterministic
matrix of cases (sequence-length pairs in odd and even sizes, Sq != Sk both
ways, GQA ratios, BHSD and BSHD storage, batch 1-2) and checks each against a
float32 reference with FlashAttention-2's tolerance rule:

  max|O_ours - O_ref| <= 2 * max|O_torch - O_ref| + floor

where O_ref is float32 math on the upcast inputs and O_torch the same formula
computed in the input dtype (FA2's `attention_ref(upcast=False)`). LSE must be
within 1e-3 * max(1, |ref|) on rows that see a key and exactly -inf on rows
that see none (whose O must be exactly 0). Outputs are poisoned with NaN
before each call, surrounded by NaN guard zones that must stay untouched, and
each case runs twice: both runs must agree bit for bit.

Usage:
  correctness.py --artifacts DIR [--quick] [--out results.json]
  correctness.py --artifacts DIR --sanitize   # 3 small cases, for compute-sanitizer
  correctness.py --artifacts DIR --sanitize --filter RX   # the matrix cases RX picks, the same way
  correctness.py --artifacts DIR --list       # print the cases, run nothing

Exit status: 0 when every case passed, 1 when any failed, 2 on a usage error.
"""
import argparse
import json
import math
import os
import re
import sys
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402

# (Sq, Sk): odd and even sizes, tile multiples and not, Sq != Sk both ways,
# decode (Sq = 1) and causal with Sq > Sk (rows that see no key).
SEQ_PAIRS = [
    (1, 1), (1, 17), (1, 1000), (17, 1), (17, 17), (17, 1024), (64, 64),
    (64, 128), (113, 113), (113, 255), (255, 113), (128, 128), (128, 17),
    (255, 256), (256, 256), (256, 1000), (1000, 17), (1000, 1000),
    (1000, 1024), (1024, 1024), (512, 2048), (2048, 512), (1024, 1),
    # From Sq = 2048 on, causal head dim 128 runs flash-plan's long kernel
    # (long-causal-rows): its edge, a ragged tail and Sq < Sk there.
    (2048, 2048), (2111, 2111), (2049, 4000),
]
QUICK_PAIRS = [(1, 1000), (17, 17), (113, 255), (255, 113), (128, 128),
               (256, 1000), (1000, 17), (1024, 1024)]
# Large logits, where an online softmax can go wrong (also in --quick): Q
# scaled by LARGE_Q (logits ~ LARGE_Q x those of N(0, 1) inputs, i.e. an
# effective scale of ~100 / sqrt(D)), 8x outliers in 1/32 of Q and K, and keys
# growing 1x..3x along the sequence so that a row's maximum sits in its last
# KV blocks and every earlier block is rescaled.
LARGE_PAIRS = [(1, 1000), (113, 255), (255, 113), (1000, 1024)]
LARGE_Q = 100.0 / 8.0
# K and V laid out apart (K a BSHD view, V a slice of a wider fused
# projection): the kernel must take each tensor's own batch/head strides
# (a V plane computed with K's strides read the wrong rows).
MIXED_PAIRS = [(113, 255), (1, 300)]
GQAS = [(8, 8), (8, 2), (8, 1)]
LAYOUTS = ["bhsd", "bshd"]
MIN_CASES = 200
GUARD = 256  # NaN elements before and after every output buffer

LSE_RTOL = 1e-3
ATOL_FLOOR = 1e-5


class Case:
    __slots__ = ("idx", "entry", "batch", "hq", "hkv", "sq", "sk", "layout", "seed", "large")

    def __init__(self, idx, entry, batch, hq, hkv, sq, sk, layout, seed=None, large=False):
        self.idx, self.entry = idx, entry
        self.batch, self.hq, self.hkv, self.sq, self.sk = batch, hq, hkv, sq, sk
        self.layout = layout
        self.large = large
        self.seed = seed if seed is not None else zlib.crc32(self.name.encode())

    @property
    def name(self):
        return (f"{self.entry['func']} B={self.batch} H={self.hq}/{self.hkv} "
                f"Sq={self.sq} Sk={self.sk} {self.layout}{' large-logits' if self.large else ''}")

    def as_dict(self):
        return {"func": self.entry["func"], "so": self.entry["so"], "batch": self.batch,
                "hq": self.hq, "hkv": self.hkv, "sq": self.sq, "sk": self.sk,
                "layout": self.layout, "seed": self.seed, "large": self.large}


def entry_key(e):
    return (e.get("dtype", ""), int(e.get("head_dim", 0)), bool(e.get("causal", False)),
            e.get("so", ""), e.get("func", ""))


def make_cases(entries, quick=False, min_cases=MIN_CASES, seed_base=0):
    """The deterministic case matrix. Every (kernel, seq pair) appears `reps`
    times (3 in full mode); GQA ratio, layout and batch rotate with the
    position so that every (kernel, pair) meets every GQA ratio, every kernel
    both layouts and both batch sizes, and (full mode) the total is at least
    `min_cases` whatever the manifest holds."""
    entries = sorted(entries, key=entry_key)
    pairs = QUICK_PAIRS if quick else SEQ_PAIRS
    if not entries:
        return []
    reps = 1 if quick else max(3, math.ceil(min_cases / (len(entries) * len(pairs))))
    cases = []
    for ei, e in enumerate(entries):
        for pi, (sq, sk) in enumerate(pairs):
            for r in range(reps):
                x = ei + pi + r  # x mod 6 walks all (ratio, layout) combinations
                hq, hkv = GQAS[x % len(GQAS)]
                layout = LAYOUTS[x % len(LAYOUTS)]
                batch = 1 + ((x // 6) + ei + r) % 2
                c = Case(len(cases), e, batch, hq, hkv, sq, sk, layout)
                if seed_base:
                    c.seed = (c.seed + seed_base * 1000003) & 0xFFFFFFFF
                cases.append(c)
        for pi, (sq, sk) in enumerate(MIXED_PAIRS):
            hq, hkv = GQAS[(ei + pi + 1) % len(GQAS)]
            c = Case(len(cases), e, 1 + pi % 2, hq, hkv, sq, sk, "mixed")
            if seed_base:
                c.seed = (c.seed + seed_base * 1000003) & 0xFFFFFFFF
            cases.append(c)
        for pi, (sq, sk) in enumerate(LARGE_PAIRS):
            hq, hkv = GQAS[(ei + pi) % len(GQAS)]
            c = Case(len(cases), e, 1, hq, hkv, sq, sk, LAYOUTS[(ei + pi) % 2], large=True)
            if seed_base:
                c.seed = (c.seed + seed_base * 1000003) & 0xFFFFFFFF
            cases.append(c)
    return cases


def sanitize_cases(entries):
    """Three small cases for compute-sanitizer: prefill Sq < Sk, causal
    Sq > Sk (rows with no key), and decode with GQA; kernels picked so that a
    causal and a non-causal one are covered when the manifest has both."""
    entries = sorted(entries, key=entry_key)
    if not entries:
        return []
    causal = [e for e in entries if e.get("causal")] or entries
    plain = [e for e in entries if not e.get("causal")] or entries
    pick = lambda lst, want: next((e for e in lst if int(e.get("head_dim", 0)) == want), lst[0])
    a, b = pick(causal, 128), pick(plain, 64)
    return [Case(0, a, 1, 2, 1, 113, 255, "bshd"),
            Case(1, a, 1, 2, 2, 255, 113, "bhsd"),
            Case(2, b, 2, 4, 1, 1, 300, "bshd")]


# --------------------------------------------------------------------------
# Reference and baseline

def visible(sq, sk, causal, window, device):
    """[Sq, Sk] bool mask of the keys each query sees (bottom-right aligned),
    or None when every key is visible."""
    import torch
    left, right = window
    if not causal and left < 0 and right < 0:
        return None
    i = torch.arange(sq, device=device).unsqueeze(1)
    j = torch.arange(sk, device=device).unsqueeze(0)
    off = sk - sq
    m = torch.ones(sq, sk, dtype=torch.bool, device=device)
    if causal:
        m &= j <= i + off
    if left >= 0:
        m &= j >= i + off - left
    if right >= 0:
        m &= j <= i + off + right
    return m


def attention_math(q, k, v, abi, dtype, mods=None):
    """softmax(scale * Q K^T [+mask]) V computed in `dtype` on [B,H,S,D]
    tensors (GQA by repeat_interleave). Rows that see no key give O = 0 and
    LSE = -inf. Returns (O, LSE); LSE is float32 and only meaningful for a
    float32 computation. `mods` (scripts/gpu-mods-check.py) modifies the
    scores after the softcap: mods.score(s) -> s' ([B, Hq, Sq, Sk] in s's
    dtype; ALiBi, a score_mod) and mods.mask(m) -> the visibility mask
    (bool, broadcastable to s; m is visible()'s, possibly None)."""
    import torch
    hq, hkv = q.shape[1], k.shape[1]
    g = hq // hkv
    qc = q.to(dtype)
    kc = k.to(dtype).repeat_interleave(g, dim=1)
    vc = v.to(dtype).repeat_interleave(g, dim=1)
    s = torch.matmul(qc, kc.transpose(-1, -2)) * abi["scale"]
    if abi["softcap"]:
        s = abi["softcap"] * torch.tanh(s / abi["softcap"])
    m = visible(q.shape[2], k.shape[2], abi["causal"], abi["window"], q.device)
    if mods is not None:
        s = mods.score(s)
        m = mods.mask(m)
    if m is not None:
        s = s.masked_fill(~m, float("-inf"))
    if dtype == torch.float32 or dtype == torch.float64:
        lse = torch.logsumexp(s, dim=-1)
        safe = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
        p = torch.exp(s - safe.unsqueeze(-1))  # exp(-inf) = 0 on masked entries
        o = torch.matmul(p, vc)
        return o, lse.float()
    # input dtype, FA2's attention_ref(upcast=False): softmax rounded to dtype
    p = torch.softmax(s, dim=-1)
    if m is not None or mods is not None:
        # Rows whose every score is -inf (masked, or so modified) see no key.
        dead = torch.isneginf(s).all(dim=-1, keepdim=True)
        if bool(dead.any()):
            p = p.masked_fill(dead, 0.0)
    o = torch.matmul(p.to(dtype), vc)
    return o, None


def reference(q, k, v, abi):
    import torch
    return attention_math(q, k, v, abi, torch.float32)


def baseline(q, k, v, abi):
    return attention_math(q, k, v, abi, q.dtype)[0]


# --------------------------------------------------------------------------
# Buffers

def make_inputs(case, abi, device):
    import torch
    dt = common.torch_dtype(abi["dtype"])
    gen = torch.Generator(device=device)
    gen.manual_seed(case.seed)
    b, d, dv = case.batch, abi["head_dim"], abi["head_dim_v"]

    def one(h, s, dd):
        if case.layout == "bshd":  # FA2's storage, passed as a transposed view
            return torch.randn(b, s, h, dd, generator=gen, device=device, dtype=dt).transpose(1, 2)
        return torch.randn(b, h, s, dd, generator=gen, device=device, dtype=dt)

    q, k, v = one(case.hq, case.sq, d), one(case.hkv, case.sk, d), one(case.hkv, case.sk, dv)
    if case.layout == "mixed":  # Q BHSD, K BSHD, V a slice of [B, S, 3 Hkv, Dv]
        k = torch.randn(b, case.sk, case.hkv, d, generator=gen, device=device,
                        dtype=dt).transpose(1, 2)
        wide = torch.randn(b, case.sk, 3 * case.hkv, dv, generator=gen, device=device, dtype=dt)
        v = wide[:, :, case.hkv:2 * case.hkv].transpose(1, 2)
    if getattr(case, "large", False):
        q, k = large_logit_inputs(q, k, gen)
    return q, k, v


def large_logit_inputs(q, k, gen):
    """Q and K of a large-logit case (LARGE_PAIRS): Q x LARGE_Q, 8x outliers
    in 1/32 of Q and K, key j x (1 + 2 j / Sk). Same dtype, layout and
    strides as the inputs."""
    import torch
    out = []
    for t in (q, k):
        pick = torch.randint(0, 32, t.shape, generator=gen, device=t.device) == 0
        out.append(torch.where(pick, t.float() * 8.0, t.float()))
    qf, kf = out
    qf = qf * LARGE_Q
    sk = kf.shape[2]
    ramp = 1.0 + 2.0 * torch.arange(sk, device=kf.device, dtype=torch.float32) / sk
    kf = kf * ramp.view(1, 1, sk, 1)
    # keep the storage layout (a bshd input is a transposed view)
    return (q.clone().copy_(qf.to(q.dtype)), k.clone().copy_(kf.to(k.dtype)))


def poisoned(shape, layout, dtype, device, guard):
    """A NaN-filled tensor of logical `shape` ([B,H,S,D] when `layout` is
    'bshd' stored as [B,S,H,D]) inside a flat buffer with `guard` NaN elements
    on each side. Returns (view, flat buffer)."""
    import torch
    n = 1
    for x in shape:
        n *= x
    flat = torch.full((n + 2 * guard,), float("nan"), dtype=dtype, device=device)
    if layout == "bshd" and len(shape) == 4:
        b, h, s, d = shape
        stride = (s * h * d, d, h * d, 1)
    else:
        stride = []
        acc = 1
        for x in reversed(shape):
            stride.insert(0, acc)
            acc *= x
        stride = tuple(stride)
    return torch.as_strided(flat, shape, stride, guard), flat


def guards_intact(flat, guard):
    import torch
    if guard == 0:
        return True
    return bool(torch.isnan(flat[:guard]).all()) and bool(torch.isnan(flat[-guard:]).all())


# --------------------------------------------------------------------------
# One case

def fmt(x):
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def max_err(a, ref):
    """max |a - ref| with NaN counted as inf; 0 for empty tensors."""
    import torch
    if a.numel() == 0:
        return 0.0
    e = (a.float() - ref).abs()
    e = torch.where(torch.isnan(e), torch.full_like(e, float("inf")), e)
    return float(e.max())


def o_tolerance(base_err, floor=ATOL_FLOOR):
    """FA2's rule: O may be off the float32 reference by twice the error of
    the same math in torch's dtype, plus a floor."""
    return 2.0 * base_err + floor


def lse_errors(lse, ref_l):
    """|LSE - ref| (NaN counted as inf) and where it exceeds the LSE bound,
    LSE_RTOL * max(1, |ref|)."""
    import torch
    lerr = (lse - ref_l).abs()
    lerr = torch.where(torch.isnan(lerr), torch.full_like(lerr, float("inf")), lerr)
    return lerr, lerr > LSE_RTOL * torch.clamp(ref_l.abs(), min=1.0)


def check_outputs(out, lse, ref_o, ref_l, base_o, dtype, floor, nan_o, res, why):
    """The verdict on a case's O and LSE (prefill here, decode.py's too):
    O within o_tolerance of the reference (the worst element's [b,h,i,d]
    named unless O has NaN, reported already), exactly 0 on rows that see no
    key; LSE within the bound on the other rows and -inf on those. Sets err,
    base_err, tol, dead_rows and lse_err in res and appends to why."""
    import torch
    err, base_err = max_err(out, ref_o), max_err(base_o, ref_o)
    tol = o_tolerance(base_err, floor)
    res.update(err=err, base_err=base_err, tol=tol)
    if not math.isfinite(base_err):
        why.append(f"baseline is not finite (base_err={base_err})")
    elif err > tol and not nan_o:
        e = (out.float() - ref_o).abs()
        idx = int(torch.where(torch.isnan(e), torch.full_like(e, float("inf")), e).flatten().argmax())
        pos = []
        for s in reversed(e.shape):
            pos.insert(0, idx % s)
            idx //= s
        why.append(f"O err {fmt(err)} > tol {fmt(tol)} (2 x torch {dtype} err "
                   f"{fmt(base_err)}) at [b,h,i,d]={pos}")

    dead = torch.isinf(ref_l) & (ref_l < 0)  # rows that see no key
    res["dead_rows"] = int(dead.sum())
    if res["dead_rows"] and not bool((out.float()[dead] == 0).all()):
        why.append("O is not exactly 0 on rows that see no key")
    if lse is None:
        return
    live = ~dead
    if bool(live.any()):
        lerr, bad = lse_errors(lse[live], ref_l[live])
        res["lse_err"] = float(lerr.max())
        if bool(bad.any()):
            why.append(f"LSE err {fmt(res['lse_err'])} > {LSE_RTOL} * max(1,|ref|) "
                       f"on {int(bad.sum())} rows")
    if res["dead_rows"]:
        ld = lse[dead]
        ok = torch.isinf(ld) & (ld < 0)
        if not bool(ok.all()):
            vals = sorted({str(float(x)) for x in ld[~ok][:4]})
            why.append(f"LSE is not -inf on rows that see no key (got {', '.join(vals)})")


def run_case(kernel, abi, case, device="cuda", ref_device=None, guard=GUARD,
             floor=ATOL_FLOOR, repeat=True):
    """Runs one case; returns a result dict with 'ok' and, when not ok, 'why'."""
    res = case.as_dict()
    res.update(dtype=abi["dtype"], head_dim=abi["head_dim"], causal=abi["causal"])
    why = []
    ref_device = ref_device or device
    gen_device = ref_device  # inputs are drawn where the reference runs
    q, k, v = make_inputs(case, abi, gen_device)
    if gen_device != device:
        q, k, v = (t.to(device) if t.is_contiguous() else
                   t.transpose(1, 2).contiguous().to(device).transpose(1, 2) for t in (q, k, v))
    dt = q.dtype
    oshape = (case.batch, case.hq, case.sq, abi["head_dim_v"])
    lshape = (case.batch, case.hq, case.sq)

    def call():
        return guarded_call(lambda out, lse: kernel(q, k, v, out=out, lse=lse), oshape,
                            lshape if abi["lse"] else None, case.layout, dt, device,
                            guard, why)

    t0 = time.time()
    out, lse = call()
    res["ms_first"] = (time.time() - t0) * 1e3

    nan_o = check_written_and_repeatable(out, lse, call, repeat, why)

    if ref_device != device:
        qr, kr, vr = (t.to(ref_device) for t in (q, k, v))
        out_c = out.to(ref_device)
        lse_c = lse.to(ref_device) if lse is not None else None
    else:
        qr, kr, vr, out_c, lse_c = q, k, v, out, lse
    ref_o, ref_l = reference(qr, kr, vr, abi)
    base_o = baseline(qr, kr, vr, abi)

    check_outputs(out_c, lse_c, ref_o, ref_l, base_o, abi["dtype"], floor, nan_o, res, why)
    res["ok"] = not why
    if why:
        res["why"] = "; ".join(dict.fromkeys(why))
    return res


# --------------------------------------------------------------------------

def cuda_context_alive():
    import torch
    try:
        torch.cuda.synchronize()
        torch.zeros(1, device="cuda").add_(1).item()
        return True
    except Exception:  # noqa: BLE001
        return False


def drive(cases, loader, prepare, run, device="cuda", verbose=False, log=print,
          describe=lambda r: "", after=None):
    """The case loop of this script and bench/decode.py. `loader(entry)` ->
    (kernel or None, error string); `prepare(entry, raw_abi)` -> (semantics,
    ABI mismatches), once per kernel; `run(kernel, semantics, case)` -> the
    case's result. An exception fails its case (and, once the CUDA context
    is lost, every later one); a manifest entry that disagrees with its
    kernel's ABI fails every case of that kernel. `describe(result)` adds to
    a failure's log line, `after(case)` runs after each case."""
    results, prepared = [], {}
    dead_context = None
    for c in cases:
        key = (c.entry["path"], c.entry["func"])
        if dead_context:
            r = c.as_dict()
            r.update(ok=False, why=f"not run: CUDA context lost ({dead_context})")
            results.append(r)
            continue
        kern, err = loader(c.entry)
        if kern is None:
            r = c.as_dict()
            r.update(ok=False, why=f"kernel did not load: {err}")
        else:
            if key not in prepared:
                prepared[key] = prepare(c.entry, getattr(kern, "abi", None) or {})
            sem, mism = prepared[key]
            try:
                r = run(kern, sem, c)
            except Exception as ex:  # noqa: BLE001
                r = c.as_dict()
                msg = str(ex).splitlines()[0] if str(ex) else ""
                r.update(ok=False, why=f"raised {type(ex).__name__}: {msg}")
                if verbose:
                    traceback.print_exc()
                if device != "cpu" and not cuda_context_alive():
                    dead_context = f"after case #{c.idx}"
            if mism:
                r["ok"] = False
                r["why"] = "; ".join(filter(None, [r.get("why"),
                                                   "manifest/ABI mismatch: " + ", ".join(mism)]))
        results.append(r)
        if not r["ok"]:
            log(f"FAIL #{c.idx} {c.name} seed={c.seed}{describe(r)}: {r['why']}")
        elif verbose:
            log(f"ok   #{c.idx} {c.name} err={fmt(r.get('err'))} tol={fmt(r.get('tol'))}")
        if after:
            after(c)
    return results


def run_all(cases, loader, device="cuda", ref_device=None, guard=GUARD, floor=ATOL_FLOOR,
            repeat=True, verbose=False, log=print):
    """Runs `cases`; `loader(entry)` -> (kernel or None, error string)."""
    def prepare(entry, raw_abi):
        return common.entry_abi(entry, raw_abi), common.abi_mismatch(entry, raw_abi)

    def run(kern, abi, c):
        return run_case(kern, abi, c, device=device, ref_device=ref_device, guard=guard,
                        floor=floor, repeat=repeat)
    return drive(cases, loader, prepare, run, device=device, verbose=verbose, log=log)


def guarded_call(launch, oshape, lshape, layout, dtype, device, guard, why):
    """Runs `launch(out, lse)` on NaN-poisoned O (in `layout`) and LSE (None
    when `lshape` is None) with guard zones around them; appends to `why`
    if the kernel returned other tensors than out=/lse= or wrote outside
    them. Returns (out, lse)."""
    import torch
    out, oflat = poisoned(oshape, layout, dtype, device, guard)
    lse = lflat = None
    if lshape is not None:
        lse, lflat = poisoned(lshape, "bhsd", torch.float32, device, guard)
    ret = launch(out, lse)
    if device != "cpu":
        torch.cuda.synchronize()
    if isinstance(ret, tuple) and len(ret) == 2:
        ro, rl = ret
        if ro is not None and ro.data_ptr() != out.data_ptr():
            why.append("returned O is not the out= tensor")
        if lse is not None and rl is not None and rl.data_ptr() != lse.data_ptr():
            why.append("returned LSE is not the lse= tensor")
    if not guards_intact(oflat, guard):
        why.append("wrote outside O (guard zone changed)")
    if lflat is not None and not guards_intact(lflat, guard):
        why.append("wrote outside LSE (guard zone changed)")
    return out, lse


def check_written_and_repeatable(out, lse, call, repeat, why):
    """Appends to `why` if O or LSE still hold poison (NaN), or if a second
    `call()` does not reproduce them bit for bit. Returns the number of
    NaNs in O."""
    import torch
    nan_o = int(torch.isnan(out).sum())
    if nan_o:
        why.append(f"{nan_o} NaN/unwritten O elements")
    if lse is not None:
        nan_l = int(torch.isnan(lse).sum())
        if nan_l:
            why.append(f"{nan_l} NaN/unwritten LSE elements")
    if repeat and not why:
        out2, lse2 = call()
        if not torch.equal(out, out2):
            why.append("second run differs (O): nondeterminism or a race")
        if lse is not None and not torch.equal(lse, lse2):
            why.append("second run differs (LSE): nondeterminism or a race")
        del out2, lse2
    return nan_o


def summarize(results, log=print, label="correctness", width=40):
    """Per-kernel pass counts and the closing line `<label>: N/M passed`;
    returns the number failed."""
    by = {}
    for r in results:
        by.setdefault(r["func"], [0, 0])
        by[r["func"]][0] += bool(r["ok"])
        by[r["func"]][1] += 1
    for f in sorted(by):
        p, n = by[f]
        worst = max((r.get("err", 0) / r["tol"] for r in results
                     if r["func"] == f and r.get("tol")), default=0.0)
        log(f"  {f:<{width}} {p:>4}/{n:<4} worst err/tol {worst:.2f}")
    passed = sum(bool(r["ok"]) for r in results)
    log(f"{label}: {passed}/{len(results)} passed")
    return len(results) - passed


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True, help="directory with manifest.json and the .so files")
    ap.add_argument("--quick", action="store_true", help="one case per kernel and a few seq pairs")
    ap.add_argument("--sanitize", action="store_true",
                    help="3 small cases (with --filter: the matrix's cases it selects), reference "
                         "and baseline on the CPU, no guard zones (for compute-sanitizer)")
    ap.add_argument("--out", help="write every case's result here (JSON)")
    ap.add_argument("--filter", help="regex over case names (func B= H= Sq= Sk= layout)")
    ap.add_argument("--max-cases", type=int, default=0)
    ap.add_argument("--seed", type=int, default=0, help="shifts every case's seed")
    ap.add_argument("--min-cases", type=int, default=MIN_CASES)
    ap.add_argument("--runtime", default=None, help="libflashrt.so (default: $FLASHRT_LIB)")
    ap.add_argument("--list", action="store_true", help="print the cases and exit")
    ap.add_argument("--no-repeat", action="store_true", help="skip the second (determinism) run")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        entries = common.read_manifest(args.artifacts)
    except Exception as ex:  # noqa: BLE001
        print(f"error: cannot read {args.artifacts}/manifest.json: {ex}", file=sys.stderr)
        return 2
    # --sanitize with --filter: those cases of the full matrix, run the
    # sanitize way (no torch GPU kernel but ours: cuBLAS's own report
    # racecheck hazards that would drown our kernel's).
    if args.sanitize and not args.filter:
        cases = sanitize_cases(entries)
    else:
        cases = make_cases(entries, quick=args.quick, min_cases=args.min_cases, seed_base=args.seed)
    if args.filter:
        rx = re.compile(args.filter)
        cases = [c for c in cases if rx.search(c.name)]
    if args.max_cases:
        cases = cases[:args.max_cases]
    if args.list:
        for c in cases:
            print(f"#{c.idx} {c.name} seed={c.seed}")
        print(f"{len(cases)} cases over {len({c.entry['func'] for c in cases})} kernels")
        return 0
    if not cases:
        print("error: no cases (empty manifest or filter)", file=sys.stderr)
        print("correctness: 0/0 passed")
        return 1

    if not common.cuda_ready():
        return 2
    info = common.gpu_info()
    mode = "sanitize" if args.sanitize else ("quick" if args.quick else "full")
    print(f"# {info.get('gpu')} torch {info.get('torch')}; {len(cases)} cases ({mode}) over "
          f"{len({c.entry['func'] for c in cases})} kernels from {args.artifacts}", flush=True)

    loader = common.KernelLoader(args.runtime)
    t0 = time.time()
    results = run_all(cases, loader.get, device="cuda",
                      ref_device="cpu" if args.sanitize else None,
                      guard=0 if args.sanitize else GUARD,
                      repeat=not args.no_repeat, verbose=args.verbose,
                      log=lambda s: print(s, flush=True))
    wall = time.time() - t0
    failed = summarize(results)
    print(f"# {wall:.1f} s", flush=True)
    if args.out:
        d = os.path.dirname(os.path.abspath(args.out))
        os.makedirs(d, exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S"), **info, "mode": mode,
                       "command": " ".join([sys.executable] + sys.argv), "artifacts": args.artifacts,
                       "passed": len(results) - failed, "total": len(results), "seconds": wall,
                       "cases": results}, f, indent=1, default=str)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
