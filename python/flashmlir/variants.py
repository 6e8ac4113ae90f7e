"""Kernel variants: what one compiled attention function is specialised for.

A Variant is the compile-time half of a flashmlir.attention call: element
type, head dims, mask (causal, window), softcap and scale (all attributes of
flash.attention, fixed in the kernel: the ABI record reports the scale the
kernel applies, there is no run-time scale operand), and the kind:

  * prefill ("attn_..."): batch, head counts and lengths dynamic, one kernel
    for every shape, as scripts/gen-variants.py writes them;
  * decode ("decode_..."): static head counts and query length (so that
    flash-fold-gqa folds query heads and flash-plan chooses a run-time split
    count), optionally kv_lens and a paged cache of a static page size, as
    scripts/gen-decode-variants.py writes them.

Either kind may add ALiBi (`alibi(%slopes)`, f32 [Hq] or [B, Hq]) and a
score_mod / mask_mod region with capture tensors (flashmlir.mods): the
slopes and captures are run-time operands, only their types are part of
the variant, and the regions' text is, by a hash in the name. A prefill
variant with a mask_mod may add a block_mask hint (flashmlir.blockmask):
its rows and which of its batch / head dims broadcast are the variant's
(`_bm<rows>[b1][h1]`), the hint itself a run-time operand (the first
capture, after the serving operands).

A prefill variant may be the backward of the one it names (`_bwd`, issue
#39): flash.attention_backward with the same attributes, regions and
captures, taking Q, K, V, O, LSE and dO and writing dQ, dK and dV
(Variant.backward_of).

Its name is canonical and parses back (Variant.parse), so an error message can
name it and `python3 -m flashmlir precompile NAME` can build it; a name with
mods (`_mod<hash>`) does not hold the regions' text, so those variants are
built from the Variant object (flashmlir.precompile, variant_for). Storage order
(BHSD, BSHD) is not part of it: the kernels take strided views.
"""

import math
import re
import struct

from . import mods as _mods
from .blockmask import BlockMask
from .errors import FlashError

__all__ = ["Variant", "Combine", "DTYPES", "parse_name"]

DTYPES = ("bf16", "f16")


def f32(x):
    """x rounded to float32 (what the kernel's f32 attribute holds)."""
    return struct.unpack("<f", struct.pack("<f", float(x)))[0]


def f32_text(x):
    """The shortest decimal text that reads back as the same float32."""
    x = f32(x)
    for digits in range(1, 10):
        text = repr(float("%.*g" % (digits, x)))  # 30.0, not 3e+01
        if f32(float(text)) == x:
            return text
    return repr(x)


def _name_number(x):
    """f32_text for a name, which is an MLIR symbol, a PTX kernel name and a
    file name: '.' as 'p', '-' (of an exponent) as 'm', no '+'."""
    return f32_text(x).replace(".", "p").replace("-", "m").replace("+", "")


def _bound(x):
    return "u" if x < 0 else str(x)


class Variant:
    """One kernel variant; immutable and hashable. See the module docstring."""

    __slots__ = ("dtype", "head_dim", "head_dim_v", "causal", "window", "softcap",
                 "scale", "decode", "heads_q", "heads_kv", "seq_q", "kv_lens",
                 "page_size", "alibi", "score_mod", "mask_mod", "captures", "block_mask",
                 "backward")

    def __init__(self, dtype, head_dim, head_dim_v=None, causal=False, window=None,
                 softcap=None, scale=None, decode=False, heads_q=0, heads_kv=0, seq_q=0,
                 kv_lens=False, page_size=0, alibi=0, score_mod=None, mask_mod=None,
                 captures=(), block_mask=None, backward=False):
        if dtype not in DTYPES:
            raise FlashError(f"unsupported dtype {dtype!r}: the GPU kernels take {' or '.join(DTYPES)}")
        head_dim_v = head_dim if head_dim_v is None else head_dim_v
        for what, d in (("head_dim", head_dim), ("head_dim_v", head_dim_v)):
            if not isinstance(d, int) or d <= 0 or d % 8:
                raise FlashError(f"{what} must be a positive multiple of 8 (16-byte rows), got {d}")
        left, right = (-1, -1) if window is None else tuple(int(x) for x in window)
        if left < -1 or right < -1:
            raise FlashError(f"window bounds must be >= -1 (-1: unbounded), got {window}")
        if (left, right) == (-1, 0):  # FA2's way of spelling causal
            causal, left, right = True, -1, -1
        softcap = f32(softcap) if softcap else 0.0
        if softcap < 0 or not math.isfinite(softcap):
            raise FlashError(f"softcap must be a positive finite number, got {softcap}")
        if scale is not None:
            scale = f32(scale)
            if not math.isfinite(scale) or scale <= 0:
                raise FlashError(f"scale must be a positive finite number, got {scale}")
            if scale == f32(1.0 / math.sqrt(head_dim)):
                scale = None  # the kernel's default: the same variant
        decode = bool(decode)
        if decode:
            if heads_q <= 0 or heads_kv <= 0 or seq_q <= 0 or heads_q % heads_kv:
                raise FlashError(f"decode variants need static heads_q % heads_kv == 0 and "
                                 f"seq_q > 0, got {heads_q}/{heads_kv}, seq_q {seq_q}")
            if page_size < 0 or (page_size and not kv_lens):
                raise FlashError("a paged decode variant needs kv_lens")
        elif kv_lens or page_size or heads_q or heads_kv or seq_q:
            raise FlashError("only decode variants have static heads, kv_lens or pages")
        # ALiBi: the rank of the slopes ([Hq] or [B, Hq]), 0 without.
        if alibi not in (0, 1, 2):
            raise FlashError(f"alibi is the slopes' rank, 1 ([Hq]) or 2 ([B, Hq]), or 0 "
                             f"for none; got {alibi!r}")
        score_mod = _mods.normalise(score_mod) if score_mod else None
        mask_mod = _mods.normalise(mask_mod) if mask_mod else None
        captures = tuple((str(d), int(r)) for d, r in captures)
        for n, (d, r) in enumerate(captures):
            if d not in _mods.CAPTURE_DTYPES.values() or not 0 <= r <= _mods.MAX_RANK:
                raise FlashError(f"capture {n} is ({d}, rank {r}); captures are f32, i32, "
                                 f"bf16 or f16 of rank 0 to {_mods.MAX_RANK}")
        if len(captures) + bool(alibi) > _mods.MAX_CAPTURES:
            raise FlashError(f"{len(captures)} captures{' and ALiBi slopes' if alibi else ''}: "
                             f"a kernel takes at most {_mods.MAX_CAPTURES} such tensors")
        _mods.check_mods(score_mod, mask_mod, captures)
        block_mask = _check_block_mask(block_mask, mask_mod, decode)
        if len(captures) + bool(alibi) + bool(block_mask) > _mods.MAX_CAPTURES:
            raise FlashError(f"{len(captures)} captures, ALiBi's slopes and a block_mask hint: "
                             f"a kernel takes at most {_mods.MAX_CAPTURES} such tensors")
        backward = bool(backward)
        if backward and (decode or block_mask or head_dim_v != head_dim):
            raise FlashError("a backward variant is a prefill one with head_dim_v == head_dim "
                             "and no block_mask hint (training takes neither a KV cache nor "
                             "the hint)")
        values = dict(dtype=dtype, head_dim=head_dim, head_dim_v=head_dim_v,
                      causal=bool(causal), window=(left, right), softcap=softcap,
                      scale=scale, decode=decode, heads_q=int(heads_q),
                      heads_kv=int(heads_kv), seq_q=int(seq_q), kv_lens=bool(kv_lens),
                      page_size=int(page_size), alibi=int(alibi), score_mod=score_mod,
                      mask_mod=mask_mod, captures=captures, block_mask=block_mask,
                      backward=backward)
        for k, v in values.items():
            object.__setattr__(self, k, v)

    def __setattr__(self, *_):
        raise AttributeError("Variant is immutable")

    def _key(self):
        return tuple(getattr(self, s) for s in self.__slots__)

    def __eq__(self, other):
        return isinstance(other, Variant) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return f"Variant.parse({self.name!r})"

    def as_dict(self):
        return {s: getattr(self, s) for s in self.__slots__}

    # ------------------------------------------------------------------
    # Names

    @property
    def has_mods(self):
        """ALiBi or a score_mod / mask_mod: the kernel takes capture tensors."""
        return bool(self.alibi or self.score_mod or self.mask_mod)

    @property
    def num_captures(self):
        """The capture tensors the kernel takes (the block_mask hint first,
        then ALiBi's slopes, as the ABI record lists them)."""
        return bool(self.block_mask) + bool(self.alibi) + len(self.captures)

    @property
    def mods_hash(self):
        """12 hex digits of the regions and capture types (flashmlir.mods),
        or None without a region."""
        if not (self.score_mod or self.mask_mod):
            return None
        return _mods.mods_hash(self.score_mod, self.mask_mod, self.captures)

    @property
    def name(self):
        """attn_bf16_d128[_v64][_causal][_winLxR][_capC][_sS][_alibi|_alibib][_modH] or
        decode_bf16_d128[_v64]_h32x8_q1[_causal][_winLxR][_capC][_sS][_lens][_pageP]
        [_alibi|_alibib][_modH] (u: an unbounded window side; alibib: [B, Hq]
        slopes; H: mods_hash), then _bm<rows>[b1][h1] with a block_mask hint
        (b1 / h1: its batch / head dim is 1, broadcast), then _bwd for a
        backward variant. Also the kernel's function name."""
        parts = ["decode" if self.decode else "attn", self.dtype, f"d{self.head_dim}"]
        if self.head_dim_v != self.head_dim:
            parts.append(f"v{self.head_dim_v}")
        if self.decode:
            parts += [f"h{self.heads_q}x{self.heads_kv}", f"q{self.seq_q}"]
        if self.causal:
            parts.append("causal")
        if self.window != (-1, -1):
            parts.append(f"win{_bound(self.window[0])}x{_bound(self.window[1])}")
        if self.softcap:
            parts.append(f"cap{_name_number(self.softcap)}")
        if self.scale is not None:
            parts.append(f"s{_name_number(self.scale)}")
        if self.kv_lens:
            parts.append("lens")
        if self.page_size:
            parts.append(f"page{self.page_size}")
        if self.alibi:
            parts.append("alibib" if self.alibi == 2 else "alibi")
        if self.mods_hash:
            parts.append(f"mod{self.mods_hash}")
        if self.block_mask:
            rows, b1, h1 = self.block_mask
            parts.append(f"bm{rows}{'b1' if b1 else ''}{'h1' if h1 else ''}")
        if self.backward:
            parts.append("bwd")
        return "_".join(parts)

    def backward_of(self):
        """The backward of this (prefill) variant: the same attributes,
        regions and captures."""
        return Variant(**dict(self.as_dict(), backward=True))

    _TOKEN = re.compile(r"(d|v|q|page)(\d+)$|h(\d+)x(\d+)$|win(u|\d+)x(u|\d+)$|"
                        r"cap([0-9pem]+)$|s([0-9pem]+)$")

    @classmethod
    def parse(cls, name):
        """The Variant whose .name is `name` (FlashError if it is none)."""
        parts = name.split("_")
        if len(parts) < 3 or parts[0] not in ("attn", "decode") or parts[1] not in DTYPES:
            raise FlashError(f"not a variant name: {name!r} (expected attn_<dtype>_d<D>... "
                             "or decode_<dtype>_d<D>_h<Hq>x<Hkv>_q<Sq>...)")
        kw = {"dtype": parts[1], "decode": parts[0] == "decode"}
        window = [-1, -1]
        for tok in parts[2:]:
            m = cls._TOKEN.match(tok)
            if tok in ("causal", "lens", "bwd"):
                kw[{"lens": "kv_lens", "bwd": "backward"}.get(tok, tok)] = True
            elif tok in ("alibi", "alibib"):
                kw["alibi"] = 2 if tok == "alibib" else 1
            elif re.fullmatch(r"bm\d+(b1)?(h1)?", tok):
                bm = re.fullmatch(r"bm(\d+)(b1)?(h1)?", tok)
                kw["block_mask"] = (int(bm.group(1)), bool(bm.group(2)), bool(bm.group(3)))
            elif re.fullmatch(r"mod[0-9a-f]{12}", tok):
                raise FlashError(f"variant {name!r} has a score_mod / mask_mod ({tok}), whose "
                                 "text its name does not hold: build it from the Variant "
                                 "(flashmlir.variant_for(..., score_mod=...) or Variant(...))")
            elif m and m.group(1):
                key = {"d": "head_dim", "v": "head_dim_v", "q": "seq_q", "page": "page_size"}
                kw[key[m.group(1)]] = int(m.group(2))
            elif m and m.group(3):
                kw["heads_q"], kw["heads_kv"] = int(m.group(3)), int(m.group(4))
            elif m and m.group(5):
                window = [-1 if x == "u" else int(x) for x in (m.group(5), m.group(6))]
                kw["window"] = window
            elif m and (m.group(7) or m.group(8)):
                try:
                    kw["softcap" if m.group(7) else "scale"] = float(
                        (m.group(7) or m.group(8)).replace("p", ".").replace("m", "-"))
                except ValueError:
                    raise FlashError(f"bad number in variant name {name!r}: {tok!r}") from None
            else:
                raise FlashError(f"unknown part {tok!r} in variant name {name!r}")
        if "head_dim" not in kw:
            raise FlashError(f"variant name {name!r} has no head dim (d<D>)")
        v = cls(**kw)
        if v.name != name:
            raise FlashError(f"variant name {name!r} is not canonical: {v.name!r}")
        return v

    # ------------------------------------------------------------------
    # MLIR

    def mlir(self):
        """A module with one function, named after the variant: the memref
        form of flash.attention with O and LSE, for the project's compiler."""
        return f"// flashmlir variant {self.name}\n" + self.func_text()

    def _attrs(self, config):
        attrs = ["causal"] if self.causal else []
        if self.window != (-1, -1):
            attrs.append(f"window = array<i64: {self.window[0]}, {self.window[1]}>")
        if self.softcap:
            attrs.append(f"softcap = {f32_text(self.softcap)} : f32")
        if self.scale is not None:
            attrs.append(f"scale = {f32_text(self.scale)} : f32")
        if self.block_mask:
            attrs.append(f"block_mask_rows = {self.block_mask[0]} : i64")
        if config:
            params = ", ".join(f"{k} = {'true' if v is True else v}"
                               for k, v in config.items() if v is not False)
            attrs.append(f"config = #flash.config<{params}>")
        return " {" + ", ".join(attrs) + "}" if attrs else ""

    def _regions(self):
        regions = ""
        for kind, text in (("score_mod", self.score_mod), ("mask_mod", self.mask_mod)):
            if text:
                body = "\n".join(" " * (6 if line.startswith("^") else 8) + line
                                 for line in text.split("\n"))
                regions += f"\n      {kind} {{\n{body}\n      }}"
        return regions

    def _backward_text(self, name, config):
        """func_text of a backward variant: flash.attention_backward over
        (q, k, v, o, lse, do[, slopes][, captures]) into (dq, dk, dv)."""
        dt, d = self.dtype, self.head_dim
        t = f"memref<?x?x?x{d}x{dt}, strided<[?, ?, ?, 1], offset: ?>>"
        lt = "memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>"
        p = "%attn." if self.score_mod or self.mask_mod else "%"
        args = [f"{p}{n}: {t}" for n in ("q", "k", "v", "o")]
        args += [f"{p}lse: {lt}", f"{p}do: {t}"]
        operands = ""
        if self.alibi:
            st = _mods.capture_type("f32", self.alibi)
            args.append(f"{p}slopes: {st}")
            operands += f" alibi({p}slopes : {st})"
        if self.captures:
            cts = [_mods.capture_type(d_, r) for d_, r in self.captures]
            args += [f"{p}cap{n}: {ct}" for n, ct in enumerate(cts)]
            operands += (f" captures({', '.join(f'{p}cap{n}' for n in range(len(cts)))} : "
                         f"{', '.join(cts)})")
        args += [f"{p}{n}: {t}" for n in ("dq", "dk", "dv")]
        return (f"func.func @{name or self.name}({', '.join(args)}) {{\n"
                f"  flash.attention_backward ins({p}q, {p}k, {p}v, {p}o, {p}lse, {p}do : "
                f"{t}, {t}, {t}, {t}, {lt}, {t}){operands}\n"
                f"      outs({p}dq, {p}dk, {p}dv : {t}, {t}, {t}){self._attrs(config)}"
                f"{self._regions()}\n"
                f"  return\n}}\n")

    def func_text(self, name=None, config=None):
        """mlir()'s func.func, named `name` (default: the variant's name),
        with `config` ({parameter: value}, in order; False flags left out)
        written on the op as its #flash.config in place of flash-plan's
        choice. The GPU suite's scripts/gen-*variants.py write theirs so."""
        if self.backward:
            return self._backward_text(name, config)
        dt, d, dv = self.dtype, self.head_dim, self.head_dim_v
        strided = "strided<[?, ?, ?, 1], offset: ?>"
        lse_layout = "strided<[?, ?, 1], offset: ?>"
        if self.decode:
            hq, hkv, sq = self.heads_q, self.heads_kv, self.seq_q
            kv_seq = self.page_size or "?"
            qt = f"memref<?x{hq}x{sq}x{d}x{dt}, {strided}>"
            kt = f"memref<?x{hkv}x{kv_seq}x{d}x{dt}, {strided}>"
            vt = f"memref<?x{hkv}x{kv_seq}x{dv}x{dt}, {strided}>"
            ot = f"memref<?x{hq}x{sq}x{dv}x{dt}, {strided}>"
            lt = f"memref<?x{hq}x{sq}xf32, {lse_layout}>"
        else:
            qt = kt = f"memref<?x?x?x{d}x{dt}, {strided}>"
            vt = ot = f"memref<?x?x?x{dv}x{dt}, {strided}>"
            lt = f"memref<?x?x?xf32, {lse_layout}>"
        # A region's SSA names share the function's scope (the op's parser
        # does not shadow): with regions, the function's arguments take a
        # prefix no user would write (%attn.q), so that %v or %o in a
        # region do not clash; without, the text is as it always was.
        p = "%attn." if self.score_mod or self.mask_mod else "%"
        args = [f"{p}q: {qt}", f"{p}k: {kt}", f"{p}v: {vt}"]
        serving = ""
        if self.alibi:
            st = _mods.capture_type("f32", self.alibi)
            serving += f" alibi({p}slopes : {st})"
        if self.kv_lens:
            args.append(f"{p}lens: memref<?xi32>")
            serving += f" kv_lens({p}lens : memref<?xi32>)"
        if self.page_size:
            table = "memref<?x?xi32, strided<[?, 1], offset: ?>>"
            args.append(f"{p}table: {table}")
            serving += f" block_table({p}table : {table})"
        # The block_mask hint: the first argument after the serving
        # operands (the ABI's first capture and its "block_mask"), identity
        # layout (the caller passes it contiguous), a static 1 where it
        # broadcasts.
        if self.block_mask:
            rows, b1, h1 = self.block_mask
            ht = f"memref<{'1' if b1 else '?'}x{'1' if h1 else '?'}x?x4xi32>"
            args.append(f"{p}hint: {ht}")
            serving += f" block_mask({p}hint : {ht})"
        # ALiBi's slopes and the captures: the entry's arguments after the
        # serving operands, before O, in operand order (the ABI record's
        # "captures" and the runtime's capture array follow it).
        if self.alibi:
            args.append(f"{p}slopes: {st}")
        if self.captures:
            cts = [_mods.capture_type(d, r) for d, r in self.captures]
            args += [f"{p}cap{n}: {t}" for n, t in enumerate(cts)]
            serving += (f" captures({', '.join(f'{p}cap{n}' for n in range(len(cts)))} : "
                        f"{', '.join(cts)})")
        args += [f"{p}o: {ot}", f"{p}lse: {lt}"]
        attrs, regions = self._attrs(config), self._regions()
        return (f"func.func @{name or self.name}({', '.join(args)}) {{\n"
                f"  flash.attention ins({p}q, {p}k, {p}v : {qt}, {kt}, {vt}){serving}\n"
                f"      outs({p}o, {p}lse : {ot}, {lt}){attrs}{regions}\n"
                f"  return\n}}\n")

    # ------------------------------------------------------------------
    # From a call

    @classmethod
    def for_call(cls, q, k, v, causal=False, window=None, softcap=None, scale=None,
                 kv_lens=None, block_table=None, alibi_slopes=None, score_mod=None,
                 mask_mod=None, captures=None, block_mask=None):
        """The variant flashmlir.attention runs for these tensors (any device,
        meta included) and options: decode (static heads and query length)
        when kv_lens or block_table is given, as with flash_attn_with_kvcache;
        prefill (one kernel for all shapes) otherwise. ALiBi's slopes and the
        captures are checked (check_mods_tensors); their types are the
        variant's, as is the block_mask's signature (BlockMask.check)."""
        dtype = _dtype_name(q)
        for name, t in (("k", k), ("v", v)):
            if _dtype_name(t) != dtype:
                raise FlashError(f"{name} is {t.dtype}, q is {q.dtype}")
        for name, t in (("q", q), ("k", k), ("v", v)):
            if t.dim() != 4:
                raise FlashError(f"{name} must be rank 4 [batch, heads, seq, head_dim], "
                                 f"got shape {tuple(t.shape)}")
        b, hq, sq, d = q.shape
        hkv = k.shape[1]
        if k.shape[3] != d:
            raise FlashError(f"k's head dim {k.shape[3]} differs from q's {d}")
        if tuple(v.shape[:3]) != tuple(k.shape[:3]):
            raise FlashError(f"v's shape {tuple(v.shape)} does not match k's {tuple(k.shape)} "
                             "in batch, heads and seq")
        if hkv == 0 or hq % hkv:
            raise FlashError(f"q's {hq} heads are not a multiple of k's {hkv} (GQA)")
        page = 0
        if block_table is not None:
            page = int(k.shape[2])
            if block_table.dim() != 2 or block_table.shape[0] != b:
                raise FlashError(f"block_table must be [batch={b}, pages_per_seq], got "
                                 f"{tuple(block_table.shape)}")
        elif k.shape[0] != b:
            raise FlashError(f"k's batch {k.shape[0]} differs from q's {b}")
        for name, t in (("kv_lens", kv_lens), ("block_table", block_table)):
            if t is not None and str(t.dtype) != "torch.int32":
                raise FlashError(f"{name} must be int32, got {t.dtype}")
        if kv_lens is not None and tuple(kv_lens.shape) != (b,):
            raise FlashError(f"kv_lens must be [batch={b}], got {tuple(kv_lens.shape)}")
        decode = kv_lens is not None or block_table is not None
        cap_types = check_mods_tensors(q, alibi_slopes, captures)
        bm = check_block_mask(q, block_mask)
        return cls(dtype, int(d), int(v.shape[3]), causal=causal, window=window,
                   softcap=softcap, scale=scale, decode=decode,
                   heads_q=int(hq) if decode else 0, heads_kv=int(hkv) if decode else 0,
                   seq_q=int(sq) if decode else 0,
                   kv_lens=kv_lens is not None or block_table is not None, page_size=page,
                   alibi=0 if alibi_slopes is None else alibi_slopes.dim(),
                   score_mod=score_mod, mask_mod=mask_mod, captures=cap_types,
                   block_mask=bm)


def check_block_mask(q, block_mask):
    """The signature (rows, b1, h1) of a flashmlir.BlockMask checked against
    q (shape and device), or None."""
    if block_mask is None:
        return None
    if not isinstance(block_mask, BlockMask):
        raise FlashError(f"block_mask must be a flashmlir.BlockMask (hint, rows), not "
                         f"{type(block_mask).__name__}")
    return block_mask.check(q)


def _check_block_mask(block_mask, mask_mod, decode):
    """The Variant's block_mask: None or (rows, b1, h1), checked."""
    if not block_mask:
        return None
    try:
        rows, b1, h1 = block_mask
    except (TypeError, ValueError):
        raise FlashError(f"block_mask is (rows, b1, h1), got {block_mask!r}") from None
    if isinstance(rows, bool) or not isinstance(rows, int) or rows < 1:
        raise FlashError(f"block_mask's rows must be an int >= 1, got {rows!r}")
    if not mask_mod:
        raise FlashError("a block_mask summarises a mask_mod: pass mask_mod= with it")
    if decode:
        raise FlashError("block_mask is for prefill calls (no kv_lens / block_table)")
    return (rows, bool(b1), bool(h1))


def check_mods_tensors(q, alibi_slopes, captures):
    """Checks ALiBi's slopes (float32 [Hq] or [B, Hq]) and the capture
    tensors (f32/i32/bf16/f16, rank 0 to 4, non-empty) against q, all on q's
    device; returns the captures' (dtype, rank). Cheap: flashmlir.attention
    runs it on every call with mods, as the batch may change."""
    b, hq = q.shape[0], q.shape[1]
    if alibi_slopes is not None:
        if not hasattr(alibi_slopes, "dim"):
            raise FlashError(f"alibi_slopes must be a tensor, not {type(alibi_slopes).__name__}")
        if str(alibi_slopes.dtype) != "torch.float32":
            raise FlashError(f"alibi_slopes must be float32, got {alibi_slopes.dtype}")
        if tuple(alibi_slopes.shape) not in ((hq,), (b, hq)):
            raise FlashError(f"alibi_slopes must be [Hq={hq}] or [B={b}, Hq={hq}], got "
                             f"{tuple(alibi_slopes.shape)}")
        if alibi_slopes.device != q.device:
            raise FlashError(f"alibi_slopes is on {alibi_slopes.device}, q on {q.device}")
    if captures is None:
        return ()
    if not isinstance(captures, (list, tuple)):
        raise FlashError(f"captures must be a list of tensors, not {type(captures).__name__}")
    types = []
    for n, t in enumerate(captures):
        if not hasattr(t, "dim") or not hasattr(t, "dtype"):
            raise FlashError(f"capture {n} must be a tensor, not {type(t).__name__}")
        dtype = _mods.CAPTURE_DTYPES.get(str(t.dtype))
        if dtype is None:
            raise FlashError(f"capture {n} is {t.dtype}; captures are float32, int32, bfloat16 "
                             "or float16 (e.g. ids.to(torch.int32))")
        if t.dim() > _mods.MAX_RANK:
            raise FlashError(f"capture {n} has rank {t.dim()}; at most {_mods.MAX_RANK}")
        if t.numel() == 0:
            raise FlashError(f"capture {n} is empty (shape {tuple(t.shape)}); the kernel "
                             "clamps its reads into each capture, which needs an element")
        if t.device != q.device:
            raise FlashError(f"capture {n} is on {t.device}, q on {q.device}")
        types.append((dtype, t.dim()))
    return tuple(types)


def _dtype_name(t):
    name = {"torch.bfloat16": "bf16", "torch.float16": "f16"}.get(str(t.dtype))
    if name is None:
        raise FlashError(f"unsupported dtype {t.dtype}: the GPU kernels take bfloat16 or float16")
    return name


class Combine:
    """A merge kernel: flash.combine (the split-KV merge, FlashOps.td) as its
    own entry point, for merging partial attentions computed elsewhere (ring
    attention's steps): O [B, H, Sq, Dv] in `dtype` and LSE [B, H, Sq] from
    partials O_s [S, B, H, Sq, Dv] and LSE_s [S, B, H, Sq] (f32, any strides),
    LSE = log sum_s exp LSE_s, O = sum_s exp(LSE_s - LSE) O_s; a part with
    LSE_s = -inf weighs 0, a row no part saw gets O = 0, LSE = -inf.

    Named combine_<dtype>_v<Dv> (dtype bf16, f16 or f32). It compiles for the
    GPU chips and for chip "cpu" (flash-lower-to-cpu, which CI runs), and is
    called through its C interface (flashmlir.combine), not flashrt_attention.
    """

    __slots__ = ("dtype", "head_dim_v")
    DTYPES = DTYPES + ("f32",)

    def __init__(self, dtype, head_dim_v):
        if dtype not in self.DTYPES:
            raise FlashError(f"unsupported combine dtype {dtype!r}: one of "
                             f"{', '.join(self.DTYPES)}")
        if not isinstance(head_dim_v, int) or head_dim_v <= 0:
            raise FlashError(f"head_dim_v must be a positive int, got {head_dim_v!r}")
        object.__setattr__(self, "dtype", dtype)
        object.__setattr__(self, "head_dim_v", head_dim_v)

    def __setattr__(self, *_):
        raise AttributeError("Combine is immutable")

    def __eq__(self, other):
        return isinstance(other, Combine) and self.name == other.name

    def __hash__(self):
        return hash(self.name)

    def __repr__(self):
        return f"Combine.parse({self.name!r})"

    @property
    def name(self):
        return f"combine_{self.dtype}_v{self.head_dim_v}"

    @classmethod
    def parse(cls, name):
        m = re.fullmatch(r"combine_([a-z0-9]+)_v(\d+)", name)
        if not m:
            raise FlashError(f"not a combine name: {name!r} (expected combine_<dtype>_v<Dv>)")
        v = cls(m.group(1), int(m.group(2)))
        if v.name != name:
            raise FlashError(f"combine name {name!r} is not canonical: {v.name!r}")
        return v

    def mlir(self):
        """A module with one function, named after the variant, holding the
        flash.combine; llvm.emit_c_interface gives it the entry point both
        pipelines export."""
        dv = self.head_dim_v
        pt = f"memref<?x?x?x?x{dv}xf32, strided<[?, ?, ?, ?, 1], offset: ?>>"
        plt = "memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>"
        ot = f"memref<?x?x?x{dv}x{self.dtype}, strided<[?, ?, ?, 1], offset: ?>>"
        lt = "memref<?x?x?xf32, strided<[?, ?, ?], offset: ?>>"
        return (f"// flashmlir combine {self.name}\n"
                f"func.func @{self.name}(%po: {pt}, %pl: {plt}, %o: {ot}, %lse: {lt})\n"
                f"    attributes {{llvm.emit_c_interface}} {{\n"
                f"  flash.combine ins(%po, %pl : {pt}, {plt})\n"
                f"      outs(%o, %lse : {ot}, {lt})\n"
                f"  return\n}}\n")


def parse_name(name):
    """The Variant or Combine whose .name is `name`."""
    return Combine.parse(name) if name.startswith("combine_") else Variant.parse(name)
