#!/usr/bin/env python3
"""A/B of two builds of the same kernels in one process (issue #11's
no-regression bar): the FA2-paper sweep (benchmark.py's configurations and
kernel choice: bf16, 16k tokens, model dim 2048, head dims 64/128, causal
and not, 512..16k) and the decode table (decode.py's speed shapes of
decode_bf16_d128_h32x8_q1, on decode.speed_inputs' tensors). Each row runs
both builds on the same tensors.

Timing. A sample is the median of `reps` CUDA-event-timed calls with the
L2 cache flushed before each (as triton's do_bench, which benchmark.py and
decode.py use); reps is chosen per row so that a sample holds about
--sample-ms of kernel time, the same for A and B, both writing the same
O/LSE buffers. A round times A, B, B, A (ABBA: a drift linear in time
cancels within the round), and its paired ratio is speed B / speed A =
(A1 + A2) / (B1 + B2). Per row the median of
--rounds paired ratios decides (below the bar when it is < --min-ratio);
the 25th-75th percentiles and min/max of the ratios are printed so that
the noise is visible ('~' after the verdict: the bar lies inside [p25, p75]).

Outputs. Before timing, both builds run once into NaN-filled O and LSE: A
must write every element; B is checked with FA2's rule against a float32
reference (benchmark.verify on a slice; decode.check_speed on all of it),
over the whole tensor max|B - A| <= 2 x that tolerance, and its LSE within
2 x 1e-3 relative of A's.

  bench/ab.py --a OLD_ARTIFACTS --b NEW_ARTIFACTS [--table fa2|decode|both]
      [--rounds 15] [--sample-ms 20] [--min-ratio 0.97] [--out ab.json]

Each artifact dir holds manifest.json (suite) and decode-manifest.json
(decode) with their .so files. On an H200 with the defaults: the FA2 sweep
about 1 minute, the decode table about 15 s (each row: 15 rounds x 4 samples
x ~20-30 ms, plus warm-up and the output checks).
Exit status: 1 if a row is below the bar, fails an output check or lacks a
kernel; 2 on a usage error.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmark as B  # noqa: E402
import common  # noqa: E402
import correctness as C  # noqa: E402
import decode as D  # noqa: E402

SIDES = ("a", "b")


# --------------------------------------------------------------------------
# The statistics and the schedule (no GPU)

def abba(rounds):
    """The timing order, (round, side) for A, B, B, A in every round."""
    return [(r, s) for r in range(rounds) for s in ("a", "b", "b", "a")]


def reps_for(est_ms, sample_ms, lo, hi):
    """Calls per sample: about sample_ms of kernel time, within [lo, hi]."""
    if not est_ms or est_ms <= 0 or not math.isfinite(est_ms):
        return hi
    return max(lo, min(hi, math.ceil(sample_ms / est_ms)))


def measure(sample, calls, rounds, reps):
    """Runs the ABBA schedule: sample(fn, reps) -> ms for calls['a'] and
    calls['b']. Returns {round: {'a': [ms, ms], 'b': [ms, ms]}}."""
    times = {}
    for r, side in abba(rounds):
        times.setdefault(r, {s: [] for s in SIDES})[side].append(sample(calls[side], reps))
    return times


def paired_ratios(times):
    """Per round, speed B / speed A = sum of A's times / sum of B's."""
    return [sum(t["a"]) / sum(t["b"]) for _, t in sorted(times.items())]


def percentile(xs, p):
    """The p-th percentile, linear between closest ranks (numpy's default)."""
    s = sorted(xs)
    if not s:
        raise ValueError("percentile of nothing")
    k = (len(s) - 1) * p / 100.0
    f = math.floor(k)
    c = min(f + 1, len(s) - 1)
    return s[f] + (s[c] - s[f]) * (k - f)


def ratio_stats(ratios):
    return {"median": statistics.median(ratios), "p25": percentile(ratios, 25),
            "p75": percentile(ratios, 75), "min": min(ratios), "max": max(ratios),
            "n": len(ratios)}


def verdict(st, min_ratio):
    """'ok' or 'BELOW' on the median paired ratio, '~' added when the bar
    lies inside the interquartile range (the row is within the noise)."""
    v = "ok" if st["median"] >= min_ratio else "BELOW"
    return v + ("~" if st["p25"] <= min_ratio <= st["p75"] else "")


def plan_rows(table, hdims, seqlens, causals, shapes):
    """The rows to run: benchmark.configs' FA2 sweep and/or decode shapes."""
    rows = []
    if table in ("fa2", "both"):
        rows += [dict(cfg, table="fa2") for cfg in B.configs(hdims, seqlens, causals)]
    if table in ("decode", "both"):
        rows += [{"table": "decode", "batch": b, "kv_len": s} for b, s in shapes]
    return rows


def row_label(r):
    if r["table"] == "fa2":
        return f"fa2 d{r['hdim']} {'causal' if r['causal'] else 'full'} {r['seqlen']}"
    return f"decode {D.shape_text(r['batch'], r['kv_len'])}"


HEADER = (f"{'row':<22} {'A':>8} {'B':>8} {'B/A':>6} {'p25':>6} {'p75':>6} {'min':>6} "
          f"{'max':>6} {'reps':>4} {'max|B-A|':>9} {'2 x tol':>8}  verdict")


def row_line(r):
    unit = "TF/s" if r["table"] == "fa2" else "us"
    if "ratio" not in r:
        return f"{row_label(r):<22} {r.get('verdict', '?')}: {r.get('why', '')}"
    a, b = (r[f"{s}_tflops"] if unit == "TF/s" else 1e3 * r[f"{s}_ms"] for s in SIDES)
    st = r["stats"]
    return (f"{row_label(r):<22} {a:8.1f} {b:8.1f} {st['median']:6.3f} {st['p25']:6.3f} "
            f"{st['p75']:6.3f} {st['min']:6.3f} {st['max']:6.3f} {r['reps']:>4} "
            f"{r.get('max_diff', float('nan')):9.3g} {2 * r.get('tol', float('nan')):8.3g}  "
            f"{r['verdict']}{'' if r.get('verify') == 'ok' else ' ' + r.get('why', '')} "
            f"[{unit}]")


def summary(rows, min_ratio):
    timed = [r for r in rows if "ratio" in r]
    bad = [r for r in rows if not r["verdict"].startswith("ok")]
    near = [r for r in timed if r["verdict"].endswith("~")]
    text = f"ab: {len(rows)} rows, {len(bad)} failing (below {min_ratio} or not verified)"
    if timed:
        rat = [r["ratio"] for r in timed]
        text += (f"; median paired B/A min {min(rat):.3f} geomean "
                 f"{statistics.geometric_mean(rat):.3f}; {len(near)} with the bar inside p25-p75")
    return text, len(bad)


# --------------------------------------------------------------------------
# The GPU side

class Timer:
    """Samples of per-call CUDA-event times, L2 flushed before each call by
    zeroing a 256 MB buffer (as triton.testing.do_bench)."""

    def __init__(self, flush_mb=256):
        import torch
        self.torch = torch
        self.cache = torch.empty(flush_mb * (1 << 20) // 4, dtype=torch.int32, device="cuda") \
            if flush_mb else None

    def times(self, fn, reps):
        torch = self.torch
        ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
              for _ in range(reps)]
        for start, end in ev:
            if self.cache is not None:
                self.cache.zero_()
            start.record()
            fn()
            end.record()
        torch.cuda.synchronize()
        return [start.elapsed_time(end) for start, end in ev]

    def sample(self, fn, reps):
        return statistics.median(self.times(fn, reps))

    def warm(self, fn, warmup_ms):
        """Runs fn for about warmup_ms; returns one call's estimated ms."""
        est = statistics.median(self.times(fn, 5))
        self.times(fn, max(1, min(2000, int(warmup_ms / max(est, 1e-3)))))
        return est


def time_row(calls, args, timer):
    """Warm-up, reps for the row, the ABBA rounds; fills the row's figures."""
    est = statistics.mean(timer.warm(calls[s], args.warmup_ms) for s in SIDES)
    reps = reps_for(est, args.sample_ms, args.min_reps, args.max_reps)
    times = measure(timer.sample, calls, args.rounds, reps)
    ratios = paired_ratios(times)
    st = ratio_stats(ratios)
    ms = {s: statistics.median([x for t in times.values() for x in t[s]]) for s in SIDES}
    return {"reps": reps, "rounds": args.rounds, "a_ms": ms["a"], "b_ms": ms["b"],
            "ratio": st["median"], "stats": st, "ratios": ratios,
            "times": {str(k): v for k, v in times.items()}}


def lse_vs_a(lse_b, lse_a, why, r):
    """B's LSE within twice the LSE bound of A's (both meet it against the
    reference)."""
    if lse_a is None or lse_b is None:
        return
    lerr, _ = C.lse_errors(lse_b, lse_a)
    r["lse_diff"] = float(lerr.max())
    bound = 2 * C.LSE_RTOL * lse_a.abs().clamp(min=1.0)
    if bool((lerr > bound).any()):
        why.append(f"LSE B vs A {r['lse_diff']:.3g}")


def unwritten(out, lse):
    import torch
    n = int(torch.isnan(out).sum()) + (int((~torch.isfinite(lse)).sum()) if lse is not None else 0)
    return f"A left {n} NaN/non-finite O/LSE elements" if n else None


def fa2_row(row, kerns, timer, args):
    """One FA2-sweep row: A and B on the same Q/K/V (benchmark.py's layout)."""
    import torch
    dev = args.device
    hdim, causal, seqlen, batch, nheads = (row[k] for k in ("hdim", "causal", "seqlen", "batch", "nheads"))
    gen = torch.Generator(device=dev)
    gen.manual_seed(1000 * hdim + seqlen + int(causal))
    q, k, v = (torch.randn(batch, seqlen, nheads, hdim, generator=gen, device=dev,
                           dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
    outs = {}
    for s in SIDES:
        o = torch.full((batch, seqlen, nheads, hdim), float("nan"), device=dev,
                       dtype=torch.bfloat16).transpose(1, 2)
        lse = torch.full((batch, nheads, seqlen), float("nan"), device=dev)
        kerns[s](q, k, v, out=o, lse=lse)
        outs[s] = (o, lse)
    D.sync(dev)
    abi = common.entry_abi(row["entry_b"], getattr(kerns["b"], "abi", None) or {})
    why = [w for w in [unwritten(*outs["a"])] if w]
    ok, info = B.verify(outs["b"][0], outs["b"][1], outs["a"][0], q, k, v, abi, other="A")
    if not ok:
        why.append(info["why"])
    r = {"max_diff": info.get("max_diff_a"), "tol": info.get("tol_slice"),
         "err_slice": info.get("err_slice")}
    lse_vs_a(outs["b"][1], outs["a"][1], why, r)
    o, lse = outs["a"]  # timed into the same buffers: only the kernel differs
    calls = {s: (lambda s=s: kerns[s](q, k, v, out=o, lse=lse)) for s in SIDES}
    r.update(time_row(calls, args, timer))
    fl = B.flops(batch, nheads, seqlen, seqlen, hdim, causal)
    r.update(flops=fl, **{f"{s}_tflops": fl / r[f"{s}_ms"] / 1e9 for s in SIDES})
    return r, why


def decode_row(row, kerns, sems, timer, args):
    """One decode-table row: decode.speed_inputs' tensors for both builds."""
    b, s = row["batch"], row["kv_len"]
    sem = sems["b"]
    q, k, v, extra, out_a, lse_a = D.speed_inputs(b, s, sem, args.device)
    out_b, lse_b = out_a.clone(), None if lse_a is None else lse_a.clone()
    outs = {"a": (out_a, lse_a), "b": (out_b, lse_b)}
    for side in SIDES:
        kerns[side](q, k, v, out=outs[side][0], lse=outs[side][1], **extra)
    D.sync(args.device)
    r = {}
    why = [w for w in [unwritten(out_a, lse_a)] if w]
    why += D.check_speed(out_b, lse_b, q, k, v, sem, {"A": out_a}, r)
    r["max_diff"] = r.pop("diff_A")
    lse_vs_a(lse_b, lse_a, why, r)
    calls = {x: (lambda x=x: kerns[x](q, k, v, out=out_a, lse=lse_a, **extra)) for x in SIDES}
    r.update(time_row(calls, args, timer))
    r["kv_bytes"] = D.kv_bytes(b, sem["hkv"], s, sem["head_dim"])
    r.update({f"{x}_tbps": D.tbps(r["kv_bytes"], r[f"{x}_ms"]) for x in SIDES})
    return r, why


def load(args):
    """Per side: suite entries and/or the decode entry, with 'path' set."""
    ents = {}
    for s, d in (("a", args.a), ("b", args.b)):
        ents[s] = {}
        if args.table in ("fa2", "both"):
            ents[s]["fa2"] = common.read_manifest(d)
        if args.table in ("decode", "both"):
            dec = [e for e in common.read_manifest(d, args.decode_manifest)
                   if e["func"] == args.decode_func]
            if not dec:
                raise ValueError(f"no {args.decode_func} in {os.path.join(d, args.decode_manifest)}")
            ents[s]["decode"] = dec[0]
    return ents


def run_row(row, ents, loader, timer, args):
    if row["table"] == "fa2":
        picks = {s: B.select(ents[s]["fa2"], row["hdim"], row["causal"])[:1] for s in SIDES}
        if not all(picks.values()):
            return dict(row, verdict="error", why="no bf16 kernel of this head dim/causality")
        row = dict(row, entry_b=picks["b"][0], func_a=picks["a"][0]["func"], func_b=picks["b"][0]["func"])
        entries = {s: picks[s][0] for s in SIDES}
    else:
        entries = {s: ents[s]["decode"] for s in SIDES}
        row = dict(row, func_a=entries["a"]["func"], func_b=entries["b"]["func"])
    kerns = {}
    for s in SIDES:
        kerns[s], err = loader(entries[s])
        if kerns[s] is None:
            return dict(row, verdict="error", why=f"{s.upper()} did not load: {err}")
    abis = {s: getattr(kerns[s], "abi", None) or {} for s in SIDES}
    diff = common.abi_mismatch({k: v for k, v in abis["a"].items() if k != "func"}, abis["b"])
    if diff:
        return dict(row, verdict="error", why="A and B differ in ABI: " + "; ".join(diff))
    if row["table"] == "fa2":
        r, why = fa2_row(row, kerns, timer, args)
    else:
        sems = {s: D.semantics(entries[s], abis[s]) for s in SIDES}
        if sems["b"]["paged"]:
            return dict(row, verdict="error", why="paged entries are not in the decode table")
        r, why = decode_row(row, kerns, sems, timer, args)
    out = dict(row, **r)
    out.pop("entry_b", None)
    out["verify"] = "MISMATCH" if why else "ok"
    if why:
        out["why"] = "; ".join(why)
    out["verdict"] = verdict(r["stats"], args.min_ratio) if not why else "MISMATCH"
    return out


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True, help="artifact dir of the old build")
    ap.add_argument("--b", required=True, help="artifact dir of the new build")
    ap.add_argument("--table", choices=("fa2", "decode", "both"), default="both")
    ap.add_argument("--out", help="JSON results")
    ap.add_argument("--min-ratio", type=float, default=0.97)
    ap.add_argument("--rounds", type=int, default=15, help="ABBA rounds per row")
    ap.add_argument("--sample-ms", type=float, default=20.0, help="kernel time per sample")
    ap.add_argument("--min-reps", type=int, default=3)
    ap.add_argument("--max-reps", type=int, default=200)
    ap.add_argument("--warmup-ms", type=float, default=25.0, help="warm-up per build and row")
    ap.add_argument("--flush-mb", type=int, default=256, help="L2 flush buffer (0: no flush)")
    ap.add_argument("--hdims", default=",".join(map(str, B.HDIMS)))
    ap.add_argument("--seqlens", default=",".join(map(str, B.SEQLENS)))
    ap.add_argument("--causal", choices=("both", "true", "false"), default="both")
    ap.add_argument("--shapes", default=",".join(f"{b}x{s}" for b, s in D.SPEED_SHAPES),
                    help="decode shapes BxS, comma separated")
    ap.add_argument("--decode-func", default=D.SPEED_FUNC)
    ap.add_argument("--decode-manifest", default="decode-manifest.json")
    ap.add_argument("--list", action="store_true", help="print the rows and exit")
    ap.add_argument("--device", default="cuda", help=argparse.SUPPRESS)  # cpu: the self-test
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.sample_ms <= 0 or not 1 <= args.min_reps <= args.max_reps:
        ap.error("need --rounds >= 1, --sample-ms > 0 and 1 <= --min-reps <= --max-reps")
    try:
        args.shapes = [tuple(int(x) for x in t.lower().split("x")) for t in args.shapes.split(",") if t]
        args.hdims = [int(x) for x in args.hdims.split(",")]
        args.seqlens = [int(x) for x in args.seqlens.split(",")]
    except ValueError:
        ap.error("bad --shapes/--hdims/--seqlens (want BxS,... and integers)")
    args.causals = {"both": (False, True), "true": (True,), "false": (False,)}[args.causal]
    return args


def main(argv=None):
    args = parse_args(argv)
    rows = plan_rows(args.table, args.hdims, args.seqlens, args.causals, args.shapes)
    if args.list:
        for r in rows:
            print(row_label(r))
        print(f"{len(rows)} rows")
        return 0
    loader = common.KernelLoader(None).get
    try:
        ents = load(args)
    except (OSError, ValueError) as ex:
        print(f"error: {ex}", file=sys.stderr)
        return 2
    if not common.cuda_ready():
        return 2
    import torch
    info = common.gpu_info()
    print(f"# {info.get('gpu')} torch={info.get('torch')}; A={args.a} B={args.b}; {len(rows)} rows, "
          f"{args.rounds} ABBA rounds, ~{args.sample_ms:g} ms per sample; B/A = speed ratio, "
          f"median of per-round paired ratios (p25/p75/min/max: their spread)", flush=True)
    print(HEADER, flush=True)
    timer = Timer(args.flush_mb)
    out, t0 = [], time.time()
    for row in rows:
        try:
            r = run_row(row, ents, loader, timer, args)
        except Exception as ex:  # noqa: BLE001
            r = dict(row, verdict="error", why=f"{type(ex).__name__}: {str(ex)[:300]}")
        torch.cuda.empty_cache()
        out.append(r)
        print(row_line(r), flush=True)
    text, bad = summary(out, args.min_ratio)
    print(f"{text}; {time.time() - t0:.0f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d %H:%M:%S"), **info, "a": args.a, "b": args.b,
                       "command": " ".join([sys.executable] + sys.argv),
                       "timing": f"ABBA x {args.rounds} rounds; sample = median of reps CUDA-event "
                                 f"times, L2 flush {args.flush_mb} MB; ~{args.sample_ms} ms/sample",
                       "min_ratio": args.min_ratio, "rows": out}, f, indent=1, default=str)
    return 1 if bad or not out else 0


if __name__ == "__main__":
    sys.exit(main())
