#!/usr/bin/env python3
"""Structured fuzz driver: runs gen_attention.py's cases through the tools.

For every seed in --seeds, the generated module goes through
  * flash-opt alone (parse + verify),
  * each flash pass alone, chained on the previous pass's output
    (fold-gqa, plan, split-kv, tile, online-softmax; flash-to-gpu on the
    tiled IR),
  * each named pipeline: flash-lower-to-cpu, and flash-lower-to-gpu with
    format=isa for chip=sm_90 (odd seeds) or chip=sm_90a (even seeds),
  * flash-run on the CPU against the reference, for the runnable cases,
and each run is classified:
  ok          exit 0, no error printed
  diagnostic  exit 1 with an `error:` message
  CRASH       a signal, exit > 1, LLVM ERROR / Assertion / stack dump, an
              exit 1 without a message or an error with exit 0, or output
              written by a failed run
  HANG        over --timeout seconds
  WRONG       flash-run's result differs from the reference
Every CRASH, HANG and WRONG is written to --save-dir with the command that
shows it; the exit code is 1 if there was any.

  run_fuzz.py --bin-dir=build/bin --seeds=0:2000 --jobs=8 --save-dir=found
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_attention  # noqa: E402

CRASH_MARKERS = ("LLVM ERROR", "Assertion", "Stack dump", "PLEASE submit",
                 "Segmentation fault", "terminate called", "AddressSanitizer",
                 "runtime error:")
PASS_CHAIN = ["flash-fold-gqa", "flash-plan", "flash-split-kv", "flash-tile",
              "flash-online-softmax"]
PIPELINES = ["flash-lower-to-cpu",
             "flash-lower-to-gpu{chip=sm_90 format=isa}",
             "flash-lower-to-gpu{chip=sm_90a format=isa}"]
FAILURES = ("CRASH", "HANG", "WRONG")


def classify(cmd, timeout, out_path=None, runner=False):
    """Runs `cmd`; returns (class, stdout, stderr)."""
    if out_path and os.path.exists(out_path):
        os.remove(out_path)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return "HANG", "", "timed out after %gs" % timeout
    err = p.stderr
    if p.returncode < 0 or p.returncode > 1 or any(m in err for m in CRASH_MARKERS):
        return "CRASH", p.stdout, err
    if p.returncode == 1:
        if runner and "FAIL" in p.stdout:
            return "WRONG", p.stdout, err
        if "error" not in err:
            return "CRASH", p.stdout, err + "\n(exit 1 without a message)"
        if out_path and os.path.exists(out_path) and os.path.getsize(out_path):
            return "CRASH", p.stdout, err + "\n(output written on failure)"
        return "diagnostic", p.stdout, err
    if "error:" in err:
        return "CRASH", p.stdout, err + "\n(error printed but exit 0)"
    return "ok", p.stdout, err


def run_case(seed, args, workdir):
    """All runs of one seed: [(stage, class, command, stderr)]."""
    case = gen_attention.generate(seed)
    opt = os.path.join(args.bin_dir, "flash-opt")
    src = os.path.join(workdir, "s%d.mlir" % seed)
    with open(src, "w") as f:
        f.write(case.mlir)
    results = []

    def opt_run(stage, inp, pipeline):
        out = os.path.join(workdir, "s%d.%d.mlir" % (seed, len(results)))
        cmd = [opt, inp, "-o", out]
        if pipeline:
            cmd.append("--pass-pipeline=builtin.module(%s)" % pipeline)
        cls, _, err = classify(cmd, args.timeout, out)
        results.append((stage, cls, cmd, err))
        return out if cls == "ok" else None

    if opt_run("verify", src, None) is None:
        return case, results
    cur = src
    for p in PASS_CHAIN:
        nxt = opt_run(p, cur, p)
        if nxt is None:
            break
        if p == "flash-tile":
            opt_run("flash-to-gpu", nxt, "flash-to-gpu")
        cur = nxt
    # The CPU pipeline every time; the GPU pipeline (NVPTX code generation,
    # the slow part) for one chip per seed, alternating.
    for p in (PIPELINES[0], PIPELINES[1 + seed % 2]):
        opt_run(p, src, p)
    if case.run_args:
        cmd = [os.path.join(args.bin_dir, "flash-run"), src] + case.run_args
        cls, out, err = classify(cmd, args.run_timeout, runner=True)
        results.append(("flash-run", cls, cmd, err + out))
    return case, results


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin-dir", required=True)
    ap.add_argument("--seeds", default="0:100", help="A:B, seeds A..B-1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=60.0,
                    help="seconds per flash-opt run before it is a HANG")
    ap.add_argument("--run-timeout", type=float, default=120.0,
                    help="seconds per flash-run before it is a HANG")
    ap.add_argument("--save-dir", help="where CRASH/HANG/WRONG inputs go")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.seeds.split(":"))
    start = time.time()
    counts, by_gen, failures = {}, {}, []
    with tempfile.TemporaryDirectory(prefix="flash-fuzz-") as workdir, \
            ThreadPoolExecutor(args.jobs) as pool:
        for case, results in pool.map(lambda s: run_case(s, args, workdir),
                                      range(lo, hi)):
            by_gen[case.generator] = by_gen.get(case.generator, 0) + 1
            for stage, cls, cmd, err in results:
                counts[cls] = counts.get(cls, 0) + 1
                if args.verbose:
                    print("seed %d %s/%s %s: %s" % (case.seed, case.generator,
                                                    case.mutation or "valid", stage, cls))
                if cls in FAILURES:
                    failures.append((case, stage, cls, cmd, err))
    for case, stage, cls, cmd, err in failures:
        print("%s: seed %d (%s, %s) at %s: %s" % (
            cls, case.seed, case.generator, case.mutation or "valid", stage,
            (err.strip().splitlines() or ["?"])[-1][:200]))
        if args.save_dir:
            os.makedirs(args.save_dir, exist_ok=True)
            path = os.path.join(args.save_dir, "%s-seed%d-%s.mlir" % (
                cls.lower(), case.seed, stage.split("{")[0]))
            with open(path, "w") as f:
                f.write("// %s at %s; command:\n// %s\n// %s\n%s" % (
                    cls, stage, " ".join(cmd),
                    "\n// ".join(err.strip().splitlines()[-15:]), case.mlir))
    gens = ", ".join("%s %d" % kv for kv in sorted(by_gen.items()))
    print("fuzz: %d seeds (%s), %d runs in %.0fs: %s" % (
        hi - lo, gens, sum(counts.values()), time.time() - start,
        ", ".join("%s %d" % kv for kv in sorted(counts.items()))))
    print("fuzz: %d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
