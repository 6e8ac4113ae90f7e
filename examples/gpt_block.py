#!/usr/bin/env python3
"""A GPT-style attention block on flashmlir.attention, checked against SDPA.

QKV projection, rotary position embedding (in PyTorch), grouped-query
attention and the output projection. Prefill runs the causal prefill kernel
on the prompt (Q/K/V stay in the projection's [B, S, H, D] storage, passed as
[B, H, S, D] views); decode appends each new token's K/V to a paged cache
([pages, page_size, Hkv, D] pools with a block table, pages handed out in a
shuffled order) and runs the paged decode kernel with kv_lens. Every output
(prompt and generated positions) is compared with the same block computed by
torch SDPA over the whole sequence, with FA2's rule: error against a float32
computation at most twice SDPA's own error in bfloat16, plus 1e-3.

    python3 examples/gpt_block.py [--prompt 300] [--steps 40] [--batch 3]

Needs a CUDA GPU; elsewhere it says so and exits 0. Kernels come from the
flashmlir kernel cache (FLASHMLIR_CACHE_DIR), compiled on a miss where the
FlashMLIR compiler is; `--variants` prints the two it uses.
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))

import torch  # noqa: E402

import flashmlir  # noqa: E402

HEADS_Q, HEADS_KV, HEAD_DIM, PAGE = 32, 8, 128, 16


def sdpa(q, k, v, causal):
    """torch SDPA on [B, H, S, D] (GQA by repeating K/V heads); the math
    itself where torch has no SDPA (1.13)."""
    g = q.shape[1] // k.shape[1]
    k, v = k.repeat_interleave(g, dim=1), v.repeat_interleave(g, dim=1)
    f = getattr(torch.nn.functional, "scaled_dot_product_attention", None)
    if f is not None:
        return f(q, k, v, is_causal=causal)
    s = (q @ k.transpose(-1, -2)).float() / math.sqrt(q.shape[-1])
    if causal:
        sq, sk = s.shape[-2:]
        s = s.masked_fill(torch.ones(sq, sk, dtype=torch.bool).triu(sk - sq + 1), float("-inf"))
    return (torch.softmax(s, dim=-1).to(v.dtype) @ v)


def cpu_attention(q, k, v, causal=False, kv_lens=None, block_table=None):
    """flashmlir.attention's semantics in torch, for --cpu-check: pages
    gathered through the table, kv_lens keys per sequence."""
    if block_table is None:
        return sdpa(q, k, v, causal)
    outs = []
    for b in range(q.shape[0]):
        pages = block_table[b].long()
        n = int(kv_lens[b])
        kb = k[pages].transpose(0, 1).reshape(k.shape[1], -1, k.shape[3])[None, :, :n]
        vb = v[pages].transpose(0, 1).reshape(v.shape[1], -1, v.shape[3])[None, :, :n]
        outs.append(sdpa(q[b:b + 1], kb, vb, causal))
    return torch.cat(outs)


attention = flashmlir.attention  # --cpu-check swaps in cpu_attention


def rope_tables(max_len, dim, device, base=10000.0):
    inv = 1.0 / base ** (torch.arange(0, dim, 2, device=device, dtype=torch.float32) / dim)
    ang = torch.arange(max_len, device=device, dtype=torch.float32)[:, None] * inv[None, :]
    return torch.cos(ang), torch.sin(ang)


def rope(x, cos, sin):
    """x [B, S, H, D] rotated by the angles of its positions (cos/sin
    [B, S, D/2]; rotate-half convention)."""
    x1, x2 = x.float().chunk(2, dim=-1)
    c, s = cos[:, :, None, :], sin[:, :, None, :]
    return torch.cat((x1 * c - x2 * s, x2 * c + x1 * s), dim=-1).to(x.dtype)


class Block:
    """Weights and the forward passes; `attn` is "flashmlir" or "sdpa"."""

    def __init__(self, dim, device, dtype, seed=0):
        g = torch.Generator(device="cpu").manual_seed(seed)
        w = lambda o, i: (torch.randn(o, i, generator=g) / math.sqrt(i)).to(device, dtype)  # noqa: E731
        self.dim = dim
        self.wqkv = w((HEADS_Q + 2 * HEADS_KV) * HEAD_DIM, dim)
        self.wo = w(dim, HEADS_Q * HEAD_DIM)

    def to(self, dtype):
        other = Block.__new__(Block)
        other.dim = self.dim
        other.wqkv, other.wo = self.wqkv.to(dtype), self.wo.to(dtype)
        return other

    def qkv(self, x, pos, tables):
        """x [B, S, dim], pos [B, S] -> q [B, S, Hq, D], k, v [B, S, Hkv, D]."""
        b, s, _ = x.shape
        qkv = (x @ self.wqkv.t()).view(b, s, HEADS_Q + 2 * HEADS_KV, HEAD_DIM)
        q, k, v = qkv.split([HEADS_Q, HEADS_KV, HEADS_KV], dim=2)
        cos, sin = tables[0][pos], tables[1][pos]
        return rope(q, cos, sin), rope(k, cos, sin), v

    def out(self, o):
        """o [B, Hq, S, D] (any strides) -> [B, S, dim]."""
        b, _, s, _ = o.shape
        return o.transpose(1, 2).reshape(b, s, HEADS_Q * HEAD_DIM) @ self.wo.t()

    def sdpa(self, x, tables):
        """The reference: the whole sequence, causal, torch SDPA."""
        b, s, _ = x.shape
        pos = torch.arange(s, device=x.device).expand(b, s)
        q, k, v = (t.transpose(1, 2) for t in self.qkv(x, pos, tables))
        return self.out(sdpa(q, k, v, True))

    def prefill(self, x, tables, cache):
        """Our prefill of the prompt x; fills the paged cache."""
        b, s, _ = x.shape
        pos = torch.arange(s, device=x.device).expand(b, s)
        q, k, v = self.qkv(x, pos, tables)
        cache.write(k, v, pos)
        o = attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=True)
        return self.out(o)

    def decode(self, x, tables, cache, lens):
        """One token per sequence (x [B, 1, dim]) at positions `lens` (int32
        [B], on the device: no host sync), appended to the cache."""
        pos = lens.long()[:, None]
        q, k, v = self.qkv(x, pos, tables)
        cache.write(k, v, pos)
        lens.add_(1)
        o = attention(q.transpose(1, 2), cache.k_view(), cache.v_view(), kv_lens=lens,
                      block_table=cache.table)
        return self.out(o)


class PagedCache:
    """K/V pools [pages, PAGE, Hkv, D] and a block table [B, pages_per_seq]
    whose pages are a random permutation (so reading in batch order fails)."""

    def __init__(self, batch, capacity, device, dtype, seed=1):
        per_seq = -(-capacity // PAGE)
        pages = batch * per_seq + 3  # spare pages, never referenced
        g = torch.Generator(device="cpu").manual_seed(seed)
        perm = torch.randperm(pages, generator=g)[:batch * per_seq]
        self.table = perm.view(batch, per_seq).to(device, torch.int32)
        nan = float("nan")
        self.k = torch.full((pages, PAGE, HEADS_KV, HEAD_DIM), nan, device=device, dtype=dtype)
        self.v = torch.full_like(self.k, nan)

    def write(self, k, v, pos):
        """k, v [B, S, Hkv, D] at positions pos [B, S] (device tensors)."""
        page = self.table.long().gather(1, pos // PAGE)
        slot = pos % PAGE
        self.k[page, slot] = k
        self.v[page, slot] = v

    def k_view(self):
        return self.k.transpose(1, 2)

    def v_view(self):
        return self.v.transpose(1, 2)


def variants(batch):
    """The two kernel variants the example runs (meta tensors: no GPU)."""
    m = lambda *s, dt=torch.int32: torch.empty(*s, dtype=dt, device="meta")  # noqa: E731
    bf = torch.bfloat16
    q = m(batch, HEADS_Q, 7, HEAD_DIM, dt=bf)
    kv = m(batch, HEADS_KV, 7, HEAD_DIM, dt=bf)
    pool = m(9, HEADS_KV, PAGE, HEAD_DIM, dt=bf)
    prefill = flashmlir.variant_for(q, kv, kv, causal=True)
    decode = flashmlir.variant_for(q[:, :, :1], pool, pool, kv_lens=m(batch),
                                   block_table=m(batch, 2))
    return [prefill.name, decode.name]


def run(batch=3, prompt=300, steps=40, dim=2048, log=print, device="cuda"):
    """Prefill + `steps` decode steps; returns (max error, tolerance, ok)."""
    dt = torch.bfloat16
    gen = torch.Generator(device=device)
    gen.manual_seed(0)
    block = Block(dim, device, dt)
    total = prompt + steps
    x = torch.randn(batch, total, dim, device=device, dtype=dt, generator=gen)
    tables = rope_tables(total, HEAD_DIM, device)
    cache = PagedCache(batch, total, device, dt)
    outs = [block.prefill(x[:, :prompt], tables, cache)]
    lens = torch.full((batch,), prompt, dtype=torch.int32, device=device)
    for t in range(prompt, total):
        outs.append(block.decode(x[:, t:t + 1], tables, cache, lens))
    ours = torch.cat(outs, dim=1).float()
    ref = block.to(torch.float32).sdpa(x.float(), tables)
    base = block.sdpa(x, tables).float()
    err = float((ours - ref).abs().max())
    base_err = float((base - ref).abs().max())
    tol = 2 * base_err + 1e-3
    ok = math.isfinite(err) and err <= tol
    log(f"gpt_block: batch {batch}, prompt {prompt}, {steps} decode steps, Hq {HEADS_Q}, "
        f"Hkv {HEADS_KV}, D {HEAD_DIM}, page {PAGE}: max |ours - fp32| {err:.3g}, "
        f"SDPA bf16 {base_err:.3g}, tol {tol:.3g}: {'ok' if ok else 'FAIL'}")
    return err, tol, ok


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--batch", type=int, default=3)
    ap.add_argument("--prompt", type=int, default=300)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--variants", action="store_true", help="print the kernel variants used")
    ap.add_argument("--cpu-check", action="store_true",
                    help="run the block's plumbing on the CPU with a torch attention")
    a = ap.parse_args(argv)
    if a.cpu_check:
        global attention
        attention = cpu_attention
        return 0 if run(a.batch, a.prompt, a.steps, dim=256, device="cpu")[2] else 1
    if a.variants:
        print(" ".join(variants(a.batch)))
        return 0
    if not torch.cuda.is_available():
        print("gpt_block: no CUDA GPU here; skipped")
        return 0
    return 0 if run(a.batch, a.prompt, a.steps)[2] else 1


if __name__ == "__main__":
    sys.exit(main())
