"""CPU checks of flashmlir.attention's ALiBi / score_mod / mask_mod support
(run by ops-mods.test):

  ops_mods_check.py emit OUT.mlir       # the MLIR of the variants below
  ops_mods_check.py test FAKE_COMPILER FLASH_OPT [-v]   # the unit tests
  ops_mods_check.py precompile DIR      # (compiler machine) GPU_CALLS' kernels
  ops_mods_check.py gpu DIR             # (H200) GPU_CALLS against torch

`precompile` / `gpu` are the GPU check, not run by lit: flashmlir.attention
on CUDA tensors for each of GPU_CALLS (ALiBi [Hq] and [B, Hq], softcap,
score_mod + mask_mod with two captures, a prefix-LM mask_mod, a paged decode
call with ALiBi and a mask_mod; BHSD and BSHD; GQA; Sq != Sk), kernels from
DIR, against a float32 reference written here in torch (the regions' math
restated, independently of the compiler), with FA2's tolerance rule (O
within 2x the error of the same torch computation in bf16, plus 1e-3; LSE
within 2e-3; rows that see no key O = 0, LSE = -inf), and one call traced
by torch.compile(fullgraph=True) against eager.

`emit` writes, from flashmlir.Variant, the functions the test then parses,
lowers to PTX (flash-lower-to-gpu, whose ABI record must list the captures
at the argument positions the runtime expects) and runs on the CPU
(flash-run, after bf16 -> f32) against the reference, which evaluates the
regions' IR. `test`: names and hashes, argument validation, the operator's
fake (meta) implementation and registration, the kernel cache on a miss
(through a fake compiler, and the real one for a region that does not
verify: its diagnostic must reach the FlashError).
"""
import math
import os
import re
import sys
import tempfile
import unittest

import flashmlir
from flashmlir import FlashError, Variant
from flashmlir.blockmask import PREFIX_LM_MASK_MOD
from flashmlir.cache import Compiler, KernelCache

try:
    import torch
except ImportError:
    torch = None

# score_mod: s + bias[h, j] (bias f32 [Hq, Sk]); mask_mod: the document mask
# doc[b, i] == doc[b, j] (doc i32 [B, S]). Both regions take both captures.
SCORE = """
^bb0(%s: f32, %b: index, %h: index, %i: index, %j: index,
     %bias: memref<?x?xf32>, %doc: memref<?x?xi32>):
  %w = memref.load %bias[%h, %j] : memref<?x?xf32>
  %r = arith.addf %s, %w : f32
  flash.yield %r : f32
"""
MASK = """
^bb0(%b: index, %h: index, %i: index, %j: index,
     %bias: memref<?x?xf32>, %doc: memref<?x?xi32>):
  %di = memref.load %doc[%b, %i] : memref<?x?xi32>
  %dj = memref.load %doc[%b, %j] : memref<?x?xi32>
  %same = arith.cmpi eq, %di, %dj : i32
  flash.yield %same : i1
"""
CAPS = (("f32", 2), ("i32", 2))
# The package's prefix-LM mask_mod, one rank-1 capture (prefix i32 [B]):
# j <= i or j < prefix[b] (reference() restates it).
PREFIX = PREFIX_LM_MASK_MOD


def emitted():
    """The variants `emit` writes: ALiBi alone ([Hq], causal; [B, Hq]), both
    regions with two captures and ALiBi, a mask_mod alone, and a paged
    decode kernel with ALiBi and a mask_mod (captures after the serving
    operands)."""
    return [
        Variant("bf16", 64, causal=True, alibi=1),
        Variant("bf16", 64, alibi=2, softcap=30),
        Variant("bf16", 64, causal=True, alibi=1, score_mod=SCORE, mask_mod=MASK,
                captures=CAPS),
        Variant("bf16", 64, mask_mod=PREFIX, captures=[("i32", 1)]),
        Variant("bf16", 64, decode=True, heads_q=8, heads_kv=2, seq_q=1, kv_lens=True,
                page_size=16, alibi=1, mask_mod=PREFIX, captures=[("i32", 1)]),
    ]


class FakeKernel:
    def __init__(self, path, func):
        self.path, self.func, self.abi = path, func, {}


class Names(unittest.TestCase):
    def test_names(self):
        names = [v.name for v in emitted()]
        self.assertEqual(names[0], "attn_bf16_d64_causal_alibi")
        self.assertEqual(names[1], "attn_bf16_d64_cap30p0_alibib")
        self.assertRegex(names[2], r"^attn_bf16_d64_causal_alibi_mod[0-9a-f]{12}$")
        self.assertRegex(names[4], r"^decode_bf16_d64_h8x2_q1_lens_page16_alibi_mod[0-9a-f]{12}$")
        self.assertEqual(len(set(names)), len(names))
        # ALiBi names parse back; a mod's text is not in its name.
        for v in emitted()[:2]:
            self.assertEqual(Variant.parse(v.name), v)
        with self.assertRaisesRegex(FlashError, "has a score_mod / mask_mod .* whose text its "
                                                "name does not hold"):
            Variant.parse(names[2])
        # Calls without mods keep their names (and cache keys).
        self.assertEqual(Variant("bf16", 128, causal=True).name, "attn_bf16_d128_causal")

    def test_hash(self):
        base = Variant("bf16", 64, score_mod=SCORE, mask_mod=MASK, captures=CAPS)
        # Stable: the digest of the text, not Python's per-process hash().
        self.assertEqual(base.mods_hash, flashmlir.mods.mods_hash(
            flashmlir.mods.normalise(SCORE), flashmlir.mods.normalise(MASK), CAPS))
        self.assertEqual(base.name.split("_")[-1], "mod" + base.mods_hash)
        # Indentation and blank lines are not another kernel.
        same = Variant("bf16", 64, score_mod="\n\n" + SCORE.replace("\n", "\n    "),
                       mask_mod=MASK, captures=CAPS)
        self.assertEqual(same.name, base.name)
        self.assertEqual(same, base)
        # Another body, other capture types, the same text as the other
        # region: other kernels.
        others = [
            Variant("bf16", 64, score_mod=SCORE.replace("addf", "subf"), mask_mod=MASK,
                    captures=CAPS),
            Variant("bf16", 64, score_mod=SCORE.replace("%doc: memref<?x?xi32>",
                                                        "%doc: memref<?xi32>"),
                    mask_mod=MASK.replace("%doc: memref<?x?xi32>", "%doc: memref<?xi32>"),
                    captures=(("f32", 2), ("i32", 1))),
        ]
        names = {base.name} | {v.name for v in others}
        self.assertEqual(len(names), 3)
        mods = flashmlir.mods
        self.assertNotEqual(mods.mods_hash("x", None, ()), mods.mods_hash(None, "x", ()))
        # The capture types are the header's, checked equal; hashed as well.
        self.assertNotEqual(mods.mods_hash("x", None, [("f32", 1)]),
                            mods.mods_hash("x", None, [("i32", 1)]))
        # The region text goes into the function as given (normalised).
        text = base.mlir()
        self.assertIn("%w = memref.load %bias[%h, %j] : memref<?x?xf32>", text)
        self.assertIn("captures(%attn.cap0, %attn.cap1 : memref<?x?xf32>, memref<?x?xi32>)",
                      text)

    def test_argument_order(self):
        def arg_names(variant):
            args = variant.mlir().split("(", 1)[1].split(") {", 1)[0]
            return [a.split(":")[0].strip().lstrip("%") for a in args.split(", %")]

        # Q, K, V, [kv_lens], [block_table], slopes, captures..., O, LSE.
        names = ("q", "k", "v", "lens", "table", "slopes", "cap0", "o", "lse")
        self.assertEqual(arg_names(emitted()[4]), ["attn." + n for n in names])
        # A region's SSA names share the function's scope: with regions the
        # function's names are %attn.*, so a region may name its values like
        # the bare arguments (here PREFIX with its result renamed to each of
        # them); without, they stay as they were.
        result = re.search(r"flash\.yield %([\w.$-]+)", PREFIX).group(1)
        for n in names:
            region = re.sub("%" + re.escape(result) + r"\b", "%" + n, PREFIX)
            variant = Variant("bf16", 64, decode=True, heads_q=8, heads_kv=2, seq_q=1,
                              kv_lens=True, page_size=16, alibi=1, mask_mod=region,
                              captures=[("i32", 1)])
            defined = set(re.findall(r"%([\w.$-]+)\s*[:=]", region))
            self.assertIn(n, defined)
            self.assertFalse(defined & set(arg_names(variant)), region)
        self.assertIn("(%q: memref", emitted()[0].mlir())


class Validation(unittest.TestCase):
    def check(self, pattern, **kw):
        args = dict(dtype="bf16", head_dim=64)
        args.update(kw)
        with self.assertRaisesRegex(FlashError, pattern):
            Variant(**args)

    def test_regions(self):
        self.check(r"score_mod has 7 block argument\(s\); it takes 5 \(s, b, h, i, j\) and "
                   r"one per capture tensor: 6 with the 1 capture\(s\) passed",
                   score_mod=SCORE, captures=CAPS[:1])
        self.check(r"mask_mod's block argument %doc has type memref<\?x\?xi32>, but capture 1 "
                   r"\(f32, rank 2\) is passed as memref<\?x\?xf32>",
                   mask_mod=MASK, captures=(("f32", 2), ("f32", 2)))
        self.check(r"mask_mod must start with its block header, e.g. '\^bb0\(%b: index",
                   mask_mod="{" + MASK + "}", captures=CAPS)
        self.check(r"capture 0 is read by no score_mod / mask_mod", mask_mod=MASK.replace(
            "%bias", "%unused"), captures=CAPS)
        self.check(r"captures are the operands of a score_mod / mask_mod", captures=CAPS)
        self.check(r"no flash.yield", mask_mod=PREFIX.replace("flash.yield", "return"),
                   captures=[("i32", 1)])
        self.check(r"must be MLIR text \(str\), not int", score_mod=3)
        self.check(r"captures are f32, i32, bf16 or f16 of rank 0 to 4",
                   mask_mod=PREFIX, captures=[("i64", 1)])
        self.check(r"alibi is the slopes' rank", alibi=3)
        self.check(r"9 captures: a kernel takes at most 8",
                   mask_mod="^bb0(%b: index, %h: index, %i: index, %j: index, " +
                   ", ".join(f"%c{n}: memref<?xi32>" for n in range(9)) +
                   "):\n" + "\n".join(f"%x{n} = memref.load %c{n}[%b] : memref<?xi32>"
                                      for n in range(9)) + "\nflash.yield %t : i1",
                   captures=[("i32", 1)] * 9)

    @unittest.skipIf(torch is None, "no PyTorch")
    def test_tensors(self):
        q = torch.empty(2, 4, 10, 64, dtype=torch.bfloat16, device="meta")
        slopes = torch.empty(4, device="meta")
        doc = torch.empty(2, 10, dtype=torch.int32, device="meta")

        def bad(pattern, **kw):
            with self.assertRaisesRegex(FlashError, pattern):
                flashmlir.attention(q, q, q, **kw)
        bad(r"alibi_slopes must be \[Hq=4\] or \[B=2, Hq=4\], got \(3,\)",
            alibi_slopes=torch.empty(3, device="meta"))
        bad(r"alibi_slopes must be float32, got torch.float16",
            alibi_slopes=torch.empty(4, dtype=torch.float16, device="meta"))
        bad(r"alibi_slopes is on cpu, q on meta", alibi_slopes=torch.empty(4))
        bad(r"capture 0 is torch.int64; captures are float32, int32, bfloat16 or float16",
            mask_mod=PREFIX, captures=[torch.empty(2, dtype=torch.int64, device="meta")])
        bad(r"capture 0 is on cpu, q on meta", mask_mod=PREFIX,
            captures=[torch.empty(2, dtype=torch.int32)])
        bad(r"capture 0 must be a tensor, not list", mask_mod=PREFIX, captures=[[1, 2]])
        bad(r"capture 0 is empty", mask_mod=PREFIX,
            captures=[torch.empty(0, dtype=torch.int32, device="meta")])
        bad(r"capture 0 has rank 5", mask_mod=PREFIX,
            captures=[torch.empty(1, 1, 1, 1, 2, dtype=torch.int32, device="meta")])
        # One capture where the regions take two: counted against the header.
        bad(r"mask_mod has 6 block argument\(s\).*: 5 with the 1 capture", mask_mod=MASK,
            captures=[doc])
        bad(r"mask_mod must be MLIR region text \(str\), not bytes", mask_mod=b"x",
            captures=[doc])
        # The types of the captures are the variant's.
        v = flashmlir.variant_for(q, q, q, alibi_slopes=slopes, score_mod=SCORE,
                                  mask_mod=MASK,
                                  captures=[torch.empty(4, 10, device="meta"), doc])
        self.assertEqual((v.alibi, v.captures), (1, CAPS))
        self.assertEqual(v, Variant("bf16", 64, alibi=1, score_mod=SCORE, mask_mod=MASK,
                                    captures=CAPS))


@unittest.skipIf(torch is None, "no PyTorch")
class Operator(unittest.TestCase):
    def test_fake_shapes(self):
        q = torch.empty(2, 10, 4, 64, dtype=torch.bfloat16, device="meta").transpose(1, 2)
        k = torch.empty(2, 2, 30, 64, dtype=torch.bfloat16, device="meta")
        doc = torch.empty(2, 30, dtype=torch.int32, device="meta")
        bias = torch.empty(4, 30, device="meta")
        slopes = torch.empty(2, 4, device="meta")
        o, lse = torch.ops.flashmlir.attention_mods(q, k, k, [bias, doc], True, None, None,
                                                    None, None, None, slopes, SCORE, MASK)
        self.assertEqual((tuple(o.shape), o.dtype, o.device.type),
                         ((2, 4, 10, 64), torch.bfloat16, "meta"))
        self.assertTrue(o.transpose(1, 2).is_contiguous())
        self.assertEqual(tuple(lse.shape), (2, 4, 10))
        o2, lse2 = flashmlir.attention(q, k, k, causal=True, alibi_slopes=slopes,
                                       score_mod=SCORE, mask_mod=MASK, captures=[bias, doc],
                                       return_lse=True)
        self.assertEqual((o2.shape, lse2.shape), (o.shape, lse.shape))
        # The fake implementation validates like the real one.
        with self.assertRaisesRegex(Exception, "mask_mod has 6 block argument"):
            torch.ops.flashmlir.attention_mods(q, k, k, [doc], False, None, None, None, None,
                                               None, None, None, MASK)

    def test_capture_list(self):
        # What _run passes the kernel: slopes first, then the captures,
        # each row-major (a transposed view is copied).
        from flashmlir.ops import _capture_list
        slopes, doc = torch.rand(4), torch.arange(12, dtype=torch.int32).view(3, 4)
        got = _capture_list((slopes, None, MASK, [torch.rand(2, 3), doc.t()]))
        self.assertEqual([tuple(t.shape) for t in got], [(4,), (2, 3), (4, 3)])
        self.assertTrue(all(t.is_contiguous() for t in got))
        self.assertIs(got[0], slopes)
        self.assertTrue(torch.equal(got[2], doc.t()))
        self.assertEqual(len(_capture_list((None, None, MASK, [doc]))), 1)

    def test_eager_key(self):
        # What _run looks up per call: the same variant for the same regions
        # and capture types, the tensors checked on every call (a cache hit
        # with slopes of another batch is refused).
        from flashmlir.ops import _variant
        q = torch.empty(2, 4, 10, 64, dtype=torch.bfloat16, device="meta")
        doc = torch.empty(2, 10, dtype=torch.int32, device="meta")

        def var(q, slopes, mask=PREFIX, caps=None):
            return _variant(q, q, q, True, None, None, None, None, None,
                            mods=(slopes, None, mask, [doc[:, 0]] if caps is None else caps))
        a = var(q, torch.empty(2, 4, device="meta"))
        self.assertEqual((a.alibi, a.captures, a.causal), (2, (("i32", 1),), True))
        self.assertIs(var(q, torch.empty(2, 4, device="meta")), a)
        self.assertIsNot(var(q, torch.empty(4, device="meta")), a)
        self.assertNotEqual(var(q, None, PREFIX.replace("sle", "slt")), var(q, None))
        with self.assertRaisesRegex(FlashError, r"alibi_slopes must be \[Hq=4\] or \[B=3"):
            var(torch.empty(3, 4, 10, 64, dtype=torch.bfloat16, device="meta"),
                torch.empty(2, 4, device="meta"))
        with self.assertRaisesRegex(FlashError, "alibi_slopes must be a tensor, not list"):
            var(q, [1.0])
        with self.assertRaisesRegex(FlashError, "capture 0 is torch.int64"):
            var(q, None, caps=[torch.empty(2, dtype=torch.int64, device="meta")])

    def test_schemas(self):
        from flashmlir import ops
        self.assertTrue(hasattr(torch.ops.flashmlir, "attention_mods"))
        # flashmlir::attention keeps its schema: calls without mods do not
        # change. (custom_op infers the types, e.g. SymInt[]: names compared.)
        def names(op):
            return [a.name for a in op.default._schema.arguments]
        self.assertEqual(names(torch.ops.flashmlir.attention),
                         ["q", "k", "v", "causal", "window", "softcap", "scale", "kv_lens",
                          "block_table"])
        self.assertEqual(names(torch.ops.flashmlir.attention_mods),
                         ["q", "k", "v", "captures", "causal", "window", "softcap", "scale",
                          "kv_lens", "block_table", "alibi_slopes", "score_mod", "mask_mod",
                          "block_mask", "block_mask_rows"])
        if ops._registered == "library":
            self.assertEqual(str(torch.ops.flashmlir.attention_mods.default._schema),
                             "flashmlir::" + ops._SCHEMA_MODS)


class Cache(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_compile_on_miss(self):
        log = os.path.join(self.tmp, "compiles.log")
        comp = Compiler([sys.executable, FAKE_COMPILER, "{mlir}", "{out}", "{chip}"],
                        env={"FAKE_COMPILER_LOG": log})
        cache = KernelCache(self.tmp, comp, opener=FakeKernel)
        variants = emitted()[2:4]
        for v in variants:
            k = cache.get(v, "sm_90a")
            self.assertEqual(k.func, v.name)
            with open(k.path[:-3] + ".mlir") as f:
                self.assertEqual(f.read(), v.mlir())
        # The same regions (re-indented) hit; another region compiles.
        again = Variant("bf16", 64, causal=True, alibi=1, score_mod="  " + SCORE,
                        mask_mod=MASK, captures=CAPS)
        self.assertIs(cache.get(again, "sm_90a"), cache.get(variants[0], "sm_90a"))
        cache.get(Variant("bf16", 64, mask_mod=PREFIX.replace("sle", "slt"),
                          captures=[("i32", 1)]), "sm_90a")
        with open(log) as f:
            self.assertEqual(len(f.read().splitlines()), 3)

    def test_abi_capture_count(self):
        class Liar(FakeKernel):
            def __init__(self, path, func):
                super().__init__(path, func)
                self.abi = {"dtype": "bf16", "head_dim": 64, "captures": [{"dtype": "f32"}]}
        comp = Compiler([sys.executable, FAKE_COMPILER, "{mlir}", "{out}", "{chip}"],
                        env={"FAKE_COMPILER_LOG": os.path.join(self.tmp, "log")})
        cache = KernelCache(self.tmp, comp, opener=Liar)
        with self.assertRaisesRegex(FlashError, r"its ABI lists 1 capture tensor\(s\), the "
                                                r"variant attn_bf16_d64_mod\w+ takes 2"):
            cache.get(Variant("bf16", 64, score_mod=SCORE, mask_mod=MASK, captures=CAPS),
                      "sm_90a")
        cache.get(Variant("bf16", 64, mask_mod=PREFIX, captures=[("i32", 1)]), "sm_90a")

    def test_region_diagnostic(self):
        # The real compiler on a region the op's verifier refuses (a
        # score_mod yielding i1): its diagnostic is the FlashError's.
        comp = Compiler(["bash", os.path.join(SRC, "scripts", "flash-compile.sh"), "{mlir}",
                         "{out}", "--chip={chip}"], env={"FLASH_OPT": FLASH_OPT})
        cache = KernelCache(self.tmp, comp)
        bad = SCORE.replace("flash.yield %r : f32",
                            "%t = arith.constant true\n  flash.yield %t : i1")
        with self.assertRaisesRegex(FlashError, r"(?s)compiling .*attn_bf16_d64_mod[0-9a-f]{12}-\w+\.mlir "
                                                r"failed.*score_mod region must end in a "
                                                r"flash.yield of one 'f32' value"):
            cache.get(Variant("bf16", 64, score_mod=bad, mask_mod=MASK, captures=CAPS),
                      "sm_90a")


# ---------------------------------------------------------------------------
# The GPU check (H200)

def gpu_calls(device, gen=None):
    """[(label, args, kwargs)] of the flashmlir.attention calls the GPU
    check makes; on "meta" (no gen) they only name the variants."""
    import torch

    def rand(*shape, dtype=torch.bfloat16, transpose=False):
        if transpose:  # BSHD storage as a BHSD view
            b, h, n, d = shape
            return rand(b, n, h, d, dtype=dtype).transpose(1, 2)
        if device == "meta":
            return torch.empty(*shape, dtype=dtype, device="meta")
        return torch.randn(*shape, generator=gen, device="cpu").to(dtype).to(device)

    def ints(high, *shape, sort=False):
        if device == "meta":
            return torch.empty(*shape, dtype=torch.int32, device="meta")
        t = torch.randint(0, high, shape, generator=gen)
        return (t.sort(dim=-1).values if sort else t).to(torch.int32).to(device)

    def slopes(*shape):
        if device == "meta":
            return torch.empty(*shape, device="meta")
        return (torch.rand(*shape, generator=gen) * 0.25 + 1 / 256).to(device)

    def floats(*shape):
        if device == "meta":
            return torch.empty(*shape, device="meta")
        return (torch.rand(*shape, generator=gen) * 2 - 1).to(device)

    calls = []
    for d in (64, 128):
        q, k, v = rand(2, 8, 300, d), rand(2, 2, 300, d), rand(2, 2, 300, d)
        calls.append((f"alibi causal d{d}", (q, k, v),
                      dict(causal=True, alibi_slopes=slopes(8))))
    q = rand(2, 8, 113, 64, transpose=True)
    k, v = rand(2, 8, 255, 64, transpose=True), rand(2, 8, 255, 64, transpose=True)
    calls.append(("alibi [B, Hq] softcap bshd", (q, k, v),
                  dict(softcap=30.0, alibi_slopes=slopes(2, 8))))
    q, k, v = rand(3, 8, 200, 64), rand(3, 4, 333, 64), rand(3, 4, 333, 64)
    calls.append(("alibi + score_mod bias + mask_mod doc, causal", (q, k, v),
                  dict(causal=True, alibi_slopes=slopes(8), score_mod=SCORE, mask_mod=MASK,
                       captures=[floats(8, 333), ints(5, 3, 333, sort=True)])))
    q, k, v = rand(2, 4, 257, 128), rand(2, 1, 129, 128), rand(2, 1, 129, 128)
    calls.append(("mask_mod prefix-LM d128", (q, k, v),
                  dict(mask_mod=PREFIX, captures=[ints(129, 2)])))
    pool = rand(40, 2, 16, 64, transpose=True)  # [pages, 16, Hkv, D] storage
    table = (ints(1, 3, 10) if device == "meta" else
             torch.randperm(40, generator=gen)[:30].view(3, 10).to(torch.int32).to(device))
    lens = (ints(1, 3) if device == "meta" else
            torch.tensor([160, 1, 97], dtype=torch.int32, device=device))
    calls.append(("paged decode, alibi + mask_mod prefix", (rand(3, 8, 1, 64), pool, pool),
                  dict(kv_lens=lens, block_table=table, alibi_slopes=slopes(8),
                       mask_mod=PREFIX, captures=[ints(160, 3)])))
    return calls


def gpu_variants():
    import torch  # noqa: F401
    return [flashmlir.variant_for(*args, **kw) for _, args, kw in gpu_calls("meta")]


def reference(q, k, v, causal=False, softcap=None, alibi_slopes=None, score_mod=None,
              mask_mod=None, captures=(), kv_lens=None, block_table=None, dtype=None):
    """O and LSE computed with torch in `dtype` (float32 default: the
    reference; bf16: the same computation in the kernel's dtype, for FA2's
    rule), one sequence at a time; the regions' math restated from the MLIR
    texts above."""
    import torch
    dtype = dtype or torch.float32
    b_, hq, sq, d = q.shape
    group = hq // k.shape[1]
    outs, lses = [], []
    for b in range(b_):
        if block_table is not None:  # gather the sequence's pages
            kb = k[block_table[b].long()].transpose(0, 1).reshape(k.shape[1], -1, d)
            vb = v[block_table[b].long()].transpose(0, 1).reshape(v.shape[1], -1, v.shape[3])
        else:
            kb, vb = k[b], v[b]
        sk = int(kv_lens[b]) if kv_lens is not None else kb.shape[1]
        kb, vb = kb[:, :sk].repeat_interleave(group, 0), vb[:, :sk].repeat_interleave(group, 0)
        s = (q[b].to(dtype) @ kb.to(dtype).transpose(1, 2)).float() / math.sqrt(d)
        if softcap:
            s = softcap * torch.tanh(s / softcap)
        i = torch.arange(sq, device=q.device).view(1, sq, 1)
        j = torch.arange(sk, device=q.device).view(1, 1, sk)
        h = torch.arange(hq, device=q.device).view(hq, 1, 1)
        if alibi_slopes is not None:
            slope = alibi_slopes[b] if alibi_slopes.dim() == 2 else alibi_slopes
            s = s - slope.view(hq, 1, 1) * (i + sk - sq - j).abs()
        if score_mod is SCORE:  # s + bias[h, j]
            s = s + captures[0][h, j]
        visible = torch.ones_like(s, dtype=torch.bool)
        if causal:
            visible &= j <= i + sk - sq
        if mask_mod is MASK:  # doc[b, i] == doc[b, j]
            doc = captures[1][b]
            visible &= doc[i] == doc[j]
        elif mask_mod is PREFIX:  # j <= i or j < prefix[b]
            visible &= (j <= i) | (j < captures[0][b])
        s = s.masked_fill(~visible, -math.inf)
        lse = torch.logsumexp(s, dim=-1)
        p = torch.exp(s - lse.unsqueeze(-1)).nan_to_num(0.0)
        o = (p.to(dtype) @ vb.to(dtype)).float()
        outs.append(o)
        lses.append(lse)
    return torch.stack(outs), torch.stack(lses)


def gpu_check(cache_dir):
    import torch
    flashmlir.set_cache_dir(cache_dir)
    flashmlir.set_compiler(False)  # the H200 has no compiler: the cache must hold them
    gen = torch.Generator().manual_seed(0)
    failed = 0
    for label, args, kw in gpu_calls("cuda", gen):
        var = flashmlir.variant_for(*args, **kw)
        o, lse = flashmlir.attention(*args, return_lse=True, **kw)
        o2, _ = flashmlir.attention(*args, return_lse=True, **kw)
        torch.cuda.synchronize()
        want, want_lse = reference(*args, **kw)
        low, _ = reference(*args, dtype=torch.bfloat16, **kw)
        tol = 2 * (low - want).abs().max().item() + 1e-3
        err = (o.float() - want).abs().max().item()
        finite = torch.isfinite(want_lse)
        lse_err = (lse - want_lse)[finite].abs().max().item() if finite.any() else 0.0
        dead_ok = bool((lse[~finite] == -math.inf).all()) and bool((o.float()[~finite] == 0).all())
        ok = (err <= tol and lse_err <= 2e-3 and dead_ok and torch.equal(o, o2)
              and not torch.isnan(o).any())
        failed += not ok
        print(f"{label}: {var.name}: max|dO|={err:.2e} (tol {tol:.2e}) max|dLSE|={lse_err:.2e} "
              f"dead rows {int((~finite).sum())}{'' if dead_ok else ' WRONG'}  "
              f"{'PASS' if ok else 'FAIL'}", flush=True)
    # torch.compile traces the operator (flashmlir::attention_mods) without
    # a graph break, and agrees with eager.
    label, args, kw = gpu_calls("cuda", gen)[3]
    fn = torch.compile(lambda q, k, v, caps: flashmlir.attention(
        q, k, v, causal=True, alibi_slopes=kw["alibi_slopes"], score_mod=SCORE,
        mask_mod=MASK, captures=caps), fullgraph=True)
    got = fn(*args, kw["captures"])
    want = flashmlir.attention(*args, **kw)
    ok = torch.equal(got, want)
    failed += not ok
    print(f"torch.compile(fullgraph=True) of '{label}' vs eager: "
          f"{'PASS' if ok else 'FAIL'}", flush=True)
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1] == "precompile":
        for path in flashmlir.precompile(gpu_variants(), "sm_90a", sys.argv[2]):
            print(path)
        sys.exit(0)
    if sys.argv[1] == "gpu":
        sys.exit(gpu_check(sys.argv[2]))
    if sys.argv[1] == "emit":
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(v.mlir() for v in emitted()))
        sys.exit(0)
    FAKE_COMPILER, FLASH_OPT = sys.argv[2], sys.argv[3]
    SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))))
    unittest.main(argv=[sys.argv[0]] + sys.argv[4:])
