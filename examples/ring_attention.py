#!/usr/bin/env python3
"""Ring attention across GPUs (flashmlir.distributed) against one GPU.

    torchrun --nproc-per-node=2 examples/ring_attention.py --seq=16384,65536
    torchrun --nproc-per-node=2 examples/ring_attention.py --bench
    python3 examples/ring_attention.py --variants   # what to precompile

Check (default): causal and non-causal attention, bf16, head dim 128, GQA
32/8, FA2's [B, S, H, D] layout, zigzag partition, fresh random inputs per
length. Each rank's O chunk (output poisoned with NaN first) is compared
with a float32 SDPA reference of its rows under FA2's rule: max error at
most twice that of PyTorch's SDPA in bf16 against the same reference, plus
1e-5; its LSE with our kernel's on the full sequence on one GPU (1e-3).
Reports the ring's forward time, the one-GPU time of our kernel on the whole
sequence and the speedup.

--bench: causal, d128, GQA 32/8, bf16, lengths --bench-seqs (default 128k
to 1M tokens). Per length and rank, medians over interleaved runs (all
ranks start together) of
  total     the ring (ring_attention, lengths given: no host sync),
  compute   the same ring with the exchange off (comm=False: each step
            computes on the local K/V; kernels and merges only),
  exchange  the same P2P pattern alone (compute=False: the same buffers,
            streams and waits, no kernel, no merge),
and  hidden = (compute + exchange - total) / exchange: 1 when the exchange
costs nothing on top of compute, 0 when it adds its whole time, below 0
when the ring costs more than compute and exchange run one after the
other. Printed per rank and for the job (each time's max over ranks: the
slowest rank sets the job's time), not clamped. Next to it, measured
directly: exposed = the time the compute stream sat waiting for the
exchange (CUDA events, distributed.RingProfile), and 1 - exposed/exchange.
Each is given per process group of --comm-priority: "normal" (the default
group) and "high" (a group whose NCCL streams have high priority, so that
NCCL's kernel takes the next free SM instead of queueing behind the
attention kernel's CTAs). Also, unless --skip-one-gpu, the one-GPU time on
the full sequence (one flashmlir.attention call, which the runtime refuses
for views over 2 GiB, and flash_kernel, the same kernel split into views
under the limit) and the speedup.

--profile: one ring call per length of --profile-seqs and priority, and
one with the exchange off, each after a warm-up, timed per step
(RingProfile: kernel, merge, exchange and the compute stream's wait, per
rank) and printed as a table by rank 0.

NCCL's NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 is set here.
Kernels come from the flashmlir kernel cache (--cache-dir, else
$FLASHMLIR_CACHE_DIR); the GPU machine has no compiler, so precompile them
elsewhere: python3 -m flashmlir precompile --chip=sm_90a --cache-dir=DIR
$(python3 examples/ring_attention.py --variants).
"""
import argparse
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

HQ, HKV, D = 32, 8, 128
VARIANTS = ["attn_bf16_d128", "attn_bf16_d128_causal", "combine_f32_v128", "combine_bf16_v128"]
FLOOR = 1e-5
HIDDEN_DEFINITION = (
    "hidden = (compute + exchange - total) / exchange, from medians of interleaved runs: "
    "total = the ring, compute = the ring with the exchange off, exchange = the same P2P "
    "pattern alone; 1 = the exchange adds nothing, 0 = it adds its whole time, < 0 = worse "
    "than serial; 'max over ranks' takes each time's max over ranks. exposed wait = the "
    "compute stream's wait for the exchange inside the ring (CUDA events), hidden = "
    "1 - exposed / exchange. kernels = the step kernels' summed spans in the ring, with the "
    "exchange and with it off (the compute-only run).")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seq", default="16384,32768,65536", help="check lengths (total tokens)")
    ap.add_argument("--bench", action="store_true", help="the long-context benchmark")
    ap.add_argument("--bench-seqs", default="131072,262144,524288,1048576")
    ap.add_argument("--profile", action="store_true", help="per-step timing table")
    ap.add_argument("--profile-seqs", default="131072,524288")
    ap.add_argument("--comm-priority", default="normal,high",
                    help="NCCL stream priorities to run the ring with (bench/profile)")
    ap.add_argument("--skip-one-gpu", action="store_true", help="bench: no one-GPU baseline")
    ap.add_argument("--reps", type=int, default=5, help="timed runs (median); 2 from 512k")
    ap.add_argument("--no-zigzag", action="store_true", help="contiguous chunks")
    ap.add_argument("--cache-dir", default=None)
    ap.add_argument("--out", default=None, help="JSON of the results (rank 0)")
    ap.add_argument("--variants", action="store_true", help="print the kernels it needs")
    return ap.parse_args(argv)


def lengths(text):
    return [int(x) for x in text.split(",") if x]


# ---------------------------------------------------------------------------
# Timing

def timed(fn, reps, dist):
    """Median seconds of fn() over reps runs after one warm-up, all ranks
    starting together (a barrier before each run; dist None: none)."""
    import torch
    fn()
    times = []
    for _ in range(reps):
        if dist is not None:
            dist.barrier()
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times)


def timed_modes(fns, reps, dist):
    """Per name of fns, the median seconds of its runs on this rank: reps
    rounds, each running every fn once in turn (so that slow drifts of the
    clocks hit all alike), all ranks starting each run together. A fn may
    return a RingProfile; its per-run summaries come back too."""
    import torch
    times = {n: [] for n in fns}
    summaries = {n: [] for n in fns}
    for _ in range(reps):
        for name, fn in fns.items():
            dist.barrier()
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            prof = fn()
            end.record()
            torch.cuda.synchronize()
            times[name].append(start.elapsed_time(end) / 1e3)
            if prof is not None:
                summaries[name].append(prof.summary())
    return {n: statistics.median(t) for n, t in times.items()}, summaries


def comm_groups(names, dist):
    """{name: process group} for the --comm-priority names: "normal" the
    default group, "high" a new group of all ranks whose NCCL streams have
    high priority (every rank must call this, in the same order)."""
    groups = {}
    for name in names:
        if name == "normal":
            groups[name] = None
        elif name == "high":
            from flashmlir import FlashError
            from flashmlir.distributed import high_priority_group
            try:
                groups[name] = high_priority_group()
            except (FlashError, AttributeError, TypeError, RuntimeError, ValueError) as ex:
                print(f"rank {dist.get_rank()}: no high-priority NCCL group ({ex}); "
                      "skipping it (TORCH_NCCL_HIGH_PRIORITY=1 makes every group high)")
        else:
            raise SystemExit(f"--comm-priority: 'normal' or 'high', not {name!r}")
    return groups


def one_gpu(fn, dist):
    """Runs fn on rank 0 only (the others wait); its result or the error."""
    import torch
    import flashmlir
    res = None
    if dist.get_rank() == 0:
        try:
            res = fn()
        except (flashmlir.FlashError, torch.cuda.OutOfMemoryError) as ex:
            res = f"refused: {type(ex).__name__}: {str(ex).splitlines()[0][:160]}"
        torch.cuda.empty_cache()
    dist.barrier()
    return res


# ---------------------------------------------------------------------------
# Check

def sdpa_rows(q, k, v, rows, causal, dtype):
    """Attention of query rows [s, e) of q over k, v ([1, S, H, D] tensors,
    SDPA in `dtype`, GQA by repeating K/V heads; causal keeps keys < e with
    the diagonal bottom-right). Returns float32 [1, e - s, Hq, D]."""
    import torch.nn.functional as F
    s, e = rows
    g = q.shape[2] // k.shape[2]
    keys = e if causal else k.shape[1]
    qq = q[:, s:e].transpose(1, 2).to(dtype)
    kk = k[:, :keys].transpose(1, 2).repeat_interleave(g, 1).to(dtype)
    vv = v[:, :keys].transpose(1, 2).repeat_interleave(g, 1).to(dtype)
    mask = None
    if causal:
        from torch.nn.attention.bias import causal_lower_right
        mask = causal_lower_right(e - s, keys)
    return F.scaled_dot_product_attention(qq, kk, vv, attn_mask=mask).transpose(1, 2).float()


def check(seq, causal, zigzag, reps, dist):
    import torch
    import flashmlir
    from flashmlir import distributed as fd
    world, rank = dist.get_world_size(), dist.get_rank()
    seed = torch.randint(0, 2**31 - 1, (1,), device="cuda")  # fresh inputs, one seed
    dist.broadcast(seed, 0)
    g = torch.Generator(device="cuda").manual_seed(int(seed))
    q, k, v = (torch.randn(1, seq, h, D, generator=g, device="cuda", dtype=torch.bfloat16)
               for h in (HQ, HKV, HKV))
    lq, split = fd.shard(q, rank, world, 1, zigzag)
    lk, _ = fd.shard(k, rank, world, 1, zigzag)
    lv, _ = fd.shard(v, rank, world, 1, zigzag)
    lens = fd.ring_lengths(seq, world, zigzag)
    out = torch.full_like(lq, float("nan"))
    lse = torch.full((1, HQ, lq.shape[1]), float("nan"), device="cuda")

    def ring():
        return fd.ring_attention(lq, lk, lv, causal=causal, layout="bshd", zigzag=zigzag,
                                 split=split, out=out, lse=lse, lengths=lens)

    ring()
    # The lengths exchanged by the call instead: the same kernels, the same result.
    o2, l2 = fd.ring_attention(lq, lk, lv, causal=causal, layout="bshd", zigzag=zigzag,
                               split=split)
    same = torch.equal(o2, out) and torch.equal(l2, lse)
    del o2, l2
    # One GPU: our kernel on the whole sequence, on every rank (its rows).
    o1 = torch.full_like(q, float("nan"))
    l1 = torch.full((1, HQ, seq), float("nan"), device="cuda")
    flashmlir.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal,
                        out=o1.transpose(1, 2), lse=l1, return_lse=True)
    err = base = err1 = lse_err = 0.0
    at = 0
    for s, e in fd.partition(seq, world, zigzag)[rank]:
        ref = sdpa_rows(q, k, v, (s, e), causal, torch.float32)
        bf = sdpa_rows(q, k, v, (s, e), causal, torch.bfloat16)
        mine = out[:, at:at + e - s].float()
        err = max(err, (mine - ref).abs().nan_to_num(float("inf")).max().item())
        base = max(base, (bf - ref).abs().max().item())
        err1 = max(err1, (o1[:, s:e].float() - ref).abs().nan_to_num(float("inf")).max().item())
        lse_err = max(lse_err, (lse[:, :, at:at + e - s] - l1[:, :, s:e]).abs()
                      .nan_to_num(float("inf")).max().item())
        at += e - s
    ok = err <= 2 * base + FLOOR and lse_err <= 1e-3 and same
    flag = torch.tensor([int(ok)], device="cuda")
    dist.all_reduce(flag, op=dist.ReduceOp.MIN)
    t_ring = timed(ring, reps, dist)
    t_one = one_gpu(lambda: timed_local(lambda: flashmlir.attention(
        q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal), reps), dist)
    return dict(seq=seq, causal=causal, zigzag=zigzag, rank=rank, err=err, torch_err=base,
                one_gpu_err=err1, lse_err=lse_err, exchanged_lengths_same=same, ok=bool(ok),
                all_ok=bool(flag.item()),
                ring_s=t_ring, one_gpu_s=t_one)


def timed_local(fn, reps):
    """timed() on this rank alone (no barrier)."""
    return timed(fn, reps, None)


# ---------------------------------------------------------------------------
# Benchmark

def hidden(total, compute, exchange):
    """The share of the exchange hidden behind compute: (compute + exchange
    - total) / exchange (None without an exchange)."""
    return (compute + exchange - total) / exchange if exchange > 0 else None


def hidden_rows(per_rank):
    """Per rank, then the job (each time's max over ranks), the hidden
    share from the medians and from the events: per_rank[r] is
    {"total_s", "compute_s", "exchange_s", "exposed_s"}."""
    rows = []
    job = {key: max(r[key] for r in per_rank) for key in per_rank[0]}
    for who, r in [(f"rank {i}", r) for i, r in enumerate(per_rank)] + [("max over ranks", job)]:
        direct = 1 - r["exposed_s"] / r["exchange_s"] if r["exchange_s"] > 0 else None
        rows.append(dict(who=who, **r, hidden=hidden(r["total_s"], r["compute_s"],
                                                      r["exchange_s"]), hidden_direct=direct))
    return rows


def local_inputs(seq, zigzag, dist):
    """Fresh random local chunks (FA2 layout) of a sequence of seq tokens and
    the ring's lengths for it."""
    import torch
    from flashmlir import distributed as fd
    world, rank = dist.get_world_size(), dist.get_rank()
    lens = fd.ring_lengths(seq, world, zigzag)
    lq, lk, lv = (torch.randn(1, lens[rank][0], h, D, device="cuda", dtype=torch.bfloat16)
                  for h in (HQ, HKV, HKV))
    return lq, lk, lv, lens, lens[rank][1]


def ring_call(inputs, zigzag, **kw):
    """One causal ring call on the local chunks; returns its profile's
    RingProfile when kw has profile=True."""
    from flashmlir import distributed as fd
    lq, lk, lv, lens, split = inputs
    prof = fd.RingProfile() if kw.pop("profile", False) else None
    fd.ring_attention(lq, lk, lv, causal=True, layout="bshd", zigzag=zigzag, split=split,
                      lengths=lens, profile=prof, **kw)
    return prof


def bench(seq, zigzag, reps, groups, skip_one, dist):
    import torch
    import flashmlir
    from flashmlir import distributed as fd
    world = dist.get_world_size()
    flops = 4 * seq * seq * HQ * D / 2  # causal

    def full_inputs():
        return [torch.randn(1, seq, h, D, device="cuda", dtype=torch.bfloat16).transpose(1, 2)
                for h in (HQ, HKV, HKV)]

    def single():
        q, k, v = full_inputs()
        return timed_local(lambda: flashmlir.attention(q, k, v, causal=True), reps)

    def split_views():
        q, k, v = full_inputs()
        return timed_local(lambda: fd.flash_kernel(q, k, v, True), reps)

    res = dict(seq=seq, world=world)
    if not skip_one:
        res["one_gpu_single_s"] = one_gpu(single, dist)
        res["one_gpu_split_s"] = one_gpu(split_views, dist)
    res.update(ring_times(seq, zigzag, reps, groups, dist))
    torch.cuda.empty_cache()
    for prio, rows in res.get("hidden", {}).items():
        t = rows[-1]["total_s"]
        res.setdefault("ring_s", {})[prio] = t
        res.setdefault("ring_tflops", {})[prio] = flops / t / 1e12
        for key in ("one_gpu_single_s", "one_gpu_split_s"):
            if isinstance(res.get(key), float):
                res.setdefault(key[:-2] + "_speedup", {})[prio] = res[key] / t
    return res


def ring_times(seq, zigzag, reps, groups, dist):
    """Per comm priority, hidden_rows() of the ring's total, compute-only
    and exchange-only times and, from the runs' RingProfiles, the exposed
    wait and the kernels' time with and without the exchange, gathered from
    every rank, on fresh local chunks (freed on return)."""
    import torch
    import flashmlir
    try:
        inputs = local_inputs(seq, zigzag, dist)
        fns = {"compute": lambda: ring_call(inputs, zigzag, comm=False, profile=True)}
        for prio, g in groups.items():
            fns["total " + prio] = lambda g=g: ring_call(inputs, zigzag, group=g, profile=True)
            fns["exchange " + prio] = lambda g=g: ring_call(inputs, zigzag, group=g,
                                                            compute=False)
        for name, fn in fns.items():  # warm-up: allocations, NCCL's communicators, kernels
            if not name.startswith("total") or seq < 524288:
                fn()
        med, summ = timed_modes(fns, reps, dist)
    except (flashmlir.FlashError, torch.cuda.OutOfMemoryError) as ex:
        return {"ring_error": f"{type(ex).__name__}: {str(ex).splitlines()[0][:160]}"}
    mine = {}
    # The kernels' own time (sum of their spans) with and without the
    # exchange: NCCL's kernel competing for SMs slows them.
    kern_alone = statistics.median(s["kernel_ms"] / 1e3 for s in summ["compute"])
    for prio in groups:
        runs = summ["total " + prio]
        mine[prio] = dict(total_s=med["total " + prio], compute_s=med["compute"],
                          exchange_s=med["exchange " + prio],
                          exposed_s=statistics.median(s["exposed_ms"] / 1e3 for s in runs),
                          kernels_s=statistics.median(s["kernel_ms"] / 1e3 for s in runs),
                          kernels_alone_s=kern_alone)
    every = [None] * dist.get_world_size()
    dist.all_gather_object(every, mine)
    return {"hidden": {prio: hidden_rows([e[prio] for e in every]) for prio in groups}}


def profile(seq, zigzag, groups, dist):
    """One profiled ring call per comm priority, and one with the exchange
    off (its kernels alone), each after a warm-up: every rank's RingProfile
    summary (gathered)."""
    from flashmlir import distributed as fd
    inputs = local_inputs(seq, zigzag, dist)
    out = {}
    runs = [(prio, dict(group=g)) for prio, g in groups.items()] + [("off", dict(comm=False))]
    for prio, kw in runs:
        ring_call(inputs, zigzag, **kw)
        dist.barrier()
        summ = ring_call(inputs, zigzag, profile=True, **kw).summary()
        every = [None] * dist.get_world_size()
        dist.all_gather_object(every, summ)
        out[prio] = every
        if dist.get_rank() == 0:
            what = "exchange off" if prio == "off" else f"comm priority {prio}"
            print(f"--- profile: {seq} tokens, causal d{D} GQA {HQ}/{HKV}, {what}")
            print(fd.profile_table(every), flush=True)
    return dict(seq=seq, profile=out)


def print_bench(r, world):
    ms = lambda t: fmt(t).strip()  # noqa: E731
    one = ""
    if "one_gpu_single_s" in r:
        one = (f" | 1 GPU one call {ms(r['one_gpu_single_s'])}, split views "
               f"{ms(r['one_gpu_split_s'])}")
    print(f"{r['seq']:>8} tokens on {world} GPUs{one}"
          + (f" | ring: {r['ring_error']}" if "ring_error" in r else ""))
    for prio, rows in r.get("hidden", {}).items():
        sp = r.get("one_gpu_split_speedup", {}).get(prio)
        print(f"  comm priority {prio}: {r['ring_tflops'][prio]:.0f} TFLOP/s"
              + (f", speedup {sp:.2f}x over 1 GPU (split views)" if sp else ""))
        for h in rows:
            hid = "n/a" if h["hidden"] is None else f"{100 * h['hidden']:.0f}%"
            dire = "n/a" if h["hidden_direct"] is None else f"{100 * h['hidden_direct']:.0f}%"
            print(f"    {h['who']:>14}: total {ms(h['total_s'])}, compute {ms(h['compute_s'])}, "
                  f"exchange {ms(h['exchange_s'])}: hidden {hid} | exposed wait "
                  f"{ms(h['exposed_s'])}: hidden {dire} | kernels {ms(h['kernels_s'])} "
                  f"(exchange off {ms(h['kernels_alone_s'])})")
    sys.stdout.flush()


def fmt(t):
    return f"{t * 1e3:9.2f} ms" if isinstance(t, float) else "   refused"


def main(argv=None):
    args = parse_args(argv)
    if args.variants:
        print("\n".join(VARIANTS))
        return 0
    os.environ["NCCL_NVLS_ENABLE"] = "0"  # no NVLink multicast (before NCCL starts)
    import torch
    import torch.distributed as dist
    import flashmlir
    if not torch.cuda.is_available() or "LOCAL_RANK" not in os.environ:
        print("needs CUDA GPUs under torchrun (--nproc-per-node=N); nothing run")
        return 0
    torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
    dist.init_process_group("nccl")
    if args.cache_dir:
        flashmlir.set_cache_dir(args.cache_dir)
    rank, world = dist.get_rank(), dist.get_world_size()
    zigzag = not args.no_zigzag
    timing = args.bench or args.profile
    groups = comm_groups([p for p in args.comm_priority.split(",") if p], dist) if timing else {}
    results, ok = [], True
    if args.bench and rank == 0:
        print(HIDDEN_DEFINITION, flush=True)
    for seq in (lengths(args.bench_seqs) if args.bench else
                lengths(args.profile_seqs) if args.profile else lengths(args.seq)):
        reps = args.reps if seq < 524288 else min(args.reps, 2)
        if args.profile:
            results.append(profile(seq, zigzag, groups, dist))
            continue
        if args.bench:
            r = bench(seq, zigzag, reps, groups, args.skip_one_gpu, dist)
            results.append(r)
            if rank == 0:
                print_bench(r, world)
            continue
        for causal in (True, False):
            r = check(seq, causal, zigzag, reps, dist)
            results.append(r)
            ok &= r["all_ok"]
            print(f"rank {rank} seq {seq} {'causal' if causal else 'full  '}: O err "
                  f"{r['err']:.2e} (torch bf16 {r['torch_err']:.2e}, one GPU "
                  f"{r['one_gpu_err']:.2e})"
                  f", LSE vs one GPU {r['lse_err']:.1e}"
                  f"{'' if r['exchanged_lengths_same'] else ', exchanged lengths DIFFER'}: "
                  f"{'ok' if r['ok'] else 'FAIL'}", flush=True)
            if rank == 0:
                t1 = r["one_gpu_s"]
                print(f"  {world} GPUs {fmt(r['ring_s'])}, 1 GPU {fmt(t1)}"
                      + (f", speedup {t1 / r['ring_s']:.2f}x" if isinstance(t1, float) else ""),
                      flush=True)
    if args.bench and rank == 0:
        only = [r["seq"] for r in results
                if "ring_s" in r and "one_gpu_single_s" in r
                and not isinstance(r["one_gpu_single_s"], float)]
        if not args.skip_one_gpu:
            print(f"longest length on {world} GPUs that one flashmlir.attention call on 1 GPU "
                  f"refuses: {max(only) if only else 'none of these'}")
    if args.out and rank == 0:
        with open(args.out, "w") as f:
            json.dump({"world": world, "results": results,
                       "gpu": torch.cuda.get_device_name()}, f, indent=1)
    dist.barrier()
    dist.destroy_process_group()
    if not timing and rank == 0:
        print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
