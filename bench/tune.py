"""Tile sweep: time hand-configured kernels against torch SDPA (FA2, cuDNN).

  python3 bench/tune.py --artifact TUNE.so --manifest TUNE.json [--seqlens 1024,4096,16384]

TUNE.json lists [func, head_dim, causal] (scripts/gen-tune-variants.py
writes it with the .mlir). Each entry runs in its own process, so a kernel
that faults cannot take the others with it. Shapes are the FA2 sweep's
(bf16, 16k tokens, model dim 2048, BSHD); every row also checks the output
against a float32 reference with FA2's rule (error <= 2x that of torch SDPA
in bf16 + 1e-3) after poisoning it with NaN. Timings are medians of
CUDA-event-timed runs after warm-up (bench/common.py's method is the
benchmark's; this is the quick one for sweeps).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import common  # noqa: E402  (puts python/ on sys.path)


def median_ms(fn, n=20, reps=7):
    import torch
    for _ in range(3):
        fn()
    times = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(n):
            fn()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / n)
    times.sort()
    return times[len(times) // 2]


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
        func, d, causal = next(e for e in entries if e[0] == args.one)
        sys.exit(0 if run_one(os.path.abspath(args.artifact), func, d, causal, seqlens) else 1)
    failed = 0
    for func, _, _ in entries:
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
