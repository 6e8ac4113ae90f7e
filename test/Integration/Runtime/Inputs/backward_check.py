"""The binding's backward entries (run by python-backward.test).

`errors FAKE_DIR`: the test artifact without GPU code, no driver, CPU
tensors: Kernel.kind, calls of the wrong kind (FlashError naming the right
call), argument types and captures, all before the runtime is reached.

`run FAKE_DIR` (FLASHRT_LIBCUDA is the fake driver, whose device memory is
host memory): CPU tensors pose as CUDA device 0 (the binding asks
Tensor.get_device and PyTorch's current device and stream, replaced here),
so fake_bwd and fake_bwd_alibi run end to end through
flashrt_attention_backward; their gradients are compared with PyTorch's
autograd in float64 on the same bf16 inputs, O and LSE from the float64
forward.
"""
import os
import sys

import torch

import flashmlir
from flashmlir import runtime

mode, fake_dir = sys.argv[1], sys.argv[2]
SCALE = 0.125


def attempt(what, call):
    try:
        call()
        print(what, "-> ran")
    except flashmlir.FlashError as ex:
        print(what, "->", type(ex).__name__, ex)


def errors():
    noload = os.path.join(fake_dir, "libfake_artifact_noload.so")
    q = torch.zeros(2, 4, 33, 64, dtype=torch.bfloat16)
    k = torch.zeros(2, 2, 70, 64, dtype=torch.bfloat16)
    lse = torch.zeros(2, 4, 33)
    with flashmlir.Kernel(noload, "fake_bwd") as bwd:
        print("kind:", bwd.kind, bwd.abi["args"])
        attempt("forward way", lambda: bwd(q, k, k))
        attempt("forward keyword", lambda: bwd(q, k, k, q, lse, q, out=q))
        attempt("unknown keyword", lambda: bwd(q, k, k, q, lse, q, dqq=q))
        attempt("non-tensor", lambda: bwd(q, k, k, q, [0.0], q))
        attempt("dq non-tensor", lambda: bwd(q, k, k, q, lse, q, dq=3))
        attempt("captures", lambda: bwd(q, k, k, q, lse, q, captures=[lse]))
        attempt("cpu", lambda: bwd(q, k, k, q, lse, q))
    with flashmlir.Kernel(noload, "fake") as fwd:
        print("kind:", fwd.kind)
        attempt("backward way", lambda: fwd(q, k, k, q, lse, q))
        attempt("backward keyword", lambda: fwd(q, k, k, dq=q))
    with flashmlir.Kernel(noload, "fake_bwd_alibi") as alibi:
        attempt("alibi without slopes", lambda: alibi(q, k, k, q, lse, q))


def reference(q, k, v, do, slopes=None):
    """O, LSE and the gradients in float64: causal (bottom-right), GQA."""
    q, k, v = (t.double().requires_grad_() for t in (q, k, v))
    group = q.shape[1] // k.shape[1]
    kk, vv = k.repeat_interleave(group, 1), v.repeat_interleave(group, 1)
    sq, sk = q.shape[2], k.shape[2]
    i = torch.arange(sq)[:, None]
    j = torch.arange(sk)[None, :]
    s = q @ kk.transpose(-1, -2) * SCALE
    if slopes is not None:
        s = s - slopes.double()[:, :, None, None] * (i + sk - sq - j).abs()
    s = s.masked_fill(j > i + sk - sq, float("-inf"))
    m = s.max(-1, keepdim=True).values.detach()
    m = torch.where(torch.isinf(m), torch.zeros_like(m), m)
    e = torch.exp(s - m)
    l = e.sum(-1, keepdim=True)
    o = e / torch.where(l > 0, l, torch.ones_like(l)) @ vv
    (o * do.double()).sum().backward()
    lse = (m + torch.log(l)).squeeze(-1)
    return o.detach(), lse.detach().float(), q.grad, k.grad, v.grad


def check(name, got, want):
    err = (got.double() - want).abs().max().item()
    tol = 0.02 * want.abs().max().item() + 1e-3
    print(f"  {name}: {'ok' if err <= tol else f'FAIL err {err:.3g} > {tol:.3g}'}")


def run():
    # The fake driver's "device 0" is host memory: CPU tensors stand in.
    torch.Tensor.get_device = lambda self: 0
    runtime._get_torch()
    runtime._current_device = lambda: 0
    runtime._raw_stream = lambda device: 0
    artifact = os.path.join(fake_dir, "libfake_artifact.so")
    gen = torch.Generator().manual_seed(1)

    def randn(*shape, bshd=False):
        if bshd:
            b, h, s, d = shape
            return torch.randn(b, s, h, d, generator=gen).bfloat16().transpose(1, 2)
        return torch.randn(*shape, generator=gen).bfloat16()

    with flashmlir.Kernel(artifact, "fake_bwd") as bwd:
        for b, hq, hkv, sq, sk, bshd in ((2, 4, 2, 33, 70, False), (1, 4, 1, 70, 33, True),
                                         (2, 2, 2, 17, 17, True)):
            q, k, v = randn(b, hq, sq, 64, bshd=bshd), randn(b, hkv, sk, 64, bshd=bshd), \
                randn(b, hkv, sk, 64, bshd=bshd)
            do = randn(b, hq, sq, 64, bshd=bshd)
            o, lse, rq, rk, rv = reference(q, k, v, do)
            o = o.bfloat16()
            if bshd:
                o = o.transpose(1, 2).contiguous().transpose(1, 2)
            dq, dk, dv = bwd(q, k, v, o, lse, do)
            layout = "bshd" if bshd else "bhsd"
            kept = all((t.transpose(1, 2) if bshd else t).is_contiguous() for t in (dq, dk, dv))
            print(f"fake_bwd B={b} Hq={hq} Hkv={hkv} Sq={sq} Sk={sk} {layout}: shapes "
                  f"{[tuple(t.shape) for t in (dq, dk, dv)] == [q.shape, k.shape, v.shape]}, "
                  f"layout kept {kept}")
            for name, got, want in (("dq", dq, rq), ("dk", dk, rk), ("dv", dv, rv)):
                check(name, got, want)
        # Into given tensors: the same ones come back.
        given = tuple(torch.full_like(t, float("nan")) for t in (q, k, v))
        out = bwd(q, k, v, o, lse, do, dq=given[0], dk=given[1], dv=given[2])
        print("given outputs returned:", all(a is b for a, b in zip(out, given)))
        check("dq given", given[0], rq)
        attempt("dq over q", lambda: bwd(q, k, v, o, lse, do, dq=q))

    with flashmlir.Kernel(artifact, "fake_bwd_alibi") as alibi:
        q, k, v, do = randn(2, 4, 40, 64), randn(2, 2, 50, 64), randn(2, 2, 50, 64), \
            randn(2, 4, 40, 64)
        slopes = torch.rand(2, 4, generator=gen) * 0.25
        o, lse, rq, rk, rv = reference(q, k, v, do, slopes)
        dq, dk, dv = alibi(q, k, v, o.bfloat16(), lse, do, captures=[slopes])
        print("fake_bwd_alibi:")
        for name, got, want in (("dq", dq, rq), ("dk", dk, rk), ("dv", dv, rv)):
            check(name, got, want)


errors() if mode == "errors" else run()
print("done")
