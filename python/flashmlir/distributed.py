"""Context parallelism: ring attention over torch.distributed (NCCL on GPUs,
gloo for the CPU tests), the forward pass.

    out, lse = ring_attention(q, k, v, causal=True)   # this rank's chunk

Each rank of `group` holds a chunk of the sequence of Q, K and V (the same
positions for all three). K/V chunks travel around the ring (rank r sends to
r + 1, receives from r - 1) with batched P2P (dist.batch_isend_irecv) on a
side stream while the block in hand is computed; each step's kernel gives a
partial (O_s, LSE_s) and the partials are merged by LSE with our compiled
flash.combine (flashmlir.combine), the same merge as split-KV decode.

Partition (`partition()`, `shard()`): with zigzag=True (FA/TE's
DualChunkSwap, ring-flash-attention's zigzag_ring_flash_attn) the sequence is
cut into 2P chunks and rank r holds chunks r and 2P-1-r, concatenated, so
that causal work is balanced; otherwise rank r holds chunk r. Causal steps,
for the K/V chunk of rank j arriving at rank r:

  * j == r (step 0): the local causal mask (Sq == Sk; exact for zigzag too,
    as the second local chunk comes after the first);
  * contiguous: j < r unmasked, j > r skipped;
  * zigzag: j < r: every local query against the *first* chunk of j
    (chunk j precedes both of ours; chunk 2P-1-j follows both);
    j > r: the *second* local chunk of queries against all of j's keys
    (chunk 2P-1-r follows both of j's; our first chunk r precedes both).

Chunk lengths may differ (odd lengths, an uneven last chunk, an empty
chunk): the ranks exchange (length, first-chunk length) once per call, and
the zigzag split of the local chunk is `split` (default ceil(L / 2), what
partition() gives with even=True; pass it for other partitions). Without
causal every step is unmasked and the partition does not matter.

The kernel is a callable kernel(q, k, v, causal) -> (O, LSE) on logical
[B, H, S, D] views (LSE f32 [B, H, Sq], -inf for rows that see nothing, as
flash.attention); the default runs flashmlir.attention, split into views
under the kernels' 2 GiB (32-bit index) limit. CI passes a torch stand-in.
Tensors: layout="bhsd" takes SDPA's logical [B, H, S, D] with any strides
(as flashmlir.attention; BSHD storage is x.transpose(1, 2)); layout="bshd"
takes FA2's [B, S, H, D] tensors and returns O in it. GQA: K/V may have
fewer heads (Hq a multiple of Hkv). Forward only.
"""

import math

from . import FlashError
from .combine import MAX_VIEW_BYTES, _span_bytes, combine

__all__ = ["ring_attention", "partition", "shard", "unshard", "flash_kernel"]


# ---------------------------------------------------------------------------
# Partition

def _chunk_bounds(seq_len, n, even):
    """n chunk (start, end) of [0, seq_len): sizes differing by at most one,
    the longer first (even), or ceil(seq_len / n) each with a shorter or
    empty tail (torch.chunk's sizes)."""
    if even:
        sizes = [seq_len // n + (i < seq_len % n) for i in range(n)]
    else:
        c = -(-seq_len // n)
        sizes = [max(0, min(c, seq_len - i * c)) for i in range(n)]
    bounds, start = [], 0
    for s in sizes:
        bounds.append((start, start + s))
        start += s
    return bounds


def partition(seq_len, world, zigzag=True, even=True):
    """Per rank, the (start, end) segments of [0, seq_len) it holds, in
    local order: [chunk r, chunk 2P-1-r] with zigzag, [chunk r] without."""
    if world < 1 or seq_len < 0:
        raise FlashError(f"partition: need world >= 1 and seq_len >= 0, got {world}, {seq_len}")
    if not zigzag:
        return [[b] for b in _chunk_bounds(seq_len, world, even)]
    b = _chunk_bounds(seq_len, 2 * world, even)
    return [[b[r], b[2 * world - 1 - r]] for r in range(world)]


def shard(x, rank, world, dim, zigzag=True, even=True):
    """This rank's chunk of x (its sequence along `dim`) and its zigzag
    `split` (the first chunk's length)."""
    import torch
    segs = partition(x.shape[dim], world, zigzag, even)[rank]
    local = torch.cat([x.narrow(dim, s, e - s) for s, e in segs], dim)
    return local, segs[0][1] - segs[0][0]


def unshard(chunks, dim, zigzag=True, even=True):
    """The full sequence from every rank's chunk (chunks[r] along `dim`)."""
    import torch
    world = len(chunks)
    seq_len = sum(c.shape[dim] for c in chunks)
    segs = partition(seq_len, world, zigzag, even)
    pieces = []
    for r, c in enumerate(chunks):
        at = 0
        for s, e in segs[r]:
            pieces.append((s, c.narrow(dim, at, e - s)))
            at += e - s
    return torch.cat([p for _, p in sorted(pieces, key=lambda t: t[0])], dim)


# ---------------------------------------------------------------------------
# The default kernel: flashmlir.attention in views under 2 GiB

def _split_attention(q, k, v, o, lse, causal, limit):
    """(q, k, v, o, lse) pieces whose every view spans <= limit bytes: split
    along batch, KV-head groups or query rows (the axis with the largest
    stride of the widest view). A causal row piece keeps the keys it can see
    (bottom-right: row i sees j <= i + Sk - Sq)."""
    group = q.shape[1] // k.shape[1]
    views = (q, k, v, o)
    which = max(range(4), key=lambda i: _span_bytes(views[i]))
    widest = views[which]
    if _span_bytes(widest) <= limit:
        yield q, k, v, o, lse
        return
    cands = [(0, q.shape[0]), (1, k.shape[1])] + ([(2, q.shape[2])] if which in (0, 3) else [])
    cands = [(a, n) for a, n in cands if n > 1]
    if not cands:
        raise FlashError(f"ring_attention: a view of {_span_bytes(widest)} bytes cannot be "
                         f"split under the kernels' {limit}-byte limit")
    axis, n = max(cands, key=lambda c: widest.stride(c[0]))
    for lo, hi in ((0, n // 2), (n // 2, n)):
        if axis == 0:
            sub = (q[lo:hi], k[lo:hi], v[lo:hi], o[lo:hi], lse[lo:hi])
        elif axis == 1:
            h = slice(lo * group, hi * group)
            sub = (q[:, h], k[:, lo:hi], v[:, lo:hi], o[:, h], lse[:, h])
        else:
            keys = max(0, min(k.shape[2], hi + k.shape[2] - q.shape[2])) if causal else k.shape[2]
            sub = (q[:, :, lo:hi], k[:, :, :keys], v[:, :, :keys], o[:, :, lo:hi],
                   lse[:, :, lo:hi])
        yield from _split_attention(*sub, causal, limit)


def flash_kernel(q, k, v, causal, scale=None, limit=MAX_VIEW_BYTES):
    """The ring's default step kernel: flashmlir.attention's (O, LSE), in
    several calls writing into one output where a view exceeds `limit`."""
    import torch
    from . import _empty_like_layout
    from .ops import attention
    out = _empty_like_layout(torch, q, v.shape[3])
    lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    for qq, kk, vv, oo, ll in _split_attention(q, k, v, out, lse, causal, limit):
        attention(qq, kk, vv, causal=causal, scale=scale, return_lse=True, out=oo, lse=ll)
    return out, lse


# ---------------------------------------------------------------------------
# The merge

class _Running:
    """The running (O, LSE) of this rank's queries, merged by flash.combine:
    f32 partials [2, B, H, Sq, Dv] (slot 0 the merge so far, slot 1 the
    step's partial), stored [B, H, Sq, 2, Dv] so that a view of some heads or
    rows stays compact, and a merge target of the same size."""

    def __init__(self, torch, b, h, sq, dv, device, merge):
        f32 = torch.float32
        self.torch, self.merge = torch, merge
        self.po = torch.zeros(b, h, sq, 2, dv, dtype=f32, device=device).permute(3, 0, 1, 2, 4)
        self.pl = torch.full((b, h, sq, 2), -math.inf, dtype=f32, device=device).permute(3, 0, 1, 2)
        self.to = torch.empty(b, h, sq, dv, dtype=f32, device=device)
        self.tl = torch.empty(b, h, sq, dtype=f32, device=device)
        self.empty = True

    def add(self, o, lse, r0):
        """Merges a partial of rows r0.. into the running state."""
        rows = slice(r0, None)
        if self.empty:  # combine([nothing, x]) is x
            self.po[0, :, :, rows].copy_(o)
            self.pl[0, :, :, rows].copy_(lse)
            self.empty = False
            return
        self.po[1, :, :, rows].copy_(o)
        self.pl[1, :, :, rows].copy_(lse)
        self.merge(self.po[:, :, :, rows], self.pl[:, :, :, rows], self.to[:, :, rows],
                   self.tl[:, :, rows])
        self.po[0, :, :, rows].copy_(self.to[:, :, rows])
        self.pl[0, :, :, rows].copy_(self.tl[:, :, rows])

    def finish(self, o, lse, r0, out, out_lse):
        """Merges the last partial (or none: o None) into out and out_lse."""
        self.po[1].zero_()
        self.pl[1].fill_(-math.inf)
        if o is not None:
            self.po[1, :, :, r0:].copy_(o)
            self.pl[1, :, :, r0:].copy_(lse)
        self.merge(self.po, self.pl, out, out_lse)


# ---------------------------------------------------------------------------
# The ring

def _global_rank(dist, group, r):
    if group is None:
        return r
    fn = getattr(dist, "get_global_rank", None) or dist.distributed_c10d._get_global_rank
    return fn(group, r)


def _wire(x):
    """x [B, H, S, D] as a contiguous tensor in its storage order, and
    whether that order is BSHD."""
    if _is_bshd(x):
        return x.transpose(1, 2), True
    return x.contiguous(), False


def _as_logical(buf, b, h, s, d, bshd):
    n = b * h * s * d
    return buf[:n].view(b, s, h, d).transpose(1, 2) if bshd else buf[:n].view(b, h, s, d)


def _exchange_lengths(torch, dist, group, device, seq, split):
    world = dist.get_world_size(group)
    mine = torch.tensor([seq, split], dtype=torch.int64, device=device)
    every = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(every, mine, group=group)
    return [tuple(int(x) for x in t.tolist()) for t in every]


def ring_attention(q, k, v, *, causal, group=None, layout="bhsd", zigzag=True, kernel=None,
                   scale=None, split=None, merge=None, comm=True, out=None, lse=None):
    """Attention of this rank's query chunk over the whole distributed
    sequence (see the module docstring). Returns (O, LSE): O in q's layout
    and dtype, LSE f32 [B, Hq, Sq_local]. `kernel`: (q, k, v, causal) ->
    (O, LSE), default flash_kernel (with `scale`); `merge`: the partial
    merge, default flashmlir.combine.combine; `split`: the zigzag split of
    the local chunk; comm=False (timing only) skips the exchange and uses
    the local K/V at every step. `out` / `lse` (optional) receive O (in the
    layout's order) and LSE."""
    import torch
    import torch.distributed as dist
    if layout not in ("bhsd", "bshd"):
        raise FlashError(f"ring_attention: layout must be 'bhsd' or 'bshd', not {layout!r}")
    if layout == "bshd":
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))
    for name, t in (("q", q), ("k", k), ("v", v)):
        if t.dim() != 4:
            raise FlashError(f"ring_attention: {name} must be rank 4, got {tuple(t.shape)}")
    b, hq, sq, d = q.shape
    hkv, skv, dv = k.shape[1], k.shape[2], v.shape[3]
    if k.shape[0] != b or tuple(v.shape[:3]) != tuple(k.shape[:3]) or k.shape[3] != d:
        raise FlashError(f"ring_attention: k {tuple(k.shape)} / v {tuple(v.shape)} do not "
                         f"match q {tuple(q.shape)}")
    if hkv == 0 or hq % hkv:
        raise FlashError(f"ring_attention: q's {hq} heads are not a multiple of k's {hkv}")
    if skv != sq:
        raise FlashError(f"ring_attention: each rank holds the same positions of Q, K and V; "
                         f"got {sq} queries and {skv} keys")
    if split is None:
        split = (sq + 1) // 2 if zigzag else sq
    if not 0 <= split <= sq:
        raise FlashError(f"ring_attention: split {split} is outside [0, {sq}]")
    kernel = kernel or (lambda q_, k_, v_, c_: flash_kernel(q_, k_, v_, c_, scale=scale))
    merge = merge or combine

    world = dist.get_world_size(group)
    rank = dist.get_rank(group)
    lens = (_exchange_lengths(torch, dist, group, q.device, sq, split) if comm
            else [(sq, split)] * world)
    if out is None:
        o_bshd = layout == "bshd" or _is_bshd(q)
        out = torch.empty((b, sq, hq, dv) if o_bshd else (b, hq, sq, dv), dtype=q.dtype,
                          device=q.device)
        o_view = out.transpose(1, 2) if o_bshd else out
    else:
        o_view = out.transpose(1, 2) if layout == "bshd" else out
    if tuple(o_view.shape) != (b, hq, sq, dv) or o_view.dtype != q.dtype:
        raise FlashError(f"ring_attention: out must be {q.dtype} [B, H, S, Dv] = "
                         f"{(b, hq, sq, dv)} in the layout's order, got {tuple(out.shape)}")
    if lse is None:
        lse = torch.empty(b, hq, sq, dtype=torch.float32, device=q.device)
    elif tuple(lse.shape) != (b, hq, sq) or lse.dtype != torch.float32:
        raise FlashError(f"ring_attention: lse must be float32 {(b, hq, sq)}, got "
                         f"{lse.dtype} {tuple(lse.shape)}")
    cuda = q.device.type == "cuda"
    state = _Running(torch, b, hq, sq, dv, q.device, merge)
    k_wire, bshd = _wire(k)
    v_wire = (v.transpose(1, 2) if bshd else v).contiguous()
    most = max(n for n, _ in lens)
    bufs = []
    if world > 1 and comm:
        bufs = [(torch.empty(b * hkv * most * d, dtype=k.dtype, device=k.device),
                 torch.empty(b * hkv * most * dv, dtype=v.dtype, device=v.device))
                for _ in range(2)]
    nxt = _global_rank(dist, group, (rank + 1) % world)
    prv = _global_rank(dist, group, (rank - 1) % world)
    comm_stream = torch.cuda.Stream(device=q.device) if cuda and bufs else None

    cur = (k, v, k_wire, v_wire)
    pending = None  # the last step's partial, merged by finish()
    for step in range(world):
        src = (rank - step) % world
        reqs = []
        if bufs and step + 1 < world:
            # Send what we hold on, receive the next rank's chunk meanwhile.
            n_in = lens[(rank - step - 1) % world][0]
            kb, vb = bufs[step % 2]
            kb = kb[:b * hkv * n_in * d]
            vb = vb[:b * hkv * n_in * dv]
            ops = [dist.P2POp(dist.isend, cur[2].reshape(-1), nxt, group),
                   dist.P2POp(dist.isend, cur[3].reshape(-1), nxt, group),
                   dist.P2POp(dist.irecv, kb, prv, group),
                   dist.P2POp(dist.irecv, vb, prv, group)]
            if comm_stream is not None:
                comm_stream.wait_stream(torch.cuda.current_stream(q.device))
                with torch.cuda.stream(comm_stream):
                    reqs = dist.batch_isend_irecv(ops)
            else:
                reqs = dist.batch_isend_irecv(ops)
        kj, vj = cur[0], cur[1]
        n_src, split_src = lens[src]
        part = None
        if step == 0:
            part = (q, kj, vj, causal, 0)
        elif not causal:
            part = (q, kj, vj, False, 0)
        elif not zigzag:
            part = (q, kj, vj, False, 0) if src < rank else None
        elif src < rank:
            part = (q, kj[:, :, :split_src], vj[:, :, :split_src], False, 0)
        else:
            part = (q[:, :, split:], kj, vj, False, split)
        if part is not None and (part[0].shape[2] == 0 or part[1].shape[2] == 0):
            part = None
        if pending is not None:
            state.add(*pending)
            pending = None
        if part is not None:  # no other name holds the partial: freed once merged
            pending = (*kernel(*part[:4]), part[4])
        for r in reqs:
            r.wait()
        if reqs:
            n_in = lens[(rank - step - 1) % world][0]
            kb, vb = bufs[step % 2]
            cur = (_as_logical(kb, b, hkv, n_in, d, bshd), _as_logical(vb, b, hkv, n_in, dv, bshd),
                   kb[:b * hkv * n_in * d], vb[:b * hkv * n_in * dv])
    if pending is None:
        pending = (None, None, 0)
    state.finish(*pending, o_view, lse)
    return (out if layout == "bshd" else o_view), lse


def _is_bshd(x):
    """Whether x [B, H, S, D] is stored [B, S, H, D]."""
    return not x.is_contiguous() and x.transpose(1, 2).is_contiguous()
