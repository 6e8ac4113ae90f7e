"""CPU checks of flashmlir.distributed's ring attention (gloo) and of the
compiled flash.combine merge (chip "cpu"), for test/Integration/Python/ring-attention.test.

  ring_check.py CACHE_DIR combine     # the merge vs its definition
  ring_check.py CACHE_DIR split       # flash_kernel's view splitting
  ring_check.py CACHE_DIR ring P...   # P gloo processes, every ring case
  ring_check.py CACHE_DIR metric      # the bench's hidden-communication share

The ring runs a torch stand-in step kernel (float64 math, the kernels'
semantics: bottom-right causal, O = 0 and LSE = -inf for rows that see
nothing) behind the ring's kernel interface; the merge is the compiled
combine (combine_f32_v16, flash-lower-to-cpu). Each rank checks its O and
LSE chunk against plain attention over the gathered sequence, with the
lengths exchanged and given (ring_lengths), and the call's RingProfile
(a row per step, the schedule's order on the host). Prints one line per
case and exits 1 on a mismatch.
"""
import math
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "python"))
import flashmlir  # noqa: E402
from flashmlir import distributed as fd  # noqa: E402
from flashmlir.cache import KernelCache  # noqa: E402
from flashmlir.combine import combine  # noqa: E402

TOL = 2e-5


def reference(q, k, v, causal):
    """softmax(q k^T / sqrt(D)) v in float64 with its LSE; bottom-right
    causal; GQA by repeating K/V heads; empty rows O = 0, LSE = -inf."""
    q, k, v = (t.double() for t in (q, k, v))
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
    s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
    sq, sk = q.shape[2], k.shape[2]
    if causal:
        i = torch.arange(sq)[:, None]
        j = torch.arange(sk)[None, :]
        s = s.masked_fill(j > i + sk - sq, -math.inf)
    lse = torch.logsumexp(s, -1)
    p = torch.exp(s - lse.nan_to_num(neginf=0.0)[..., None]).nan_to_num(0.0)
    p = torch.where(torch.isinf(lse)[..., None], torch.zeros_like(p), p)
    return (p @ v).float(), lse.float()


def stand_in(q, k, v, causal):
    return reference(q, k, v, causal)


def close(name, got, want):
    fin = torch.isfinite(want)
    err = (got[fin] - want[fin]).abs().max().item() if fin.any() else 0.0
    same_inf = torch.equal(torch.isfinite(got), fin) and torch.equal(got[~fin], want[~fin])
    ok = err <= TOL and same_inf
    return ok, f"{name} err {err:.2e}{'' if same_inf else ' (-inf rows differ)'}"


def check_combine(cache):
    torch.manual_seed(1)
    ok_all = True
    for s, b, h, r in ((1, 1, 1, 1), (2, 2, 3, 7), (5, 1, 2, 33)):
        po = torch.randn(b, h, r, s, 16).permute(3, 0, 1, 2, 4)  # strided parts
        pl = torch.randn(s, b, h, r) * 4
        pl[0, :, 0, :] = -math.inf  # an empty part: weight 0
        pl[:, 0, -1, -1] = -math.inf  # a row no part saw
        po[0, :, 0, :] = 1e30  # weighs 0 (finite: 0 * NaN would be NaN)
        out = torch.full((b, h, r, 16), float("nan"))
        lse = torch.full((b, h, r), float("nan"))
        combine(po, pl, out, lse, cache=cache)
        want_l = torch.logsumexp(pl, 0)
        w = torch.exp(pl - want_l.nan_to_num(neginf=0.0)).nan_to_num(0.0)
        w = torch.where(torch.isinf(pl), torch.zeros_like(w), w)
        want_o = (w[..., None] * po.masked_fill(torch.isinf(pl)[..., None], 0.0)).sum(0)
        ok1, m1 = close("O", out, want_o)
        ok2, m2 = close("LSE", lse, want_l)
        ok_all &= ok1 and ok2
        print(f"combine S={s} B={b} H={h} rows={r}: {m1}, {m2}: {'ok' if ok1 and ok2 else 'FAIL'}")
    return ok_all and check_invoke(cache, po, pl, out, lse)


def check_invoke(cache, po, pl, out, lse):
    """flashrt_invoke (how the GPU combine is called) runs the CPU entry
    the same way, and refuses bad calls with a message."""
    import ctypes
    from flashmlir.combine import _descriptor
    from flashmlir.variants import Combine
    rt = flashmlir.load_runtime()
    rt.flashrt_invoke.restype = ctypes.c_int
    rt.flashrt_invoke.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                  ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
    kern = cache.get(Combine("f32", 16), "cpu")
    o2, l2 = torch.full_like(out, float("nan")), torch.full_like(lse, float("nan"))
    descs = [_descriptor(t) for t in (po, pl, o2, l2)]
    args = (ctypes.c_void_p * 4)(*[ctypes.addressof(d) for d in descs])
    entry = ctypes.cast(kern._entry, ctypes.c_void_p)
    rc = rt.flashrt_invoke(entry, 4, args, None)
    same = rc == 0 and torch.equal(o2, out) and torch.equal(l2, lse)
    print(f"flashrt_invoke: rc {rc}, {'same' if same else 'DIFFERENT'} result")
    bad = [(None, 4, args), (entry, 7, args), (entry, 4, None)]
    for e, n, a in bad:
        rc = rt.flashrt_invoke(e, n, a, None)
        print(f"flashrt_invoke refuses: rc {rc}: {rt.flashrt_last_error().decode()}")
        same &= rc == 1
    return same


def check_split():
    """flash_kernel's pieces, each run by the stand-in, give the unsplit
    result (with a tiny byte limit, so batch, heads and rows all split)."""
    torch.manual_seed(2)
    ok_all = True
    for causal in (False, True):
        for bshd in (False, True):
            q = torch.randn(2, 23, 4, 16).transpose(1, 2) if bshd else torch.randn(2, 4, 23, 16)
            k = torch.randn(2, 23, 2, 16).transpose(1, 2) if bshd else torch.randn(2, 2, 23, 16)
            v = torch.randn_like(k)
            out = torch.full((2, 4, 23, 16), float("nan"))
            lse = torch.full((2, 4, 23), float("nan"))
            n = 0
            for qq, kk, vv, oo, ll in fd._split_attention(q, k, v, out, lse, causal,
                                                            4000 if bshd else 2000):
                o_s, l_s = stand_in(qq, kk, vv, causal)
                oo.copy_(o_s)
                ll.copy_(l_s)
                n += 1
            want_o, want_l = reference(q, k, v, causal)
            ok1, m1 = close("O", out, want_o)
            ok2, m2 = close("LSE", lse, want_l)
            ok = ok1 and ok2 and n > 4
            ok_all &= ok
            print(f"split causal={causal} bshd={bshd}: {n} pieces, {m1}, {m2}: "
                  f"{'ok' if ok else 'FAIL'}")
    return ok_all


CASES = [  # (seq, B, Hq, Hkv, causal, zigzag, even, layout)
    (37, 2, 4, 2, True, True, True, "bhsd"),
    (37, 1, 2, 2, False, True, True, "bshd"),
    (29, 1, 4, 1, True, True, False, "bshd"),  # ceil chunks: uneven/empty tail
    (29, 2, 2, 2, True, False, True, "bhsd"),
    (30, 1, 4, 2, True, False, False, "bhsd"),
    (31, 1, 2, 1, False, False, False, "bhsd"),
    (5, 1, 2, 2, True, True, True, "bhsd"),  # fewer tokens than chunks
    (3, 1, 2, 1, True, False, True, "bhsd"),  # an empty rank at P = 4
    (64, 1, 4, 2, True, True, True, "bshd"),
]


def check_profile(summ, world):
    """A RingProfile summary of one call: a row per step; a kernel span
    unless the step is skipped, a merge after it (the last partial is merged
    by finish), an exchange and a wait on every step but the last; spans
    inside the call. On the host, the schedule's order: the next block's
    transfer is issued before the step's kernel, the merge before the wait
    for that transfer, and the next kernel after it. (ok, message)"""
    bad = []
    steps = summ["steps"]
    if [r["step"] for r in steps] != list(range(world)):
        bad.append(f"steps {[r['step'] for r in steps]}")
    total = summ["total_ms"]
    for r in steps:
        s, h = r["step"], r["host"]
        last = s + 1 == world
        want = {"kernel": r.get("part") != "skipped", "merge": r.get("part") != "skipped" and
                not last, "exchange": not last, "wait": not last}
        for span, present in want.items():
            if (span in r) != present:
                bad.append(f"step {s} {span} {'missing' if present else 'unexpected'}")
            elif present and not 0 <= r[span][0] <= r[span][1] <= total:
                bad.append(f"step {s} {span} {r[span]} outside [0, {total}]")
        if not last and "k0" in h and not h["x0"] <= h["k0"]:
            bad.append(f"step {s}: transfer issued after the kernel")
        if not last and "m1" in h and not h["m1"] <= h["w0"]:
            bad.append(f"step {s}: merge queued after the wait")
        nxt = steps[s + 1]["host"] if not last else {}
        if "k0" in nxt and not h["w1"] <= nxt["k0"]:
            bad.append(f"step {s + 1}: kernel before the wait for its block")
    return not bad, "".join(", profile: " + b for b in bad)


def check_table(table, every):
    """profile_table(): the header and a line per rank and step, plus one per
    rank; each step's kernel, merge and exchange spans (start, end) appear in
    its line in the header's column order."""
    lines = table.splitlines()
    world = len(every)
    if len(lines) != 2 + sum(len(s["steps"]) + 1 for s in every):
        return False
    head = lines[1]
    cols = sorted(("kernel", "merge", "exchange"), key=lambda c: head.index(c + " start"))
    at = 2
    for summ in every:
        for r in summ["steps"]:
            line, pos = lines[at], 0
            for c in cols:
                if c in r:
                    a, b = (f"{t:.3f}" for t in r[c])
                    i = line.find(a, pos)
                    if i < 0 or line.find(b, i) < 0:
                        return False
                    pos = line.find(b, i) + len(b)
            at += 1
        at += 1
    return at == len(lines) and world > 0


def check_modes(rank, world, merge):
    """compute=False runs the exchange alone (no kernel, nothing written),
    comm=False no exchange; lengths that do not match this rank's chunk are
    refused; high_priority_group() without NCCL says so."""
    import torch.distributed as dist
    g = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(1, 2, 8, 16, generator=g) for _ in range(3))
    calls = []

    def counting(*a):
        calls.append(1)
        return stand_in(*a)

    out = torch.full_like(q, float("nan"))
    prof = fd.RingProfile()
    fd.ring_attention(q, k, v, causal=True, kernel=counting, merge=merge, out=out, compute=False,
                      profile=prof, lengths=fd.ring_lengths(8 * world, world))
    steps = prof.summary()["steps"]
    ok = (not calls and bool(out.isnan().all()) and
          all(("exchange" in r) == (r["step"] + 1 < world) and "kernel" not in r for r in steps))
    prof = fd.RingProfile()
    fd.ring_attention(q, k, v, causal=True, kernel=counting, merge=merge, comm=False,
                      profile=prof)
    ok &= len(calls) == world and not any("exchange" in r for r in prof.summary()["steps"])
    try:
        fd.ring_attention(q, k, v, causal=True, kernel=stand_in, merge=merge,
                          lengths=[(8, 4)] * (world + 1))
        ok = False
    except flashmlir.FlashError as ex:
        ok &= "lengths must hold" in str(ex)
    if not hasattr(dist, "ProcessGroupNCCL"):  # CI's torch: a message, not an AttributeError
        try:
            fd.high_priority_group()
            ok = False
        except flashmlir.FlashError as ex:
            ok &= "has no NCCL" in str(ex)
    print(f"ring P={world} rank {rank} modes (exchange alone, no exchange, bad lengths, no NCCL): "
          f"{'ok' if ok else 'FAIL'}", flush=True)
    return ok


def ring_worker(rank, world, store_path, cache_dir):
    import torch.distributed as dist
    store = dist.FileStore(store_path, world)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world)
    cache = KernelCache(cache_dir)
    merge = lambda *a: combine(*a, cache=cache)  # noqa: E731
    ok_all = True
    for i, (seq, b, hq, hkv, causal, zigzag, even, layout) in enumerate(CASES):
        g = torch.Generator().manual_seed(100 + i)
        q = torch.randn(b, hq, seq, 16, generator=g)
        k = torch.randn(b, hkv, seq, 16, generator=g)
        v = torch.randn(b, hkv, seq, 16, generator=g)
        want_o, want_l = reference(q, k, v, causal)
        lq, split = fd.shard(q, rank, world, 2, zigzag, even)
        lk, _ = fd.shard(k, rank, world, 2, zigzag, even)
        lv, _ = fd.shard(v, rank, world, 2, zigzag, even)
        wo, _ = fd.shard(want_o, rank, world, 2, zigzag, even)
        wl, _ = fd.shard(want_l, rank, world, 2, zigzag, even)
        if layout == "bshd":
            lq, lk, lv = (t.transpose(1, 2).contiguous() for t in (lq, lk, lv))
        lens = fd.ring_lengths(seq, world, zigzag, even)
        sq = lq.shape[1 if layout == "bshd" else 2]
        # Lengths exchanged by the call (profiled) and given (no exchange).
        prof = fd.RingProfile()
        run = lambda **kw: fd.ring_attention(  # noqa: E731
            lq, lk, lv, causal=causal, layout=layout, zigzag=zigzag, kernel=stand_in,
            merge=merge, split=split, **kw)
        o, lse = run(profile=prof)
        o2, lse2 = run(lengths=lens)
        if layout == "bshd":
            o, o2 = o.transpose(1, 2), o2.transpose(1, 2)
        ok1, m1 = close("O", o, wo)
        ok2, m2 = close("LSE", lse, wl)
        ok3 = close("O", o2, wo)[0] and close("LSE", lse2, wl)[0]
        got = fd._exchange_lengths(torch, dist, None, "cpu", sq, split)
        ok4 = got == lens
        summ = prof.summary()
        ok5, m5 = check_profile(summ, world)
        every = [None] * world
        dist.all_gather_object(every, summ)
        table = fd.profile_table(every)
        ok6 = check_table(table, every)
        if i == 0 and rank == 0 and world == 2:
            print(table.replace("\n", "\nTABLE "), flush=True)
        ok = ok1 and ok2 and ok3 and ok4 and ok5 and ok6
        ok_all &= ok
        print(f"ring P={world} rank {rank} seq={seq} B={b} H={hq}/{hkv} causal={causal} "
              f"zigzag={zigzag} even={even} {layout} local={sq}: {m1}, {m2}"
              f"{'' if ok3 else ', given lengths differ'}"
              f"{'' if ok4 else f', ring_lengths {lens} != exchanged {got}'}{m5}"
              f"{'' if ok6 else ', table rows'}: {'ok' if ok else 'FAIL'}", flush=True)
    ok_all &= check_modes(rank, world, merge)
    # The partition helpers agree with each other.
    x = torch.arange(29.0).view(1, 1, 29, 1)
    for zz in (False, True):
        for ev in (False, True):
            parts = [fd.shard(x, r, world, 2, zz, ev)[0] for r in range(world)]
            if not torch.equal(fd.unshard(parts, 2, zz, ev), x):
                ok_all = False
                print(f"unshard(shard) differs: zigzag={zz} even={ev}")
    dist.destroy_process_group()
    sys.stdout.flush()
    os._exit(0 if ok_all else 1)


def check_ring(world, cache_dir):
    """Forks the ranks (torch is imported once; nothing has run in this
    process yet, so no thread pool is forked) and waits for them."""
    import multiprocessing as mp
    with tempfile.TemporaryDirectory() as tmp:
        ctx = mp.get_context("fork")
        procs = [ctx.Process(target=ring_worker,
                             args=(r, world, os.path.join(tmp, "store"), cache_dir))
                 for r in range(world)]
        for p in procs:
            p.start()
        for p in procs:
            p.join(timeout=300)
        codes = [p.exitcode for p in procs]
        for p in procs:
            if p.is_alive():
                p.kill()
        if any(codes):
            print(f"ranks exited with {codes}")
        return not any(codes)


def check_metric():
    """The bench's hidden share (examples/ring_attention.py) against its
    definition, (compute + exchange - total) / exchange, per rank and for
    the job (each time's max over ranks), and the events' 1 - exposed /
    exchange."""
    sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "examples"))
    import ring_attention as ex
    ok = True
    for total, comp, exch in ((10.0, 9.0, 2.0), (11.0, 9.0, 2.0), (12.0, 9.0, 2.0),
                              (9.0, 9.0, 0.5), (8.5, 9.0, 2.0)):
        want = (comp + exch - total) / exch
        got = ex.hidden(total, comp, exch)
        ok &= abs(got - want) < 1e-12
        print(f"metric total {total} compute {comp} exchange {exch}: hidden {got:+.2f}")
    ok &= ex.hidden(1.0, 1.0, 0.0) is None
    ranks = [dict(total_s=10.0, compute_s=9.5, exchange_s=1.0, exposed_s=0.25),
             dict(total_s=10.5, compute_s=9.0, exchange_s=2.0, exposed_s=1.5)]
    rows = ex.hidden_rows(ranks)
    want = [(r["compute_s"] + r["exchange_s"] - r["total_s"]) / r["exchange_s"] for r in ranks]
    job = {k: max(r[k] for r in ranks) for k in ranks[0]}
    want.append((job["compute_s"] + job["exchange_s"] - job["total_s"]) / job["exchange_s"])
    direct = [1 - r["exposed_s"] / r["exchange_s"] for r in ranks + [job]]
    ok &= [r["who"] for r in rows] == ["rank 0", "rank 1", "max over ranks"]
    for r, h, d in zip(rows, want, direct):
        ok &= abs(r["hidden"] - h) < 1e-12 and abs(r["hidden_direct"] - d) < 1e-12
        print(f"metric {r['who']}: hidden {r['hidden']:+.3f}, events {r['hidden_direct']:+.3f}")
    return ok


def main():
    cache_dir, what = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    if what == "combine":
        ok = check_combine(KernelCache(cache_dir))
    elif what == "split":
        ok = check_split()
    elif what == "metric":
        ok = check_metric()
    else:
        ok = all([check_ring(int(p), cache_dir) for p in sys.argv[3:]])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
