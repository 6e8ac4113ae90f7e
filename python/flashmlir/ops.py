"""flashmlir.attention: one call that picks, compiles and runs the kernel,
registered as the PyTorch operator `flashmlir::attention`.

    out = flashmlir.attention(q, k, v, causal=True)              # prefill
    out, lse = flashmlir.attention(q, k_pool, v_pool, kv_lens=lens,
                                   block_table=table, return_lse=True)

Tensors are in SDPA's logical order [batch, heads, seq, head_dim] with any
strides (FA2's [batch, seq, heads, head_dim] storage is x.transpose(1, 2));
a paged K/V cache is the pool [num_pages, heads_kv, page_size, head_dim]
(a [num_pages, page_size, heads_kv, head_dim] buffer passed transposed) with
an int32 [batch, pages_per_seq] block_table; kv_lens (int32 [batch]) is the
valid cache length per sequence. The variant (flashmlir.variants) comes
from the dtypes, head dims and options, plus for decode calls the head
counts, query length and page size; it is loaded from the kernel cache
(flashmlir.cache) of this GPU's chip, compiled on a miss where the compiler
is. `scale`, `window` and `softcap` are compile-time in today's kernels (the
ABI has no run-time scale), so each value is its own variant.

The operator has a fake (meta) implementation giving O [B, Hq, Sq, Dv] (in
q's storage order) and LSE [B, Hq, Sq] (float32), so torch.compile traces
it without a graph break: torch.library.custom_op + register_fake on
torch >= 2.4, torch.library.Library("flashmlir", "DEF") with CUDA and Meta
kernels on older torch. Calls are CUDA-graph capturable: the kernel runs on
the current stream without host synchronisation, and the split-KV scratch
memory that decode kernels allocate comes from PyTorch's caching allocator
(flashrt_set_allocator), which serves captures from the graph's pool.
Eager calls skip the dispatcher (same code, less overhead).
"""

import threading

from . import FlashError, device_info
from .cache import KernelCache, chip_for_device, default_cache_dir
from .variants import Variant, parse_name

__all__ = ["attention", "precompile", "variant_for", "set_cache_dir", "set_chip", "kernel_cache"]

_settings_lock = threading.Lock()
_cache = None
_chip = None


def set_cache_dir(directory):
    """Where compiled kernels are found and put (default:
    flashmlir.cache.default_cache_dir())."""
    global _cache
    with _settings_lock:
        _cache = KernelCache(directory)


def kernel_cache():
    global _cache
    if _cache is None:
        with _settings_lock:
            if _cache is None:
                _cache = KernelCache(default_cache_dir())
    return _cache


def set_chip(chip):
    """Overrides the chip kernels are compiled for (default: from the GPU,
    see flashmlir.cache.chip_for_device)."""
    global _chip
    _chip = chip


def _current_chip():
    global _chip
    if _chip is None:
        _chip = chip_for_device(*device_info()[:2])
    return _chip


def variant_for(q, k, v, *, causal=False, window=None, softcap=None, scale=None,
                kv_lens=None, block_table=None):
    """The Variant that attention() runs for these arguments; works on meta
    tensors, so variants can be named (and precompiled) without a GPU."""
    return Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table)


def precompile(variants, chip, cache_dir=None, compiler=None):
    """Compiles `variants` (Variant objects or names) for `chip` into
    `cache_dir` (default: the current cache); returns their artifact paths.
    `compiler`: a flashmlir.cache.Compiler, else the one found."""
    cache = KernelCache(cache_dir, compiler) if cache_dir or compiler else kernel_cache()
    if cache.compiler() is None:
        raise FlashError("precompile: no FlashMLIR compiler found (build the project, or "
                         "put flash-compile on PATH, or set FLASHMLIR_COMPILER)")
    return [cache.build(parse_name(v) if isinstance(v, str) else v, chip) for v in variants]


# ---------------------------------------------------------------------------
# Running

_variants = {}  # fast key -> Variant


def _options_key(q, k, v, causal, window, softcap, scale, kv_lens, block_table):
    return (q.dtype, k.dtype, v.dtype, tuple(q.shape[1:]), tuple(k.shape[1:]),
            v.shape[3], bool(causal), None if window is None else tuple(window), softcap,
            scale, kv_lens is None, None if block_table is None else block_table.dim())


def _variant(q, k, v, causal, window, softcap, scale, kv_lens, block_table):
    key = _options_key(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
    var = _variants.get(key)
    if var is None:
        var = Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
        # The key holds every shape entry the variant depends on except
        # batch, checked here each call. Prefill lengths vary: keep it small.
        if len(_variants) > 4096:
            _variants.clear()
        _variants[key] = var
    elif block_table is None and k.shape[0] != q.shape[0]:
        raise FlashError(f"k's batch {k.shape[0]} differs from q's {q.shape[0]}")
    return var


def _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table, out=None, lse=None):
    import torch
    if q.device.type != "cuda":
        raise FlashError(f"q is on {q.device}; flashmlir.attention runs on CUDA tensors")
    var = _variant(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
    kern = kernel_cache().get(var, _current_chip())
    if var.kv_lens and kv_lens is None:  # paged without lengths: every page is full
        kv_lens = torch.full((q.shape[0],), block_table.shape[1] * k.shape[2],
                             dtype=torch.int32, device=q.device)
    if lse is None:
        lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    res = kern(q, k, v, out=out, lse=lse, kv_lens=kv_lens, block_table=block_table)
    return res if isinstance(res, tuple) else (res, lse)


def _fake(q, k, v, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
          block_table=None):
    """Output shapes without running anything (meta and fake tensors)."""
    import torch
    from . import _empty_like_layout
    Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
    return (_empty_like_layout(torch, q, v.shape[3]),
            torch.empty(q.shape[:3], dtype=torch.float32, device=q.device))


def _op_impl(q, k, v, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
             block_table=None):
    return _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table)


_SCHEMA = ("attention(Tensor q, Tensor k, Tensor v, bool causal=False, int[]? window=None, "
           "float? softcap=None, float? scale=None, Tensor? kv_lens=None, "
           "Tensor? block_table=None) -> (Tensor, Tensor)")
_registered = None  # how the operator was registered, for tests and errors
_library = None


def register(torch):
    """Registers flashmlir::attention (once; called when flashmlir is
    imported with PyTorch present). Returns how: "custom_op" or "library"."""
    global _registered, _library
    if _registered:
        return _registered
    from typing import List, Optional, Tuple
    Tensor = torch.Tensor
    if hasattr(torch.library, "custom_op") and hasattr(torch.library, "register_fake"):
        @torch.library.custom_op("flashmlir::attention", mutates_args=(), device_types="cuda")
        def attention_op(q: Tensor, k: Tensor, v: Tensor, causal: bool = False,
                         window: Optional[List[int]] = None, softcap: Optional[float] = None,
                         scale: Optional[float] = None, kv_lens: Optional[Tensor] = None,
                         block_table: Optional[Tensor] = None) -> Tuple[Tensor, Tensor]:
            return _op_impl(q, k, v, causal, window, softcap, scale, kv_lens, block_table)

        torch.library.register_fake("flashmlir::attention")(_fake)
        _registered = "custom_op"
    else:
        _library = torch.library.Library("flashmlir", "DEF")
        _library.define(_SCHEMA)
        # No autograd formula: the Autograd keys run the kernels directly
        # (outputs do not require grad), as there is no fallthrough for them.
        for key in ("CUDA", "AutogradCUDA"):
            _library.impl("attention", _op_impl, key)
        for key in ("Meta", "AutogradMeta"):
            _library.impl("attention", _fake, key)
        _registered = "library"
    return _registered


def _compiling(torch):
    comp = getattr(torch, "compiler", None)
    if comp is not None and hasattr(comp, "is_compiling"):
        return comp.is_compiling()
    dyn = getattr(torch, "_dynamo", None)
    return bool(dyn is not None and getattr(dyn, "is_compiling", lambda: False)())


def attention(q, k, v, *, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
              block_table=None, return_lse=False, out=None, lse=None):
    """softmax(scale * q k^T [masked]) v, FlashAttention-2 semantics (see the
    module docstring). window=(left, right), -1 unbounded; softcap=None or 0
    for none; scale=None for 1/sqrt(head_dim). Returns out, or (out, lse)
    with return_lse (lse float32 [B, Hq, Sq], natural log; -inf and O = 0 on
    rows that see no key). `out` and `lse` (optional) receive O and LSE."""
    import torch
    if window is not None:
        window = [int(x) for x in window]
        if len(window) != 2:
            raise FlashError(f"window must be (left, right), got {window}")
    softcap = float(softcap) if softcap else None
    scale = None if scale is None else float(scale)
    if q.device.type not in ("cuda", "meta"):
        raise FlashError(f"q is on {q.device}; flashmlir.attention runs on CUDA tensors")
    if _compiling(torch) or q.device.type == "meta":
        o, l = torch.ops.flashmlir.attention(q, k, v, bool(causal), window, softcap, scale,
                                             kv_lens, block_table)
        if out is not None:
            o = out.copy_(o)
        if lse is not None:
            l = lse.copy_(l)
    else:
        o, l = _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table, out=out,
                    lse=lse)
    return (o, l) if return_lse else o
