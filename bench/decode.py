#!/usr/bin/env python3
"""Decode (Flash-Decoding) kernels on the GPU: correctness, speed against torch
SDPA's FlashAttention-2 and cuDNN backends, and end-to-end call latency.

  decode.py --artifacts build/gpu --manifest decode-manifest.json --out F.json

(a) correctness of every entry of the decode manifest (scripts/
    gen-decode-variants.py): batch 1, 3, 16 x cache lengths 1, 17, 64, 65,
    1000, 4097, 32768 x BHSD-contiguous and BSHD storage (passed as
    transposed views; Q/O stored [B, Sq, H, D]), the entry's static heads
    (GQA). kv_lens entries get random lengths including 0 (rows that see no
    key: O = 0, LSE = -inf), 1 and full (and Sq-1, Sq, Sq+1 for causal
    chunks); dead K/V rows hold NaN. Paged entries read a pool of pages in a
    random order with spare pages, spares and dead slots NaN. Reference:
    float32 math on the upcast inputs (pages gathered, lengths applied,
    causal bottom-right with Sk = kv_lens[b]); FA2's rule
    err <= 2 x err(the same formula in the input dtype) + 1e-5, LSE within
    1e-3 x max(1, |ref|), outputs poisoned with NaN inside NaN guard zones,
    every case run twice (bit-identical). One `FAIL ...` line per failure,
    then `decode-correctness: N/M passed`.
(b) speed: bf16, Hq 32, Hkv 8, D 128, Sq 1, batch x KV length in 1x4k,
    1x32k, 1x128k, 8x8k, 16x32k, 64x4k, 128x2k: ours vs
    F.scaled_dot_product_attention(enable_gqa=True) under
    sdpa_kernel(FLASH_ATTENTION) and (CUDNN_ATTENTION) on the same tensors
    (a backend refusing enable_gqa gets repeat_interleave'd K/V, noted);
    triton.testing.do_bench(warmup=25, rep=100, return_mode="median");
    ours checked against the float32 reference (FA2's rule) and torch first.
    Bandwidth = KV bytes (2 B Hkv S D 2) / time.
(c) end-to-end latency at 1x4k: flash-latency (bench/latency.c, through the
    C API: sync, async + flashrt_synchronize, pointer checks on and off) and,
    for comparison, Python wall time per call + torch.cuda.synchronize() of
    torch SDPA (FA2, cuDNN) and of our kernel through the binding.

Exit status: 0 all passed, 1 a correctness case or a speed check failed,
2 usage error.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import plot  # noqa: E402
import correctness as C  # noqa: E402  (poisoned buffers, guards, tolerances)

BATCHES = (1, 3, 16)
CACHE_LENS = (1, 17, 64, 65, 1000, 4097, 32768)
LAYOUTS = ("bhsd", "bshd")
QUICK_BATCHES = (1, 3)
QUICK_CACHE_LENS = (1, 65, 4097)
GUARD = 256

SPEED_FUNC = "decode_bf16_d128_h32x8_q1"
K = 1024
SPEED_SHAPES = [(1, 4 * K), (1, 32 * K), (1, 128 * K), (8, 8 * K), (16, 32 * K),
                (64, 4 * K), (128, 2 * K)]
LATENCY_SHAPE = (1, 4 * K)


# --------------------------------------------------------------------------
# Entries

def semantics(e, abi=None):
    """What a decode entry computes and takes: common.entry_abi plus the
    static heads and query length (the ABI's q_shape/kv_shape win over the
    manifest), kv_lens, paged and page size."""
    abi = abi or {}
    a = common.entry_abi(e, abi)
    d = a["head_dim"]
    qs = abi.get("q_shape") or [-1, e.get("heads_q"), e.get("seq_q", 1), d]
    ks = abi.get("kv_shape") or [-1, e.get("heads_kv"), -1, d]
    paged = bool(abi.get("paged", e.get("paged", False)))
    a.update(
        hq=int(qs[1] if qs[1] not in (None, -1) else e["heads_q"]),
        sq=int(qs[2] if qs[2] not in (None, -1) else e.get("seq_q", 1)),
        hkv=int(ks[1] if ks[1] not in (None, -1) else e["heads_kv"]),
        kv_lens=bool(abi.get("kv_lens", e.get("kv_lens", False))),
        paged=paged,
        page_size=int(ks[2]) if paged and ks[2] not in (None, -1) else int(e.get("page_size") or 0),
    )
    return a


def decode_mismatch(e, abi):
    """Manifest fields that disagree with the loaded kernel's ABI."""
    bad = common.abi_mismatch(e, abi)
    qs, ks = abi.get("q_shape"), abi.get("kv_shape")
    checks = []
    if qs and len(qs) == 4:
        checks += [("heads_q", qs[1]), ("seq_q", qs[2])]
    if ks and len(ks) == 4:
        checks += [("heads_kv", ks[1])]
        if abi.get("paged"):
            checks += [("page_size", ks[2])]
    for key in ("kv_lens", "paged"):
        if key in abi:
            checks.append((key, bool(abi[key])))
    for key, val in checks:
        if key in e and e[key] is not None and val not in (None, -1):
            mv = bool(e[key]) if isinstance(val, bool) else int(e[key])
            if mv != val:
                bad.append(f"{key}: manifest {e[key]!r} vs abi {val!r}")
    return bad


# --------------------------------------------------------------------------
# Cases

class Case:
    __slots__ = ("idx", "entry", "batch", "cap", "layout", "variant", "seed")

    def __init__(self, idx, entry, batch, cap, layout, variant, seed=None):
        self.idx, self.entry, self.batch, self.cap = idx, entry, batch, cap
        self.layout, self.variant = layout, variant
        self.seed = seed if seed is not None else zlib.crc32(self.name.encode())

    @property
    def name(self):
        return f"{self.entry['func']} B={self.batch} S={self.cap} {self.layout} v{self.variant}"

    def as_dict(self):
        return {"func": self.entry["func"], "so": self.entry.get("so"), "batch": self.batch,
                "cap": self.cap, "layout": self.layout, "variant": self.variant, "seed": self.seed}


def make_cases(entries, quick=False, seed_base=0):
    """Every entry x batch x cache length x layout; `variant` rotates which
    special lengths (full, 0, 1, around Sq) land in which batch row."""
    batches = QUICK_BATCHES if quick else BATCHES
    caps = QUICK_CACHE_LENS if quick else CACHE_LENS
    cases = []
    for e in sorted(entries, key=lambda e: e["func"]):
        for bi, b in enumerate(batches):
            for ci, cap in enumerate(caps):
                for li, layout in enumerate(LAYOUTS):
                    c = Case(len(cases), e, b, cap, layout, bi + ci + li)
                    if seed_base:
                        c.seed = (c.seed + seed_base * 1000003) & 0xFFFFFFFF
                    cases.append(c)
    return cases


def make_lens(batch, cap, sq, causal, variant, gen):
    """Per-sequence lengths in [0, cap]: special values (full, 0, 1, and
    Sq-1, Sq, Sq+1 for causal chunks) rotated by `variant`, the rest random."""
    import torch
    special = [cap, 0, 1]
    if causal:
        special += [sq - 1, sq, sq + 1]
    special = [min(max(x, 0), cap) for x in special]
    rand = torch.randint(0, cap + 1, (batch,), generator=gen).tolist()
    lens = []
    for b in range(batch):
        if batch == 1:
            k = variant % (len(special) + 1)
            lens.append(special[k] if k < len(special) else rand[0])
        elif b < len(special):
            lens.append(special[(b + variant) % len(special)])
        else:
            lens.append(rand[b])
    return lens


def make_inputs(case, sem, device):
    """Q, K, V as the kernel takes them, the kv_lens / block table operands
    (or None), and the logical K/V [B, Hkv, Sk, D] with the lengths for the
    reference. Dead K/V rows and spare pages are NaN."""
    import torch
    dt = common.torch_dtype(sem["dtype"])
    gen = torch.Generator(device=device)
    gen.manual_seed(case.seed)
    cpu = torch.Generator()
    cpu.manual_seed(case.seed ^ 0x5EED)
    b, cap, layout = case.batch, case.cap, case.layout
    hq, hkv, sq, d, dv = sem["hq"], sem["hkv"], sem["sq"], sem["head_dim"], sem["head_dim_v"]
    nan = float("nan")

    def rnd(n0, h, s, dd):  # logical [n0, h, s, dd]
        if layout == "bshd":  # FA2's / vLLM's storage, passed as a transposed view
            return torch.randn(n0, s, h, dd, generator=gen, device=device, dtype=dt).transpose(1, 2)
        return torch.randn(n0, h, s, dd, generator=gen, device=device, dtype=dt)

    q = rnd(b, hq, sq, d)
    lens = make_lens(b, cap, sq, sem["causal"], case.variant, cpu) if sem["kv_lens"] else None
    out = {"q": q, "lens": lens, "kv_lens": None, "block_table": None}
    if lens is not None:
        out["kv_lens"] = torch.tensor(lens, dtype=torch.int32, device=device)

    if not sem["paged"]:
        k, v = rnd(b, hkv, cap, d), rnd(b, hkv, cap, dv)
        if lens is not None:
            j = torch.arange(cap, device=device)
            dead = j.unsqueeze(0) >= out["kv_lens"].long().unsqueeze(1)  # [B, Sk]
            for x in (k, v):
                x.masked_fill_(dead[:, None, :, None], nan)
        out.update(k=k, v=v, k_ref=k, v_ref=v, sk=cap)
        return out

    ps = sem["page_size"]
    pps = max(1, -(-cap // ps))
    used = b * pps
    spare = max(2, used // 8)
    npages = used + spare
    perm = torch.randperm(npages, generator=cpu)
    table = perm[:used].view(b, pps).to(torch.int32)
    k, v = rnd(npages, hkv, ps, d), rnd(npages, hkv, ps, dv)  # pools [P, Hkv, ps, D]
    spare_pages = perm[used:].to(device)
    tdev = table.to(device)
    j = torch.arange(pps * ps, device=device)
    if lens is not None:
        dead = j.unsqueeze(0) >= out["kv_lens"].long().unsqueeze(1)  # [B, pps*ps]
    else:  # no lengths: every slot of the sequence's pages is a key
        dead = torch.zeros(b, pps * ps, dtype=torch.bool, device=device)
    pidx = tdev.long()[:, j // ps][dead]
    sidx = (j % ps).unsqueeze(0).expand(b, -1)[dead]
    for x in (k, v):
        x[spare_pages] = nan
        if pidx.numel():
            x[pidx, :, sidx] = nan

    def gather(x):  # pool [P, Hkv, ps, D] -> logical [B, Hkv, pps*ps, D]
        g = x[tdev.long()]  # [B, pps, Hkv, ps, D]
        return g.permute(0, 2, 1, 3, 4).reshape(b, hkv, pps * ps, x.shape[-1])

    sk = cap if lens is not None else pps * ps
    out.update(k=k, v=v, block_table=tdev, sk=sk,
               k_ref=gather(k)[:, :, :sk], v_ref=gather(v)[:, :, :sk])
    return out


# --------------------------------------------------------------------------
# Reference

def attention(q, k, v, lens, causal, scale, dtype):
    """softmax(scale Q K^T) V over logical K/V [B, Hkv, Sk, D] in `dtype`:
    keys j >= lens[b] masked (and their NaN rows zeroed), causal bottom-right
    with Sk = lens[b]; GQA by grouping the query heads of each KV head into
    rows (no repeat_interleave). Rows that see no key: O = 0, LSE = -inf.
    Returns (O [B, Hq, Sq, Dv], LSE [B, Hq, Sq] float32 or None for a
    non-float32 computation, as FA2's attention_ref(upcast=False))."""
    import torch
    b, hq, sq, d = q.shape
    hkv, sk, dv = k.shape[1], k.shape[2], v.shape[3]
    g = hq // hkv
    dev = q.device
    j = torch.arange(sk, device=dev)
    if lens is not None:
        L = torch.as_tensor(lens, device=dev).long().view(b)
    else:
        L = torch.full((b,), sk, dtype=torch.long, device=dev)
    valid = j.unsqueeze(0) < L.unsqueeze(1)  # [B, Sk]
    if lens is not None:
        k = k.masked_fill(~valid[:, None, :, None], 0)
        v = v.masked_fill(~valid[:, None, :, None], 0)
    qg = q.to(dtype).reshape(b, hkv, g * sq, d)  # row r = (h % g) * Sq + i
    s = torch.matmul(qg, k.to(dtype).transpose(-1, -2)) * scale  # [B, Hkv, g*Sq, Sk]
    mask = valid[:, None, None, :].expand(b, 1, g * sq, sk)
    if causal:
        i = (torch.arange(g * sq, device=dev) % sq).view(1, 1, -1, 1)
        mask = mask & (j.view(1, 1, 1, -1) <= i + (L - sq).view(b, 1, 1, 1))
    s = s.masked_fill(~mask, float("-inf"))
    if dtype in (torch.float32, torch.float64):
        lse = torch.logsumexp(s, dim=-1)
        safe = torch.where(torch.isinf(lse), torch.zeros_like(lse), lse)
        p = torch.exp(s - safe.unsqueeze(-1))
        o = torch.matmul(p, v.to(dtype))
        return o.reshape(b, hq, sq, dv), lse.float().reshape(b, hq, sq)
    p = torch.softmax(s, dim=-1)  # rounded to dtype, as FA2's attention_ref(upcast=False)
    dead = ~mask.any(dim=-1, keepdim=True)
    p = p.masked_fill(dead, 0.0)
    o = torch.matmul(p.to(dtype), v.to(dtype))
    return o.reshape(b, hq, sq, dv), None


def reference(q, k, v, lens, sem):
    import torch
    return attention(q, k, v, lens, sem["causal"], sem["scale"], torch.float32)


def baseline(q, k, v, lens, sem):
    return attention(q, k, v, lens, sem["causal"], sem["scale"], q.dtype)[0]


# --------------------------------------------------------------------------
# One correctness case

def run_case(kernel, sem, case, device="cuda", guard=GUARD, floor=C.ATOL_FLOOR, repeat=True):
    res = case.as_dict()
    why = []
    inp = make_inputs(case, sem, device)
    q = inp["q"]
    if inp["lens"] is not None:
        res["lens"] = inp["lens"] if len(inp["lens"]) <= 4 else inp["lens"][:4] + ["..."]
    oshape = (case.batch, sem["hq"], sem["sq"], sem["head_dim_v"])
    lshape = (case.batch, sem["hq"], sem["sq"])
    extra = {}
    if sem["kv_lens"]:
        extra["kv_lens"] = inp["kv_lens"]
    if sem["paged"]:
        extra["block_table"] = inp["block_table"]

    def call():
        return C.guarded_call(
            lambda out, lse: kernel(q, inp["k"], inp["v"], out=out, lse=lse, **extra),
            oshape, lshape if sem["lse"] else None, case.layout, q.dtype, device, guard, why)

    out, lse = call()
    nan_o = C.check_written_and_repeatable(out, lse, call, repeat, why)

    lens = inp["kv_lens"]
    ref_o, ref_l = reference(q, inp["k_ref"], inp["v_ref"], lens, sem)
    base_o = baseline(q, inp["k_ref"], inp["v_ref"], lens, sem)
    C.check_outputs(out, lse, ref_o, ref_l, base_o, sem["dtype"], floor, nan_o, res, why)
    res["ok"] = not why
    if why:
        res["why"] = "; ".join(dict.fromkeys(why))
    return res


def run_correctness(cases, loader, device="cuda", repeat=True, verbose=False, log=print):
    import torch

    def run(kern, sem, c):
        return run_case(kern, sem, c, device=device, repeat=repeat)

    def after(c):
        if device != "cpu" and c.batch * c.cap >= 16 * 32768:
            torch.cuda.empty_cache()
    return C.drive(cases, loader,
                   lambda e, raw: (semantics(e, raw), decode_mismatch(e, raw)), run,
                   device=device, verbose=verbose, log=log,
                   describe=lambda r: f" lens={r['lens']}" if "lens" in r else "",
                   after=after)


def summarize(results, log=print):
    return C.summarize(results, log, label="decode-correctness", width=48)


# --------------------------------------------------------------------------
# Speed

def bench_ms(fn, warmup, rep):
    import benchmark
    return benchmark.bench_ms(fn, warmup, rep)


def kv_bytes(b, hkv, s, d, elem=2):
    return 2 * b * hkv * s * d * elem


def tbps(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e12 if ms else None


def sdpa_call(backend, q, k, v, scale, gqa, k_rep=None, v_rep=None):
    """A closure running torch SDPA under `backend`: with enable_gqa, or on
    repeat_interleave'd K/V when gqa is False."""
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    if gqa:
        def f():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, scale=scale, enable_gqa=True)
    else:
        def f():
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k_rep, v_rep, scale=scale)
    return f


def torch_backends():
    from torch.nn.attention import SDPBackend
    return {"fa2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}


def sync(device):
    import torch
    if str(device) != "cpu":
        torch.cuda.synchronize()


def prepare_sdpa(name, backend, q, k, v, scale, notes):
    """(closure, output, how) for one backend; how = 'enable_gqa' or
    'repeat_interleave'; (None, None, why) if it refuses both."""
    try:
        f = sdpa_call(backend, q, k, v, scale, True)
        o = f()
        sync(q.device)
        return f, o, "enable_gqa"
    except Exception as ex:  # noqa: BLE001
        first = f"{type(ex).__name__}: {str(ex).splitlines()[0][:160] if str(ex) else ''}"
    g = q.shape[1] // k.shape[1]
    try:
        kr, vr = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
        f = sdpa_call(backend, q, k, v, scale, False, kr, vr)
        o = f()
        sync(q.device)
        note = (f"{name}: enable_gqa refused ({first}); timed on repeat_interleave'd K/V "
                f"(reads {g}x the KV bytes; bandwidth still counts 1x)")
        if note not in notes:
            notes.append(note)
        return f, o, "repeat_interleave"
    except Exception as ex:  # noqa: BLE001
        return None, None, f"refused: {first}; repeat_interleave: {type(ex).__name__}: {str(ex)[:160]}"


def speed_inputs(b, s, sem, device="cuda"):
    """The speed table's tensors at batch b x KV length s (also bench/ab.py's):
    Q [B, Hq, Sq, D], K/V [B, Hkv, S, D] from one generator seeded by the
    shape, full kv_lens when the entry takes them (in `extra`), NaN-filled
    O and LSE (None without LSE). Returns (q, k, v, extra, out, lse)."""
    import torch
    dt = common.torch_dtype(sem["dtype"])
    hq, hkv, d, sq = sem["hq"], sem["hkv"], sem["head_dim"], sem["sq"]
    gen = torch.Generator(device=device)
    gen.manual_seed(b * 1000003 + s)
    q = torch.randn(b, hq, sq, d, generator=gen, device=device, dtype=dt)
    k = torch.randn(b, hkv, s, d, generator=gen, device=device, dtype=dt)
    v = torch.randn(b, hkv, s, d, generator=gen, device=device, dtype=dt)
    extra = {}
    if sem["kv_lens"]:
        extra["kv_lens"] = torch.full((b,), s, dtype=torch.int32, device=device)
    out = torch.full((b, hq, sq, d), float("nan"), device=device, dtype=dt)
    lse = torch.full((b, hq, sq), float("nan"), device=device, dtype=torch.float32) \
        if sem["lse"] else None
    return q, k, v, extra, out, lse


def check_speed(out, lse, q, k, v, sem, others, r):
    """FA2's rule for a speed-table output against the float32 reference,
    max|ours - X| <= 2 x tol for each output X of `others` (name -> O), and
    the LSE bound. Sets err, base_err, tol, X_err, diff_X, lse_err in r;
    returns the failures (empty when all hold)."""
    ref_o, ref_l = reference(q, k, v, None, sem)
    base_err = C.max_err(baseline(q, k, v, None, sem), ref_o)
    tol = C.o_tolerance(base_err)
    err = C.max_err(out, ref_o)
    r.update(err=err, base_err=base_err, tol=tol)
    why = []
    if not err <= tol:
        why.append(f"err {err:.3g} > tol {tol:.3g}")
    for name, o in others.items():
        r[f"{name}_err"] = C.max_err(o, ref_o)
        diff = C.max_err(out, o.float())
        r[f"diff_{name}"] = diff
        if not diff <= 2 * tol:
            why.append(f"max|ours - {name}| {diff:.3g} > 2 x tol {tol:.3g}")
    if lse is not None:
        lerr, bad = C.lse_errors(lse, ref_l)
        r["lse_err"] = float(lerr.max())
        if bool(bad.any()):
            why.append(f"LSE err {r['lse_err']:.3g}")
    return why


def run_speed(entry, kern, sem, shapes, args, notes, log=print, device="cuda"):
    import torch
    rows = []
    hq, hkv, d, sq = sem["hq"], sem["hkv"], sem["head_dim"], sem["sq"]
    scale = sem["scale"]
    backends = {n: be for n, be in torch_backends().items() if n in args.backends.split(",")}
    for b, s in shapes:
        r = {"batch": b, "kv_len": s, "hq": hq, "hkv": hkv, "head_dim": d, "seq_q": sq,
             "dtype": sem["dtype"], "func": entry["func"], "kv_bytes": kv_bytes(b, hkv, s, d)}
        try:
            q, k, v, extra, out, lse = speed_inputs(b, s, sem, device)
            fns, outs = {}, {}
            for name, be in backends.items():
                f, o, how = prepare_sdpa(name, be, q, k, v, scale, notes)
                r[f"{name}_how"] = how
                if f is not None:
                    fns[name], outs[name] = f, o
                else:
                    log(f"# {name} at {b}x{s}: {how}")
            kern(q, k, v, out=out, lse=lse, **extra)
            sync(device)
            why = check_speed(out, lse, q, k, v, sem, outs, r)
            r["verify"] = "MISMATCH" if why else "ok"
            if why:
                r["why"] = "; ".join(why)
                log(f"# {entry['func']} {b}x{s}: verification failed: {r['why']}")
            r["ours_us"] = 1e3 * bench_ms(lambda: kern(q, k, v, out=out, lse=lse, **extra),
                                          args.warmup, args.rep)
            for name, f in fns.items():
                r[f"{name}_us"] = 1e3 * bench_ms(f, args.warmup, args.rep)
            for name in ["ours"] + list(backends):
                us = r.get(f"{name}_us")
                r[f"{name}_tbps"] = tbps(r["kv_bytes"], us / 1e3) if us else None
            for name in backends:
                if r.get(f"{name}_us") and r.get("ours_us"):
                    # > 1: ours faster (time ratio theirs/ours = speed ratio ours/theirs)
                    r[f"ours_over_{name}"] = r[f"{name}_us"] / r["ours_us"]
            q = k = v = out = lse = fns = outs = extra = None  # free before the next shape
        except Exception as ex:  # noqa: BLE001
            r["verify"] = "error"
            r["why"] = f"{type(ex).__name__}: {str(ex)[:300]}"
            log(f"# {entry['func']} {b}x{s} raised: {r['why']}")
            if args.verbose:
                traceback.print_exc()
        if device != "cpu":
            torch.cuda.empty_cache()
        rows.append(r)
        log(speed_line(r))
    return rows


def _f(x, w, p):
    return f"{x:{w}.{p}f}" if isinstance(x, (int, float)) else f"{'-':>{w}}"


def shape_text(b, s):
    return f"{b}x{s // K}k" if s % K == 0 else f"{b}x{s}"


SPEED_HEADER = ("| B x KV | ours us | FA2 us | cuDNN us | ours TB/s | FA2 TB/s | cuDNN TB/s "
                "| ours/FA2 | ours/cuDNN | check |\n"
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")


def speed_line(r):
    cud = "" if r.get("cudnn_how") in (None, "enable_gqa") else "*"
    fa = "" if r.get("fa2_how") in (None, "enable_gqa") else "*"
    return (f"| {shape_text(r['batch'], r['kv_len'])} | {_f(r.get('ours_us'), 7, 1)} "
            f"| {_f(r.get('fa2_us'), 7, 1)}{fa} | {_f(r.get('cudnn_us'), 7, 1)}{cud} "
            f"| {_f(r.get('ours_tbps'), 5, 2)} | {_f(r.get('fa2_tbps'), 5, 2)} "
            f"| {_f(r.get('cudnn_tbps'), 5, 2)} | {_f(r.get('ours_over_fa2'), 5, 2)} "
            f"| {_f(r.get('ours_over_cudnn'), 5, 2)} | {r.get('verify', '')} |")


# --------------------------------------------------------------------------
# Latency

def find_latency_bin(args):
    cands = [args.latency_bin] if args.latency_bin else []
    cands += [os.path.join(args.artifacts, "flash-latency"),
              os.path.join(common.REPO, "build", "bin", "flash-latency")]
    for c in cands:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    return shutil.which("flash-latency")


def run_c_latency(args, entry, log=print):
    """flash-latency's JSON (sync / async x pointer checks), or an error dict."""
    exe = find_latency_bin(args)
    if not exe:
        return {"error": "flash-latency not found (build/bin, the artifact dir, PATH, --latency-bin)"}
    b, s = LATENCY_SHAPE
    cmd = [exe, entry["path"], entry["func"], f"--batch={b}", f"--kv={s}",
           f"--n={args.latency_n}", "--warmup=200", "--json"]
    env = dict(os.environ)
    if args.runtime:
        d = os.path.dirname(os.path.abspath(args.runtime))
        env["LD_LIBRARY_PATH"] = d + (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else "")
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=300, env=env)
    except Exception as ex:  # noqa: BLE001
        return {"error": f"{type(ex).__name__}: {ex}", "command": " ".join(cmd)}
    for line in p.stderr.splitlines():
        log(f"# flash-latency: {line}")
    js = None
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            try:
                js = json.loads(line)
            except ValueError:
                pass
        else:
            log(f"# flash-latency: {line}")
    if p.returncode != 0 or js is None:
        return {"error": f"exit {p.returncode}", "command": " ".join(cmd),
                "stderr": p.stderr[-2000:]}
    js["command"] = " ".join(cmd)
    return js


def wall_latency(fn, n, warmup=200):
    """Median and p90 of wall time per call of fn() + torch.cuda.synchronize()."""
    import torch
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        ts.append(time.perf_counter() - t0)
    ts.sort()
    return {"median_us": 1e6 * ts[len(ts) // 2], "p90_us": 1e6 * ts[int(0.9 * (len(ts) - 1))],
            "min_us": 1e6 * ts[0], "n": n}


def run_py_latency(kern, sem, args, notes, log=print):
    import torch
    b, s = LATENCY_SHAPE
    dt = common.torch_dtype(sem["dtype"])
    hq, hkv, d, sq = sem["hq"], sem["hkv"], sem["head_dim"], sem["sq"]
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dt)
    k = torch.randn(b, hkv, s, d, device="cuda", dtype=dt)
    v = torch.randn(b, hkv, s, d, device="cuda", dtype=dt)
    out = {}
    for name, be in torch_backends().items():
        if name not in args.backends.split(","):
            continue
        f, _, how = prepare_sdpa(name, be, q, k, v, sem["scale"], notes)
        if f is None:
            out[name] = {"error": how}
            continue
        out[name] = dict(wall_latency(f, args.latency_n), how=how)
    extra = {}
    if sem["kv_lens"]:
        extra["kv_lens"] = torch.full((b,), s, dtype=torch.int32, device="cuda")
    o = torch.empty(b, hq, sq, d, device="cuda", dtype=dt)
    lse = torch.empty(b, hq, sq, device="cuda", dtype=torch.float32) if sem["lse"] else None
    out["ours_python"] = wall_latency(lambda: kern(q, k, v, out=o, lse=lse, **extra), args.latency_n)
    return out


# --------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True, help="directory with the manifest and the .so files")
    ap.add_argument("--manifest", default="decode-manifest.json", help="manifest file name in --artifacts")
    ap.add_argument("--out", help="JSON results")
    ap.add_argument("--quick", action="store_true", help="batch 1, 3 x cache lengths 1, 65, 4097")
    ap.add_argument("--filter", help="regex over correctness case names")
    ap.add_argument("--seed", type=int, default=0, help="shifts every case's seed")
    ap.add_argument("--list", action="store_true", help="print the correctness cases and exit")
    ap.add_argument("--no-repeat", action="store_true", help="skip the second (determinism) run")
    ap.add_argument("--skip", default="", help="comma list of parts to skip: correctness,speed,latency")
    ap.add_argument("--func", default=SPEED_FUNC, help="entry timed in (b) and (c)")
    ap.add_argument("--shapes", default=",".join(f"{b}x{s}" for b, s in SPEED_SHAPES),
                    help="speed shapes BxS, comma separated")
    ap.add_argument("--backends", default="fa2,cudnn")
    ap.add_argument("--warmup", type=int, default=25, help="do_bench warm-up, ms")
    ap.add_argument("--rep", type=int, default=100, help="do_bench repetitions, ms")
    ap.add_argument("--latency-n", type=int, default=2000)
    ap.add_argument("--latency-bin", help="flash-latency (default: ARTIFACTS/, build/bin/, PATH)")
    ap.add_argument("--runtime", default=None,
                    help="libflashrt.so (default: $FLASHRT_LIB, else ARTIFACTS/libflashrt.so, else the binding's)")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        entries = common.read_manifest(args.artifacts, args.manifest)
    except Exception as ex:  # noqa: BLE001
        print(f"error: cannot read {os.path.join(args.artifacts, args.manifest)}: {ex}", file=sys.stderr)
        return 2
    others = [e["func"] for e in entries if e.get("kind", "decode") != "decode"]
    # Tile-config alternatives ("tune") are timed with --func, not checked.
    all_entries = entries
    entries = [e for e in entries if e.get("kind", "decode") == "decode"]
    skip = set(filter(None, args.skip.split(",")))
    cases = make_cases(entries, quick=args.quick, seed_base=args.seed)
    if args.filter:
        rx = re.compile(args.filter)
        cases = [c for c in cases if rx.search(c.name)]
    if args.list:
        for c in cases:
            print(f"#{c.idx} {c.name} seed={c.seed}")
        print(f"{len(cases)} cases over {len({c.entry['func'] for c in cases})} kernels")
        return 0
    try:
        shapes = [tuple(int(x) for x in t.lower().split("x")) for t in args.shapes.split(",") if t]
    except ValueError:
        print(f"error: bad --shapes {args.shapes!r} (want BxS,...)", file=sys.stderr)
        return 2
    if not args.runtime and not os.environ.get("FLASHRT_LIB"):
        cand = os.path.join(args.artifacts, "libflashrt.so")
        if os.path.isfile(cand):
            args.runtime = cand

    if not common.cuda_ready():
        return 2
    info = common.gpu_info()
    print(f"# {info.get('gpu')} sms={info.get('sms')} torch={info.get('torch')} "
          f"triton={info.get('triton')} cuda={info.get('cuda')}; {len(entries)} decode entries from "
          f"{os.path.join(args.artifacts, args.manifest)}", flush=True)
    if others:
        print(f"# ignored (kind != decode): {', '.join(others)}", flush=True)
    log = lambda s: print(s, flush=True)  # noqa: E731
    loader = common.KernelLoader(args.runtime)
    notes = []
    result = {"date": time.strftime("%Y-%m-%d %H:%M:%S"), **info,
              "command": " ".join([sys.executable] + sys.argv),
              "artifacts": args.artifacts, "manifest": args.manifest, "notes": notes}
    failed = 0

    # (a)
    if "correctness" not in skip:
        t0 = time.time()
        log(f"## (a) correctness: {len(cases)} cases")
        res = run_correctness(cases, loader.get, repeat=not args.no_repeat, verbose=args.verbose, log=log)
        nfail = summarize(res, log=log)
        failed += nfail
        result["correctness"] = {"passed": len(res) - nfail, "total": len(res),
                                 "seconds": time.time() - t0, "cases": res}
        log(f"# {time.time() - t0:.1f} s")

    # (b), (c)
    entry = next((e for e in all_entries if e["func"] == args.func), None)
    kern = sem = None
    if entry is None and not {"speed", "latency"} <= skip:
        log(f"# no entry {args.func} in the manifest: ours not timed")
        failed += 1
    elif entry is not None:
        kern, err = loader.get(entry)
        if kern is None:
            log(f"# {args.func} did not load: {err}")
            failed += 1
        else:
            sem = semantics(entry, getattr(kern, "abi", None) or {})
    if "speed" not in skip and kern is not None:
        log(f"## (b) speed: {args.func} ({sem['dtype']}, Hq {sem['hq']}, Hkv {sem['hkv']}, "
            f"D {sem['head_dim']}, Sq {sem['sq']}) vs torch SDPA enable_gqa; "
            f"do_bench(warmup={args.warmup}, rep={args.rep}, median); TB/s = KV bytes / time; "
            "ours/X = X time / ours time (> 1: ours faster)")
        log(SPEED_HEADER)
        rows = run_speed(entry, kern, sem, shapes, args, notes, log=log)
        bad = sum(r.get("verify") != "ok" for r in rows)
        failed += bad
        result["speed"] = {"func": args.func,
                           "timing": f"triton.testing.do_bench(warmup={args.warmup}, rep={args.rep}, "
                                     "return_mode='median')",
                           "bandwidth": "KV bytes 2*B*Hkv*S*D*2 / time", "rows": rows}
        print("\n" + SPEED_HEADER)
        for r in rows:
            print(speed_line(r))
        for n in notes:
            print(f"* {n}")
        print(flush=True)
    if "latency" not in skip and kern is not None:
        b, s = LATENCY_SHAPE
        log(f"## (c) end-to-end latency at {shape_text(b, s)}, n={args.latency_n}")
        lat = {"shape": [b, s], "c_api": run_c_latency(args, entry, log=log)}
        try:
            lat.update(run_py_latency(kern, sem, args, notes, log=log))
        except Exception as ex:  # noqa: BLE001
            lat["python_error"] = f"{type(ex).__name__}: {str(ex)[:300]}"
        result["latency"] = lat
        print(latency_table(lat), flush=True)

    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(result, f, indent=1, default=str)
        print(f"# written {args.out}")
        plot.plot_next_to(args.out)
    return 1 if failed else 0


def latency_table(lat):
    lines = ["| path | median us | p90 us |", "|---|---:|---:|"]
    c = lat.get("c_api") or {}
    if "error" in c:
        lines.append(f"| C API (flash-latency) | error: {c['error']} | |")
    for m in c.get("modes", []):
        lines.append(f"| C API {m['mode']}, pointer checks {'on' if m['pointer_checks'] else 'off'} "
                     f"| {_f(m.get('median_us'), 6, 1)} | {_f(m.get('p90_us'), 6, 1)} |")
    names = {"ours_python": "ours via Python binding + torch.cuda.synchronize()",
             "fa2": "torch SDPA FA2 + torch.cuda.synchronize()",
             "cudnn": "torch SDPA cuDNN + torch.cuda.synchronize()"}
    for key, label in names.items():
        x = lat.get(key)
        if not x:
            continue
        if "error" in x:
            lines.append(f"| {label} | error: {x['error'][:80]} | |")
        else:
            how = "" if x.get("how") in (None, "enable_gqa") else f" ({x['how']})"
            lines.append(f"| {label}{how} | {_f(x['median_us'], 6, 1)} | {_f(x['p90_us'], 6, 1)} |")
    if "python_error" in lat:
        lines.append(f"| python | error: {lat['python_error']} | |")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
