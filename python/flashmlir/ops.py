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

ALiBi and FlexAttention-style modifications (issue #11):

    out = flashmlir.attention(q, k, v, causal=True, alibi_slopes=slopes)
    out = flashmlir.attention(q, k, v, mask_mod=DOC_MASK, captures=[doc_ids])
    out = flashmlir.attention(q, k, v, mask_mod=DOC_MASK, captures=[doc_ids],
                              block_mask=flashmlir.BlockMask(hint, rows=128))

alibi_slopes (float32 [Hq] or [B, Hq]) and captures are run-time operands;
score_mod / mask_mod are MLIR region text (flashmlir.mods: the body of the
op's `score_mod { ... }` with its `^bb0(...)` header, captures as memrefs),
compiled into the variant, which a hash of the text names. Calls with any
of them go through the operator `flashmlir::attention_mods` (captures a
Tensor[] after v, the regions str arguments, a block_mask's hint and rows
as `block_mask` / `block_mask_rows`), so `flashmlir::attention` keeps its
schema. A block_mask (flashmlir.blockmask) is a hint about the mask_mod;
its rows and broadcast dims are part of the variant (`_bm<rows>[b1][h1]`).

The operator has a fake (meta) implementation giving O [B, Hq, Sq, Dv] (in
q's storage order) and LSE [B, Hq, Sq] (float32), so torch.compile traces
it without a graph break: torch.library.custom_op + register_fake on
torch >= 2.4, torch.library.Library("flashmlir", "DEF") with CUDA and Meta
kernels on older torch. Calls are CUDA-graph capturable: the kernel runs on
the current stream without host synchronisation, and the split-KV scratch
memory that decode kernels allocate comes from PyTorch's caching allocator
(flashrt_set_allocator), which serves captures from the graph's pool.
Eager calls skip the dispatcher (same code, less overhead).

Training (issue #39): when q, k or v requires grad, the call goes through
the operator, whose autograd formula (torch.library.register_autograd,
torch >= 2.4) saves O and LSE and runs the backward variant
(Variant.backward_of: flash.attention_backward with the same attributes,
regions and captures) as the operator flashmlir::attention_backward, which
has a fake implementation too: torch.compile(fullgraph=True) traces both
directions, and CUDA graphs capture the backward's launches and its
workspace (the caching allocator again). The backward takes no KV cache
(kv_lens / block_table: FlashError) and runs a block_mask call's mask_mod
without the hint (the hint only skips work). LSE's own gradient is not
propagated (as in FA2): a loss that reads the returned LSE gets none
through it.
"""

from .blockmask import BlockMask
from .cache import KernelCache, _current_chip, kernel_cache, set_cache_dir, set_chip
from .errors import FlashError
from .runtime import _empty_like_layout
from .variants import Variant, check_block_mask, check_mods_tensors, parse_name

__all__ = ["attention", "precompile", "variant_for", "set_cache_dir", "set_chip", "kernel_cache"]


def variant_for(q, k, v, *, causal=False, window=None, softcap=None, scale=None,
                kv_lens=None, block_table=None, alibi_slopes=None, score_mod=None,
                mask_mod=None, captures=None, block_mask=None):
    """The Variant that attention() runs for these arguments; works on meta
    tensors, so variants can be named (and precompiled) without a GPU."""
    return Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table,
                            alibi_slopes, score_mod, mask_mod, captures, block_mask)


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


def _variant(q, k, v, causal, window, softcap, scale, kv_lens, block_table, mods=None):
    key = _options_key(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
    if mods is not None:
        # The tensors are checked on every call (batch, device); the key holds
        # what the variant takes from them and the regions' text.
        alibi_slopes, score_mod, mask_mod, captures = mods[:4]
        block_mask = mods[4] if len(mods) > 4 else None
        capture_types = check_mods_tensors(q, alibi_slopes, captures)
        key += (None if alibi_slopes is None else alibi_slopes.dim(), score_mod, mask_mod,
                capture_types, check_block_mask(q, block_mask))
    var = _variants.get(key)
    if var is None:
        var = Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table,
                               *(mods or ()))
        # The key holds every shape entry the variant depends on except
        # batch, checked here each call. Prefill lengths vary: keep it small.
        if len(_variants) > 4096:
            _variants.clear()
        _variants[key] = var
    elif block_table is None and k.shape[0] != q.shape[0]:
        raise FlashError(f"k's batch {k.shape[0]} differs from q's {q.shape[0]}")
    return var


def _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table, out=None, lse=None,
         mods=None):
    import torch
    if q.device.type != "cuda":
        raise FlashError(f"q is on {q.device}; flashmlir.attention runs on CUDA tensors")
    var = _variant(q, k, v, causal, window, softcap, scale, kv_lens, block_table, mods)
    kern = kernel_cache().get(var, _current_chip())
    if var.kv_lens and kv_lens is None:  # paged without lengths: every page is full
        kv_lens = torch.full((q.shape[0],), block_table.shape[1] * k.shape[2],
                             dtype=torch.int32, device=q.device)
    if lse is None:
        lse = torch.empty(q.shape[:3], dtype=torch.float32, device=q.device)
    block_mask = mods[4] if mods is not None and len(mods) > 4 else None
    res = kern(q, k, v, out=out, lse=lse, kv_lens=kv_lens, block_table=block_table,
               captures=None if mods is None else _capture_list(mods),
               block_mask=None if block_mask is None else block_mask.hint)
    return res if isinstance(res, tuple) else (res, lse)


def _run_backward(q, k, v, o, lse, do, causal, window, softcap, scale, mods=None):
    """(dQ, dK, dV) of attention's call with these options, by its backward
    variant, given the forward's O and LSE and the output's gradient."""
    if q.device.type != "cuda":
        raise FlashError(f"q is on {q.device}; flashmlir.attention runs on CUDA tensors")
    var = _variant(q, k, v, causal, window, softcap, scale, None, None, mods).backward_of()
    kern = kernel_cache().get(var, _current_chip())
    # An incoming gradient may be broadcast (stride 0) or transposed: the
    # kernel reads rows of contiguous elements.
    if do.stride(-1) != 1 or 0 in do.stride():
        do = do.contiguous()
    return kern(q, k, v, o, lse, do,
                captures=None if mods is None else _capture_list(mods))


def _fake_backward(q, k, v, o, lse, do, captures, causal=False, window=None, softcap=None,
                   scale=None, alibi_slopes=None, score_mod=None, mask_mod=None):
    import torch
    return (_empty_like_layout(torch, q, q.shape[3]), _empty_like_layout(torch, k, k.shape[3]),
            _empty_like_layout(torch, v, v.shape[3]))


def _op_impl_backward(q, k, v, o, lse, do, captures, causal=False, window=None, softcap=None,
                      scale=None, alibi_slopes=None, score_mod=None, mask_mod=None):
    mods = None
    if alibi_slopes is not None or score_mod or mask_mod or captures:
        mods = (alibi_slopes, score_mod, mask_mod, list(captures))
    return _run_backward(q, k, v, o, lse, do, causal, window, softcap, scale, mods)


def _setup_context(ctx, inputs, output):
    """What the backward needs of a forward call: its tensors (q, k, v, O,
    LSE, ALiBi's slopes, the captures) saved, the options (the operator's
    other arguments, by name) kept."""
    names = _FORWARD_ARGS if len(inputs) == len(_FORWARD_ARGS) else _FORWARD_MODS_ARGS
    args = dict(zip(names, inputs))
    o, lse = output
    slopes = args.get("alibi_slopes")
    captures = list(args.get("captures") or ())
    ctx.mods = "captures" in args
    ctx.has_slopes = slopes is not None
    ctx.options = {n: args.get(n) for n in ("causal", "window", "softcap", "scale",
                                            "score_mod", "mask_mod")}
    ctx.kv_cache = args.get("kv_lens") is not None or args.get("block_table") is not None
    ctx.save_for_backward(args["q"], args["k"], args["v"], o, lse,
                          *([slopes] if ctx.has_slopes else []), *captures)


def _backward_formula(ctx, do, dlse):
    import torch
    q, k, v, o, lse, *rest = ctx.saved_tensors
    slopes = rest.pop(0) if ctx.has_slopes else None
    if ctx.kv_cache:
        raise FlashError("flashmlir.attention has no backward over a KV cache (kv_lens / "
                         "block_table): training takes the sequences whole")
    opt = ctx.options
    dq, dk, dv = torch.ops.flashmlir.attention_backward(
        q, k, v, o, lse, do, rest, bool(opt["causal"]), opt["window"], opt["softcap"],
        opt["scale"], slopes, opt["score_mod"], opt["mask_mod"])
    n = len(_FORWARD_MODS_ARGS if ctx.mods else _FORWARD_ARGS) - 3
    return (dq, dk, dv) + (None,) * n


_FORWARD_ARGS = ("q", "k", "v", "causal", "window", "softcap", "scale", "kv_lens",
                 "block_table")
_FORWARD_MODS_ARGS = ("q", "k", "v", "captures", "causal", "window", "softcap", "scale",
                      "kv_lens", "block_table", "alibi_slopes", "score_mod", "mask_mod",
                      "block_mask", "block_mask_rows")


def _capture_list(mods):
    """The kernel's capture tensors for mods = (alibi_slopes, score_mod,
    mask_mod, captures, block_mask): ALiBi's slopes first (the entry's
    argument order), each row-major, as the kernels read them
    (identity-layout memrefs). The block_mask hint is passed apart (the
    Kernel puts it where the ABI's "block_mask" says)."""
    alibi_slopes, captures = mods[0], list(mods[3] or ())
    if alibi_slopes is not None:
        captures.insert(0, alibi_slopes)
    return [t.contiguous() for t in captures]


def _fake(q, k, v, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
          block_table=None):
    """Output shapes without running anything (meta and fake tensors)."""
    import torch
    Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table)
    return (_empty_like_layout(torch, q, v.shape[3]),
            torch.empty(q.shape[:3], dtype=torch.float32, device=q.device))


def _op_impl(q, k, v, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
             block_table=None):
    return _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table)


def _block_mask_arg(block_mask, block_mask_rows):
    """The operator's (hint, rows) as a BlockMask (None without a hint)."""
    if block_mask is None and block_mask_rows is None:
        return None
    if block_mask is None or block_mask_rows is None:
        raise FlashError("flashmlir::attention_mods takes block_mask and block_mask_rows "
                         "together")
    return BlockMask(block_mask, int(block_mask_rows))


def _fake_mods(q, k, v, captures, causal=False, window=None, softcap=None, scale=None,
               kv_lens=None, block_table=None, alibi_slopes=None, score_mod=None,
               mask_mod=None, block_mask=None, block_mask_rows=None):
    """attention_mods's output shapes (meta and fake tensors)."""
    Variant.for_call(q, k, v, causal, window, softcap, scale, kv_lens, block_table,
                     alibi_slopes, score_mod, mask_mod, list(captures),
                     _block_mask_arg(block_mask, block_mask_rows))
    return _fake(q, k, v, causal, window, softcap, scale, kv_lens, block_table)


def _op_impl_mods(q, k, v, captures, causal=False, window=None, softcap=None, scale=None,
                  kv_lens=None, block_table=None, alibi_slopes=None, score_mod=None,
                  mask_mod=None, block_mask=None, block_mask_rows=None):
    return _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table,
                mods=(alibi_slopes, score_mod, mask_mod, list(captures),
                      _block_mask_arg(block_mask, block_mask_rows)))


_SCHEMA = ("attention(Tensor q, Tensor k, Tensor v, bool causal=False, int[]? window=None, "
           "float? softcap=None, float? scale=None, Tensor? kv_lens=None, "
           "Tensor? block_table=None) -> (Tensor, Tensor)")
_SCHEMA_MODS = ("attention_mods(Tensor q, Tensor k, Tensor v, Tensor[] captures, "
                "bool causal=False, int[]? window=None, float? softcap=None, float? scale=None, "
                "Tensor? kv_lens=None, Tensor? block_table=None, Tensor? alibi_slopes=None, "
                "str? score_mod=None, str? mask_mod=None, Tensor? block_mask=None, "
                "int? block_mask_rows=None) -> (Tensor, Tensor)")
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

        @torch.library.custom_op("flashmlir::attention_mods", mutates_args=(),
                                 device_types="cuda")
        def attention_mods_op(q: Tensor, k: Tensor, v: Tensor, captures: List[Tensor],
                              causal: bool = False, window: Optional[List[int]] = None,
                              softcap: Optional[float] = None, scale: Optional[float] = None,
                              kv_lens: Optional[Tensor] = None,
                              block_table: Optional[Tensor] = None,
                              alibi_slopes: Optional[Tensor] = None,
                              score_mod: Optional[str] = None,
                              mask_mod: Optional[str] = None,
                              block_mask: Optional[Tensor] = None,
                              block_mask_rows: Optional[int] = None) -> Tuple[Tensor, Tensor]:
            return _op_impl_mods(q, k, v, captures, causal, window, softcap, scale, kv_lens,
                                 block_table, alibi_slopes, score_mod, mask_mod, block_mask,
                                 block_mask_rows)

        torch.library.register_fake("flashmlir::attention_mods")(_fake_mods)

        @torch.library.custom_op("flashmlir::attention_backward", mutates_args=(),
                                 device_types="cuda")
        def attention_backward_op(q: Tensor, k: Tensor, v: Tensor, o: Tensor, lse: Tensor,
                                  do: Tensor, captures: List[Tensor], causal: bool = False,
                                  window: Optional[List[int]] = None,
                                  softcap: Optional[float] = None,
                                  scale: Optional[float] = None,
                                  alibi_slopes: Optional[Tensor] = None,
                                  score_mod: Optional[str] = None,
                                  mask_mod: Optional[str] = None
                                  ) -> Tuple[Tensor, Tensor, Tensor]:
            return _op_impl_backward(q, k, v, o, lse, do, captures, causal, window, softcap,
                                     scale, alibi_slopes, score_mod, mask_mod)

        torch.library.register_fake("flashmlir::attention_backward")(_fake_backward)
        for name in ("flashmlir::attention", "flashmlir::attention_mods"):
            torch.library.register_autograd(name, _backward_formula,
                                            setup_context=_setup_context)
        _registered = "custom_op"
    else:
        _library = torch.library.Library("flashmlir", "DEF")
        _library.define(_SCHEMA)
        _library.define(_SCHEMA_MODS)
        # No autograd formula: the Autograd keys run the kernels directly
        # (outputs do not require grad), as there is no fallthrough for them.
        for name, impl, fake in (("attention", _op_impl, _fake),
                                 ("attention_mods", _op_impl_mods, _fake_mods)):
            for key in ("CUDA", "AutogradCUDA"):
                _library.impl(name, impl, key)
            for key in ("Meta", "AutogradMeta"):
                _library.impl(name, fake, key)
        _registered = "library"
    return _registered


def _compiling(torch):
    comp = getattr(torch, "compiler", None)
    if comp is not None and hasattr(comp, "is_compiling"):
        return comp.is_compiling()
    dyn = getattr(torch, "_dynamo", None)
    return bool(dyn is not None and getattr(dyn, "is_compiling", lambda: False)())


def _needs_grad(torch, q, k, v):
    """Whether the call must record its backward: grad mode is on and q, k
    or v requires grad (then it goes through the operator and its
    autograd formula)."""
    if not (torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or
                                         v.requires_grad)):
        return False
    if _registered != "custom_op":
        raise FlashError("flashmlir.attention's backward needs torch >= 2.4 "
                         "(torch.library.custom_op and register_autograd); this is "
                         f"torch {torch.__version__}")
    return True


def attention(q, k, v, *, causal=False, window=None, softcap=None, scale=None, kv_lens=None,
              block_table=None, return_lse=False, out=None, lse=None, alibi_slopes=None,
              score_mod=None, mask_mod=None, captures=None, block_mask=None):
    """softmax(scale * q k^T [masked]) v, FlashAttention-2 semantics (see the
    module docstring). window=(left, right), -1 unbounded; softcap=None or 0
    for none; scale=None for 1/sqrt(head_dim). Returns out, or (out, lse)
    with return_lse (lse float32 [B, Hq, Sq], natural log; -inf and O = 0 on
    rows that see no key). `out` and `lse` (optional) receive O and LSE.

    alibi_slopes: float32 [Hq] or [B, Hq] on q's device; the score gets
    -slope[h] * |i + Sk - Sq - j| after softcap. score_mod / mask_mod: MLIR
    region text (flashmlir.mods), applied after ALiBi; captures: the tensors
    their trailing block arguments are (f32/i32/bf16/f16, rank <= 4, any
    strides: non-contiguous ones are copied), on q's device.

    block_mask: a flashmlir.BlockMask (FlexAttention's BlockMask as key
    intervals per block of query rows, flashmlir.blockmask), with a
    mask_mod: the kernel skips the key blocks the hint hides and runs no
    mask_mod on the blocks it marks full. The result is the mask_mod's; a
    hint that is wrong about it gives undefined results."""
    import torch
    if window is not None:
        window = [int(x) for x in window]
        if len(window) != 2:
            raise FlashError(f"window must be (left, right), got {window}")
    softcap = float(softcap) if softcap else None
    scale = None if scale is None else float(scale)
    if q.device.type not in ("cuda", "meta"):
        raise FlashError(f"q is on {q.device}; flashmlir.attention runs on CUDA tensors")
    if alibi_slopes is not None or score_mod or mask_mod or captures or block_mask is not None:
        return _attention_mods(torch, q, k, v, causal, window, softcap, scale, kv_lens,
                               block_table, return_lse, out, lse,
                               (alibi_slopes, score_mod or None, mask_mod or None,
                                list(captures or ()), block_mask))
    if _needs_grad(torch, q, k, v) or _compiling(torch) or q.device.type == "meta":
        o, l = _into(torch.ops.flashmlir.attention(q, k, v, bool(causal), window, softcap,
                                                   scale, kv_lens, block_table), out, lse)
    else:
        o, l = _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table, out=out,
                    lse=lse)
    return (o, l) if return_lse else o


def _into(results, out, lse):
    """The operator's (O, LSE), copied into the caller's out= / lse= when given."""
    o, l = results
    return (o if out is None else out.copy_(o)), (l if lse is None else lse.copy_(l))


def _attention_mods(torch, q, k, v, causal, window, softcap, scale, kv_lens, block_table,
                    return_lse, out, lse, mods):
    """attention() with ALiBi or a score_mod / mask_mod: the operator
    flashmlir::attention_mods when tracing or on meta tensors."""
    alibi_slopes, score_mod, mask_mod, captures, block_mask = mods
    for kind, text in (("score_mod", score_mod), ("mask_mod", mask_mod)):
        if text is not None and not isinstance(text, str):
            raise FlashError(f"{kind} must be MLIR region text (str), not {type(text).__name__}")
    if block_mask is not None and not isinstance(block_mask, BlockMask):
        raise FlashError(f"block_mask must be a flashmlir.BlockMask (hint, rows), not "
                         f"{type(block_mask).__name__}")
    compiling = _compiling(torch)
    if _needs_grad(torch, q, k, v) or compiling or q.device.type == "meta":
        if not compiling:  # a FlashError before the dispatcher's (the fake
            # implementation checks the same when tracing; eager calls in _run)
            check_mods_tensors(q, alibi_slopes, captures)
            check_block_mask(q, block_mask)
        o, l = _into(torch.ops.flashmlir.attention_mods(
            q, k, v, captures, bool(causal), window, softcap, scale, kv_lens, block_table,
            alibi_slopes, score_mod, mask_mod,
            None if block_mask is None else block_mask.hint,
            None if block_mask is None else block_mask.rows), out, lse)
    else:
        o, l = _run(q, k, v, causal, window, softcap, scale, kv_lens, block_table, out=out,
                    lse=lse, mods=mods)
    return (o, l) if return_lse else o
