#!/usr/bin/env python3
"""CPU self-test of bench/ab.py's parts that need no GPU: the ABBA schedule
(a linear drift and a per-round speed change cancel in the paired ratio),
the ratio statistics and verdict, the choice of reps, the row plan, and one
FA2-sweep row and one decode row run end to end on the CPU with
test_bench_logic.py's fake kernels and a fake clock (honest builds pass, a
slower B is below the bar, a B with wrong outputs or another ABI fails).

  python3 bench/test_ab_logic.py        # ends with 'N passed, N failed'
"""
import io
import os
import sys
from contextlib import redirect_stdout

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ab  # noqa: E402
import test_bench_logic as T  # noqa: E402  (fake kernels, manifests, the runner)


def near(x, y, tol=1e-12):
    return abs(x - y) <= tol * max(1.0, abs(y))


def test_ab_schedule():
    s = ab.abba(3)
    assert s[:4] == [(0, "a"), (0, "b"), (0, "b"), (0, "a")], s
    assert len(s) == 12 and [x for x in s if x[0] == 2] == [(2, "a"), (2, "b"), (2, "b"), (2, "a")]


class DriftClock:
    """sample(fn, reps): fn() gives the side's true time; the clock makes
    every sample `drift` slower than the one before and, per round of 4
    samples, scales by a different factor (a clock change between rounds)."""

    def __init__(self, drift, per_round=(1.0,)):
        self.t, self.drift, self.per_round, self.reps = 0, drift, per_round, []

    def sample(self, fn, reps):
        f = self.per_round[(self.t // 4) % len(self.per_round)]
        x = fn() * (1 + self.drift * self.t) * f
        self.t += 1
        self.reps.append(reps)
        return x

    def warm(self, fn, warmup_ms):
        return fn()


def test_ab_paired_ratio_cancels_drift():
    import argparse
    args = argparse.Namespace(warmup_ms=1, sample_ms=20.0, min_reps=3, max_reps=200, rounds=7)
    clock = DriftClock(0.05, per_round=(1.0, 1.3, 0.8))
    r = ab.time_row({"a": lambda: 1.0, "b": lambda: 0.8}, args, clock)
    # B takes 0.8 of A's time: 1.25x the speed, in every round despite the drift
    assert all(near(x, 1.25) for x in r["ratios"]), r["ratios"]
    assert near(r["ratio"], 1.25) and near(r["stats"]["p25"], r["stats"]["p75"])
    assert r["reps"] == 23 and set(clock.reps) == {23} and len(clock.reps) == 28, r["reps"]
    assert len(r["times"]) == 7 and all(len(t["a"]) == 2 == len(t["b"]) for t in r["times"].values())


def test_ab_stats_and_verdict():
    assert ab.percentile([4, 1, 3, 2], 25) == 1.75 and ab.percentile([4, 1, 3, 2], 75) == 3.25
    assert ab.percentile([5.0], 25) == 5.0 and ab.percentile([1, 2, 3], 50) == 2
    st = ab.ratio_stats([0.99, 0.95, 1.0, 0.96, 0.98])
    assert st["median"] == 0.98 and st["min"] == 0.95 and st["max"] == 1.0 and st["n"] == 5
    assert near(st["p25"], 0.96) and near(st["p75"], 0.99)
    assert ab.verdict(st, 0.97) == "ok~" and ab.verdict(st, 0.95) == "ok"
    assert ab.verdict(st, 0.985) == "BELOW~" and ab.verdict(st, 1.0) == "BELOW"
    assert ab.paired_ratios({1: {"a": [2.0, 2.0], "b": [1.0, 3.0]},
                             0: {"a": [1.0, 1.0], "b": [2.0, 2.0]}}) == [0.5, 1.0]


def test_ab_reps():
    assert ab.reps_for(0.19, 20, 3, 200) == 106
    assert ab.reps_for(5.3, 20, 3, 200) == 4 and ab.reps_for(30.0, 20, 3, 200) == 3
    assert ab.reps_for(0.018, 20, 3, 200) == 200 and ab.reps_for(0.0, 20, 3, 200) == 200


def test_ab_rows_and_cli():
    a = ab.parse_args(["--a", "x", "--b", "y"])
    assert a.rounds == 15 and a.table == "both" and a.min_ratio == 0.97
    rows = ab.plan_rows(a.table, a.hdims, a.seqlens, a.causals, a.shapes)
    fa2 = [r for r in rows if r["table"] == "fa2"]
    dec = [r for r in rows if r["table"] == "decode"]
    assert len(fa2) == 24 and len(dec) == 7 and len({ab.row_label(r) for r in rows}) == 31
    assert {(r["hdim"], r["causal"]) for r in fa2} == {(64, False), (64, True), (128, False), (128, True)}
    assert {r["seqlen"] for r in fa2} == {512, 1024, 2048, 4096, 8192, 16384}
    assert ab.row_label(dec[0]) == "decode 1x4k"
    assert len(ab.plan_rows("decode", a.hdims, a.seqlens, a.causals, [(2, 100)])) == 1
    a = ab.parse_args(["--a", "x", "--b", "y", "--table", "fa2", "--hdims", "128", "--causal", "true"])
    assert [r["seqlen"] for r in ab.plan_rows(a.table, a.hdims, a.seqlens, a.causals, a.shapes)] == \
        [512, 1024, 2048, 4096, 8192, 16384]
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert ab.main(["--a", "x", "--b", "y", "--list", "--shapes", "1x4096,8x8192"]) == 0
    assert buf.getvalue().splitlines()[-1] == "26 rows" and "decode 8x8k" in buf.getvalue()


class Timed:
    """A fake kernel whose calls the DriftClock times at `ms`."""

    def __init__(self, kern, ms, clock):
        self.kern, self.ms, self.clock, self.abi = kern, ms, clock, kern.abi

    def __call__(self, *a, **kw):
        self.kern(*a, **kw)
        return self.ms


def run(row, ents, kerns, **kw):
    import argparse
    args = argparse.Namespace(device="cpu", warmup_ms=1, sample_ms=2.0, min_reps=1, max_reps=5,
                              rounds=3, min_ratio=0.97)
    vars(args).update(kw)
    return ab.run_row(row, ents, lambda e: (kerns[e["path"]], None), DriftClock(0.01), args)


def test_ab_rows_on_cpu():
    fa2 = {"table": "fa2", "hdim": 64, "causal": True, "seqlen": 96, "batch": 2, "nheads": 4}
    dec = {"table": "decode", "batch": 2, "kv_len": 80}
    man = {s: [dict(e, path=s) for e in T.manifest(("bf16",), (64,), (True,))] for s in "ab"}
    de = T.decode_entry(4, 2, 1, 16)
    ents = {s: {"fa2": man[s], "decode": dict(de, path=s)} for s in "ab"}
    for row, make in ((fa2, lambda e, bug=None: T.FakeKernel(e, bug)),
                      (dec, lambda e, bug=None: T.FakeDecodeKernel(e, bug))):
        e = man["a"][0] if row is fa2 else de
        honest = {"a": Timed(make(e), 1.0, None), "b": Timed(make(e), 0.95, None)}
        r = run(row, ents, honest)
        assert r["verdict"] == "ok" and r["verify"] == "ok", r
        assert near(r["ratio"], 1 / 0.95, 1e-9) and r["max_diff"] == 0 and r["rounds"] == 3, r
        slow = dict(honest, b=Timed(make(e), 1.04, None))
        r = run(row, ents, slow)
        assert r["verdict"] == "BELOW" and near(r["ratio"], 1 / 1.04, 1e-9), r
        # B off by 0.5 everywhere: far above 2 x the tolerance whatever this
        # CPU's bf16 error (0.05 stayed within it where that error is large)
        wrong = make(e)
        inner = wrong.__call__
        wrong = Timed(type("W", (), {"abi": wrong.abi, "__call__": lambda self, *a, **kw: (
            inner(*a, **kw), kw["out"].add_(0.5))})(), 1.0, None)
        r = run(row, ents, dict(honest, b=wrong))
        assert r["verdict"] == "MISMATCH" and "A|" in r["why"], r
        other = make(e)
        other.abi = dict(other.abi, scale=0.5)
        r = run(row, ents, dict(honest, b=Timed(other, 1.0, None)))
        assert r["verdict"] == "error" and "scale" in r["why"], r
    text, bad = ab.summary([dict(fa2, verdict="ok~", ratio=0.98), dict(dec, verdict="BELOW", ratio=0.9)],
                           0.97)
    assert bad == 1 and "min 0.900" in text and "1 with the bar inside" in text, text


def main():
    return T.run_tests(globals())


if __name__ == "__main__":
    sys.exit(main())
