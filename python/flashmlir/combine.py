"""flashmlir.combine: the merge of partial attentions by their LSE, run by a
compiled flash.combine (flashmlir.variants.Combine), on CUDA tensors or, with
the kernel compiled for chip "cpu", on CPU tensors.

    combine(parts_o, parts_lse, out, lse)
    # parts_o f32 [S, B, H, Sq, Dv], parts_lse f32 [S, B, H, Sq] (any strides,
    # parts_o's innermost 1); out [B, H, Sq, Dv] bf16/f16/f32, lse f32 [B, H, Sq]

writes LSE = log sum_s exp LSE_s and O = sum_s exp(LSE_s - LSE) O_s (parts
with LSE_s = -inf weigh 0; rows no part saw: O = 0, LSE = -inf). This is the
split-KV merge of Flash-Decoding as one op, so that code merging partials
(flashmlir.distributed's ring attention) shares its one statement of the
math instead of writing the formula again.

The entry has no ABI record; it is called through its MLIR C interface with
memref descriptors (flashmlir.runtime.CombineKernel, which the kernel cache
opens it with): on the GPU through flashrt_invoke (on PyTorch's current
stream, like flashmlir.attention), on the CPU directly. The GPU kernel
indexes with 32 bits, so calls are split along batch, heads and rows into
views under 2 GiB.
"""

from .cache import _current_chip, kernel_cache
from .errors import FlashError
from .runtime import CombineKernel, _descriptor  # noqa: F401 - flashmlir.combine's names
from .variants import Combine

__all__ = ["combine", "CombineKernel", "MAX_VIEW_BYTES"]

MAX_VIEW_BYTES = 2**31 - 1  # what 32-bit index arithmetic addresses


def _span_bytes(t):
    if t.numel() == 0:
        return 0
    return (sum((n - 1) * s for n, s in zip(t.shape, t.stride())) + 1) * t.element_size()


def _check(parts_o, parts_lse, out, lse):
    import torch
    if parts_o.dim() != 5 or parts_lse.dim() != 4 or out.dim() != 4 or lse.dim() != 3:
        raise FlashError("combine: expects parts_o [S, B, H, Sq, Dv], parts_lse [S, B, H, Sq], "
                         "out [B, H, Sq, Dv], lse [B, H, Sq]")
    shape = tuple(parts_o.shape)
    if (tuple(parts_lse.shape) != shape[:4] or tuple(out.shape) != shape[1:] or
            tuple(lse.shape) != shape[1:4]):
        raise FlashError(f"combine: shapes do not match: parts_o {shape}, parts_lse "
                         f"{tuple(parts_lse.shape)}, out {tuple(out.shape)}, lse "
                         f"{tuple(lse.shape)}")
    for name, t in (("parts_o", parts_o), ("parts_lse", parts_lse), ("lse", lse)):
        if t.dtype != torch.float32:
            raise FlashError(f"combine: {name} must be float32, not {t.dtype}")
    for name, t in (("parts_o", parts_o), ("out", out)):
        if t.shape[-1] > 1 and t.stride(-1) != 1:
            raise FlashError(f"combine: {name} needs innermost stride 1, not {t.stride(-1)}")
    for name, t in (("parts_lse", parts_lse), ("out", out), ("lse", lse)):
        if t.device != parts_o.device:
            raise FlashError(f"combine: {name} is on {t.device}, parts_o on {parts_o.device}")
    return {torch.bfloat16: "bf16", torch.float16: "f16", torch.float32: "f32"}.get(out.dtype)


def _split(parts_o, parts_lse, out, lse, limit):
    """Views of the four tensors split along batch, heads or rows (the axis
    with the largest stride of the widest view) until each spans <= limit
    bytes; yields them."""
    group = (parts_o, parts_lse, out, lse)
    which = max(range(4), key=lambda i: _span_bytes(group[i]))
    widest = group[which]
    if _span_bytes(widest) <= limit:
        yield group
        return
    first = 1 if which < 2 else 0  # the partials lead with the part axis
    axes = [a for a in range(3) if widest.shape[first + a] > 1]
    if not axes:
        raise FlashError(f"combine: a single row of {_span_bytes(widest)} bytes exceeds the "
                         f"kernel's {limit}-byte views")
    axis = max(axes, key=lambda a: widest.stride(first + a))
    n = widest.shape[first + axis]
    for lo, hi in ((0, n // 2), (n // 2, n)):
        yield from _split(parts_o.narrow(axis + 1, lo, hi - lo),
                          parts_lse.narrow(axis + 1, lo, hi - lo),
                          out.narrow(axis, lo, hi - lo), lse.narrow(axis, lo, hi - lo), limit)


def combine(parts_o, parts_lse, out, lse, *, cache=None, chip=None):
    """Merges the partials into out and lse (see the module docstring).
    `cache` (a KernelCache) and `chip` default to flashmlir.attention's, the
    chip to "cpu" for CPU tensors."""
    dtype = _check(parts_o, parts_lse, out, lse)
    if dtype is None:
        raise FlashError(f"combine: out must be bfloat16, float16 or float32, not {out.dtype}")
    if out.numel() == 0:
        return out, lse
    on_gpu = out.device.type == "cuda"
    if chip is None:
        chip = _current_chip() if on_gpu else "cpu"
    kern = (cache or kernel_cache()).get(Combine(dtype, int(out.shape[3])), chip)
    limit = MAX_VIEW_BYTES if on_gpu else float("inf")
    for views in _split(parts_o, parts_lse, out, lse, limit):
        kern(*views)
    return out, lse
