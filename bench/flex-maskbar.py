#!/usr/bin/env python3
"""Issue #11's mask bar for FlexAttention (torch.compile -> Triton) on the
same tensors as ours, in one process: what a mask_mod evaluated on every
block costs the state of the art, beside what it costs us.

  bench/flex-maskbar.py --artifacts DIR [--dims 64,128] [--kinds docmask,prefixlm]
      [--shapes all|4k] [--rounds 3]

Per mask (the document mask doc[b, i] == doc[b, j], the prefix-LM mask
j <= i or j < prefix[b]), head dim and timing shape (gpu-mods-check.py's
4x16x4k and 1x16x16k, non-causal, bf16, maskbar.py's tensors and random
captures):
  flex MASK partial / flex plain: a BlockMask that marks every block
      partial, so Flex applies the mask_mod to every score, as our kernel
      does (BlockMask.from_kv_blocks with no full blocks);
  flex MASK sparse / flex plain: FlexAttention's normal use
      (create_block_mask: empty blocks skipped, no mask on full ones; for
      reference, not the bar's comparison);
  ours MASK / ours plain (maskbar.py's pair);
  ours plain / flex plain, ours MASK / flex MASK partial.
Each pair is timed with maskbar.py's steady protocol (ABBA windows after a
warm-up, nvidia-smi state after each). Flex's output is checked against
ours (max |difference|, both bf16).
DIR holds the mods artifact and mods-manifest.json (gen-mods-variants.py).
"""
import argparse
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in ("python", "bench"):
    sys.path.insert(0, os.path.join(ROOT, sub))

SHAPES = [(4, 16, 4096), (1, 16, 16384)]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--artifacts", required=True)
    p.add_argument("--manifest", default="mods-manifest.json")
    p.add_argument("--dims", default="64,128")
    p.add_argument("--kinds", default="docmask", help="docmask and/or prefixlm")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--warm-ms", type=float, default=400.0)
    p.add_argument("--shapes", default="all", help="all, or 4k (the first shape only)")
    a = p.parse_args(argv)
    import torch
    import flashmlir
    import maskbar
    from torch.nn.attention.flex_attention import (BlockMask, create_block_mask,
                                                   flex_attention)
    import torch._dynamo
    torch._dynamo.config.cache_size_limit = 256
    if hasattr(torch._dynamo.config, "recompile_limit"):
        torch._dynamo.config.recompile_limit = 256
    flex = torch.compile(flex_attention, dynamic=False)
    M = maskbar._mods_check()
    entries = {e["func"]: e for e in M.C.common.read_manifest(a.artifacts, a.manifest)}
    timer = maskbar.CudaTimer()
    print(f"# bench/flex-maskbar.py {' '.join(argv if argv is not None else sys.argv[1:])}")
    print(f"# {torch.cuda.get_device_name()}, torch {torch.__version__}; idle state "
          f"{maskbar.gpu_state()}", flush=True)
    shapes = SHAPES if a.shapes == "all" else SHAPES[:1]

    def one(kind, d, b, h, s):
        ours = {k: flashmlir.Kernel(entries[f"mods_{k}_bf16_d{d}"]["path"],
                                    f"mods_{k}_bf16_d{d}") for k in ("plain", kind)}
        q, k, v, mods, _ = maskbar.inputs(kind, b, h, s, s, d)  # maskbar.py's tensors
        cap = mods.captures[0]

        if kind == "docmask":
            def mask_mod(bb, hh, i, j):
                return cap[bb, i] == cap[bb, j]
        else:
            def mask_mod(bb, hh, i, j):
                return (j <= i) | (j < cap[bb])

        nq = nk = (s + 127) // 128
        partial = BlockMask.from_kv_blocks(
            torch.full((1, 1, nq), nk, device="cuda", dtype=torch.int32),
            torch.arange(nk, device="cuda", dtype=torch.int32).expand(1, 1, nq, nk)
            .contiguous(), mask_mod=mask_mod)
        sparse = create_block_mask(mask_mod, b, None, s, s)
        out, lse = torch.empty_like(q), torch.empty(b, h, s, device="cuda")
        run = {
            "flex plain": lambda: flex(q, k, v),
            f"flex {kind} partial": lambda: flex(q, k, v, block_mask=partial),
            f"flex {kind} sparse": lambda: flex(q, k, v, block_mask=sparse),
            "ours plain": lambda: ours["plain"](q, k, v, out=out, lse=lse, captures=[]),
            f"ours {kind}": lambda: ours[kind](q, k, v, out=out, lse=lse, captures=[cap]),
        }
        ref = flex(q, k, v, block_mask=partial)
        ref2 = flex(q, k, v, block_mask=sparse)
        out.fill_(float("nan"))
        ours[kind](q, k, v, out=out, lse=lse, captures=[cap])
        torch.cuda.synchronize()
        diff = (ref.float() - out.float()).abs().max().item()
        diff2 = (ref2.float() - out.float()).abs().max().item()
        print(f"{kind} d{d} B={b} H={h} S={s}: max |flex - ours| {diff:.3g} (partial), "
              f"{diff2:.3g} (sparse)", flush=True)
        for mine, base in ((f"flex {kind} partial", "flex plain"),
                           (f"flex {kind} sparse", "flex plain"),
                           (f"ours {kind}", "ours plain"),
                           ("ours plain", "flex plain"),
                           (f"ours {kind}", f"flex {kind} partial")):
            row = maskbar.measure_pair({"mask": run[mine], "plain": run[base]}, timer,
                                       a.rounds, a.warm_ms, 25.0, 8)
            st = {side: statistics.median(x["sm_mhz"] for x in row[f"{side}_state"])
                  if row[f"{side}_state"] else float("nan") for side in ("mask", "plain")}
            print(f"flexbar d{d} B={b} H={h} S={s} {mine} / {base}: steady "
                  f"{row['steady_ratio']:.3f} [{min(row['steady_ratios']):.3f}, "
                  f"{max(row['steady_ratios']):.3f}] ({row['mask_ms']:.3f} / "
                  f"{row['plain_ms']:.3f} ms; {st['mask']:.0f} / {st['plain']:.0f} MHz)",
                  flush=True)

    for kind in a.kinds.split(","):
        for d in (int(x) for x in a.dims.split(",")):
            for b, h, s in shapes:
                one(kind, d, b, h, s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
