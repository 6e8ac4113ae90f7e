"""Context parallelism: ring attention over torch.distributed (NCCL on GPUs,
gloo for the CPU tests), the forward pass.

    out, lse = ring_attention(q, k, v, causal=True)   # this rank's chunk

Each rank of `group` holds a chunk of the sequence of Q, K and V (the same
positions for all three). K/V chunks travel around the ring (rank r sends to
r + 1, receives from r - 1) with batched P2P (dist.batch_isend_irecv) on a
side stream while the block in hand is computed; each step's kernel gives a
partial (O_s, LSE_s) and the partials are merged by LSE with our compiled
flash.combine (flashmlir.combine), the same merge as split-KV decode.

Schedule of step s (ring-flash-attention's and TransformerEngine's): issue
the transfer of the next block (it waits only for its receive buffer, freed
by step s - 1's kernel), queue the kernel and the merge of its partial, then
make the compute stream wait for the transfer, just before step s + 1 uses
it. No host synchronisation when `lengths` is given. NCCL runs the transfer
on its own stream; with a process group of high-priority streams
(high_priority_group(), or TORCH_NCCL_HIGH_PRIORITY=1) its kernel takes the
next free SM instead of waiting behind the attention kernel's remaining
CTAs. RingProfile records per-step times (opt-in).

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
chunk): every rank needs every rank's (length, first-chunk length), given
as `lengths` (ring_lengths() of the partition) or else exchanged by the call
(an all_gather and a host sync), and the zigzag split of the local chunk
is `split` (default ceil(L / 2), what partition() gives with even=True;
pass it for other partitions). Without causal every step is unmasked and
the partition does not matter.

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
import time

from .combine import MAX_VIEW_BYTES, _span_bytes, combine
from .errors import FlashError
from .ops import attention
from .runtime import _empty_like_layout

__all__ = ["ring_attention", "partition", "ring_lengths", "shard", "unshard", "flash_kernel",
           "high_priority_group", "RingProfile", "profile_table"]


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


def ring_lengths(seq_len, world, zigzag=True, even=True):
    """Per rank, (length, zigzag split) of partition()'s chunks: what
    ring_attention's `lengths` takes, so that no call exchanges them."""
    return [(sum(e - s for s, e in segs), segs[0][1] - segs[0][0])
            for segs in partition(seq_len, world, zigzag, even)]


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
        if o is None:
            r0 = self.po.shape[3]
        # Rows the last partial does not cover weigh nothing; their O slot
        # holds an earlier partial or the initial zeros, finite: 0 * O = 0.
        self.pl[1, :, :, :r0].fill_(-math.inf)
        if o is not None:
            self.po[1, :, :, r0:].copy_(o)
            self.pl[1, :, :, r0:].copy_(lse)
        self.merge(self.po, self.pl, out, out_lse)


# ---------------------------------------------------------------------------
# Profiling (opt-in)

class RingProfile:
    """Per-step timing of one ring_attention call on this rank, opt-in:
    ring_attention(..., profile=RingProfile()). On CUDA, timing events on
    the compute stream (the caller's) and on the exchange's side stream; on
    the CPU (gloo), the host clock. Each mark also keeps the host time it
    was issued at, which shows whether the host ran ahead of the device.

    summary() (after the call; it synchronises the device) gives, in ms from
    the call's start, per step: the kernel's (start, end); the merge's; the
    exchange's, from the moment the side stream may start it (its receive
    buffer free) to the transfer's end (the peer's late start included);
    and the compute stream's wait for it, from `ready` (the step's kernel
    and merge done) to `resumed`: exposed = resumed - ready is the time the
    compute stream sat idle for the exchange."""

    SPANS = (("kernel", "k"), ("merge", "m"), ("exchange", "x"), ("wait", "w"))

    def __init__(self):
        self._marks, self._notes = {}, {}

    def _begin(self, torch, cuda):
        self._torch, self._cuda = torch, cuda
        self._marks.clear()
        self._notes.clear()
        self._host0 = time.perf_counter()
        self._t0 = self._record(None)

    def _record(self, stream):
        if not self._cuda:
            return time.perf_counter()
        ev = self._torch.cuda.Event(enable_timing=True)
        ev.record(stream)  # None: the current stream
        return ev

    def mark(self, step, name, stream=None):
        self._marks[(step, name)] = (self._record(stream), time.perf_counter())

    def note(self, step, **kw):
        self._notes.setdefault(step, {}).update(kw)

    def _ms(self, key):
        dev, host = self._marks[key]
        t = self._t0.elapsed_time(dev) if self._cuda else (dev - self._host0) * 1e3
        return t, (host - self._host0) * 1e3

    def summary(self):
        """{'steps': [per step: step, src, part, and (start, end) ms of each
        span it has], 'total_ms', 'exposed_ms', 'kernel_ms', 'merge_ms',
        'exchange_ms', 'finish': (start, end)} (plain data: all_gather_object
        carries it)."""
        if self._cuda:
            self._torch.cuda.synchronize()
        steps = []
        for step in sorted({s for s, _ in self._marks if s >= 0} | set(self._notes)):
            row = {"step": step, **self._notes.get(step, {})}
            row["host"] = {n: self._ms((s, n))[1] for s, n in self._marks if s == step}
            for span, p in self.SPANS:
                if (step, p + "0") in self._marks:
                    row[span] = (self._ms((step, p + "0"))[0], self._ms((step, p + "1"))[0])
            steps.append(row)
        out = {"steps": steps, "total_ms": self._ms((-1, "end"))[0],
               "finish": (self._ms((-1, "f0"))[0], self._ms((-1, "f1"))[0])}
        for span, _ in self.SPANS:
            key = "exposed_ms" if span == "wait" else span + "_ms"
            out[key] = sum(r[span][1] - r[span][0] for r in steps if span in r)
        return out


def profile_table(per_rank):
    """The per-step table of every rank's RingProfile.summary() (a list
    indexed by rank), as text."""
    def span(r, name):
        if name not in r:
            return f"{'-':>27}"
        a, b = r[name]
        return f"{a:9.3f}..{b:9.3f} {b - a:7.3f}"

    lines = ["times in ms from each rank's call start (device clock; CPU: host clock); "
             "exposed = compute stream idle waiting for the exchange; host issued = "
             "host clock when the step's kernel (else its exchange) was queued",
             f"{'rank':>4} {'step':>4} {'src':>3} {'part':<14} {'kernel start..end  dur':>27} "
             f"{'merge start..end  dur':>27} {'exchange start..end  dur':>27} "
             f"{'exposed':>8} {'host issued':>11}"]
    for rank, summ in enumerate(per_rank):
        for r in summ["steps"]:
            w = r.get("wait")
            lines.append(f"{rank:>4} {r['step']:>4} {r.get('src', '-'):>3} "
                         f"{r.get('part', '-'):<14} {span(r, 'kernel')} {span(r, 'merge')} "
                         f"{span(r, 'exchange')} {(w[1] - w[0]) if w else 0.0:8.3f} "
                         f"{r['host'].get('k0', r['host'].get('x0', 0.0)):11.3f}")
        f0, f1 = summ["finish"]
        lines.append(f"{rank:>4} total {summ['total_ms']:.3f}: kernels {summ['kernel_ms']:.3f}, "
                     f"merges {summ['merge_ms']:.3f} + final {f1 - f0:.3f}, exchange "
                     f"{summ['exchange_ms']:.3f}, exposed {summ['exposed_ms']:.3f}")
    return "\n".join(lines)


class _NoProfile:
    def mark(self, step, name, stream=None):
        pass

    def note(self, step, **kw):
        pass


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


def high_priority_group(ranks=None):
    """A new NCCL process group over `ranks` (default: all) whose streams
    have high priority, for ring_attention's `group`: NCCL's kernel then
    takes the next SM that our kernel's CTAs free instead of waiting for
    that kernel's last wave (TORCH_NCCL_HIGH_PRIORITY=1 does this for every
    group). Collective: every rank calls it, as dist.new_group."""
    import torch.distributed as dist
    nccl = getattr(dist, "ProcessGroupNCCL", None)
    if nccl is None:
        raise FlashError("high_priority_group: this torch has no NCCL")
    opts = nccl.Options()
    opts.is_high_priority_stream = True
    return dist.new_group(ranks, backend="nccl", pg_options=opts)


def _exchange_lengths(torch, dist, group, device, seq, split):
    """Every rank's (length, split): an all_gather and a host sync (pass
    ring_attention's `lengths` to skip it)."""
    world = dist.get_world_size(group)
    mine = torch.tensor([seq, split], dtype=torch.int64, device=device)
    every = [torch.empty_like(mine) for _ in range(world)]
    dist.all_gather(every, mine, group=group)
    return [tuple(int(x) for x in t.tolist()) for t in every]


_SIDE_STREAMS = {}


class _Exchange:
    """K/V around the ring: rank r sends the block it holds to r + 1 and
    receives r - 1's into one of two buffers (allocated once per call),
    with batched P2P issued before the step's kernel. On CUDA the transfer
    runs from a side stream and is ordered by events, not whole streams:
    step s's transfer waits only for its receive buffer to be free (the
    kernel that last read it, step s - 1; a fresh buffer waits for the
    call's start), and the compute stream waits for the received block only
    after the step's kernel and merge are queued, right before the next
    kernel needs it."""

    def __init__(self, torch, dist, group, rank, world, shape, lens, k, v, prof):
        self.torch, self.dist, self.group, self.prof = torch, dist, group, prof
        self.b, self.hkv, self.d, self.dv, self.bshd = shape
        self.lens, self.rank, self.world = lens, rank, world
        self.nxt = _global_rank(dist, group, (rank + 1) % world)
        self.prv = _global_rank(dist, group, (rank - 1) % world)
        most = max(n for n, _ in lens)
        self.bufs = [(torch.empty(self.b * self.hkv * most * self.d, dtype=k.dtype,
                                  device=k.device),
                      torch.empty(self.b * self.hkv * most * self.dv, dtype=v.dtype,
                                  device=v.device)) for _ in range(2)]
        self.cuda = k.device.type == "cuda"
        self.free = [None, None]  # per buffer: the event after its last reader
        if self.cuda:
            dev = k.device
            if dev not in _SIDE_STREAMS:
                _SIDE_STREAMS[dev] = torch.cuda.Stream(device=dev)
            self.side = _SIDE_STREAMS[dev]
            start = torch.cuda.Event()
            start.record()  # after the buffers' allocation and the wire copies
            self.free = [start, start]

    def n_in(self, step):
        return self.lens[(self.rank - step - 1) % self.world][0]

    def start(self, step, send_k, send_v):
        """Issues step's transfer: send_k/send_v (flat) out, the next block in."""
        n = self.n_in(step)
        kb, vb = self.bufs[step % 2]
        kb, vb = kb[:self.b * self.hkv * n * self.d], vb[:self.b * self.hkv * n * self.dv]
        P2POp, dist = self.dist.P2POp, self.dist
        ops = [P2POp(dist.isend, send_k, self.nxt, self.group),
               P2POp(dist.isend, send_v, self.nxt, self.group),
               P2POp(dist.irecv, kb, self.prv, self.group),
               P2POp(dist.irecv, vb, self.prv, self.group)]
        if not self.cuda:
            self.prof.mark(step, "x0")
            return step, kb, vb, dist.batch_isend_irecv(ops), None
        with self.torch.cuda.stream(self.side):
            self.side.wait_event(self.free[step % 2])
            self.prof.mark(step, "x0", self.side)
            reqs = dist.batch_isend_irecv(ops)
            for r in reqs:  # the side stream waits on NCCL's; the host does not
                r.wait()
            done = self.torch.cuda.Event()
            done.record(self.side)
            self.prof.mark(step, "x1", self.side)
        return step, kb, vb, reqs, done

    def read(self, step):
        """After step's kernel is queued: the buffer it read is free once
        that kernel ends (step 0 read the caller's K/V, no buffer)."""
        if self.cuda and step > 0:
            ev = self.torch.cuda.Event()
            ev.record()
            self.free[(step - 1) % 2] = ev

    def finish(self, handle):
        """The compute stream (or, on the CPU, the host) waits for the
        transfer; returns the received block as `cur`."""
        step, kb, vb, reqs, done = handle
        self.prof.mark(step, "w0")
        if done is None:
            for r in reqs:
                r.wait()
            self.prof.mark(step, "x1")
        else:
            self.torch.cuda.current_stream(kb.device).wait_event(done)
        self.prof.mark(step, "w1")
        n = self.n_in(step)
        return (_as_logical(kb, self.b, self.hkv, n, self.d, self.bshd),
                _as_logical(vb, self.b, self.hkv, n, self.dv, self.bshd), kb, vb)


def _step_part(step, src, rank, causal, zigzag, q, kj, vj, split, split_src):
    """What step computes for the K/V block of rank src: (q, k, v, causal,
    first row, name) or None (skipped; see the module docstring)."""
    if step == 0:
        part = (q, kj, vj, causal, 0, "diagonal" if causal else "full")
    elif not causal:
        part = (q, kj, vj, False, 0, "full")
    elif not zigzag:
        part = (q, kj, vj, False, 0, "full") if src < rank else None
    elif src < rank:
        part = (q, kj[:, :, :split_src], vj[:, :, :split_src], False, 0, "q x kv[:split]")
    else:
        part = (q[:, :, split:], kj, vj, False, split, "q[split:] x kv")
    if part is not None and (part[0].shape[2] == 0 or part[1].shape[2] == 0):
        part = None
    return part


def ring_attention(q, k, v, *, causal, group=None, layout="bhsd", zigzag=True, kernel=None,
                   scale=None, split=None, merge=None, comm=True, out=None, lse=None,
                   lengths=None, compute=True, profile=None):
    """Attention of this rank's query chunk over the whole distributed
    sequence (see the module docstring). Returns (O, LSE): O in q's layout
    and dtype, LSE f32 [B, Hq, Sq_local]. `kernel`: (q, k, v, causal) ->
    (O, LSE), default flash_kernel (with `scale`); `merge`: the partial
    merge, default flashmlir.combine.combine; `split`: the zigzag split of
    the local chunk; `lengths`: every rank's (length, split), as
    ring_lengths() gives for the partition (default: exchanged, which costs
    an all_gather and a host sync per call). `out` / `lse` (optional)
    receive O (in the layout's order) and LSE. Timing only: comm=False
    skips the exchange and uses the local K/V at every step; compute=False
    runs the exchange alone (no kernel, no merge; out and lse are not
    written). `profile`: a RingProfile to record per-step times into."""
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
    if not comm:
        lens = [(sq, split)] * world
    elif lengths is None:
        lens = _exchange_lengths(torch, dist, group, q.device, sq, split)
    else:
        lens = [tuple(int(x) for x in t) for t in lengths]
        if len(lens) != world or lens[rank] != (sq, split):
            raise FlashError(f"ring_attention: lengths must hold {world} (length, split) "
                             f"pairs, this rank's ({rank}) being {(sq, split)}; got {lengths}")
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
    prof = profile if profile is not None else _NoProfile()
    if profile is not None:
        profile._begin(torch, q.device.type == "cuda")
    k_wire, bshd = _wire(k)
    v_wire = (v.transpose(1, 2) if bshd else v).contiguous()
    exch = None
    if world > 1 and comm:
        exch = _Exchange(torch, dist, group, rank, world, (b, hkv, d, dv, bshd), lens, k, v,
                         prof)

    cur = (k, v, k_wire.reshape(-1), v_wire.reshape(-1))
    state = last = None
    for step in range(world):
        src = (rank - step) % world
        # The next block is on its way before this step's work is queued.
        handle = exch.start(step, cur[2], cur[3]) if exch and step + 1 < world else None
        prof.note(step, src=src)
        if compute:
            if state is None:  # after step 0's transfer: it need not wait for the zeroing
                state = _Running(torch, b, hq, sq, dv, q.device, merge)
            part = _step_part(step, src, rank, causal, zigzag, q, cur[0], cur[1], split,
                              lens[src][1])
            prof.note(step, part=part[5] if part else "skipped")
            res = None
            if part is not None:
                prof.mark(step, "k0")
                res = (*kernel(*part[:4]), part[4])
                prof.mark(step, "k1")
            if exch:
                exch.read(step)
            if step + 1 == world:
                last = res
            elif res is not None:  # merged now, not after the wait: it needs no new block
                prof.mark(step, "m0")
                state.add(*res)
                prof.mark(step, "m1")
        elif exch:
            exch.read(step)
        if handle is not None:
            cur = exch.finish(handle)
    prof.mark(-1, "f0")
    if compute:
        state.finish(*(last or (None, None, 0)), o_view, lse)
    prof.mark(-1, "f1")
    prof.mark(-1, "end")
    return (out if layout == "bshd" else o_view), lse


def _is_bshd(x):
    """Whether x [B, H, S, D] is stored [B, S, H, D]."""
    return not x.is_contiguous() and x.transpose(1, 2).is_contiguous()
