"""score_mod / mask_mod regions and their captures, as flashmlir.attention
takes them (issue #11): the region text, its checks, and its key.

A region is MLIR text: the body of flash.attention's `score_mod { ... }` or
`mask_mod { ... }` with its block header, in the memref form the kernels
are compiled from (the block arguments b, h, i, j are `index`, the score
`s` f32, then one memref per capture, read with memref.load):

    ^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
         %bias: memref<?x?xf32>):
      %w = memref.load %bias[%h, %j] : memref<?x?xf32>
      %r = arith.addf %s, %w : f32
      flash.yield %r : f32

A capture tensor of dtype DT and rank R is the memref `memref<?x...x?xDT>`
(R dynamic dims, identity layout: the kernel reads it row-major, so the
caller passes it contiguous). Both regions take every capture, in the order
of `captures=[...]`.

The checks here are the ones that need no compiler (block argument count,
capture types, a capture no region reads, which would leave the kernel an
argument its ABI record does not name); the op's verifier checks the rest
when the variant is compiled, and its diagnostic is the FlashError's. The
key is a hash of the normalised texts and the capture types, stable across
processes and machines, so different mods are different cached kernels.
"""

import hashlib
import json
import re

from .errors import FlashError

__all__ = ["CAPTURE_DTYPES", "capture_type", "normalise", "check_region", "mods_hash"]

# Element types a capture may have (the runtime's flashrt dtypes), by the
# torch dtype name.
CAPTURE_DTYPES = {"torch.float32": "f32", "torch.int32": "i32", "torch.bfloat16": "bf16",
                  "torch.float16": "f16"}
MAX_CAPTURES = 8  # FLASHRT_MAX_CAPTURES, ALiBi's slopes included
MAX_RANK = 4  # flashrt_tensor's

# The leading block arguments of each region, before the captures.
_LEAD = {"score_mod": ("%s: f32", "%b: index", "%h: index", "%i: index", "%j: index"),
         "mask_mod": ("%b: index", "%h: index", "%i: index", "%j: index")}


def capture_type(dtype, rank):
    """The memref type of a capture: memref<?x?xf32> for ("f32", 2)."""
    return "memref<" + "?x" * rank + dtype + ">"


def normalise(text):
    """The region text with each line stripped and blank lines dropped:
    indentation does not make another kernel."""
    if not isinstance(text, str):
        raise FlashError(f"a score_mod / mask_mod must be MLIR text (str), not "
                         f"{type(text).__name__}")
    return "\n".join(line.strip() for line in text.strip().splitlines() if line.strip())


def _split_top(text):
    """`text` split at the commas outside <>, [], (), {}."""
    parts, depth, start = [], 0, 0
    for n, ch in enumerate(text):
        if ch in "<[({":
            depth += 1
        elif ch in ">])}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:n])
            start = n + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def block_arguments(kind, text):
    """[(name, type)] of the region's block header, and the body after it."""
    m = re.match(r"\^[\w$.-]*\s*\(", text)
    if not m:
        raise FlashError(f"{kind} must start with its block header, e.g. "
                         f"'^bb0({', '.join(_LEAD[kind])}, <captures>):' (the region's text "
                         f"inside {kind} {{ ... }}), got {text[:40]!r}")
    depth, end = 1, None
    for n in range(m.end(), len(text)):
        depth += text[n] in "<[({"
        depth -= text[n] in ">])}"
        if depth == 0:
            end = n
            break
    rest = text[end + 1:].lstrip() if end is not None else ""
    if end is None or not rest.startswith(":"):
        raise FlashError(f"{kind}'s block header is not closed by '):' ({text[:60]!r})")
    inner = text[m.end():end].strip()
    args = []
    for part in _split_top(inner) if inner else []:
        am = re.fullmatch(r"(%[\w$.-]+)\s*:\s*(.+)", part, re.S)
        if not am:
            raise FlashError(f"{kind}'s block argument {part!r} is not '%name: type'")
        args.append((am.group(1), re.sub(r"\s+", "", am.group(2))))
    return args, rest[1:]


def check_region(kind, text, captures):
    """Checks the normalised region `text` of `kind` ("score_mod" or
    "mask_mod") against the captures [(dtype, rank)]; returns the names of
    its capture block arguments and its body."""
    args, body = block_arguments(kind, text)
    lead = len(_LEAD[kind])
    if len(args) != lead + len(captures):
        names = ", ".join(a.split(":")[0][1:] for a in _LEAD[kind])
        raise FlashError(f"{kind} has {len(args)} block argument(s); it takes {lead} ({names}) "
                         f"and one per capture tensor: {lead + len(captures)} with the "
                         f"{len(captures)} capture(s) passed")
    for n, ((name, typ), (dtype, rank)) in enumerate(zip(args[lead:], captures)):
        want = capture_type(dtype, rank)
        if typ != want:
            raise FlashError(f"{kind}'s block argument {name} has type {typ}, but capture {n} "
                             f"({dtype}, rank {rank}) is passed as {want}")
    if "flash.yield" not in body:
        raise FlashError(f"{kind} has no flash.yield (its body must end in one)")
    return [name for name, _ in args[lead:]], body


def _reads(body, name):
    return re.search(re.escape(name) + r"(?![\w$.-])", body) is not None


def check_mods(score_mod, mask_mod, captures):
    """Checks the regions (normalised text or None) with the captures
    [(dtype, rank)] together: at least one region when there are
    captures, and every capture read by a region."""
    regions = [(k, t) for k, t in (("score_mod", score_mod), ("mask_mod", mask_mod)) if t]
    if captures and not regions:
        raise FlashError("captures are the operands of a score_mod / mask_mod: pass one "
                         "(score_mod= or mask_mod=) or no captures")
    read = [False] * len(captures)
    for kind, text in regions:
        names, body = check_region(kind, text, captures)
        for n, name in enumerate(names):
            read[n] = read[n] or _reads(body, name)
    for n, ok in enumerate(read):
        if not ok:
            raise FlashError(f"capture {n} is read by no score_mod / mask_mod: the kernel "
                             "would not take it; leave it out of captures")


def mods_hash(score_mod, mask_mod, captures):
    """12 hex digits identifying the regions (normalised texts) and the
    capture types: the same in every process and on every machine."""
    blob = json.dumps({"score_mod": score_mod, "mask_mod": mask_mod,
                       "captures": [list(c) for c in captures]}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:12]
