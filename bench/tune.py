"""Tile sweep: time hand-configured kernels against torch SDPA (FA2, cuDNN).

  python3 bench/tune.py --artifact TUNE.so --manifest TUNE.json [--seqlens 1024,4096,16384]

TUNE.json is the manifest `scripts/gen-variants.py --configs=...` writes
with the .mlir (so bench/correctness.py can run the same entries). Each
entry runs in its own process, so a kernel that faults cannot take the
others with it. Shapes are the FA2 sweep's (bf16, 16k tokens, model dim
2048, BSHD); every row also checks the output against a float32 reference
with FA2's rule (error <= 2x that of torch SDPA in bf16 + 1e-3) after
poisoning it with NaN. Timings are bench/benchmark.py's (do_bench medians).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (puts python/ on sys.path)


def median_ms(fn):
    import benchmark
    return benchmark.bench_ms(fn, warmup=25, rep=100)


def run_one(artifact, func, d, causal, seqlens):
    import torch
    import flashmlir
    from torch.nn.attention import sdpa_kernel, SDPBackend
    flashmlir.load_runtime(os.environ["FLASHRT_LIB"])
    kern = flashmlir.Kernel(artifact, func)
    F = torch.nn.functional.scaled_dot_product_attention
    cells, ok = [], True
    for s in seqlens:
        b, h = 16384 // s, 2048 // d
        torch.manual_seed(s)
        q, k, v = [torch.randn(b, s, h, d, device="cuda", dtype=torch.bfloat16)
                   .transpose(1, 2) for _ in range(3)]
        o = torch.full_like(q, float("nan"))
        lse = torch.full((b, h, s), float("nan"), device="cuda")
        kern(q, k, v, out=o, lse=lse)
        torch.cuda.synchronize()
        ref = F(q.float(), k.float(), v.float(), is_causal=causal)
        with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
            fa2_out = F(q, k, v, is_causal=causal)
        err = (o.float() - ref).abs().max().item()
        bound = 2 * (fa2_out.float() - ref).abs().max().item() + 1e-3
        good = err == err and err <= bound
        ok &= good

        def ours():
            kern(q, k, v, out=o, lse=lse)

        def backend(which):
            def f():
                with sdpa_kernel(which):
                    F(q, k, v, is_causal=causal)
            return f
        fl = 4 * b * h * s * s * d / (2 if causal else 1)
        t_ours = median_ms(ours)
        t_fa2 = median_ms(backend(SDPBackend.FLASH_ATTENTION))
        t_cud = median_ms(backend(SDPBackend.CUDNN_ATTENTION))
        cells.append(f"S={s}: {fl / t_ours / 1e9:.0f} TF/s {t_fa2 / t_ours:.2f}x FA2 "
                     f"{t_cud / t_ours:.2f}x cuDNN err {err:.1e}{'' if good else ' FAIL'}")
    print(f"{func}: " + " | ".join(cells), flush=True)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--artifact", required=True)
    ap.add_argument("--manifest", required=True)
    ap.add_argument("--seqlens", default="1024,4096,16384")
    ap.add_argument("--timeout", type=int, default=120, help="seconds per entry")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    seqlens = [int(x) for x in args.seqlens.split(",")]
    entries = json.load(open(args.manifest))
    if args.one:
        e = next(e for e in entries if e["func"] == args.one)
        ok = run_one(os.path.abspath(args.artifact), e["func"], int(e["head_dim"]),
                     bool(e["causal"]), seqlens)
        sys.exit(0 if ok else 1)
    failed = 0
    for func in (e["func"] for e in entries):
        try:
            r = subprocess.run([sys.executable, __file__, "--artifact", args.artifact,
                                "--manifest", args.manifest, "--seqlens", args.seqlens,
                                "--one", func], timeout=args.timeout)
            failed += r.returncode != 0
            if r.returncode not in (0, 1):
                print(f"{func}: crashed (exit {r.returncode})", flush=True)
        except subprocess.TimeoutExpired:
            failed += 1
            print(f"{func}: timed out", flush=True)
    print(f"tune: {len(entries) - failed}/{len(entries)} entries correct")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
