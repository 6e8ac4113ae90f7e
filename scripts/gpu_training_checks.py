"""The training step of scripts/gpu-python-checks.py (issue #39): gradients
of flashmlir.attention through its autograd formula (the backward variant)
on the GPU.

  gradients  q, k, v requiring grad, loss = sum(O * dO) for a fresh random
             dO: each of dQ, dK, dV against a float32 torch reference of
             the same attention (softcap, ALiBi, causal / window masks, GQA,
             rows that see no key), by FA2's backward rule: error <= 2x that
             of the same reference computed in the input dtype + 1e-4;
             gradients poisoned (NaN) first, fresh inputs per case, BSHD and
             BHSD storage
  compile    torch.compile(fullgraph=True) of a function whose loss goes
             through flashmlir.attention, forward and backward, against
             eager (the same kernels: equal up to the order of dQ's atomic
             adds)
  graphs     one CUDA graph capturing the forward and backward, replayed on
             new inputs copied in, against eager

Kernels come from the kernel cache (TRAINING_VARIANTS and their backward
variants, precompiled with the others).
"""
import math

# (forward variant name, call options): the cases' kernels.
CASES = [
    ("attn_bf16_d64", {}),
    ("attn_bf16_d64_causal", {"causal": True}),
    ("attn_bf16_d128_causal", {"causal": True}),
    ("attn_f16_d64_causal", {"causal": True}),
    ("attn_bf16_d64_win64x0", {"window": (64, 0)}),
    ("attn_bf16_d64_cap30p0", {"softcap": 30.0}),
    ("attn_bf16_d64_causal_alibi", {"causal": True, "alibi": True}),
    ("attn_bf16_d64_relbias", {"score_mod": "relbias"}),
    ("attn_bf16_d64_docmask", {"mask_mod": "docmask"}),
]
# A relative bias from a per-head capture, w[h] * (j - i), and a document
# mask from per-(batch, position) ids: the regions and their torch forms.
MODS = {
    "relbias": ("""^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index, %w: memref<?xf32>):
  %wh = memref.load %w[%h] : memref<?xf32>
  %ii = arith.index_cast %i : index to i64
  %jj = arith.index_cast %j : index to i64
  %d = arith.subi %jj, %ii : i64
  %df = arith.sitofp %d : i64 to f32
  %r = math.fma %wh, %df, %s : f32
  flash.yield %r : f32"""),
    "docmask": ("""^bb0(%b: index, %h: index, %i: index, %j: index, %qd: memref<?x?xi32>, %kd: memref<?x?xi32>):
  %di = memref.load %qd[%b, %i] : memref<?x?xi32>
  %dj = memref.load %kd[%b, %j] : memref<?x?xi32>
  %same = arith.cmpi eq, %di, %dj : i32
  flash.yield %same : i1"""),
}
# (B, Hq, Hkv, Sq, Sk): GQA, Sq != Sk both ways, tails inside a block.
SHAPES = [(2, 8, 2, 256, 256), (1, 4, 4, 100, 333), (2, 4, 1, 300, 77), (1, 2, 2, 1, 65)]


def _variant(name, opts):
    """The forward Variant of a case (by name; a case with a region from
    its options: a region's variant has no name to parse)."""
    from flashmlir.variants import Variant, parse_name
    if "score_mod" in opts:
        return Variant("bf16", 64, score_mod=MODS["relbias"], captures=[("f32", 1)])
    if "mask_mod" in opts:
        return Variant("bf16", 64, mask_mod=MODS["docmask"],
                       captures=[("i32", 2), ("i32", 2)])
    return parse_name(name)


def training_variants():
    """The cases' forward and backward Variants (precompile takes them)."""
    out = []
    for name, opts in CASES:
        v = _variant(name, opts)
        out += [v, v.backward_of()]
    return out


def reference(torch, q, k, v, causal=False, window=None, softcap=None, slopes=None,
              relbias=None, docs=None):
    """softmax(scale q k^T [softcap, ALiBi, masks]) v in q's dtype, with
    autograd; rows that see no key give O = 0 and no gradient."""
    b, hq, sq, d = q.shape
    hkv, sk = k.shape[1], k.shape[2]
    k = k.repeat_interleave(hq // hkv, 1)
    v = v.repeat_interleave(hq // hkv, 1)
    s = (q @ k.transpose(-1, -2)) / math.sqrt(d)
    if softcap:
        s = softcap * torch.tanh(s / softcap)
    i = torch.arange(sq, device=q.device)[:, None] + (sk - sq)
    j = torch.arange(sk, device=q.device)[None, :]
    if slopes is not None:
        s = s - slopes.to(s.dtype)[None, :, None, None] * (i - j).abs().to(s.dtype)
    if relbias is not None:
        jj = torch.arange(sk, device=q.device)[None, :]
        ii = torch.arange(sq, device=q.device)[:, None]
        s = s + relbias.to(s.dtype)[None, :, None, None] * (jj - ii).to(s.dtype)
    keep = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
    if docs is not None:
        qd, kd = docs
        keep = keep & (qd[:, None, :, None] == kd[:, None, None, :])
    if causal:
        keep &= j <= i
    if window is not None:
        left, right = window
        if left >= 0:
            keep &= j >= i - left
        if right >= 0:
            keep &= j <= i + right
    s = s.masked_fill(~keep, float("-inf"))
    empty = ~keep.any(-1, keepdim=True)
    p = torch.softmax(s.masked_fill(empty, 0.0), -1).masked_fill(empty, 0.0)
    return p @ v


def _grads(torch, fn, q, k, v, do):
    qq, kk, vv = (x.detach().clone().requires_grad_() for x in (q, k, v))
    for x in (qq, kk, vv):
        x.grad = None
    o = fn(qq, kk, vv)
    o.backward(do)
    return [x.grad for x in (qq, kk, vv)]


def run_gradients(log, quick=False):
    import torch
    import flashmlir
    gen = torch.Generator(device="cuda")
    gen.manual_seed(39)
    passed = failed = 0
    worst = 0.0
    for name, opts in CASES:
        dt = torch.bfloat16 if "_bf16_" in name else torch.float16
        dim = int(name.split("_d")[1].split("_")[0])
        for shape in SHAPES[:2] if quick else SHAPES:
            for bshd in (False, True):
                b, hq, hkv, sq, sk = shape

                def rnd(h, s):
                    x = torch.randn(b, s, h, dim, device="cuda", dtype=dt, generator=gen)
                    return x.transpose(1, 2) if bshd else x.transpose(1, 2).contiguous()

                q, k, v, do = rnd(hq, sq), rnd(hkv, sk), rnd(hkv, sk), rnd(hq, sq)
                slopes = (torch.rand(hq, device="cuda", generator=gen) * 0.25 + 1 / 256
                          if opts.get("alibi") else None)
                kw = {n: opts[n] for n in ("causal", "window", "softcap") if n in opts}
                mods, rkw = {}, {}
                if "score_mod" in opts:
                    w = (torch.rand(hq, device="cuda", generator=gen) - 0.5) * 0.1
                    mods = {"score_mod": MODS["relbias"], "captures": [w]}
                    rkw = {"relbias": w}
                if "mask_mod" in opts:
                    # Independent ids: some rows see no key, some keys no row.
                    qd = torch.randint(0, 3, (b, sq), device="cuda", generator=gen).int()
                    kd = torch.randint(0, 3, (b, sk), device="cuda", generator=gen).int()
                    mods = {"mask_mod": MODS["docmask"], "captures": [qd, kd]}
                    rkw = {"docs": (qd, kd)}
                ours = _grads(torch, lambda a, b_, c: flashmlir.attention(
                    a, b_, c, alibi_slopes=slopes, **kw, **mods), q, k, v, do)
                ref = _grads(torch, lambda a, b_, c: reference(
                    torch, a, b_, c, slopes=slopes, **kw, **rkw), q.float(), k.float(),
                    v.float(), do.float())
                low = _grads(torch, lambda a, b_, c: reference(
                    torch, a, b_, c, slopes=slopes, **kw, **rkw), q, k, v, do)
                errs = []
                ok = True
                for g, r, lo in zip(ours, ref, low):
                    err = float((g.float() - r).abs().max())
                    tol = 2 * float((lo.float() - r).abs().max()) + 1e-4
                    ok &= math.isfinite(err) and err <= tol
                    errs.append(f"{err:.2e}/{tol:.2e}")
                    worst = max(worst, err / tol if math.isfinite(err) else math.inf)
                passed += ok
                failed += not ok
                if not ok or shape == SHAPES[0]:
                    log(f"  {name} {shape} {'bshd' if bshd else 'bhsd'}: dq dk dv "
                        f"{' '.join(errs)} {'ok' if ok else 'FAIL'}")
    log(f"gradients: {passed}/{passed + failed} cases within FA2's rule (worst error / "
        f"bound {worst:.2f})")
    return failed == 0, {"passed": passed, "failed": failed, "worst_ratio": worst}


def run_compile(log):
    import torch
    import flashmlir
    gen = torch.Generator(device="cuda")
    gen.manual_seed(40)
    q, k, v, w = (torch.randn(2, h, 512, 64, device="cuda", dtype=torch.bfloat16,
                              generator=gen) for h in (8, 2, 2, 8))

    def loss(q, k, v):
        return (flashmlir.attention(q, k, v, causal=True).float() * w.float()).sum()

    compiled = torch.compile(loss, fullgraph=True)
    res = {}
    for tag, fn in (("eager", loss), ("compiled", compiled)):
        qq, kk, vv = (x.detach().clone().requires_grad_() for x in (q, k, v))
        fn(qq, kk, vv).backward()
        res[tag] = [x.grad.float() for x in (qq, kk, vv)]
    diff = max(float((a - b).abs().max()) for a, b in zip(res["eager"], res["compiled"]))
    scale = max(float(a.abs().max()) for a in res["eager"])
    ok = math.isfinite(diff) and diff <= 1e-2 * max(scale, 1.0)
    log(f"torch.compile(fullgraph=True) forward+backward: max |compiled - eager| grad "
        f"{diff:.3g} (grads up to {scale:.3g}): {'ok' if ok else 'FAIL'}")
    return ok, {"max_diff": diff, "max_abs": scale}


def run_graphs(log):
    import torch
    import flashmlir
    gen = torch.Generator(device="cuda")
    gen.manual_seed(41)
    shape = lambda h: (2, 700, h, 64)  # noqa: E731  (BSHD storage)
    q, k, v = (torch.randn(*shape(h), device="cuda", dtype=torch.bfloat16, generator=gen)
               .transpose(1, 2).requires_grad_() for h in (8, 2, 2))
    do = torch.randn(2, 8, 700, 64, device="cuda", dtype=torch.bfloat16, generator=gen)

    def step():
        for x in (q, k, v):
            x.grad = None
        o = flashmlir.attention(q, k, v, causal=True)
        o.backward(do)
        return o

    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            step()
    torch.cuda.current_stream().wait_stream(s)
    graph = torch.cuda.CUDAGraph()
    for x in (q, k, v):
        x.grad = None
    with torch.cuda.graph(graph):
        o = flashmlir.attention(q, k, v, causal=True)
        o.backward(do)
    static = [o] + [x.grad for x in (q, k, v)]
    with torch.no_grad():
        for x in (q, k, v, do):
            x.copy_(torch.randn(x.shape, device="cuda", dtype=x.dtype, generator=gen))
        for t in static:
            t.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    replayed = [t.float().clone() for t in static]
    eo = step()
    eager = [eo.float()] + [x.grad.float() for x in (q, k, v)]
    diff = max(float((a - b).abs().max()) for a, b in zip(replayed, eager))
    scale = max(float(a.abs().max()) for a in eager)
    ok = math.isfinite(diff) and diff <= 1e-2 * max(scale, 1.0)
    log(f"CUDA graph forward+backward: replay on new inputs vs eager, max diff {diff:.3g} "
        f"(values up to {scale:.3g}): {'ok' if ok else 'FAIL'}")
    return ok, {"max_diff": diff}


def run(log, quick=False):
    results = {}
    ok_all = True
    for name, fn in (("gradients", lambda: run_gradients(log, quick)),
                     ("compile", lambda: run_compile(log)), ("graphs", lambda: run_graphs(log))):
        try:
            ok, info = fn()
        except Exception as ex:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            ok, info = False, {"error": f"{type(ex).__name__}: {str(ex)[:500]}"}
        results[name] = dict(info, ok=ok)
        ok_all &= ok
    return ok_all, results
