"""FlexAttention's BlockMask for flashmlir.attention: the block-mask hint of
flash.attention (FlashOps.td), a summary of a mask_mod per block of query
rows that lets the kernels skip key blocks nobody sees and run no mask_mod
on key blocks everybody sees.

    bm = flashmlir.block_mask_from_mask(lambda b, h, i, j: doc[b, i] == doc[b, j],
                                        B, None, Lq, Lk, rows=128)
    out = flashmlir.attention(q, k, v, mask_mod=DOC_MASK, captures=[doc],
                              block_mask=bm)

The hint is an int32 tensor [B or 1, Hq or 1, R, 4] with R = ceil(Lq / rows):
row r of (b, h) holds (vlo, vhi, flo, fhi), key positions with the promise
that for every query i in [r * rows, (r + 1) * rows) the mask_mod is false
at every key outside [vlo, vhi) and true at every key in [flo, fhi) (an
empty interval, lo >= hi, promises nothing / no visible key). A size-1
batch or head dim broadcasts (the variant is compiled for it: `b1`, `h1` in
its name). The mask_mod alone defines the result; a hint that breaks its
promise gives undefined results, as FlexAttention's does, so the hint is
best computed from the mask (block_mask_from_mask, doc_block_mask).
"""

from .errors import FlashError

__all__ = ["BlockMask", "block_mask_from_mask", "doc_block_mask", "DOC_MASK_MOD",
           "PREFIX_LM_MASK_MOD"]


def _error(msg):
    return FlashError(msg)


class BlockMask:
    """A validated block-mask hint: `hint` (int32 [B|1, H|1, R, 4], on the
    device of the call's tensors; made contiguous, as the kernels read it
    row-major) and `rows` (query rows per hint row, >= 1). `kv_len`, when
    given, checks every interval lies in [0, kv_len] (this reads the hint
    back to the host once: leave it out for a hint on the GPU in a hot path).
    The call checks the rest: the device, B and H against q's (or 1), and
    R == ceil(Lq / rows)."""

    __slots__ = ("hint", "rows")

    def __init__(self, hint, rows, kv_len=None):
        if not hasattr(hint, "dim") or not hasattr(hint, "dtype"):
            raise _error(f"BlockMask's hint must be a torch.Tensor, not {type(hint).__name__}")
        if str(hint.dtype) != "torch.int32":
            raise _error(f"BlockMask's hint must be int32, got {hint.dtype}")
        if hint.dim() != 4 or hint.shape[3] != 4:
            raise _error(f"BlockMask's hint must be [B or 1, H or 1, R, 4] (vlo, vhi, flo, fhi "
                         f"per row block), got shape {tuple(hint.shape)}")
        if hint.numel() == 0:
            raise _error(f"BlockMask's hint is empty (shape {tuple(hint.shape)})")
        if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
            raise _error(f"BlockMask's rows (query rows per hint row) must be an int >= 1, "
                         f"got {rows!r}")
        if kv_len is not None:
            lo, hi = int(hint.min()), int(hint.max())
            if lo < 0 or hi > kv_len:
                raise _error(f"BlockMask's intervals must lie in [0, {kv_len}] (the keys), "
                             f"got values from {lo} to {hi}")
        object.__setattr__(self, "hint", hint.contiguous())
        object.__setattr__(self, "rows", rows)

    def __setattr__(self, *_):
        raise AttributeError("BlockMask is immutable")

    def __repr__(self):
        return f"BlockMask(shape={tuple(self.hint.shape)}, rows={self.rows})"

    @property
    def signature(self):
        """What the kernel variant is compiled for: (rows, batch broadcast,
        head broadcast)."""
        return (self.rows, self.hint.shape[0] == 1, self.hint.shape[1] == 1)

    def check(self, q):
        """Checks the hint against q [B, Hq, Lq, D] (shapes and device, no
        values); returns signature. Cheap: run on every call."""
        b, hq, lq = (int(x) for x in q.shape[:3])
        hb, hh, r = (int(x) for x in self.hint.shape[:3])
        want = -(-lq // self.rows)
        if hb not in (1, b) or hh not in (1, hq) or r != max(want, 1):
            raise _error(f"block_mask's hint must be [B={b} or 1, Hq={hq} or 1, "
                         f"R=ceil(Lq={lq} / rows={self.rows})={want}, 4], got "
                         f"{tuple(self.hint.shape)}")
        if self.hint.device != q.device:
            raise _error(f"block_mask's hint is on {self.hint.device}, q on {q.device}")
        return self.signature


def _longest_run(ok, torch):
    """(start, end) of the first longest run of True along the last dim of
    the bool tensor `ok` ((0, 0) where there is none)."""
    n = ok.shape[-1]
    idx = torch.arange(n, device=ok.device).expand_as(ok)
    # The last False at or before j: the run ending at j is j - that long.
    last_false = torch.where(ok, torch.full_like(idx, -1), idx).cummax(-1).values
    length = idx - last_false
    best, end = length.max(-1)
    start = end - best + 1
    none = best == 0
    return (torch.where(none, torch.zeros_like(start), start),
            torch.where(none, torch.zeros_like(end), end + 1))


def _dense_hint(mask, rows, torch):
    """The hint of a dense bool mask [b, h, Lq, Lk] (b, h possibly 1)."""
    b, h, lq, lk = mask.shape
    r = -(-lq // rows)
    pad = r * rows - lq
    out = torch.zeros(b, h, r, 4, dtype=torch.int32, device=mask.device)
    keys = torch.arange(lk, device=mask.device)
    for bi in range(b):  # one [Lq, Lk] slice at a time: bounded memory
        for hi in range(h):
            m = mask[bi, hi]
            # Padding rows are no queries: they see nothing (visible) and
            # do not restrict what every row sees (full).
            vis = torch.nn.functional.pad(m, (0, 0, 0, pad), value=False)
            full = torch.nn.functional.pad(m, (0, 0, 0, pad), value=True)
            vis = vis.view(r, rows, lk).any(1)
            full = full.view(r, rows, lk).all(1)
            seen = vis.any(-1)
            first = torch.where(vis, keys, torch.full_like(keys, lk)).min(-1).values
            last = torch.where(vis, keys, torch.full_like(keys, -1)).max(-1).values
            vlo = torch.where(seen, first, torch.zeros_like(first))
            vhi = torch.where(seen, last + 1, torch.zeros_like(last))
            flo, fhi = _longest_run(full, torch)
            out[bi, hi] = torch.stack([vlo, vhi, flo, fhi], -1).to(torch.int32)
    return out


def block_mask_from_mask(mask, B, H, Lq, Lk, rows=128, device=None):
    """The BlockMask of a mask, computed densely (O(B H Lq Lk) work, once per
    mask): `mask` is FlexAttention's mask_mod signature as a broadcasting
    function, mask(b, h, q_idx, kv_idx) -> bool tensor, called with index
    tensors shaped [B,1,1,1], [1,H,1,1], [1,1,Lq,1], [1,1,1,Lk] (so plain
    tensor expressions work: `lambda b, h, i, j: j <= i`), or a dense bool
    tensor broadcastable to [B, H, Lq, Lk]. B or H None (or 1) makes that
    dim of the hint 1 (broadcast), as does a mask that does not depend on
    it. Visible interval: the first to the last key any row of the block
    sees; full interval: the longest run of keys every row of the block sees
    (so never wider than true)."""
    import torch
    for name, x in (("Lq", Lq), ("Lk", Lk)):
        if isinstance(x, bool) or not isinstance(x, int) or x < 1:
            raise _error(f"block_mask_from_mask: {name} must be an int >= 1, got {x!r}")
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise _error(f"block_mask_from_mask: rows must be an int >= 1, got {rows!r}")
    b, h = B or 1, H or 1
    if callable(mask):
        dev = torch.device(device) if device is not None else torch.device("cpu")
        ar = lambda n: torch.arange(n, device=dev)  # noqa: E731
        dense = mask(ar(b).view(b, 1, 1, 1), ar(h).view(1, h, 1, 1), ar(Lq).view(1, 1, Lq, 1),
                     ar(Lk).view(1, 1, 1, Lk))
        if not hasattr(dense, "dtype"):
            raise _error(f"block_mask_from_mask: the mask function returned "
                         f"{type(dense).__name__}, not a bool tensor")
    else:
        dense = mask
        if not hasattr(dense, "dtype"):
            raise _error(f"block_mask_from_mask: mask must be a function or a bool tensor, "
                         f"not {type(mask).__name__}")
    if dense.dtype != torch.bool:
        raise _error(f"block_mask_from_mask: the mask must be bool, got {dense.dtype}")
    while dense.dim() < 4:
        dense = dense.unsqueeze(0)
    if dense.dim() != 4:
        raise _error(f"block_mask_from_mask: the mask has shape {tuple(dense.shape)}, not "
                     f"broadcastable to [B, H, Lq={Lq}, Lk={Lk}]")
    db, dh, dq, dk = dense.shape
    if db not in (1, b) or dh not in (1, h) or dq not in (1, Lq) or dk not in (1, Lk):
        raise _error(f"block_mask_from_mask: the mask has shape {tuple(dense.shape)}, not "
                     f"broadcastable to [B={b}, H={h}, Lq={Lq}, Lk={Lk}]")
    dense = dense.expand(db, dh, Lq, Lk)
    hint = _dense_hint(dense, rows, torch)
    if device is not None:
        hint = hint.to(device)
    return BlockMask(hint, rows)


# The mask_mods whose hints this module computes, as flash.attention regions
# (the text is part of a variant's name, so callers share this one copy):
# documents doc[b, i] == doc[b, j] (ids i32 [B, L]), and prefix-LM
# j <= i or j < prefix[b] (i32 [B]).
DOC_MASK_MOD = """
^bb0(%b: index, %h: index, %i: index, %j: index, %doc: memref<?x?xi32>):
  %di = memref.load %doc[%b, %i] : memref<?x?xi32>
  %dj = memref.load %doc[%b, %j] : memref<?x?xi32>
  %same = arith.cmpi eq, %di, %dj : i32
  flash.yield %same : i1
"""
PREFIX_LM_MASK_MOD = """
^bb0(%b: index, %h: index, %i: index, %j: index, %p: memref<?xi32>):
  %n = memref.load %p[%b] : memref<?xi32>
  %prefix = arith.index_cast %n : i32 to index
  %past = arith.cmpi sle, %j, %i : index
  %inside = arith.cmpi slt, %j, %prefix : index
  %visible = arith.ori %past, %inside : i1
  flash.yield %visible : i1
"""


def doc_block_mask(doc, hq, sq, sk, rows):
    """The hint (a tensor; BlockMask(doc_block_mask(...), rows) for the
    call) of a document mask doc[b, i] == doc[b, j] over sorted document ids
    `doc` [B, S] (int32, S >= max(sq, sk)): [B, Hq, ceil(Sq / rows), 4]
    int32, row r holding (vlo, vhi, flo, fhi) for the queries [r * rows,
    (r + 1) * rows): the keys of the row block's first to last document are
    the only visible ones, and when the block lies in one document all of
    that document's keys are visible. O(B Sq / rows log Sk), on doc's
    device."""
    import torch
    b = doc.shape[0]
    first = torch.arange(0, sq, rows, device=doc.device)
    last = torch.clamp(first + rows - 1, max=sq - 1)
    keys = doc[:, :sk].contiguous()
    d_first, d_last = doc[:, first].contiguous(), doc[:, last].contiguous()
    vlo = torch.searchsorted(keys, d_first, right=False)
    vhi = torch.searchsorted(keys, d_last, right=True)
    one = d_first == d_last
    zero = torch.zeros_like(vlo)
    hint = torch.stack([vlo, vhi, torch.where(one, vlo, zero), torch.where(one, vhi, zero)], -1)
    return hint.to(torch.int32).view(b, 1, -1, 4).expand(b, hq, -1, 4).contiguous()
