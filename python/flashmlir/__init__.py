"""FlashMLIR kernels from Python: a ctypes binding of libflashrt.

Runs compiled attention artifacts (libNAME.so from the FlashMLIR compiler) on
PyTorch CUDA tensors without building anything against PyTorch:

    import flashmlir
    attn = flashmlir.Kernel("libattn.so", "attn")
    out, lse = attn(q, k, v)          # q [B, Hq, Sq, D], k/v [B, Hkv, Sk, D]
    out, lse = attn(q.transpose(1, 2), ...)  # BSHD storage as a strided view
    out, lse = dec(q, k, v, kv_lens=lens, block_table=table)  # KV-cache entries
    out, lse = doc(q, k, v, captures=[doc_ids, bias])  # score_mod / mask_mod operands

Tensors are in logical [batch, heads, seq, head_dim] order with any strides
(innermost stride 1, 16-byte aligned rows); the kernel runs on PyTorch's
current stream and returns without waiting, like a PyTorch op. Every failure
is a FlashError carrying the runtime's message. The binding imports (and
opens artifacts) without PyTorch.

On top of it (with PyTorch): flashmlir.attention(q, k, v, causal=...), which
names the kernel variant, loads it from a kernel cache or compiles it, and is
the operator torch.ops.flashmlir.attention (flashmlir.ops); precompile()
fills a cache for machines without the compiler (flashmlir.cache).
"""

# The package is layers that import only downward (errors; mods, blockmask,
# runtime; variants; cache; combine; ops; distributed), checked by
# test/Integration/Python/import-layers.test; this file only re-exports them and
# registers the PyTorch operator.
from . import runtime
from .errors import FlashError, FlashTypeError, FlashValueError
from .runtime import Kernel, device_info, load_runtime, set_allocator
from .runtime import use_torch_allocator  # noqa: F401 - public, not in __all__
from .variants import Variant
from .blockmask import BlockMask, block_mask_from_mask, doc_block_mask
from .cache import set_compiler
from .ops import attention, precompile, set_cache_dir, set_chip, variant_for

__all__ = ["FlashError", "FlashTypeError", "FlashValueError", "Kernel", "load_runtime", "device_info", "set_allocator",
           "attention", "precompile", "variant_for", "set_cache_dir", "set_chip",
           "set_compiler", "Variant", "BlockMask", "block_mask_from_mask", "doc_block_mask"]


def __getattr__(name):
    """The binding's private names as flashmlir._<name> (e.g. _lib_path, the
    loaded libflashrt's path, and _allocator), read from flashmlir.runtime
    at each access, as load_runtime and set_allocator rebind them there."""
    if name.startswith("_") and not name.startswith("__") and hasattr(runtime, name):
        return getattr(runtime, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


try:
    import torch as _torch_module
except ImportError:
    _torch_module = None
if _torch_module is not None:
    from .ops import register as _register
    _register(_torch_module)
