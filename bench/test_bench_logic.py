#!/usr/bin/env python3
"""CPU self-test of the pure-Python parts of bench/correctness.py,
bench/benchmark.py and bench/decode.py: case generation, the reference (against a brute-force
loop), the tolerance and poisoning logic (a correct fake kernel passes, broken
fakes fail for the right reason), manifest handling and the benchmark table.
Needs torch (any recent CPU build); no GPU, no flashmlir.

  python3 bench/test_bench_logic.py        # ends with 'N passed, N failed'
"""
import io
import json
import math
import os
import sys
import tempfile
import traceback
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch  # noqa: E402

import benchmark  # noqa: E402
import common  # noqa: E402
import correctness as C  # noqa: E402
import decode  # noqa: E402

DEV = "cpu"


def manifest(dtypes=("bf16", "f16"), hdims=(64, 128), causal=(False, True)):
    out = []
    for dt in dtypes:
        for d in hdims:
            for c in causal:
                out.append({"so": "kernels.so", "func": f"attn_{dt}_d{d}{'_causal' if c else ''}",
                            "dtype": dt, "head_dim": d, "causal": c, "path": "/nonexistent/kernels.so"})
    return out


class FakeKernel:
    """Implements the op's semantics the way a flash kernel would (float32
    math, output rounded to the input dtype), with optional planted bugs."""

    def __init__(self, entry, bug=None):
        self.bug = bug
        d = entry["head_dim"]
        self.abi = {"func": entry["func"], "dtype": entry["dtype"], "head_dim": d, "head_dim_v": d,
                    "causal": entry["causal"], "window": [-1, -1], "softcap": 0.0,
                    "scale": 1.0 / math.sqrt(d), "lse": True, "arch": "sm_90", "block_m": 128,
                    "block_n": 64, "warps": 4, "stages": 2, "smem_bytes": 0}
        self.calls = 0

    def __call__(self, q, k, v, out=None, lse=None):
        self.calls += 1
        abi = common.entry_abi(self.abi, self.abi)
        if self.bug == "topleft":
            abi = dict(abi)
            sq, sk = q.shape[2], k.shape[2]
            o, l = self._topleft(q, k, v, abi)
        else:
            o, l = C.attention_math(q, k, v, abi, torch.float32)
        if self.bug == "noise":
            o = o + 1e-2 * torch.randn_like(o)
        if self.bug == "unsafe_softmax":
            # exp without the max subtraction: overflows on large logits
            g = q.shape[1] // k.shape[1]
            sc = q.float() @ k.float().repeat_interleave(g, 1).transpose(-1, -2) * abi["scale"]
            m = C.visible(q.shape[2], k.shape[2], abi["causal"], abi["window"], q.device)
            p = torch.exp(sc)
            if m is not None:
                p = p.masked_fill(~m, 0.0)
            den = p.sum(-1, keepdim=True)
            o = (p @ v.float().repeat_interleave(g, 1)) / torch.where(den == 0, torch.ones_like(den), den)
            l = torch.log(den.squeeze(-1))
        if isinstance(self.bug, tuple) and self.bug[0] == "offset":
            # every element of a row that sees a key off by exactly this much
            o = o + self.bug[1] * torch.isfinite(l).unsqueeze(-1)
        if isinstance(self.bug, tuple) and self.bug[0] == "err_x":
            # f times the error of torch's own computation in the input dtype
            base = C.attention_math(q, k, v, abi, q.dtype)[0].float()
            o = o + self.bug[1] * (base - o)
        if self.bug == "race" and self.calls % 2 == 0:
            o = o.clone()
            o.view(-1)[0] += 0.5
        if self.bug == "lse_off":
            l = l + 0.01
        if self.bug == "plus_inf":
            l = torch.where(torch.isinf(l), torch.full_like(l, float("inf")), l)
        if self.bug == "nan_dead":
            dead = torch.isinf(l)
            o = o.masked_fill(dead.unsqueeze(-1), float("nan"))
        out.copy_(o.to(out.dtype))
        if lse is not None:
            lse.copy_(l)
        if self.bug == "skip_last_row":
            out[:, :, -1, :] = float("nan")
        if self.bug == "overflow":
            # write one element past the end of O's storage
            base = out.as_strided((1,), (1,), out.storage_offset() + out.numel())
            base.fill_(0)
        if self.bug == "new_tensor":
            return o.to(out.dtype).clone(), lse
        return out, lse

    def _topleft(self, q, k, v, abi):
        # causal aligned top-left (j <= i): wrong when Sq != Sk
        sq, sk = q.shape[2], k.shape[2]
        if not abi["causal"]:
            return C.attention_math(q, k, v, abi, torch.float32)
        a = dict(abi, causal=False)
        i = torch.arange(sq).unsqueeze(1)
        j = torch.arange(sk).unsqueeze(0)
        g = q.shape[1] // k.shape[1]
        s = q.float() @ k.float().repeat_interleave(g, 1).transpose(-1, -2) * a["scale"]
        s = s.masked_fill(~(j <= i), float("-inf"))
        lse = torch.logsumexp(s, -1)
        p = torch.exp(s - torch.where(torch.isinf(lse), torch.zeros_like(lse), lse).unsqueeze(-1))
        return p @ v.float().repeat_interleave(g, 1), lse


def loader_for(bug=None, fail_load=()):
    cache = {}

    def get(e):
        if e["func"] in fail_load:
            return None, "OSError: cannot open"
        if e["func"] not in cache:
            cache[e["func"]] = FakeKernel(e, bug)
        return cache[e["func"]], None
    return get


def small(entries, pairs):
    """Cases of the real generator, restricted to bf16 and small pairs."""
    cs = [c for c in C.make_cases(entries, quick=False) if (c.sq, c.sk) in pairs and c.entry["dtype"] == "bf16"]
    for c in cs:
        c.batch = 1  # keep CPU time down
    return cs


class SharedMath:
    """While a quiet_run runs, each case's inputs are drawn once and
    attention_math runs once per (inputs, dtype, semantics): make_inputs is a
    function of the case (its seed), and attention_math of its arguments, so
    the fake kernel's float32 math, the reference and the baseline are the
    very tensors the unshared code computes again, bit for bit, and every
    verdict is the same. The point is time: Debian's CPU torch multiplies
    with a generic GEMM, and the planted-bug tests run the same cases again
    and again (a minute of identical products before). Outputs are handed
    out as copies; the cache holds the input tensors, so their ids stay
    unique while they key it."""

    def __init__(self):
        self.inputs, self.math = {}, {}
        self.make_inputs, self.attention_math = C.make_inputs, C.attention_math

    def shared_inputs(self, case, abi, device):
        key = (case.name, case.seed, abi["dtype"], abi["head_dim"], abi["head_dim_v"], str(device))
        if key not in self.inputs:
            self.inputs[key] = self.make_inputs(case, abi, device)
        return self.inputs[key]

    def shared_math(self, q, k, v, abi, dtype, mods=None):
        if mods is not None:
            return self.attention_math(q, k, v, abi, dtype, mods)
        key = (id(q), id(k), id(v), dtype, repr(sorted(abi.items())))
        hit = self.math.get(key)
        if hit is None or not (hit[0] is q and hit[1] is k and hit[2] is v):
            hit = (q, k, v, self.attention_math(q, k, v, abi, dtype))
            self.math[key] = hit
        o, lse = hit[3]
        return o.clone(), None if lse is None else lse.clone()

    def __enter__(self):
        C.make_inputs, C.attention_math = self.shared_inputs, self.shared_math
        return self

    def __exit__(self, *exc):
        C.make_inputs, C.attention_math = self.make_inputs, self.attention_math


SHARED = SharedMath()


def quiet_run(cases, loader, **kw):
    logs = []
    with SHARED:
        res = C.run_all(cases, loader, device=DEV, log=logs.append, **kw)
    return res, logs


# ---------------------------------------------------------------- tests

def test_case_matrix_size_and_coverage():
    for ents in (manifest(), manifest(dtypes=("bf16",)), manifest(dtypes=("bf16",), hdims=(128,), causal=(True,))):
        cs = C.make_cases(ents)
        assert len(cs) >= 200, len(cs)
        for e in ents:
            ours = [c for c in cs if c.entry["func"] == e["func"]]
            mixed = [c for c in ours if c.layout == "mixed"]
            assert [(c.sq, c.sk) for c in mixed] == C.MIXED_PAIRS
            mine = [c for c in ours if c.layout != "mixed"]
            assert {(c.hq, c.hkv) for c in mine} == set(C.GQAS)
            assert {c.layout for c in mine} == set(C.LAYOUTS)
            assert {c.batch for c in mine} == {1, 2}
            assert {(c.sq, c.sk) for c in mine} == set(C.SEQ_PAIRS)
            for p in C.SEQ_PAIRS:
                assert {(c.hq, c.hkv) for c in mine if (c.sq, c.sk) == p} == set(C.GQAS)
    cs = C.make_cases(manifest())
    assert len({c.seed for c in cs}) == len(cs), "seeds must differ per case"
    # deterministic
    assert [c.name for c in cs] == [c.name for c in C.make_cases(list(reversed(manifest())))]
    assert [c.seed for c in cs] == [c.seed for c in C.make_cases(manifest())]
    q = C.make_cases(manifest(), quick=True)
    assert 30 <= len(q) < len(cs)
    need = {1, 17, 64, 113, 128, 255, 256, 1000, 1024}
    assert need <= {s for p in C.SEQ_PAIRS for s in p}
    assert any(a < b for a, b in C.SEQ_PAIRS) and any(a > b for a, b in C.SEQ_PAIRS)
    s = C.sanitize_cases(manifest())
    assert len(s) == 3 and s[0].entry["causal"] and not s[2].entry["causal"]
    assert C.make_cases([]) == []


def test_reference_vs_bruteforce():
    g = torch.Generator().manual_seed(1)
    for causal in (False, True):
        for (sq, sk) in ((5, 9), (9, 5), (1, 7), (7, 1), (6, 6)):
            for window in ((-1, -1), (2, 1)):
                for softcap in (0.0, 3.0):
                    hq, hkv, d = 4, 2, 8
                    q = torch.randn(2, hq, sq, d, generator=g, dtype=torch.float64)
                    k = torch.randn(2, hkv, sk, d, generator=g, dtype=torch.float64)
                    v = torch.randn(2, hkv, sk, d, generator=g, dtype=torch.float64)
                    abi = {"scale": 0.3, "causal": causal, "window": window, "softcap": softcap}
                    o, l = C.attention_math(q, k, v, abi, torch.float64)
                    for b in range(2):
                        for h in range(hq):
                            for i in range(sq):
                                logits, vis = [], []
                                for j in range(sk):
                                    off = sk - sq
                                    ok = (not causal or j <= i + off) and \
                                         (window[0] < 0 or j >= i + off - window[0]) and \
                                         (window[1] < 0 or j <= i + off + window[1])
                                    if ok:
                                        s = float(q[b, h, i] @ k[b, h // 2, j]) * 0.3
                                        if softcap:
                                            s = softcap * math.tanh(s / softcap)
                                        logits.append(s)
                                        vis.append(j)
                                if not vis:
                                    assert l[b, h, i] == float("-inf")
                                    assert bool((o[b, h, i] == 0).all())
                                    continue
                                m = max(logits)
                                lse = m + math.log(sum(math.exp(x - m) for x in logits))
                                assert abs(float(l[b, h, i]) - lse) < 1e-5 * max(1, abs(lse))
                                ref = sum(math.exp(x - lse) * v[b, h // 2, j] for x, j in zip(logits, vis))
                                assert float((o[b, h, i] - ref).abs().max()) < 1e-9
                    # the input-dtype baseline agrees on dead rows and is close elsewhere
                    ob = C.attention_math(q.to(torch.bfloat16), k.to(torch.bfloat16), v.to(torch.bfloat16),
                                          abi, torch.bfloat16)[0]
                    assert not torch.isnan(ob).any()
                    assert float((ob.double() - o).abs().max()) < 0.1


def test_poisoned_layouts():
    for layout in ("bhsd", "bshd"):
        t, flat = C.poisoned((2, 3, 5, 4), layout, torch.bfloat16, DEV, 16)
        assert t.shape == (2, 3, 5, 4) and torch.isnan(t).all()
        if layout == "bshd":
            assert t.stride() == (5 * 3 * 4, 4, 3 * 4, 1)
            assert t.transpose(1, 2).is_contiguous()
        else:
            assert t.is_contiguous()
        t.fill_(1)
        assert C.guards_intact(flat, 16)
        assert int((flat == 1).sum()) == t.numel()
        flat[16 + t.numel()] = 0
        assert not C.guards_intact(flat, 16)


def test_inputs_layout_and_seed():
    e = manifest()[0]
    c = C.Case(0, e, 2, 8, 2, 17, 33, "bshd")
    abi = common.entry_abi(e)
    q, k, v = C.make_inputs(c, abi, DEV)
    assert q.shape == (2, 8, 17, 64) and k.shape == (2, 2, 33, 64) and q.dtype == torch.bfloat16
    assert q.transpose(1, 2).is_contiguous() and not q.is_contiguous()
    q2, _, _ = C.make_inputs(c, abi, DEV)
    assert torch.equal(q, q2)
    c2 = C.Case(0, e, 2, 8, 2, 17, 33, "bhsd")
    assert c2.seed != c.seed and C.make_inputs(c2, abi, DEV)[0].is_contiguous()
    assert float(q.float().abs().min()) >= 0 and float(q.float().abs().max()) > 0


PAIRS = {(1, 17), (17, 1), (17, 17), (64, 128), (113, 113), (113, 255), (255, 113), (128, 17)}


def test_correct_fake_passes():
    ents = manifest(dtypes=("bf16",))
    cs = small(ents, PAIRS)
    assert len(cs) >= 16
    res, logs = quiet_run(cs, loader_for())
    bad = [r for r in res if not r["ok"]]
    assert not bad, bad[:3]
    assert any(r["dead_rows"] for r in res), "causal Sq > Sk must produce rows with no key"
    buf = io.StringIO()
    with redirect_stdout(buf):
        nfail = C.summarize(res)
    assert nfail == 0 and f"correctness: {len(res)}/{len(res)} passed" in buf.getvalue()


def expect_fail(bug, needle, pairs=PAIRS, causal_only=False, **kw):
    ents = manifest(dtypes=("bf16",), hdims=(64,), causal=(True,) if causal_only else (False, True))
    cs = small(ents, pairs)
    res, logs = quiet_run(cs, loader_for(bug), **kw)
    bad = [r for r in res if not r["ok"]]
    assert bad, f"bug {bug} not detected"
    assert any(needle in r["why"] for r in bad), (bug, [r["why"] for r in bad][:3])
    assert all(l.startswith("FAIL #") and "seed=" in l for l in logs)
    assert len(logs) == len(bad)
    return res


def test_broken_fakes_fail():
    expect_fail("noise", "O err")
    expect_fail("topleft", "O err", pairs={(17, 113), (113, 255), (255, 113), (64, 128)}, causal_only=True)
    expect_fail("skip_last_row", "NaN/unwritten O")
    expect_fail("overflow", "guard zone")
    expect_fail("race", "second run differs")
    expect_fail("lse_off", "LSE err")
    expect_fail("plus_inf", "LSE is not -inf", pairs={(255, 113)}, causal_only=True)
    expect_fail("nan_dead", "NaN/unwritten O", pairs={(255, 113)}, causal_only=True)
    expect_fail("new_tensor", "not the out= tensor")


def test_load_failure_and_abi_mismatch():
    ents = manifest(dtypes=("bf16",), hdims=(64,), causal=(False,))
    cs = small(ents, {(17, 17)})
    res, logs = quiet_run(cs, loader_for(fail_load={ents[0]["func"]}))
    assert all(not r["ok"] and "did not load" in r["why"] for r in res)
    # manifest says causal, kernel says not
    e = dict(ents[0], causal=True)
    cs = small([e], {(17, 17)})

    def get(entry):
        k = FakeKernel(dict(entry, causal=False))
        return k, None
    res, _ = quiet_run(cs, get)
    assert all(not r["ok"] and "mismatch" in r["why"] for r in res)


def test_raising_kernel():
    ents = manifest(dtypes=("bf16",), hdims=(64,), causal=(False,))
    cs = small(ents, {(17, 17)})

    class Boom(FakeKernel):
        def __call__(self, *a, **k):
            raise RuntimeError("launch failed: too many resources")
    res, logs = quiet_run(cs, lambda e: (Boom(e), None))
    assert all("raised RuntimeError: launch failed" in r["why"] for r in res)


def f32_cases(pairs):
    ents = manifest(dtypes=("f32",), hdims=(64,), causal=(False, True))
    cs = [c for c in C.make_cases(ents, quick=False) if (c.sq, c.sk) in pairs]
    for c in cs:
        c.batch = 1
    return cs


def test_tolerance_floor():
    # f32 kernels: torch's own f32 computation is the reference, so the
    # baseline error is 0 and the tolerance is the floor alone. A kernel off
    # by 2e-5 everywhere must fail, one off by 5e-6 must pass.
    assert C.ATOL_FLOOR <= 1e-5
    cs = f32_cases({(17, 1), (113, 255)})
    assert len(cs) >= 4
    res, _ = quiet_run(cs, loader_for())
    assert all(r["ok"] and r["base_err"] == 0 and r["tol"] == C.ATOL_FLOOR for r in res), res[:2]
    res, _ = quiet_run(cs, loader_for(("offset", 5e-6)))
    assert all(r["ok"] for r in res), [r.get("why") for r in res][:2]
    res, _ = quiet_run(cs, loader_for(("offset", 2e-5)))
    assert all(not r["ok"] and "O err" in r["why"] for r in res), [r.get("why") for r in res][:2]


def test_tolerance_factor():
    # bf16: the tolerance is 2 x torch's bf16 error (+ floor). A kernel with
    # torch's own error passes; one with 4x that error fails.
    ents = manifest(dtypes=("bf16",), hdims=(64,), causal=(False, True))
    cs = small(ents, {(113, 255), (128, 128), (64, 128)})
    res, _ = quiet_run(cs, loader_for(("err_x", 1.0)))
    assert all(r["ok"] and r["base_err"] > 10 * C.ATOL_FLOOR for r in res), \
        [r.get("why") for r in res][:2]
    res, _ = quiet_run(cs, loader_for(("err_x", 4.0)))
    assert all(not r["ok"] and "O err" in r["why"] for r in res), [r.get("why") for r in res][:2]


def test_large_logits():
    # The large-logit cases: in the matrix for every kernel, passed by a
    # correct kernel, failed by a softmax without the max subtraction.
    ents = manifest(dtypes=("bf16",), hdims=(64,), causal=(False, True))
    cs = [c for c in C.make_cases(ents, quick=True) if c.large]
    assert len(cs) == len(ents) * len(C.LARGE_PAIRS)
    for c in cs:
        c.batch = 1
    res, _ = quiet_run(cs, loader_for())
    assert all(r["ok"] for r in res), [r.get("why") for r in res if not r["ok"]][:2]
    res, _ = quiet_run(cs, loader_for("unsafe_softmax"))
    assert all(not r["ok"] for r in res), [r["sq"] for r in res if r["ok"]]


def test_cli_list_and_manifest():
    with tempfile.TemporaryDirectory() as d:
        m = [{k: v for k, v in e.items() if k != "path"} for e in manifest()]
        json.dump(m, open(os.path.join(d, "manifest.json"), "w"))
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = C.main(["--artifacts", d, "--list"])
        assert rc == 0
        lines = buf.getvalue().strip().splitlines()
        assert lines[-1].startswith(f"{len(lines) - 1} cases over 8 kernels") and len(lines) - 1 >= 200
        buf = io.StringIO()
        with redirect_stdout(buf):
            rc = C.main(["--artifacts", d, "--list", "--sanitize"])
        assert rc == 0 and "3 cases" in buf.getvalue()
        with redirect_stdout(io.StringIO()):
            assert C.main(["--artifacts", d, "--list", "--filter", "f16_d64 .*Sq=1 "]) == 0
        ents = common.read_manifest(d)
        assert ents[0]["path"] == os.path.join(d, "kernels.so")
        # benchmark's kernel selection
        assert [e["func"] for e in benchmark.select(ents, 128, True)] == ["attn_bf16_d128_causal"]
        assert benchmark.select(ents, 96, False) == []
    with redirect_stdout(io.StringIO()), redirect_stderr_null():
        assert C.main(["--artifacts", "/nonexistent"]) == 2


class redirect_stderr_null:
    def __enter__(self):
        self.old = sys.stderr
        sys.stderr = io.StringIO()

    def __exit__(self, *a):
        sys.stderr = self.old


def test_entry_abi_defaults():
    a = common.entry_abi({"func": "f", "dtype": "bf16", "head_dim": 128, "causal": True})
    assert a["scale"] == 1 / math.sqrt(128) and a["window"] == (-1, -1) and a["lse"] and common.is_plain(a)
    a = common.entry_abi({"func": "f", "dtype": "bf16", "head_dim": 128}, {"window": [256, 0], "scale": 0.1})
    assert a["window"] == (256, 0) and a["scale"] == 0.1 and not common.is_plain(a)
    assert common.abi_mismatch({"dtype": "bf16", "head_dim": 64}, {"dtype": "f16", "head_dim": 64}) == \
        ["dtype: manifest 'bf16' vs abi 'f16'"]
    assert common.abi_mismatch({"window": None}, {"window": [-1, -1]}) == []


def test_benchmark_math_and_table():
    assert benchmark.flops(2, 16, 8192, 8192, 128, False) == 4 * 2 * 16 * 8192 * 8192 * 128
    assert benchmark.flops(2, 16, 8192, 8192, 128, True) == 2 * 2 * 16 * 8192 * 8192 * 128
    cfgs = benchmark.configs([64, 128], [512, 16384], [False, True])
    assert len(cfgs) == 8
    c = [x for x in cfgs if x["hdim"] == 64 and x["seqlen"] == 512][0]
    assert c["batch"] == 32 and c["nheads"] == 32
    c = [x for x in cfgs if x["hdim"] == 128 and x["seqlen"] == 16384][0]
    assert c["batch"] == 1 and c["nheads"] == 16
    rows = [dict(hdim=128, causal=False, seqlen=4096, func="attn", ours=300.0, fa2=344.0, cudnn=600.0, verify="ok"),
            dict(hdim=64, causal=True, seqlen=512, func=None, ours=None, fa2=153.0, cudnn=None, verify="skip")]
    buf = io.StringIO()
    with redirect_stdout(buf):
        benchmark.print_table(rows)
    t = buf.getvalue()
    assert "0.87" in t and "0.50" in t and "skip" in t, t
    assert len(t.strip().splitlines()) == 3


def test_benchmark_verify():
    g = torch.Generator().manual_seed(3)
    b, h, sq, d = 2, 4, 200, 64
    q, k, v = (torch.randn(b, sq, h, d, generator=g, dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
    for causal in (False, True):
        abi = common.entry_abi({"func": "f", "dtype": "bf16", "head_dim": d, "causal": causal})
        o, l = C.attention_math(q, k, v, abi, torch.float32)
        ours, fa2 = o.to(torch.bfloat16), o.to(torch.bfloat16)
        ok, info = benchmark.verify(ours, l, fa2, q, k, v, abi)
        assert ok, info
        assert info["max_diff_fa2"] == 0 and info["err_slice"] <= info["tol_slice"]
        bad = ours.clone()
        bad[1, 3, 7, 5] += 0.25  # outside the reference slice: only FA2's output sees it
        ok, info = benchmark.verify(bad, l, fa2, q, k, v, abi)
        assert not ok and "FA2" in info["why"], info
        bad = ours.clone()
        bad[0, 1, -1, :] = float("nan")
        ok, info = benchmark.verify(bad, l, fa2, q, k, v, abi)
        assert not ok and "NaN" in info["why"], info
        ok, info = benchmark.verify(ours, l + 0.05, fa2, q, k, v, abi)
        assert not ok and "LSE" in info["why"], info


# ---------------------------------------------------------------- decode.py

def decode_entry(hq, hkv, sq, d, causal=False, lens=False, page=0):
    name = f"dec_d{d}_h{hq}x{hkv}_q{sq}{'_causal' if causal else ''}{'_lens' if lens else ''}" \
           f"{f'_page{page}' if page else ''}"
    return {"so": "decode.so", "func": name, "kind": "decode", "dtype": "bf16", "head_dim": d,
            "causal": causal, "heads_q": hq, "heads_kv": hkv, "seq_q": sq, "kv_lens": lens,
            "paged": bool(page), "page_size": page, "path": "/nonexistent/decode.so"}


class FakeDecodeKernel:
    """A decode entry computed by brute force in float64, one sequence at a
    time, reading keys through kv_lens and the block table as the op defines
    them (never touching dead rows), with planted bugs."""

    def __init__(self, e, bug=None):
        self.bug = bug
        d, page = e["head_dim"], e["page_size"]
        self.abi = {"func": e["func"], "dtype": "bf16", "head_dim": d, "head_dim_v": d,
                    "causal": e["causal"], "window": [-1, -1], "softcap": 0.0,
                    "scale": 1.0 / math.sqrt(d), "lse": True, "kv_lens": e["kv_lens"],
                    "paged": e["paged"], "split_kv": True,
                    "q_shape": [-1, e["heads_q"], e["seq_q"], d],
                    "kv_shape": [-1, e["heads_kv"], page if page else -1, d]}
        self.calls = 0

    def __call__(self, q, k, v, out=None, lse=None, kv_lens=None, block_table=None):
        self.calls += 1
        assert (kv_lens is not None) == self.abi["kv_lens"]
        assert (block_table is not None) == self.abi["paged"]
        b_, hq, sq, d = q.shape
        hkv = k.shape[1]
        g = hq // hkv
        scale = self.abi["scale"]
        for b in range(b_):
            if self.abi["paged"]:
                ps = k.shape[2]
                L = int(kv_lens[b])
                j = torch.arange(L)
                if self.bug == "identity_table":
                    pages = b * block_table.shape[1] + j // ps
                else:
                    pages = block_table[b].long()[j // ps]
                kb, vb = k[pages, :, j % ps], v[pages, :, j % ps]  # [L, Hkv, D]
                kb, vb = kb.transpose(0, 1), vb.transpose(0, 1)
            else:
                L = int(kv_lens[b]) if kv_lens is not None else k.shape[2]
                if self.bug == "ignore_lens":
                    L = k.shape[2]
                kb, vb = k[b, :, :L], v[b, :, :L]
            kb = kb.double().repeat_interleave(g, 0)  # [Hq, L, D]
            vb = vb.double().repeat_interleave(g, 0)
            s = q[b].double() @ kb.transpose(-1, -2) * scale  # [Hq, Sq, L]
            if self.abi["causal"]:
                i = torch.arange(sq).view(-1, 1)
                jj = torch.arange(L).view(1, -1)
                vis = jj <= i + (L - sq) if self.bug != "topleft" else jj <= i
                s = s.masked_fill(~vis, float("-inf"))
            l = torch.logsumexp(s, -1) if L else torch.full((hq, sq), float("-inf"), dtype=torch.float64)
            safe = torch.where(torch.isinf(l), torch.zeros_like(l), l)
            o = torch.exp(s - safe.unsqueeze(-1)) @ vb if L else torch.zeros(hq, sq, d, dtype=torch.float64)
            if self.bug == "dead_nan":
                o = o.masked_fill(torch.isinf(l).unsqueeze(-1), float("nan"))
            out[b].copy_(o.to(out.dtype))
            lse[b].copy_(l.float())
        return out, lse


DECODE_ENTRIES = [decode_entry(4, 2, 1, 16), decode_entry(4, 2, 1, 16, lens=True),
                  decode_entry(4, 2, 1, 16, lens=True, page=4),
                  decode_entry(4, 1, 4, 16, causal=True, lens=True),
                  decode_entry(4, 2, 4, 16, causal=True, lens=True, page=16)]


def decode_small_cases(entries=DECODE_ENTRIES):
    return [c for c in decode.make_cases(entries) if c.cap <= 65]


def decode_run(cases, bug=None):
    kernels = {}

    def get(e):
        if e["func"] not in kernels:
            kernels[e["func"]] = FakeDecodeKernel(e, bug)
        return kernels[e["func"]], None
    logs = []
    res = decode.run_correctness(cases, get, device=DEV, log=logs.append)
    return res, logs


def test_decode_case_matrix():
    cs = decode.make_cases(DECODE_ENTRIES)
    assert len(cs) == len(DECODE_ENTRIES) * 3 * 7 * 2
    for e in DECODE_ENTRIES:
        mine = [c for c in cs if c.entry["func"] == e["func"]]
        assert {c.batch for c in mine} == {1, 3, 16}
        assert {c.cap for c in mine} == set(decode.CACHE_LENS)
        assert {c.layout for c in mine} == {"bhsd", "bshd"}
    # lengths: full, 0 and 1 for every kv_lens entry, Sq-1 / Sq around a chunk
    g = torch.Generator().manual_seed(0)
    seen = set()
    for c in cs:
        if c.entry["func"] == DECODE_ENTRIES[3]["func"]:
            lens = decode.make_lens(c.batch, c.cap, 4, True, c.variant, g)
            assert len(lens) == c.batch and all(0 <= x <= c.cap for x in lens)
            seen.update((x == c.cap, x) for x in lens)
    vals = {x for _, x in seen}
    assert {0, 1, 3, 4, 5, 32768}.issubset(vals), sorted(vals)[:10]


def test_decode_paged_inputs():
    e = DECODE_ENTRIES[2]
    sem = decode.semantics(e, FakeDecodeKernel(e).abi)
    assert sem["paged"] and sem["page_size"] == 4 and sem["hq"] == 4 and sem["hkv"] == 2
    c = decode.Case(0, e, 3, 17, "bshd", 1)
    inp = decode.make_inputs(c, sem, DEV)
    k, t, lens = inp["k"], inp["block_table"], inp["lens"]
    assert k.shape[1:] == (2, 4, 16) and not k.is_contiguous() and k.transpose(1, 2).is_contiguous()
    assert t.dtype == torch.int32 and t.shape == (3, 5) and len(set(t.flatten().tolist())) == 15
    spare = sorted(set(range(k.shape[0])) - set(t.flatten().tolist()))
    assert spare and bool(torch.isnan(k[spare]).all())
    for b in range(3):
        for j in range(20):
            row = k[int(t[b, j // 4]), :, j % 4]
            assert bool(torch.isnan(row).all()) == (j >= lens[b]), (b, j, lens)
    # the logical view the reference reads
    assert inp["k_ref"].shape == (3, 2, 17, 16)
    b, j = 0, min(lens[0], 17) - 1
    if j >= 0:
        assert torch.equal(inp["k_ref"][b, :, j], k[int(t[b, j // 4]), :, j % 4])


def test_decode_reference_vs_bruteforce():
    """A correct kernel passes every small case (so the reference, the
    lengths, the page gather and the causal alignment agree with a per-
    sequence brute force), with dead rows where expected."""
    cs = decode_small_cases()
    res, logs = decode_run(cs)
    assert all(r["ok"] for r in res), logs[:5]
    assert any(r.get("dead_rows") for r in res)
    buf = io.StringIO()
    with redirect_stdout(buf):
        nfail = decode.summarize(res)
    assert nfail == 0 and f"decode-correctness: {len(res)}/{len(res)} passed" in buf.getvalue()


def test_decode_planted_bugs():
    cs = decode_small_cases()
    for bug, entry, want in (("ignore_lens", 1, "NaN"), ("identity_table", 2, "err"),
                             ("topleft", 3, "err"), ("dead_nan", 1, "NaN")):
        mine = [c for c in cs if c.entry["func"] == DECODE_ENTRIES[entry]["func"]]
        res, logs = decode_run(mine, bug)
        bad = [r for r in res if not r["ok"]]
        assert bad, bug
        assert any(want in r["why"] for r in bad), (bug, bad[0]["why"])
        assert all(line.startswith("FAIL #") for line in logs), logs[:2]


def test_decode_abi_mismatch_and_tables():
    e = DECODE_ENTRIES[1]
    abi = dict(FakeDecodeKernel(e).abi, q_shape=[-1, 8, 1, 16])
    assert decode.decode_mismatch(e, abi) == ["heads_q: manifest 4 vs abi 8"]
    assert decode.decode_mismatch(e, FakeDecodeKernel(e).abi) == []
    r = {"batch": 16, "kv_len": 32768, "ours_us": 100.0, "fa2_us": 120.0, "cudnn_us": 90.0,
         "ours_tbps": 2.7, "fa2_tbps": 2.2, "cudnn_tbps": 3.0, "ours_over_fa2": 1.2,
         "ours_over_cudnn": 0.9, "verify": "ok", "cudnn_how": "repeat_interleave"}
    line = decode.speed_line(r)
    assert "16x32k" in line and "1.20" in line and "90.0*" in line, line
    assert decode.kv_bytes(1, 8, 4096, 128) == 16 * 1024 * 1024
    t = decode.latency_table({"c_api": {"modes": [{"mode": "sync", "pointer_checks": True,
                                                    "median_us": 12.5, "p90_us": 14.0}]},
                              "fa2": {"median_us": 30.0, "p90_us": 33.0, "how": "enable_gqa"}})
    assert "12.5" in t and "FA2" in t, t


def test_decode_speed_flow():
    """run_speed on the CPU with stand-ins for torch SDPA (cuDNN refusing
    enable_gqa, so the repeat_interleave fallback is taken and noted) and
    for do_bench: rows verified, a broken kernel reported."""
    import argparse
    e = decode_entry(4, 2, 1, 16)
    saved = decode.torch_backends, decode.sdpa_call, decode.bench_ms

    def fake_sdpa(backend, q, k, v, scale, gqa, k_rep=None, v_rep=None):
        def f():
            if backend == "CU" and gqa:
                raise RuntimeError("No available kernel. Aborting execution.")
            kk, vv = (k, v) if gqa else (k_rep, v_rep)
            return decode.attention(q, kk, vv, None, False, scale, torch.float32)[0].to(q.dtype)
        return f
    try:
        decode.torch_backends = lambda: {"fa2": "FA", "cudnn": "CU"}
        decode.sdpa_call = fake_sdpa
        decode.bench_ms = lambda fn, w, r: (fn(), 0.05)[1]
        args = argparse.Namespace(backends="fa2,cudnn", warmup=1, rep=1, verbose=False)
        for bug, want in ((None, "ok"), ("topleft", "ok"), ("noise", "MISMATCH")):
            k = FakeDecodeKernel(e)
            if bug == "noise":
                inner = k.__call__

                def k(q, kk, v, out=None, lse=None, inner=inner):
                    inner(q, kk, v, out=out, lse=lse)
                    out.add_(0.05)
                    return out, lse
            sem = decode.semantics(e, FakeDecodeKernel(e).abi)
            notes, logs = [], []
            rows = decode.run_speed(e, k, sem, [(1, 64), (3, 100)], args, notes, log=logs.append,
                                    device=DEV)
            assert [r["verify"] for r in rows] == [want] * 2, (bug, rows[0].get("why"))
            r = rows[0]
            assert r["fa2_how"] == "enable_gqa" and r["cudnn_how"] == "repeat_interleave", r
            assert any("cudnn: enable_gqa refused" in n for n in notes), notes
            assert abs(r["ours_us"] - 50.0) < 1e-9 and abs(r["ours_over_fa2"] - 1.0) < 1e-9
            assert r["kv_bytes"] == 2 * 1 * 2 * 64 * 16 * 2
    finally:
        decode.torch_backends, decode.sdpa_call, decode.bench_ms = saved


def run_tests(namespace):
    """Runs every test_* function of `namespace` (a module's globals())."""
    tests = [(n, f) for n, f in sorted(namespace.items()) if n.startswith("test_") and callable(f)]
    passed = failed = 0
    for name, f in tests:
        try:
            f()
            passed += 1
            print(f"ok   {name}")
        except Exception:  # noqa: BLE001
            failed += 1
            print(f"FAIL {name}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    return run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
