#!/usr/bin/env python3
"""Calls chosen mods kernels a fixed number of times on one of
gpu-mods-check.py's timing shapes, for a profiler (Nsight Compute) to
attach to: where maskbar.py says how much slower a mask_mod kernel is,
this lets `ncu` say why (issue-slot use, warp stall reasons, pipe use),
with nothing else launched between the calls but the inputs' set-up.

  ncu --clock-control none --section SchedulerStats ... \\
      python3 bench/profile-mods.py --artifacts DIR --kernels \\
      mods_plain_bf16_d64,mods_docmask_bf16_d64 [--shape 4,16,4096] [--calls 2]
      [--docs one|random|N]

DIR holds the mods artifact and mods-manifest.json (gen-mods-variants.py).
Inputs: maskbar.py's (the same generator seeds, the same random documents).
"""
import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("python", "bench"):
    sys.path.insert(0, os.path.join(ROOT, sub))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--artifacts", required=True)
    p.add_argument("--manifest", default="mods-manifest.json")
    p.add_argument("--kernels", required=True, help="comma-separated function names")
    p.add_argument("--shape", default="4,16,4096", help="B,H,S (Sq = Sk = S)")
    p.add_argument("--calls", type=int, default=2)
    p.add_argument("--docs", default="random",
                   help="document masks' ids, as maskbar.py's --docs: random, one or N")
    a = p.parse_args(argv)
    docs = {"random": None, "one": "one"}.get(a.docs, a.docs)
    import torch
    import flashmlir
    import maskbar
    M = maskbar._mods_check()
    b, h, s = (int(x) for x in a.shape.split(","))
    entries = {e["func"]: e for e in M.C.common.read_manifest(a.artifacts, a.manifest)}
    for name in a.kernels.split(","):
        if name not in entries:
            p.error(f"{name}: not in {a.manifest}")
        e = entries[name]
        kernel = flashmlir.Kernel(e["path"], name)
        d = int(e["head_dim"])
        q, k, v, mods, _ = maskbar.inputs(e["kind"], b, h, s, s, d, docs=docs)
        out = torch.empty_like(q)
        lse = torch.empty(b, h, s, device="cuda")
        for _ in range(a.calls):
            kernel(q, k, v, out=out, lse=lse, captures=mods.captures)
        torch.cuda.synchronize()
        print(f"profile-mods: {name} x{a.calls} at B={b} H={h} S={s}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
