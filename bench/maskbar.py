#!/usr/bin/env python3
"""Issue #11's mask bar (a mask_mod kernel within 10 % of the unmasked
kernel on the same shapes), timed two ways in one process, with the GPU's
clock and power beside each sample.

Why two ways. gpu-mods-check.py times a pair by alternating short samples
(mask, plain, plain, mask; 5 warm-up calls and 30 timed ones each). An
H200 running attention near its power limit lowers its SM clock; a sample
that follows the other kernel starts at the clock that kernel left, so a
short sample measures partly the other kernel's power state. The steady
protocol gives each kernel a warm-up window long enough for the clock to
settle at its own level (--warm-ms of back-to-back calls), then samples of
back-to-back calls (time of the sample / calls), ABBA rounds of windows.
Both are reported; nvidia-smi's SM clock, power draw and active clock
event reasons are read after each steady window (a read: no setting is
changed), so that the difference, if any, is seen to be the clock.

  bench/maskbar.py --artifacts DIR [--pairs docmask:plain,prefixlm:plain]
      [--dims 64,128] [--rounds 3] [--warm-ms 400] [--sample-ms 25] [--samples 8]
      [--base-artifacts OLD_DIR] [--out F.json]
  bench/maskbar.py --self-test     # CPU: the protocols on a simulated GPU

DIR holds the mods artifact and mods-manifest.json of gen-mods-variants.py
(the kinds --pairs names; `plain` is flash-plan's unmasked kernel). A BASE
of `@base` times the kind against the same function of --base-artifacts'
library (an A/B of two builds of one kernel, with the same protocol); a
BASE ending in `@causal` times the kind's non-causal kernel against the
base kind's causal one (`causalmod:plain@causal`: causal written as a
mask_mod against the causal attribute); a BASE that is the kind under
another config (`docmask_p:docmask`) reads the same captures. --docs picks
a document mask's ids (random, one, or N tokens a document). Shapes: those
of gpu-mods-check.py's timing (4x16x4k, 1x16x16k), head dims 64/128, causal
and not, the same random documents for both protocols.
"""
import argparse
import functools
import importlib.util
import json
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("python", "bench", "scripts"):
    sys.path.insert(0, os.path.join(ROOT, sub))

import ab  # noqa: E402  (the ABBA schedule and paired ratios)


@functools.lru_cache(maxsize=None)
def _mods_check():
    """scripts/gpu-mods-check.py as a module (its name has dashes), loaded
    once."""
    spec = importlib.util.spec_from_file_location(
        "gpu_mods_check", os.path.join(ROOT, "scripts", "gpu-mods-check.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def gpu_state():
    """SM clock (MHz), power (W) and the active clock event reasons, read
    once through nvidia-smi; None where it cannot be read."""
    # The reasons field was renamed (clocks_throttle_reasons before r535).
    for field in ("clocks_event_reasons.active", "clocks_throttle_reasons.active"):
        try:
            out = subprocess.run(
                ["nvidia-smi", f"--query-gpu=clocks.sm,power.draw,{field}",
                 "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
            sm, power, reasons = (x.strip() for x in out.stdout.strip().split("\n")[0].split(","))
            return {"sm_mhz": float(sm), "power_w": float(power), "reasons": reasons}
        except Exception:  # noqa: BLE001
            continue
    return None


class CudaTimer:
    """CUDA-event timing on the GPU (the fake in --self-test has the same
    three methods)."""

    def per_call_ms(self, fn, n):
        """Time of n back-to-back calls / n (one event pair around them)."""
        import torch
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        for _ in range(n):
            fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end) / n

    def short_ms(self, fn):
        """gpu-mods-check.py's sample: 5 warm-up calls, the median of 30
        calls timed one by one."""
        return _mods_check().median_ms(fn)

    def state(self):
        return gpu_state()


def inputs(kind, b, h, sq, sk, d, docs=None):
    """The timing's tensors for a mods kind (gpu-mods-check.py's: bf16 Q, K,
    V from a generator seeded b * h + sq, then the kind's random captures),
    on the GPU: (q, k, v, mods, generator), the generator left where the
    captures left it."""
    import torch
    gen = torch.Generator(device="cuda")
    gen.manual_seed(b * h + sq)
    q, k, v = (torch.randn(b, h, s, d, generator=gen, device="cuda", dtype=torch.bfloat16)
               for s in (sq, sk, sk))
    return q, k, v, _mods_check().Mods(kind, b, h, sq, sk, "cuda", gen, 0, 30.0,
                                       docs=docs), gen


def measure_pair(run, timer, rounds, warm_ms, sample_ms, samples):
    """Both protocols on run = {"mask": fn, "plain": fn}, each in ab.py's
    ABBA schedule (mask, plain, plain, mask per round) with its paired
    ratio per round (here mask time / plain time): the short ratio (median
    of 5 rounds of short samples) and the steady one (median of `rounds`
    rounds of windows: ~warm_ms of back-to-back calls, then the median of
    `samples` samples of ~sample_ms each), with the steady times and the GPU
    states after each window."""
    sides = {"a": "mask", "b": "plain"}
    short = ab.measure(lambda side, _: timer.short_ms(run[side]), sides, 5, None)
    est = {s: timer.per_call_ms(run[s], 3) for s in run}
    states = {"mask": [], "plain": []}

    def window(side, _):
        fn = run[side]
        if warm_ms > 0:
            timer.per_call_ms(fn, ab.reps_for(est[side], warm_ms, 1, 1 << 20))
        n = ab.reps_for(est[side], sample_ms, 1, 1 << 20)
        ms = statistics.median(timer.per_call_ms(fn, n) for _ in range(samples))
        st = timer.state()
        if st:
            states[side].append(st)
        return ms

    steady = ab.measure(window, sides, rounds, None)
    sratios = ab.paired_ratios(steady)
    times = {s: [t for r in steady.values() for t in r[k]] for k, s in sides.items()}
    return {"short_ratio": statistics.median(ab.paired_ratios(short)),
            "steady_ratio": statistics.median(sratios), "steady_ratios": sratios,
            "mask_ms": statistics.median(times["mask"]),
            "plain_ms": statistics.median(times["plain"]), "mask_state": states["mask"],
            "plain_state": states["plain"]}


class FakeGPU:
    """--self-test's GPU at a power cap: the SM clock relaxes exponentially
    (time constant tau_ms) toward the highest clock at which the running
    kernel stays under the cap, and stays where it was while idle. A kernel
    is (cycles per call in millions, watts per MHz)."""

    def __init__(self, cap_w=700.0, max_mhz=1980.0, tau_ms=60.0):
        self.cap, self.max, self.tau = cap_w, max_mhz, tau_ms
        self.mhz = max_mhz

    def equilibrium(self, kernel):
        return min(self.max, self.cap / kernel[1])

    def call(self, kernel):
        import math
        ms = kernel[0] * 1e3 / self.mhz
        eq = self.equilibrium(kernel)
        self.mhz = eq + (self.mhz - eq) * math.exp(-ms / self.tau)
        return ms

    def per_call_ms(self, fn, n):
        return sum(self.call(fn) for _ in range(n)) / n

    def short_ms(self, fn):
        for _ in range(5):
            self.call(fn)
        return statistics.median(self.call(fn) for _ in range(30))

    def state(self):
        return {"sm_mhz": self.mhz, "power_w": 0.0, "reasons": "fake"}


def self_test():
    """The protocols on FakeGPU: a mask kernel with 1.36x the plain
    kernel's cycles and less power per MHz (plain capped at 1700 MHz, mask
    unthrottled). The steady ratio must find the true one (each kernel at
    its own clock); the short one must be biased, and so must the steady
    one without its warm-up (the planted bug)."""
    plain = (1.0, 700.0 / 1700.0)
    mask = (1.36, 700.0 / 2100.0)
    gpu = FakeGPU()
    true = (mask[0] / gpu.equilibrium(mask)) / (plain[0] / gpu.equilibrium(plain))
    run = {"mask": mask, "plain": plain}
    fails = 0

    def check(what, ok):
        nonlocal fails
        fails += not ok
        print(f"self-test {what}: {'ok' if ok else 'FAIL'}")

    got = measure_pair(run, FakeGPU(), rounds=3, warm_ms=400, sample_ms=25, samples=8)
    print(f"self-test true {true:.4f}, short {got['short_ratio']:.4f}, "
          f"steady {got['steady_ratio']:.4f}")
    check("steady ratio within 0.5 % of the true one",
          abs(got["steady_ratio"] / true - 1) < 0.005)
    check("short ratio biased by > 5 % (the carried-over clock)",
          got["short_ratio"] / true - 1 > 0.05)
    cold = measure_pair(run, FakeGPU(), rounds=3, warm_ms=0, sample_ms=1, samples=1)
    print(f"self-test without warm-up: steady {cold['steady_ratio']:.4f}")
    check("without the warm-up the steady ratio is biased by > 2 %",
          cold["steady_ratio"] / true - 1 > 0.02)
    check("clocks seen after the windows differ (plain lower)",
          statistics.median(x["sm_mhz"] for x in got["plain_state"]) <
          statistics.median(x["sm_mhz"] for x in got["mask_state"]) - 100)
    print(f"{4 - fails} passed, {fails} failed")
    return fails == 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--artifacts")
    p.add_argument("--manifest", default="mods-manifest.json")
    p.add_argument("--pairs", default="docmask:plain,prefixlm:plain",
                   help="comma-separated KIND:BASE (mods kinds; e.g. softcap_mod:softcap_attr)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warm-ms", type=float, default=400.0)
    p.add_argument("--sample-ms", type=float, default=25.0)
    p.add_argument("--samples", type=int, default=8)
    p.add_argument("--dims", default="64,128")
    p.add_argument("--docs", default="random",
                   help="document masks' ids, comma-separated: random (1 to 300 tokens "
                        "each), one (one document: every block whole) or N (N tokens each)")
    p.add_argument("--base-artifacts",
                   help="the library a BASE of @base names (its mods-manifest.json)")
    p.add_argument("--out")
    p.add_argument("--self-test", action="store_true",
                   help="CPU: both protocols on a simulated power-capped GPU")
    a = p.parse_args(argv)
    if a.self_test:
        return 0 if self_test() else 1
    if not a.artifacts:
        p.error("--artifacts DIR is required (or --self-test)")
    if a.rounds < 1 or a.samples < 1 or a.warm_ms < 0 or a.sample_ms <= 0:
        p.error("--rounds and --samples must be >= 1, --warm-ms >= 0, --sample-ms > 0")
    pairs = [tuple(x.split(":")) for x in a.pairs.split(",")]
    if any(len(x) != 2 for x in pairs):
        p.error("--pairs: KIND:BASE, comma-separated")
    import torch
    import flashmlir
    M = _mods_check()
    entries = M.C.common.read_manifest(a.artifacts, a.manifest)
    kernels = {e["func"]: flashmlir.Kernel(e["path"], e["func"]) for e in entries}
    if any(base == "@base" for _, base in pairs):
        if not a.base_artifacts:
            p.error("a BASE of @base needs --base-artifacts")
        for e in M.C.common.read_manifest(a.base_artifacts, a.manifest):
            kernels["@base " + e["func"]] = flashmlir.Kernel(e["path"], e["func"])
    timer = CudaTimer()
    print(f"# bench/maskbar.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"# {torch.cuda.get_device_name()}; idle state {gpu_state()}", flush=True)
    rows = []
    for kind, base_kind in pairs:
        for d in (int(x) for x in a.dims.split(",")):
            for causal in (False, True):
                suffix = f"_bf16_d{d}{'_causal' if causal else ''}"
                mine = f"mods_{kind}{suffix}"
                to_causal = base_kind.endswith("@causal")
                if to_causal and causal:
                    continue
                bk = base_kind.removesuffix("@causal")
                base = (f"@base {mine}" if bk == "@base"
                        else f"mods_{bk}_bf16_d{d}_causal" if to_causal
                        else f"mods_{bk}{suffix}")
                if mine not in kernels or base not in kernels:
                    continue
                doc_modes = (a.docs.split(",") if kind.startswith("docmask")
                             else ["random"])
                for (b, h, sq, sk), docs in ((s, m) for s in M.TIMING_SHAPES
                                             for m in doc_modes):
                    q, k, v, mods, gen = inputs(kind, b, h, sq, sk, d,
                                                None if docs == "random" else docs)
                    # The same modification under another config (or
                    # build) reads the same captures: the same documents.
                    split = M._gen_variants().split_config
                    base_mods = (mods if bk == "@base" or split(bk)[0] == split(kind)[0]
                                 else M.Mods(bk, b, h, sq, sk, "cuda", gen, 0, 30.0))
                    out = torch.empty_like(q)
                    lse = torch.empty(b, h, sq, device="cuda")
                    km, kb = kernels[mine], kernels[base]
                    run = {"mask": lambda: km(q, k, v, out=out, lse=lse, captures=mods.captures),
                           "plain": lambda: kb(q, k, v, out=out, lse=lse,
                                               captures=base_mods.captures)}
                    row = measure_pair(run, timer, a.rounds, a.warm_ms, a.sample_ms, a.samples)
                    row.update(mine=mine, base=base, shape=[b, h, sq, sk], docs=docs)
                    rows.append(row)

                    def clock(side):
                        st = row[f"{side}_state"]
                        if not st:
                            return "no nvidia-smi"
                        c = statistics.median(x["sm_mhz"] for x in st)
                        w = statistics.median(x["power_w"] for x in st)
                        r = "/".join(sorted({x["reasons"] for x in st}))
                        return f"{c:.0f} MHz {w:.0f} W reasons {r}"
                    sr = row["steady_ratios"]
                    print(f"maskbar {mine} / {base} B={b} H={h} S={sq}x{sk} docs={docs}: short "
                          f"{row['short_ratio']:.3f}, steady {row['steady_ratio']:.3f} "
                          f"[{min(sr):.3f}, {max(sr):.3f}] ({row['mask_ms']:.3f} / "
                          f"{row['plain_ms']:.3f} ms); {kind} {clock('mask')}; "
                          f"{base_kind} {clock('plain')}", flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
