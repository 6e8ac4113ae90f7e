#!/usr/bin/env python3
"""Forward attention throughput: FlashMLIR's kernels against torch SDPA's
FlashAttention-2 (SDPBackend.FLASH_ATTENTION) and cuDNN (CUDNN_ATTENTION)
backends, on the same tensors in one process.

The FlashAttention-2 paper's sweep: bf16, 16k tokens per batch
(batch = 16384 // seqlen), model dim 2048 (heads = 2048 // head_dim), head
dims 64 and 128, seqlen 512 .. 16k, causal and not. Q, K, V are allocated as
[B, S, H, D] (FA2's layout) and passed to all three as [B, H, S, D]
transposed views. Each time is the median of CUDA-event-timed runs after
warm-up (triton.testing.do_bench(warmup=25, rep=100, return_mode="median"),
as shared/bench/anchors.py measured the FA2/cuDNN figures in DESIGN.md).
FLOPs = 4 B H Sq Sk D, halved for causal (as FA2 counts).

Before timing a configuration, our output is checked once on random inputs:
no NaN, on a slice (batch 0, two heads) against a float32 reference with
FA2's rule (err <= tol = 2 x err of the same formula in bf16 + 1e-5, LSE
within 1e-3 relative), and over the whole tensor max|ours - FA2| <= 2 x tol.

Usage:
  benchmark.py --artifacts DIR [--out bench/results/NAME.json]
               [--hdims 64,128] [--seqlens 512,1024,...] [--causal both|true|false]
Exit status: 1 if any verification failed or our kernel raised, else 0
(kernels missing from the manifest are skipped, not failures).
"""
import argparse
import json
import math
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402
import plot  # noqa: E402

TOKENS = 16384
MODEL_DIM = 2048
SEQLENS = (512, 1024, 2048, 4096, 8192, 16384)
HDIMS = (64, 128)
VERIFY_HEADS = 2
FA2_DIFF_FACTOR = 2.0


def flops(batch, nheads, sq, sk, d, causal):
    f = 4 * batch * nheads * sq * sk * d
    return f // 2 if causal else f


def configs(hdims, seqlens, causals):
    out = []
    for hdim in hdims:
        for causal in causals:
            for seqlen in seqlens:
                out.append({"hdim": hdim, "causal": causal, "seqlen": seqlen,
                            "batch": max(1, TOKENS // seqlen), "nheads": MODEL_DIM // hdim})
    return out


def select(entries, hdim, causal, dtype="bf16"):
    """Manifest entries for plain attention of this dtype/head dim/causality
    (no window, no softcap, Dv == D)."""
    out = []
    for e in entries:
        a = common.entry_abi(e)
        if a["dtype"] == dtype and a["head_dim"] == hdim and a["causal"] == bool(causal) and common.is_plain(a):
            out.append(e)
    return sorted(out, key=lambda e: e["func"])


def fmt_num(x, w=8, p=0):
    return f"{x:{w}.{p}f}" if isinstance(x, (int, float)) and x is not None else f"{'-':>{w}}"


def ratio(a, b):
    return a / b if a and b else None


HEADER = (f"{'hdim':>4} {'causal':>6} {'seqlen':>6} {'ours':>8} {'FA2':>8} {'cuDNN':>8} "
          f"{'ours/FA2':>8} {'ours/cuDNN':>10}  {'verify':<8} func")


def row_line(r):
    return (f"{r['hdim']:>4} {str(r['causal']):>6} {r['seqlen']:>6} {fmt_num(r.get('ours'))} "
            f"{fmt_num(r.get('fa2'))} {fmt_num(r.get('cudnn'))} "
            f"{fmt_num(ratio(r.get('ours'), r.get('fa2')), 8, 2)} "
            f"{fmt_num(ratio(r.get('ours'), r.get('cudnn')), 10, 2)}  {r.get('verify', ''):<8} "
            f"{r.get('func') or '-'}")


def print_table(rows):
    print(HEADER)
    for r in rows:
        print(row_line(r))


# --------------------------------------------------------------------------

def bench_ms(fn, warmup, rep):
    import torch
    try:
        import triton
        return triton.testing.do_bench(fn, warmup=warmup, rep=rep, return_mode="median")
    except ImportError:
        pass
    # fallback: CUDA events around each call, median
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(max(10, rep // 2)):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    times.sort()
    return times[len(times) // 2]


def sdpa_fn(backend, q, k, v, causal, scale):
    import torch.nn.functional as F
    from torch.nn.attention import sdpa_kernel

    def f():
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=scale)
    return f


def verify(out, lse, fa2_out, q, k, v, abi, other="FA2"):
    """Checks ours once: finite everywhere, FA2's rule on a slice against a
    float32 reference, and LSE on that slice; max|ours - fa2_out| over the
    whole tensor within 2 x the slice's tolerance, fa2_out being `other`'s
    output (bench/ab.py: the old build's). Returns (ok, info dict)."""
    import torch
    import correctness as C
    info = {}
    why = []
    n_nan = int(torch.isnan(out).sum())
    if n_nan:
        why.append(f"{n_nan} NaN/unwritten O")
    if lse is not None:
        n_bad = int((~torch.isfinite(lse)).sum())
        if n_bad:
            why.append(f"{n_bad} non-finite LSE")
    if fa2_out is not None:
        info[f"max_diff_{other.lower()}"] = float((out.float() - fa2_out.float()).abs().max())
    h = min(VERIFY_HEADS, q.shape[1])
    hs = slice(0, h)
    qs, ks, vs = q[:1, hs], k[:1, hs], v[:1, hs]
    ref_o, ref_l = C.reference(qs, ks, vs, abi)
    base_err = C.max_err(C.baseline(qs, ks, vs, abi), ref_o)
    err = C.max_err(out[:1, hs], ref_o)
    info.update(err_slice=err, base_err_slice=base_err, tol_slice=C.o_tolerance(base_err))
    if fa2_out is not None:
        info[f"{other.lower()}_err_slice"] = float((fa2_out[:1, hs].float() - ref_o).abs().max())
    if not err <= info["tol_slice"]:
        why.append(f"err {err:.3g} > tol {info['tol_slice']:.3g} on batch 0 heads 0..{h - 1}")
    # the slice cannot see indexing bugs in other batches/heads: FA2's output can
    diff = info.get(f"max_diff_{other.lower()}")
    if fa2_out is not None and not diff <= FA2_DIFF_FACTOR * info["tol_slice"]:
        why.append(f"max|ours - {other}| {diff:.3g} > {FA2_DIFF_FACTOR} x slice tol "
                   f"{info['tol_slice']:.3g}")
    if lse is not None:
        lerr, bad = C.lse_errors(lse[:1, hs], ref_l)
        info["lse_err_slice"] = float(lerr.max())
        if bool(bad.any()):
            why.append(f"LSE err {info['lse_err_slice']:.3g} on the slice")
    del ref_o, ref_l
    if why:
        info["why"] = "; ".join(why)
    return not why, info


def run_config(cfg, entries, loader, args, backends):
    """All rows of one configuration (one per matching kernel, or one skip row)."""
    import torch
    hdim, causal, seqlen, batch, nheads = (cfg[k] for k in ("hdim", "causal", "seqlen", "batch", "nheads"))
    dt = torch.bfloat16
    gen = torch.Generator(device="cuda")
    gen.manual_seed(1000 * hdim + seqlen + int(causal))

    def alloc():
        if args.layout == "bshd":
            return torch.randn(batch, seqlen, nheads, hdim, generator=gen, device="cuda", dtype=dt).transpose(1, 2)
        return torch.randn(batch, nheads, seqlen, hdim, generator=gen, device="cuda", dtype=dt)
    q, k, v = alloc(), alloc(), alloc()
    nflop = flops(batch, nheads, seqlen, seqlen, hdim, causal)
    base = dict(cfg, layout=args.layout, flops=nflop)

    scale = 1.0 / math.sqrt(hdim)
    # baselines
    fa2_out = None
    times = {}
    for name, be in backends.items():
        try:
            f = sdpa_fn(be, q, k, v, causal, scale)
            o = f()
            torch.cuda.synchronize()
            if name == "fa2":
                fa2_out = o
            times[name] = bench_ms(f, args.warmup, args.rep)
        except Exception as ex:  # noqa: BLE001
            times[name] = None
            print(f"# {name} failed for hdim={hdim} causal={causal} seqlen={seqlen}: "
                  f"{type(ex).__name__}: {str(ex)[:200]}", flush=True)

    def tf(ms):
        return nflop / ms / 1e9 if ms else None

    rows = []
    mine = select(entries, hdim, causal)
    if not mine:
        print(f"# skip ours: no bf16 head_dim={hdim} causal={causal} kernel in the manifest", flush=True)
        rows.append(dict(base, func=None, ours=None, verify="skip",
                         **{n: tf(t) for n, t in times.items()}, **{f"{n}_ms": t for n, t in times.items()}))
    for e in mine:
        r = dict(base, func=e["func"], so=e["so"], **{n: tf(t) for n, t in times.items()},
                 **{f"{n}_ms": t for n, t in times.items()})
        kern, err = loader(e)
        if kern is None:
            r.update(ours=None, verify="error", why=f"kernel did not load: {err}")
            print(f"# {e['func']}: {r['why']}", flush=True)
            rows.append(r)
            continue
        abi = common.entry_abi(e, getattr(kern, "abi", None) or {})
        r["abi"] = {k2: (list(v2) if isinstance(v2, tuple) else v2) for k2, v2 in
                    (getattr(kern, "abi", None) or {}).items()}
        scale_ok = abs(abi["scale"] - scale) <= 1e-6 * scale
        if not scale_ok:
            print(f"# note: {e['func']} has scale {abi['scale']} (torch runs use 1/sqrt(D) = {scale:.6g}); "
                  "FA2 diff not comparable", flush=True)
        try:
            if args.layout == "bshd":
                out = torch.full((batch, seqlen, nheads, hdim), float("nan"), device="cuda", dtype=dt).transpose(1, 2)
            else:
                out = torch.full((batch, nheads, seqlen, hdim), float("nan"), device="cuda", dtype=dt)
            lse = torch.full((batch, nheads, seqlen), float("nan"), device="cuda",
                             dtype=torch.float32) if abi["lse"] else None
            kern(q, k, v, out=out, lse=lse)
            torch.cuda.synchronize()
            if args.no_verify:
                ok, info = True, {}
            else:
                ok, info = verify(out, lse, fa2_out if scale_ok else None, q, k, v, abi)
            r.update(info)
            r["verify"] = "ok" if ok else "MISMATCH"
            if not ok:
                print(f"# {e['func']} hdim={hdim} causal={causal} seqlen={seqlen}: verification failed: "
                      f"{info.get('why')}", flush=True)
            ms = bench_ms(lambda: kern(q, k, v, out=out, lse=lse), args.warmup, args.rep)
            r.update(ours_ms=ms, ours=tf(ms))
            del out, lse
        except Exception as ex:  # noqa: BLE001
            r.update(ours=None, verify="error", why=f"{type(ex).__name__}: {str(ex)[:300]}")
            print(f"# {e['func']} hdim={hdim} causal={causal} seqlen={seqlen} raised: {r['why']}", flush=True)
            if args.verbose:
                traceback.print_exc()
        rows.append(r)
    del q, k, v, fa2_out
    torch.cuda.empty_cache()
    return rows


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifacts", required=True)
    ap.add_argument("--out", help="JSON output (default: $OUT/benchmark.json, else bench/results/benchmark-DATE.json)")
    ap.add_argument("--hdims", default=",".join(map(str, HDIMS)))
    ap.add_argument("--seqlens", default=",".join(map(str, SEQLENS)))
    ap.add_argument("--causal", choices=("both", "true", "false"), default="both")
    ap.add_argument("--layout", choices=("bshd", "bhsd"), default="bshd",
                    help="storage of Q/K/V/O (always passed as logical [B,H,S,D])")
    ap.add_argument("--backends", default="fa2,cudnn", help="torch SDPA backends to time: fa2,cudnn")
    ap.add_argument("--warmup", type=int, default=25, help="do_bench warm-up, ms")
    ap.add_argument("--rep", type=int, default=100, help="do_bench repetitions, ms")
    ap.add_argument("--runtime", default=None, help="libflashrt.so (default: $FLASHRT_LIB)")
    ap.add_argument("--no-verify", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    try:
        entries = common.read_manifest(args.artifacts)
    except Exception as ex:  # noqa: BLE001
        print(f"error: cannot read {args.artifacts}/manifest.json: {ex}", file=sys.stderr)
        return 2
    if not common.cuda_ready():
        return 2
    import torch
    from torch.nn.attention import SDPBackend
    all_be = {"fa2": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION}
    backends = {n: all_be[n] for n in args.backends.split(",") if n in all_be}
    causals = {"both": (False, True), "true": (True,), "false": (False,)}[args.causal]
    cfgs = configs([int(x) for x in args.hdims.split(",")], [int(x) for x in args.seqlens.split(",")], causals)
    info = common.gpu_info()
    print(f"# {info.get('gpu')} sms={info.get('sms')} torch={info.get('torch')} triton={info.get('triton')}; "
          f"bf16 fwd TFLOP/s, {TOKENS} tokens, model dim {MODEL_DIM}, layout {args.layout}", flush=True)

    loader = common.KernelLoader(args.runtime).get
    rows = []
    print(HEADER, flush=True)
    t0 = time.time()
    for cfg in cfgs:
        try:
            new = run_config(cfg, entries, loader, args, backends)
        except Exception as ex:  # noqa: BLE001
            new = [dict(cfg, func=None, ours=None, verify="error", why=f"{type(ex).__name__}: {str(ex)[:300]}")]
            print(f"# config {cfg} raised: {new[0]['why']}", flush=True)
            try:
                torch.cuda.empty_cache()
            except Exception:  # noqa: BLE001
                pass
        for r in new:
            print(row_line(r), flush=True)
        rows.extend(new)
    wall = time.time() - t0

    n_bad = sum(r.get("verify") in ("MISMATCH", "error") for r in rows)
    n_skip = sum(r.get("verify") == "skip" for r in rows)
    n_ok = sum(r.get("verify") == "ok" for r in rows)
    rat = [ratio(r.get("ours"), r.get("fa2")) for r in rows if r.get("verify") == "ok"]
    rat = [x for x in rat if x]
    geo = math.exp(sum(map(math.log, rat)) / len(rat)) if rat else None
    print(f"benchmark: {n_ok} timed, {n_bad} failed, {n_skip} skipped"
          + (f"; geomean ours/FA2 {geo:.2f}" if geo else "") + f"; {wall:.0f} s")

    out = args.out
    if not out:
        if os.environ.get("OUT"):
            out = os.path.join(os.environ["OUT"], "benchmark.json")
        else:
            out = os.path.join(common.REPO, "bench", "results", f"benchmark-{time.strftime('%Y%m%d-%H%M%S')}.json")
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S"), **info,
                   "command": " ".join([sys.executable] + sys.argv), "artifacts": args.artifacts,
                   "layout": args.layout, "tokens": TOKENS, "model_dim": MODEL_DIM,
                   "timing": f"triton.testing.do_bench(warmup={args.warmup}, rep={args.rep}, return_mode='median')",
                   "flops": "4*B*H*Sq*Sk*D, /2 for causal", "geomean_ours_over_fa2": geo,
                   "rows": rows}, f, indent=1, default=str)
    print(f"# written {out}")
    plot.plot_next_to(out)
    return 1 if n_bad else 0


if __name__ == "__main__":
    sys.exit(main())
