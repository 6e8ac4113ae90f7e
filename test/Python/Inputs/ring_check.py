"""CPU checks of flashmlir.distributed's ring attention (gloo) and of the
compiled flash.combine merge (chip "cpu"), for test/Python/ring-attention.test.

  ring_check.py CACHE_DIR combine     # the merge vs its definition
  ring_check.py CACHE_DIR split       # flash_kernel's view splitting
  ring_check.py CACHE_DIR ring P...   # P gloo processes, every ring case

The ring runs a torch stand-in step kernel (float64 math, the kernels'
semantics: bottom-right causal, O = 0 and LSE = -inf for rows that see
nothing) behind the ring's kernel interface; the merge is the compiled
combine (combine_f32_v16, flash-lower-to-cpu). Each rank checks its O and
LSE chunk against plain attention over the gathered sequence. Prints one
line per case and exits 1 on a mismatch.
"""
import math
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "python"))
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
        o, lse = fd.ring_attention(lq, lk, lv, causal=causal, layout=layout, zigzag=zigzag,
                                   kernel=stand_in, merge=merge, split=split)
        if layout == "bshd":
            o = o.transpose(1, 2)
        ok1, m1 = close("O", o, wo)
        ok2, m2 = close("LSE", lse, wl)
        ok_all &= ok1 and ok2
        print(f"ring P={world} rank {rank} seq={seq} B={b} H={hq}/{hkv} causal={causal} "
              f"zigzag={zigzag} even={even} {layout} local={lq.shape[1 if layout == 'bshd' else 2]}"
              f": {m1}, {m2}: {'ok' if ok1 and ok2 else 'FAIL'}", flush=True)
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


def main():
    cache_dir, what = sys.argv[1], sys.argv[2]
    torch.set_num_threads(1)
    if what == "combine":
        ok = check_combine(KernelCache(cache_dir))
    elif what == "split":
        ok = check_split()
    else:
        ok = all([check_ring(int(p), cache_dir) for p in sys.argv[3:]])
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
