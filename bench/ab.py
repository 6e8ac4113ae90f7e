#!/usr/bin/env python3
"""A/B of two builds of the same kernels in one process: the FA2-paper sweep
(bf16, 16k tokens, model dim 2048, head dims 64/128, causal and not), each
configuration on the same tensors for both builds, timed interleaved
(A, B, A, B, ... medians of CUDA-event-timed runs after warm-up, as
benchmark.py times). Prints B/A per row; exit 1 if any row of B is below
--min-ratio of A or the outputs differ by more than FA2's rule allows.

  bench/ab.py --a OLD_ARTIFACTS --b NEW_ARTIFACTS [--out ab.json] [--min-ratio 0.97]
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import benchmark as B  # noqa: E402
import common  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", required=True, help="artifact dir of the old build")
    ap.add_argument("--b", required=True, help="artifact dir of the new build")
    ap.add_argument("--out")
    ap.add_argument("--min-ratio", type=float, default=0.97)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    import torch
    ents = {s: json.load(open(os.path.join(d, "manifest.json"))) for s, d in (("a", args.a), ("b", args.b))}
    for s, d in (("a", args.a), ("b", args.b)):
        for e in ents[s]:
            e["path"] = os.path.join(d, os.path.basename(e["so"]))
    loader = common.KernelLoader(None).get
    rows, bad = [], 0
    print(f"{'hdim':>4} {'causal':>6} {'seqlen':>6} {'A TF/s':>8} {'B TF/s':>8} {'B/A':>6}  max|B-A|")
    for cfg in B.configs([64, 128], [512, 1024, 2048, 4096, 8192, 16384], [False, True]):
        hdim, causal, seqlen, batch, nheads = (cfg[k] for k in ("hdim", "causal", "seqlen", "batch", "nheads"))
        ka = [loader(e)[0] for e in B.select(ents["a"], hdim, causal)][:1]
        kb = [loader(e)[0] for e in B.select(ents["b"], hdim, causal)][:1]
        if not ka or not kb or ka[0] is None or kb[0] is None:
            continue
        gen = torch.Generator(device="cuda")
        gen.manual_seed(7 * hdim + seqlen + int(causal))
        q, k, v = (torch.randn(batch, seqlen, nheads, hdim, generator=gen, device="cuda",
                               dtype=torch.bfloat16).transpose(1, 2) for _ in range(3))
        outs = {}
        for s, kern in (("a", ka[0]), ("b", kb[0])):
            o = torch.full((batch, seqlen, nheads, hdim), float("nan"), device="cuda",
                           dtype=torch.bfloat16).transpose(1, 2)
            lse = torch.full((batch, nheads, seqlen), float("nan"), device="cuda")
            kern(q, k, v, out=o, lse=lse)
            outs[s] = (kern, o, lse)
        torch.cuda.synchronize()
        diff = float((outs["a"][1].float() - outs["b"][1].float()).abs().max())
        ms = {"a": [], "b": []}
        for _ in range(args.rounds):
            for s in ("a", "b"):
                kern, o, lse = outs[s]
                ms[s].append(B.bench_ms(lambda: kern(q, k, v, out=o, lse=lse), 25, 100))
        fl = B.flops(batch, nheads, seqlen, seqlen, hdim, causal)
        ta, tb = (fl / statistics.median(ms[s]) / 1e9 for s in ("a", "b"))
        r = dict(cfg, a_tflops=ta, b_tflops=tb, ratio=tb / ta, max_diff=diff)
        rows.append(r)
        # The same math: identical up to accumulation order at most.
        ok = r["ratio"] >= args.min_ratio and diff <= 0.05
        bad += not ok
        print(f"{hdim:>4} {str(causal):>6} {seqlen:>6} {ta:8.0f} {tb:8.0f} {r['ratio']:6.3f}  {diff:.3g}"
              + ("" if ok else "  <-- BELOW"), flush=True)
    rat = [r["ratio"] for r in rows]
    if rat:
        print(f"ab: {len(rows)} rows, B/A min {min(rat):.3f} geomean "
              f"{statistics.geometric_mean(rat):.3f}; {bad} below {args.min_ratio}")
    if args.out:
        json.dump(rows, open(args.out, "w"), indent=1)
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
