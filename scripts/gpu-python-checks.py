#!/usr/bin/env python3
"""The GPU half of the PyTorch integration (issue #13), for the H200:

  correctness  flashmlir.attention over bench/correctness.py's case matrix
               (prefill variants) and bench/decode.py's (kv_lens and paged
               decode variants), FA2's tolerance rule, poisoned outputs and
               guard zones, fresh random inputs per case (their code, our call)
  example      examples/gpt_block.py: prefill + paged decode against SDPA
  compile      torch.compile(fullgraph=True) of the example block's prefill
               and decode step against eager (no graph break: fullgraph)
  graphs       CUDA-graph capture + replay of prefill and of paged decode
               (split-KV scratch from PyTorch's allocator) against eager, with
               new inputs copied in before the replay
  overhead     1x4k decode (bf16, Hq 32, Hkv 8, D 128, kv_lens): median µs per
               call of the raw Kernel, flashmlir.attention and
               torch.ops.flashmlir.attention (host time of the call, and call
               + torch.cuda.synchronize())
  blockmask    flashmlir.attention with a mask_mod and a flashmlir.BlockMask
               (random documents: doc_block_mask; prefix-LM:
               block_mask_from_mask), B=2, Hq=8, Hkv=2, D 64 and 128, L 1024
               to 4096, bf16: with the hint and without, each against a
               float32 torch reference by FA2's rule (max|dO| <= 2x torch's
               own bf16 error + 1e-3, LSE within 2e-3), outputs poisoned
               first, fresh random inputs per case; prints the kernel time
               with / without the hint
  training     gradients through flashmlir.attention's autograd formula (the
               backward variants) against a float32 reference by FA2's
               backward rule, torch.compile(fullgraph=True) and a CUDA graph
               of forward + backward (scripts/gpu_training_checks.py)

  gpu-python-checks.py --cache-dir DIR [--steps a,b] [--quick] [--out F.json]
  gpu-python-checks.py --precompile DIR [--chip sm_90a]  # (compiler machine)
  gpu-python-checks.py --variants       # the named variants, one a line

Kernels come from the cache DIR, which --precompile fills on a machine with
the compiler (every step's kernels, the blockmask step's mask_mod variants
among them; --variants lists only the ones a name builds, for `python3 -m
flashmlir precompile`). Exit status 0 when every step passed.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("python", "bench", "examples", "scripts"):
    sys.path.insert(0, os.path.join(ROOT, sub))

PREFILL = [f"attn_{dt}_d{d}{'_causal' if c else ''}" for dt in ("bf16", "f16")
           for d in (64, 128) for c in (False, True)]
PREFILL_OPTIONS = ["attn_bf16_d128_causal_win256x0", "attn_bf16_d64_cap30p0_s0p1"]
DECODE = ["decode_bf16_d128_h32x8_q1_lens", "decode_bf16_d128_h32x8_q1_lens_page16"]
ALL_STEPS = ("correctness", "example", "compile", "graphs", "overhead", "blockmask",
             "training")


def variants():
    """Every named variant the checks run (the example's are among them)."""
    return PREFILL + PREFILL_OPTIONS + DECODE


# The blockmask step's mask_mods: documents and prefix-LM (flashmlir.blockmask).
BM_ROWS = 128
BM_HEADS = (8, 2)
BM_DIMS = (64, 128)
BM_LENGTHS = (1024, 2048, 4096)


def blockmask_variants():
    """The blockmask step's kernels (Variant objects: a mask_mod's variant
    has no name to build it from), with and without the hint: its hints
    broadcast over heads ([B, 1, R, 4], `_bm128h1`)."""
    import torch
    import flashmlir
    out = []
    b, (hq, hkv), l = 2, BM_HEADS, BM_LENGTHS[0]
    for d in BM_DIMS:
        q = torch.empty(b, hq, l, d, dtype=torch.bfloat16, device="meta")
        k = torch.empty(b, hkv, l, d, dtype=torch.bfloat16, device="meta")
        hint = flashmlir.BlockMask(torch.zeros(b, 1, -(-l // BM_ROWS), 4, dtype=torch.int32,
                                               device="meta"), BM_ROWS)
        masks = flashmlir.blockmask
        for mask, cap in ((masks.DOC_MASK_MOD,
                           torch.empty(b, l, dtype=torch.int32, device="meta")),
                          (masks.PREFIX_LM_MASK_MOD,
                           torch.empty(b, dtype=torch.int32, device="meta"))):
            for bm in (None, hint):
                out.append(flashmlir.variant_for(q, k, k, mask_mod=mask, captures=[cap],
                                                 block_mask=bm))
    return out


def run_correctness(quick, log):
    import torch
    import correctness as C
    import decode as D
    import flashmlir
    from flashmlir import Variant

    def prefill_call(var):
        def call(q, k, v, out=None, lse=None):
            return flashmlir.attention(q, k, v, causal=var.causal, window=var.window,
                                       softcap=var.softcap or None, scale=var.scale, out=out,
                                       lse=lse, return_lse=True)
        return call

    def decode_call(var):
        def call(q, k, v, out=None, lse=None, kv_lens=None, block_table=None):
            return flashmlir.attention(q, k, v, causal=var.causal, kv_lens=kv_lens,
                                       block_table=block_table, out=out, lse=lse,
                                       return_lse=True)
        return call

    results = []
    entries = []
    for name in PREFILL + PREFILL_OPTIONS:
        var = Variant.parse(name)
        entries.append({"so": "cache", "func": name, "dtype": var.dtype, "head_dim": var.head_dim,
                        "head_dim_v": var.head_dim_v, "causal": var.causal,
                        "window": list(var.window), "softcap": var.softcap,
                        "scale": var.scale, "lse": True})
    import common
    for case in C.make_cases(entries, quick=quick):
        var = Variant.parse(case.entry["func"])
        res = _guard(lambda: C.run_case(prefill_call(var), common.entry_abi(case.entry), case),
                     case)
        results.append(res)
        if not res["ok"]:
            log(f"FAIL #{case.idx} {case.name} seed={case.seed}: {res['why']}")
    failed = C.summarize(results, log, label="flashmlir.attention prefill correctness")
    dresults = []
    dentries = []
    for name in DECODE:
        var = Variant.parse(name)
        dentries.append({"so": "cache", "func": name, "kind": "decode", "dtype": var.dtype,
                         "head_dim": var.head_dim, "causal": var.causal,
                         "heads_q": var.heads_q, "heads_kv": var.heads_kv, "seq_q": var.seq_q,
                         "kv_lens": var.kv_lens, "paged": bool(var.page_size),
                         "page_size": var.page_size})
    for case in D.make_cases(dentries, quick=quick):
        var = Variant.parse(case.entry["func"])
        res = _guard(lambda: D.run_case(decode_call(var), D.semantics(case.entry), case), case)
        dresults.append(res)
        if not res["ok"]:
            log(f"FAIL #{case.idx} {case.name} seed={case.seed}: {res['why']}")
        if case.batch * case.cap >= 16 * 32768:
            torch.cuda.empty_cache()
    failed += D.summarize(dresults, log)
    return failed == 0, {"prefill": _counts(results), "decode": _counts(dresults)}


def _guard(fn, case):
    try:
        return fn()
    except Exception as ex:  # noqa: BLE001
        r = case.as_dict()
        r.update(ok=False, why=f"{type(ex).__name__}: {str(ex)[:300]}")
        return r


def _counts(results):
    return {"passed": sum(bool(r["ok"]) for r in results), "total": len(results)}


def run_example(log):
    import gpt_block
    err, tol, ok = gpt_block.run(log=log)
    return ok, {"err": err, "tol": tol}


def _example_setup(batch=2, prompt=200):
    import torch
    import gpt_block as G
    dim = 2048
    block = G.Block(dim, "cuda", torch.bfloat16)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(3)
    x = torch.randn(batch, prompt + 1, dim, device="cuda", dtype=torch.bfloat16, generator=gen)
    tables = G.rope_tables(prompt + 64, G.HEAD_DIM, "cuda")
    return G, block, x, tables, prompt


def run_compile(log):
    """torch.compile(fullgraph=True) of prefill and of one decode step,
    against the same eager calls on an identical cache."""
    import torch
    G, block, x, tables, prompt = _example_setup()
    batch = x.shape[0]

    def fresh():
        cache = G.PagedCache(batch, prompt + 64, "cuda", torch.bfloat16)
        lens = torch.full((batch,), prompt, dtype=torch.int32, device="cuda")
        return cache, lens

    def step(xp, xd, cache, lens):
        return block.prefill(xp, tables, cache), block.decode(xd, tables, cache, lens)

    compiled = torch.compile(step, fullgraph=True)
    outs = {}
    for name, fn in (("eager", step), ("compiled", compiled)):
        cache, lens = fresh()
        p, d = fn(x[:, :prompt], x[:, prompt:], cache, lens)
        torch.cuda.synchronize()
        outs[name] = (p.float(), d.float(), lens.clone())
    diff = max(float((a - b).abs().max()) for a, b in zip(outs["eager"][:2], outs["compiled"][:2]))
    scale = max(float(outs["eager"][i].abs().max()) for i in range(2))
    same_lens = torch.equal(outs["eager"][2], outs["compiled"][2])
    # Inductor may fuse the RoPE / projections differently: bf16 rounding.
    ok = math.isfinite(diff) and diff <= 2e-2 * max(scale, 1.0) and same_lens
    log(f"torch.compile(fullgraph=True) prefill+decode: max |compiled - eager| {diff:.3g} "
        f"(outputs up to {scale:.3g}), kv_lens {'equal' if same_lens else 'DIFFER'}: "
        f"{'ok' if ok else 'FAIL'}")
    return ok, {"max_diff": diff, "max_abs": scale}


def run_graphs(log):
    """CUDA graphs: capture once, copy new inputs in, replay, compare with
    eager on those inputs (bit for bit: same kernels, same inputs)."""
    import torch
    import flashmlir
    gen = torch.Generator(device="cuda")
    gen.manual_seed(11)
    rnd = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16, generator=gen)  # noqa: E731
    info = {}
    ok_all = True

    # Prefill, causal GQA, BSHD storage.
    q, k, v = (rnd(2, 700, h, 128).transpose(1, 2) for h in (32, 8, 8))

    def prefill():
        return flashmlir.attention(q, k, v, causal=True, return_lse=True)

    # Paged decode with a random table and lengths (split-KV: scratch).
    b, pages_per_seq, page = 4, 300, 16
    pool_k, pool_v = rnd(b * pages_per_seq + 5, page, 8, 128), rnd(b * pages_per_seq + 5, page, 8, 128)
    table = torch.randperm(b * pages_per_seq, device="cuda", generator=gen).view(b, -1).int()
    lens = torch.randint(1, pages_per_seq * page, (b,), device="cuda", generator=gen).int()
    qd = rnd(b, 32, 1, 128)

    def decode():
        return flashmlir.attention(qd, pool_k.transpose(1, 2), pool_v.transpose(1, 2),
                                   kv_lens=lens, block_table=table, return_lse=True)

    for name, fn, inputs in (("prefill", prefill, (q, k, v)),
                             ("decode", decode, (qd, pool_k, pool_v, lens))):
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):  # warm-up (loads the kernel) off the capture
            for _ in range(2):
                fn()
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            static_o, static_l = fn()
        for t in inputs:  # new inputs, in place
            if t.dtype == torch.int32:
                t.copy_(torch.randint(1, pages_per_seq * page, t.shape, device="cuda",
                                      generator=gen).int())
            else:
                t.copy_(torch.randn(t.shape, device="cuda", dtype=t.dtype, generator=gen))
        static_o.fill_(float("nan"))
        static_l.fill_(float("nan"))
        graph.replay()
        eo, el = fn()
        torch.cuda.synchronize()
        same = torch.equal(static_o, eo) and torch.equal(static_l, el)
        reps = []
        for _ in range(3):  # replays stay identical
            graph.replay()
            torch.cuda.synchronize()
            reps.append(torch.equal(static_o, eo))
        ok = same and all(reps)
        ok_all &= ok
        info[name] = {"replay_equals_eager": same, "replays_stable": all(reps)}
        log(f"CUDA graph {name}: capture + replay {'==' if same else '!='} eager on new inputs, "
            f"3 more replays {'identical' if all(reps) else 'DIFFER'}: {'ok' if ok else 'FAIL'}")
    return ok_all, info


def run_overhead(log, n=2000):
    import torch
    import flashmlir
    from flashmlir import ops
    b, s = 1, 4096
    gen = torch.Generator(device="cuda")
    gen.manual_seed(5)
    q = torch.randn(b, 32, 1, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
    k = torch.randn(b, 8, s, 128, device="cuda", dtype=torch.bfloat16, generator=gen)
    v = torch.randn_like(k)
    lens = torch.full((b,), s, dtype=torch.int32, device="cuda")
    var = flashmlir.variant_for(q, k, v, kv_lens=lens)
    kern = ops.kernel_cache().get(var, ops._current_chip())
    out = torch.empty_like(q)
    lse = torch.empty(b, 32, 1, device="cuda")
    paths = {
        "raw Kernel (out=, lse= given)": lambda: kern(q, k, v, out=out, lse=lse, kv_lens=lens),
        "flashmlir.attention": lambda: flashmlir.attention(q, k, v, kv_lens=lens),
        "flashmlir.attention(out=)": lambda: flashmlir.attention(q, k, v, kv_lens=lens, out=out),
        "torch.ops.flashmlir.attention": lambda: torch.ops.flashmlir.attention(
            q, k, v, False, None, None, None, lens, None),
    }
    info = {"variant": var.name, "shape": [b, s], "n": n}
    log(f"call overhead at {b}x{s // 1024}k decode ({var.name}), median of {n} calls:")
    log("| path | host µs (call returns) | µs call + synchronize |")
    log("|---|---:|---:|")
    for name, fn in paths.items():
        for _ in range(200):
            fn()
        torch.cuda.synchronize()
        host, e2e = [], []
        for _ in range(n):
            t0 = time.perf_counter()
            fn()
            t1 = time.perf_counter()
            torch.cuda.synchronize()
            t2 = time.perf_counter()
            host.append((t1 - t0) * 1e6)
            e2e.append((t2 - t0) * 1e6)
        info[name] = {"host_us": statistics.median(host), "e2e_us": statistics.median(e2e)}
        log(f"| {name} | {info[name]['host_us']:.1f} | {info[name]['e2e_us']:.1f} |")
    return True, info


def _bm_reference(q, k, v, visible, dtype):
    """O and LSE of attention with the bool mask `visible` [B, 1, L, L],
    computed by torch in `dtype` (float32: the reference; bf16: the same
    computation in the kernel's dtype, for FA2's rule), one sequence at a
    time to bound memory."""
    import torch
    group = q.shape[1] // k.shape[1]
    outs, lses = [], []
    for b in range(q.shape[0]):
        kb, vb = k[b].repeat_interleave(group, 0), v[b].repeat_interleave(group, 0)
        s = (q[b].to(dtype) @ kb.to(dtype).transpose(1, 2)).float() / math.sqrt(q.shape[3])
        s = s.masked_fill(~visible[b], -math.inf)
        lse = torch.logsumexp(s, dim=-1)
        p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
        outs.append((p.to(dtype) @ vb.to(dtype)).float())
        lses.append(lse)
        del s, p
    return torch.stack(outs), torch.stack(lses)


def _cuda_ms(fn, calls=20, reps=5):
    """Kernel time of fn() in ms: `calls` calls captured in one CUDA graph
    (so the host's per-call overhead, larger than a 1k-token masked kernel,
    is not timed), the median of `reps` timed replays; plain back-to-back
    calls when capture fails."""
    import torch
    fn()
    torch.cuda.synchronize()
    try:
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(calls):
                fn()
        run = graph.replay
    except Exception:  # noqa: BLE001 - timing only
        def run():
            for _ in range(calls):
                fn()
    run()
    times = []
    for _ in range(reps):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / calls)
    return statistics.median(times)


def run_blockmask(quick, log):
    import torch
    import flashmlir
    b, (hq, hkv) = 2, BM_HEADS
    lengths = BM_LENGTHS[:1] + BM_LENGTHS[-1:] if quick else BM_LENGTHS
    gen = torch.Generator(device="cuda")
    results, ok_all = [], True
    log("| mask | D | L | variant (hinted) | max|dO| hinted | unhinted | tol | "
        "max|dLSE| | ms hinted | ms unhinted | hinted/unhinted |")
    log("|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for n, (mask_name, d, l) in enumerate((m, d, l) for m in ("documents", "prefix-LM")
                                          for d in BM_DIMS for l in lengths):
        gen.manual_seed(1000 + n)  # fresh inputs per case, replayable
        q = torch.randn(b, hq, l, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        k = torch.randn(b, hkv, l, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        v = torch.randn(b, hkv, l, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        pos = torch.arange(l, device="cuda")
        if mask_name == "documents":
            # 2 to 24 documents of random lengths (sorted random ids).
            ndocs = int(torch.randint(2, 25, (1,), device="cuda", generator=gen))
            doc = torch.sort(torch.randint(0, ndocs, (b, l), device="cuda", generator=gen),
                             dim=1).values.to(torch.int32)
            mask, cap = flashmlir.blockmask.DOC_MASK_MOD, doc
            visible = (doc[:, None, :, None] == doc[:, None, None, :])
            bm = flashmlir.BlockMask(flashmlir.doc_block_mask(doc, 1, l, l, BM_ROWS), BM_ROWS)
        else:
            prefix = torch.randint(0, l, (b,), device="cuda", generator=gen).to(torch.int32)
            mask, cap = flashmlir.blockmask.PREFIX_LM_MASK_MOD, prefix
            visible = ((pos[None, None, None, :] <= pos[None, None, :, None])
                       | (pos[None, None, None, :] < prefix[:, None, None, None]))
            bm = flashmlir.block_mask_from_mask(
                lambda bb, hh, i, j: (j <= i) | (j < prefix[bb]), b, None, l, l, BM_ROWS,
                device="cuda")
        want, want_lse = _bm_reference(q, k, v, visible, torch.float32)
        low, _ = _bm_reference(q, k, v, visible, torch.bfloat16)
        tol = 2 * float((low - want).abs().max()) + 1e-3
        del low
        row = {"mask": mask_name, "d": d, "l": l, "tol": tol}
        ok = True
        for tag, hint in (("hinted", bm), ("unhinted", None)):
            out = torch.full((b, hq, l, d), float("nan"), device="cuda", dtype=torch.bfloat16)
            lse = torch.full((b, hq, l), float("nan"), device="cuda")
            flashmlir.attention(q, k, v, mask_mod=mask, captures=[cap], block_mask=hint,
                                out=out, lse=lse)
            torch.cuda.synchronize()
            err = float((out.float() - want).abs().max())  # NaN (unwritten) fails below
            lse_err = float((lse - want_lse).abs().max())
            row[tag] = {"max_do": err, "max_dlse": lse_err, "variant": flashmlir.variant_for(
                q, k, v, mask_mod=mask, captures=[cap], block_mask=hint).name,
                "ms": _cuda_ms(lambda: flashmlir.attention(
                    q, k, v, mask_mod=mask, captures=[cap], block_mask=hint, out=out, lse=lse))}
            ok &= err <= tol and lse_err <= 2e-3  # False for NaN
        row["ratio"] = row["hinted"]["ms"] / row["unhinted"]["ms"]
        row["ok"] = ok
        ok_all &= ok
        results.append(row)
        h, u = row["hinted"], row["unhinted"]
        log(f"| {mask_name} | {d} | {l} | {h['variant']} | {h['max_do']:.2e} | "
            f"{u['max_do']:.2e} | {tol:.2e} | {max(h['max_dlse'], u['max_dlse']):.1e} | "
            f"{h['ms']:.3f} | {u['ms']:.3f} | {row['ratio']:.2f}x |{'' if ok else ' FAIL'}")
        del want, want_lse, visible
    passed = sum(r["ok"] for r in results)
    log(f"blockmask: {passed}/{len(results)} cases passed; hinted/unhinted time "
        f"{min(r['ratio'] for r in results):.2f}x to {max(r['ratio'] for r in results):.2f}x")
    return ok_all, {"cases": results, "passed": passed, "total": len(results)}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache-dir", help="the precompiled kernel cache")
    ap.add_argument("--steps", default=",".join(ALL_STEPS))
    ap.add_argument("--quick", action="store_true", help="the quick case matrices")
    ap.add_argument("--out", help="JSON results")
    ap.add_argument("--variants", action="store_true",
                    help="print the named variants (the mask_mod ones have no name to build "
                         "from: use --precompile)")
    ap.add_argument("--precompile", metavar="DIR",
                    help="compile every step's kernels into the cache DIR (needs the compiler)")
    ap.add_argument("--chip", default="sm_90a", help="--precompile's chip (H200: sm_90a)")
    a = ap.parse_args(argv)
    if a.variants:
        print("\n".join(variants()))
        return 0
    if a.precompile:
        import flashmlir
        t0 = time.time()
        import gpu_training_checks
        paths = flashmlir.precompile(variants() + blockmask_variants() +
                                     gpu_training_checks.training_variants(), a.chip,
                                     a.precompile)
        for path in paths:
            print(path)
        print(f"# {len(paths)} kernels for {a.chip} in {a.precompile} "
              f"({time.time() - t0:.0f} s)", file=sys.stderr)
        return 0
    import torch
    import flashmlir
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        return 2
    if a.cache_dir:
        flashmlir.set_cache_dir(a.cache_dir)
    flashmlir.set_compiler(False)  # the GPU machine has none: misses are errors
    log = lambda s: print(s, flush=True)  # noqa: E731
    import common
    common.strict_fp32()
    flashmlir.load_runtime()
    log(f"# torch {torch.__version__}, {torch.cuda.get_device_name()}, flashmlir op via "
        f"{flashmlir.ops._registered}, runtime {flashmlir._lib_path}, kernel cache "
        f"{flashmlir.ops.kernel_cache().directory}")
    steps = {"correctness": lambda: run_correctness(a.quick, log), "example": lambda: run_example(log),
             "compile": lambda: run_compile(log), "graphs": lambda: run_graphs(log),
             "overhead": lambda: run_overhead(log),
             "blockmask": lambda: run_blockmask(a.quick, log),
             "training": lambda: __import__("gpu_training_checks").run(log, a.quick)}
    result, failed = {"torch": torch.__version__, "date": time.strftime("%Y-%m-%d %H:%M:%S")}, []
    for name in a.steps.split(","):
        log(f"## {name}")
        t0 = time.time()
        try:
            ok, info = steps[name]()
        except Exception as ex:  # noqa: BLE001
            traceback.print_exc()
            ok, info = False, {"error": f"{type(ex).__name__}: {str(ex)[:500]}"}
        result[name] = dict(info, ok=ok, seconds=round(time.time() - t0, 1))
        if not ok:
            failed.append(name)
        log(f"# {name}: {'ok' if ok else 'FAILED'} ({time.time() - t0:.0f} s)")
    log(f"gpu-python-checks: {len(a.steps.split(',')) - len(failed)} passed, {len(failed)} failed"
        + (f" ({', '.join(failed)})" if failed else ""))
    if a.out:
        with open(a.out, "w") as f:
            json.dump(result, f, indent=1, default=str)
        log(f"# written {a.out}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
