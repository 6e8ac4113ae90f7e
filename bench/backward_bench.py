#!/usr/bin/env python3
"""The backward's speed (issue #39): our backward kernels against PyTorch's
SDPA backward through FlashAttention-2 and cuDNN, on the same tensors in one
process: bf16, 16k tokens (batch = 16384 / S), hidden 2048 (heads = 2048 /
D), D 64 and 128, causal or not, S from 1k to 16k. TFLOP/s of the backward
alone count 2.5x the forward's matmul FLOPs (4 B H S^2 D, halved under a
causal mask), as the issue's table does. O and LSE come from FA2's forward
of the same inputs.

  backward_bench.py --artifact ours=DIR/bwd-sm_90a.so [--artifact base=OLD.so
                    --names base=plain64,causal64,plain128,causal128]
                    [--seqs 1024,4096,16384] [--out F.json]

Each artifact's entries are bench/backward-variants.mlir's (bwd_d64_bf16,
bwd_d64_bf16_causal, bwd_d128_bf16, bwd_d128_bf16_causal) unless --names
renames them (d64, d64 causal, d128, d128 causal). The first artifact is
"ours": the ratios printed are its time against each other's (A/B) and
FA2's and cuDNN's against its (> 1: ours is faster). Medians of CUDA-event
timed runs after a warm-up; inputs random (never zeros).
"""
import argparse
import json
import math
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

DEFAULT_NAMES = ["bwd_d64_bf16", "bwd_d64_bf16_causal", "bwd_d128_bf16",
                 "bwd_d128_bf16_causal"]
ROWS = [(64, False), (64, True), (128, False), (128, True)]


def median_ms(torch, fn, reps=10, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b))
    return sorted(times)[len(times) // 2]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--artifact", action="append", required=True, help="LABEL=PATH")
    ap.add_argument("--names", action="append", default=[], help="LABEL=d64,d64c,d128,d128c")
    ap.add_argument("--seqs", default="1024,4096,16384")
    ap.add_argument("--out")
    a = ap.parse_args(argv)
    import torch
    import torch.nn.functional as F
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from flashmlir.runtime import Kernel
    names = {lab: n.split(",") for lab, n in (x.split("=", 1) for x in a.names)}
    arts = []
    for spec in a.artifact:
        label, path = spec.split("=", 1)
        arts.append((label, [Kernel(path, f) for f in names.get(label, DEFAULT_NAMES)]))
    dev = torch.cuda.get_device_name()
    print(f"# {dev}, torch {torch.__version__}, bf16, 16k tokens, hidden 2048")
    rows = []
    for (d, causal), idx in zip(ROWS, range(4)):
        for s in (int(x) for x in a.seqs.split(",")):
            b, h = max(16384 // s, 1), 2048 // d
            gen = torch.Generator(device="cuda")
            gen.manual_seed(s + d)
            q, k, v, do = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16,
                                       generator=gen) for _ in range(4))
            qq, kk, vv = (x.clone().requires_grad_() for x in (q, k, v))
            res = {}
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                ofa = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
            res["fa2"] = median_ms(torch, lambda: torch.autograd.grad(
                ofa, (qq, kk, vv), do, retain_graph=True))
            try:
                with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
                    ocu = F.scaled_dot_product_attention(qq, kk, vv, is_causal=causal)
                res["cudnn"] = median_ms(torch, lambda: torch.autograd.grad(
                    ocu, (qq, kk, vv), do, retain_graph=True))
            except RuntimeError:
                res["cudnn"] = math.nan
            # O and LSE (natural log) of the same inputs: FA2's forward.
            o, lse = torch.ops.aten._scaled_dot_product_flash_attention(
                q, k, v, 0.0, causal, False)[:2]
            dq, dk, dv = torch.empty_like(q), torch.empty_like(k), torch.empty_like(v)
            for label, kerns in arts:
                kern = kerns[idx]
                res[label] = median_ms(torch, lambda: kern(q, k, v, o, lse, do, dq=dq, dk=dk,
                                                           dv=dv))
            flops = 4 * b * h * s * s * d * 2.5 / (2 if causal else 1)
            ours = arts[0][0]
            row = {"d": d, "causal": causal, "seq": s, "ms": res,
                   "tflops": {k_: flops / t / 1e9 for k_, t in res.items()}}
            rows.append(row)
            line = f"d{d} {'causal' if causal else 'non-causal'} S={s}:"
            for k_, t in res.items():
                line += f" {k_} {t:.3f} ms ({flops / t / 1e9:.0f} TF/s)"
            line += " | " + " ".join(f"{k_}/{ours} {res[k_] / res[ours]:.2f}x"
                                     for k_ in res if k_ != ours)
            print(line, flush=True)
            del q, k, v, do, qq, kk, vv, ofa, o, lse, dq, dk, dv
            torch.cuda.empty_cache()
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": dev, "torch": torch.__version__,
                       "date": time.strftime("%Y-%m-%d %H:%M:%S"), "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
