"""CPU checks of flashmlir's BlockMask (run by block-mask.test):

  block_mask_check.py emit OUT.mlir    # the hinted variants' MLIR
  block_mask_check.py test [-v]        # the unit tests

`test`: block_mask_from_mask (from a mask function and from a dense mask)
and doc_block_mask against a brute force written here in plain Python
loops, on random masks, document masks and prefix-LM masks (ragged Lq / Lk,
rows that do not divide Lq, broadcast batch or heads), every hint checked
to keep its promise and to be the tightest; BlockMask's validation; the
variant (name, MLIR, parse) and the eager path's cache key with and without
a hint; the operator's fake implementation with a hint. `emit` writes
hinted variants (broadcast and not, causal, with ALiBi) for flash-opt.
"""
import random
import sys
import unittest

import torch

import flashmlir
from flashmlir import BlockMask, FlashError, Variant, block_mask_from_mask, doc_block_mask

DOC = flashmlir.blockmask.DOC_MASK_MOD


def brute(mask, rows):
    """The tightest hint of the nested-list bool mask [b][h][i][j], by
    loops: visible = the hull of the keys some row of the block sees, full =
    the first longest run of keys every row of the block sees ((0, 0) for
    none)."""
    out = []
    for mb in mask:
        ob = []
        for mh in mb:
            lq, lk = len(mh), len(mh[0])
            oh = []
            for r0 in range(0, lq, rows):
                block = mh[r0:r0 + rows]
                seen = [j for j in range(lk) if any(row[j] for row in block)]
                vlo, vhi = (seen[0], seen[-1] + 1) if seen else (0, 0)
                flo = fhi = run = 0
                for j in range(lk):
                    run = run + 1 if all(row[j] for row in block) else 0
                    if run > fhi - flo:
                        flo, fhi = j + 1 - run, j + 1
                oh.append([vlo, vhi, flo, fhi])
            ob.append(oh)
        out.append(ob)
    return out


def keeps_promise(hint, mask, rows):
    """Every key outside [vlo, vhi) hidden, every key in [flo, fhi) visible,
    for every query row of each block (hint broadcast over b, h)."""
    for b, mb in enumerate(mask):
        for h, mh in enumerate(mb):
            hb = hint[b if len(hint) > 1 else 0][h if len(hint[0]) > 1 else 0]
            for i, row in enumerate(mh):
                vlo, vhi, flo, fhi = hb[i // rows]
                for j, seen in enumerate(row):
                    if seen and not vlo <= j < vhi:
                        return f"b={b} h={h} i={i} j={j} visible outside [{vlo}, {vhi})"
                    if not seen and flo <= j < fhi:
                        return f"b={b} h={h} i={i} j={j} hidden inside full [{flo}, {fhi})"
    return ""


def empty_as_zero(hint):
    """An empty interval (lo >= hi) as (0, 0): promises compared, not spellings."""
    def norm(e):
        return [x for iv in (e[:2], e[2:]) for x in (iv if iv[0] < iv[1] else [0, 0])]
    return [[[norm(e) for e in mh] for mh in mb] for mb in hint]


def sorted_docs(gen, b, s, n):
    """Sorted random document ids [b, s] in [0, n)."""
    return torch.sort(torch.randint(0, n, (b, s), generator=gen), dim=1).values.to(torch.int32)


class FromMask(unittest.TestCase):
    def check(self, mask, rows, bm, what):
        self.assertEqual(bm.rows, rows)
        self.assertEqual(bm.hint.dtype, torch.int32)
        hint = bm.hint.tolist()
        dense = mask.tolist()
        self.assertEqual(hint, brute(dense, rows), what)
        self.assertEqual(keeps_promise(hint, dense, rows), "", what)

    def test_random(self):
        gen = torch.Generator().manual_seed(1)
        for n in range(60):
            b, h = random.Random(n).choice([(1, 1), (2, 3), (1, 2), (3, 1)])
            lq, lk = (int(x) for x in torch.randint(1, 40, (2,), generator=gen))
            rows = int(torch.randint(1, 12, (1,), generator=gen))
            # Dense random masks (mostly ragged intervals) and, every third
            # case, masks with whole rows / blocks hidden.
            p = float(torch.rand(1, generator=gen)) * (0.3 if n % 3 else 1.0)
            mask = torch.rand(b, h, lq, lk, generator=gen) >= p
            if n % 3 == 0:
                mask &= torch.rand(b, h, lq, 1, generator=gen) > 0.3
            self.check(mask, rows, block_mask_from_mask(mask, b, h, lq, lk, rows),
                       f"case {n}: {b}x{h}x{lq}x{lk} rows={rows}")

    def test_documents(self):
        gen = torch.Generator().manual_seed(2)
        for n, (b, lq, lk, docs, rows) in enumerate(
                [(2, 37, 37, 3, 8), (1, 100, 64, 5, 16), (3, 17, 50, 2, 4), (2, 64, 64, 1, 128),
                 (2, 129, 129, 7, 32), (1, 1, 9, 2, 1)]):
            doc = sorted_docs(gen, b, max(lq, lk), docs)
            fn = lambda bb, hh, i, j: doc[bb, i] == doc[bb, j]  # noqa: E731
            bm = block_mask_from_mask(fn, b, None, lq, lk, rows)
            self.assertEqual(tuple(bm.hint.shape), (b, 1, -(-lq // rows), 4))
            mask = doc[:, None, :lq, None] == doc[:, None, None, :lk]
            self.check(mask, rows, bm, f"documents case {n}")
            # doc_block_mask (sorted ids, by binary search) promises the same.
            hint = doc_block_mask(doc, 3, lq, lk, rows)
            self.assertEqual(tuple(hint.shape), (b, 3, -(-lq // rows), 4))
            self.assertEqual(empty_as_zero(hint[:, :1].tolist()),
                             empty_as_zero(brute(mask.tolist(), rows)), f"doc_block_mask {n}")
            self.assertEqual(keeps_promise(hint.tolist(), mask.expand(b, 3, lq, lk).tolist(),
                                           rows), "")

    def test_prefix_lm(self):
        # j <= i or j < prefix[b], per batch; causal-style rows that share
        # no full run with their block unless the prefix covers it.
        gen = torch.Generator().manual_seed(3)
        for n, (b, h, lq, lk, rows) in enumerate([(2, 2, 40, 40, 8), (3, 1, 33, 33, 5),
                                                   (1, 4, 64, 64, 16)]):
            prefix = torch.randint(0, lk, (b,), generator=gen)
            fn = lambda bb, hh, i, j: (j <= i) | (j < prefix[bb])  # noqa: E731
            bm = block_mask_from_mask(fn, b, h, lq, lk, rows)
            # The function does not depend on h: the hint broadcasts heads.
            self.assertEqual(bm.hint.shape[1], 1)
            mask = ((torch.arange(lk)[None, None, None, :] <= torch.arange(lq)[None, None, :, None])
                    | (torch.arange(lk)[None, None, None, :] < prefix[:, None, None, None]))
            self.check(mask, rows, bm, f"prefix-LM case {n}")

    def test_head_dependent(self):
        # A mask that depends on the head keeps the head dim.
        fn = lambda b, h, i, j: (j <= i + h) & (j >= i - 2 * h)  # noqa: E731
        bm = block_mask_from_mask(fn, None, 3, 20, 25, 6)
        self.assertEqual(tuple(bm.hint.shape), (1, 3, 4, 4))
        mask = fn(torch.arange(1).view(1, 1, 1, 1), torch.arange(3).view(1, 3, 1, 1),
                  torch.arange(20).view(1, 1, 20, 1), torch.arange(25).view(1, 1, 1, 25))
        self.check(mask, 6, bm, "head-dependent")

    def test_arguments(self):
        m = torch.ones(1, 1, 4, 4, dtype=torch.bool)
        for args, msg in [((m.int(), 1, 1, 4, 4, 2), "the mask must be bool"),
                          ((m, 1, 1, 4, 4, 0), "rows must be an int >= 1"),
                          ((m, 2, 1, 3, 4, 2), r"shape \(1, 1, 4, 4\), not broadcastable to "
                                               r"\[B=2, H=1, Lq=3, Lk=4\]"),
                          ((m, 1, 1, 0, 4, 2), "Lq must be an int >= 1"),
                          ((lambda b, h, i, j: 1, 1, 1, 4, 4, 2), "returned int"),
                          (([1], 1, 1, 4, 4, 2), "mask must be a function or a bool tensor")]:
            with self.assertRaisesRegex(FlashError, msg):
                block_mask_from_mask(*args)


class Validation(unittest.TestCase):
    def test_constructor(self):
        good = torch.zeros(2, 1, 3, 4, dtype=torch.int32)
        self.assertEqual(BlockMask(good, 16).signature, (16, False, True))
        for hint, rows, msg in [
                (good.long(), 16, "hint must be int32, got torch.int64"),
                (good[0], 16, r"must be \[B or 1, H or 1, R, 4\].*got shape \(1, 3, 4\)"),
                (torch.zeros(2, 1, 3, 3, dtype=torch.int32), 16, r"got shape \(2, 1, 3, 3\)"),
                (torch.zeros(2, 1, 0, 4, dtype=torch.int32), 16, "empty"),
                (good, 0, "rows .* must be an int >= 1, got 0"),
                (good, True, "rows .* must be an int >= 1, got True"),
                (good, 2.0, "rows .* must be an int >= 1, got 2.0"),
                ([[0, 1, 0, 1]], 16, "must be a torch.Tensor, not list")]:
            with self.assertRaisesRegex(FlashError, msg):
                BlockMask(hint, rows)
        bad = good.clone()
        bad[1, 0, 2, 1] = 65
        with self.assertRaisesRegex(FlashError, r"lie in \[0, 64\].*from 0 to 65"):
            BlockMask(bad, 16, kv_len=64)
        bad[1, 0, 2, 1] = -1
        with self.assertRaisesRegex(FlashError, r"lie in \[0, 64\].*from -1 to 0"):
            BlockMask(bad, 16, kv_len=64)
        BlockMask(good, 16, kv_len=64)
        with self.assertRaises(AttributeError):
            BlockMask(good, 16).rows = 3

    def test_call_checks(self):
        q = torch.empty(2, 4, 100, 64, dtype=torch.bfloat16, device="meta")

        def hint(b, h, r):
            return torch.zeros(b, h, r, 4, dtype=torch.int32, device="meta")
        self.assertEqual(BlockMask(hint(2, 4, 4), 32).check(q), (32, False, False))
        self.assertEqual(BlockMask(hint(1, 1, 1), 128).check(q), (128, True, True))
        self.assertEqual(BlockMask(hint(1, 4, 100), 1).check(q), (1, True, False))
        for h, rows, msg in [(hint(2, 4, 3), 32, r"R=ceil\(Lq=100 / rows=32\)=4, 4\], got "
                                                 r"\(2, 4, 3, 4\)"),
                             (hint(2, 4, 5), 32, r"=4, 4\], got \(2, 4, 5, 4\)"),
                             (hint(3, 4, 4), 32, r"\[B=2 or 1, Hq=4 or 1"),
                             (hint(2, 2, 4), 32, r"\[B=2 or 1, Hq=4 or 1"),
                             (torch.zeros(2, 4, 4, 4, dtype=torch.int32), 32,
                              "hint is on cpu, q on meta")]:
            with self.assertRaisesRegex(FlashError, msg):
                BlockMask(h, rows).check(q)


class Variants(unittest.TestCase):
    q = torch.empty(2, 4, 100, 64, dtype=torch.bfloat16, device="meta")
    doc = torch.empty(2, 100, dtype=torch.int32, device="meta")

    def bm(self, b=2, h=4, rows=32):
        return BlockMask(torch.zeros(b, h, -(-100 // rows), 4, dtype=torch.int32,
                                     device="meta"), rows)

    def var(self, bm, **kw):
        return flashmlir.variant_for(self.q, self.q, self.q, mask_mod=DOC, captures=[self.doc],
                                     block_mask=bm, **kw)

    def test_names(self):
        plain = self.var(None)
        names = {plain.name}
        for bm, suffix in [(self.bm(), "_bm32"), (self.bm(1), "_bm32b1"), (self.bm(2, 1), "_bm32h1"),
                           (self.bm(1, 1), "_bm32b1h1"), (self.bm(rows=64), "_bm64")]:
            v = self.var(bm)
            self.assertEqual(v.name, plain.name + suffix)
            self.assertEqual(v.block_mask, bm.signature)
            self.assertEqual(v.num_captures, 2)
            names.add(v.name)
            # The name is the cache's file name: another hint, another file.
            cache = flashmlir.cache.KernelCache("/nonexistent", False)
            self.assertNotEqual(cache.path(v, "sm_90a", "c"), cache.path(plain, "sm_90a", "c"))
        self.assertEqual(len(names), 6)
        self.assertEqual(self.var(self.bm(), causal=True).name,
                         plain.name.replace("d64", "d64_causal") + "_bm32")
        # A name with a hint parses to a mask_mod variant, which needs its text.
        with self.assertRaisesRegex(FlashError, "has a score_mod / mask_mod"):
            Variant.parse(self.var(self.bm()).name)
        with self.assertRaisesRegex(FlashError, "summarises a mask_mod: pass mask_mod="):
            Variant.parse("attn_bf16_d64_bm32")

    def test_variant_checks(self):
        with self.assertRaisesRegex(FlashError, "summarises a mask_mod"):
            Variant("bf16", 64, block_mask=(32, False, False))
        with self.assertRaisesRegex(FlashError, "rows must be an int >= 1, got 0"):
            Variant("bf16", 64, mask_mod=DOC, captures=[("i32", 2)], block_mask=(0, False, False))
        with self.assertRaisesRegex(FlashError, "for prefill calls"):
            Variant("bf16", 64, decode=True, heads_q=4, heads_kv=4, seq_q=1, kv_lens=True,
                    mask_mod=DOC, captures=[("i32", 2)], block_mask=(32, False, False))
        with self.assertRaisesRegex(FlashError, "must be a flashmlir.BlockMask"):
            self.var(torch.zeros(2, 4, 4, 4, dtype=torch.int32, device="meta"))

    def test_mlir(self):
        v = self.var(self.bm(1, 4))
        text = v.mlir()
        self.assertIn("block_mask(%attn.hint : memref<1x?x?x4xi32>)", text)
        self.assertIn("block_mask_rows = 32 : i64", text)
        # The hint is the first argument after V: the ABI's first capture.
        self.assertIn("%attn.v: memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>, "
                      "%attn.hint: memref<1x?x?x4xi32>, %attn.cap0", text)
        self.assertNotIn("block_mask", self.var(None).mlir())

    def test_eager_key(self):
        # _run's per-call lookup: the hint's signature is part of the key.
        from flashmlir.ops import _variant

        def var(bm):
            return _variant(self.q, self.q, self.q, False, None, None, None, None, None,
                            mods=(None, None, DOC, [self.doc], bm))
        a, b, c = var(self.bm()), var(None), var(self.bm(1, 1))
        self.assertEqual((a.block_mask, b.block_mask, c.block_mask),
                         ((32, False, False), None, (32, True, True)))
        self.assertIs(var(self.bm()), a)
        self.assertNotEqual(var(self.bm(rows=64)), a)
        with self.assertRaisesRegex(FlashError, r"Hq=4 or 1"):
            var(self.bm(2, 3))

    def test_operator(self):
        # Meta tensors go through torch.ops.flashmlir.attention_mods (the
        # schema's block_mask / block_mask_rows) and its fake kernel.
        o, lse = flashmlir.attention(self.q, self.q, self.q, mask_mod=DOC, captures=[self.doc],
                                     block_mask=self.bm(1, 1), return_lse=True)
        self.assertEqual((tuple(o.shape), tuple(lse.shape)), ((2, 4, 100, 64), (2, 4, 100)))
        with self.assertRaisesRegex(FlashError, r"R=ceil\(Lq=100 / rows=16\)=7"):
            flashmlir.attention(self.q, self.q, self.q, mask_mod=DOC, captures=[self.doc],
                                block_mask=BlockMask(self.bm().hint, 16))
        with self.assertRaisesRegex(FlashError, "must be a flashmlir.BlockMask"):
            flashmlir.attention(self.q, self.q, self.q, mask_mod=DOC, captures=[self.doc],
                                block_mask=self.bm().hint)
        with self.assertRaisesRegex(Exception, "summarises a mask_mod"):
            torch.ops.flashmlir.attention_mods(self.q, self.q, self.q, [], False, None, None,
                                               None, None, None, None, None, None,
                                               self.bm().hint, 32)
        with self.assertRaisesRegex(Exception, "block_mask and block_mask_rows together"):
            torch.ops.flashmlir.attention_mods(self.q, self.q, self.q, [self.doc], False, None,
                                               None, None, None, None, None, None, DOC,
                                               self.bm().hint, None)


class KernelAndCache(unittest.TestCase):
    """Where the Kernel puts the hint among the captures (the ABI's
    "block_mask" names its argument), and the cache's check of an
    artifact's block_mask against the variant's."""

    @staticmethod
    def kernel(abi):
        k = object.__new__(flashmlir.Kernel)
        k.abi, k._captures, k.func, k._handle = abi, abi.get("captures") or [], "f", None
        return k

    def test_insert(self):
        hint, a, b = (torch.zeros(n, dtype=torch.int32) for n in (1, 2, 3))
        caps = [{"arg": 3}, {"arg": 4}, {"arg": 5}]
        first = self.kernel({"captures": caps, "block_mask": {"arg": 3, "rows": 16}})
        self.assertEqual([t.numel() for t in first._with_block_mask([a, b], hint)], [1, 2, 3])
        middle = self.kernel({"captures": caps, "block_mask": {"arg": 4, "rows": 16}})
        self.assertEqual([t.numel() for t in middle._with_block_mask([a, b], hint)], [2, 1, 3])
        self.assertEqual(middle._with_block_mask([a], None), [a])
        with self.assertRaisesRegex(FlashError, "f takes no block_mask hint"):
            self.kernel({"captures": caps})._with_block_mask([a], hint)
        with self.assertRaisesRegex(FlashError, r"block_mask \(argument 6\) is none of its "
                                                r"captures \[3, 4, 5\]"):
            self.kernel({"captures": caps, "block_mask": {"arg": 6}})._with_block_mask([a], hint)

    def test_cache_checks_rows(self):
        var = Variants().var(Variants().bm())
        abi = {"dtype": "bf16", "head_dim": 64, "causal": False,
               "captures": [{"arg": 3}, {"arg": 4}], "block_mask": {"arg": 3, "rows": 32}}

        def opener(abi):
            return lambda path, func: self.kernel(dict(abi))
        cache = flashmlir.cache.KernelCache("/nonexistent", False, opener=opener(abi))
        self.assertEqual(cache._open("x.so", var).abi["block_mask"]["rows"], 32)
        for wrong, msg in [(dict(abi, block_mask={"arg": 3, "rows": 64}), "rows are 64"),
                           ({k: v for k, v in abi.items() if k != "block_mask"}, "rows are None")]:
            cache = flashmlir.cache.KernelCache("/nonexistent", False, opener=opener(wrong))
            with self.assertRaisesRegex(FlashError, msg + r", the variant \w+_bm32 needs 32"):
                cache._open("x.so", var)


def emitted():
    q = torch.empty(2, 4, 100, 64, dtype=torch.bfloat16, device="meta")
    doc = torch.empty(2, 100, dtype=torch.int32, device="meta")
    out = []
    for (b, h, rows), extra in [((2, 4, 16), {}), ((1, 1, 128), {"causal": True}),
                                ((2, 1, 32), {"alibi_slopes": torch.empty(4, device="meta")})]:
        bm = BlockMask(torch.zeros(b, h, -(-100 // rows), 4, dtype=torch.int32, device="meta"),
                       rows)
        out.append(flashmlir.variant_for(q, q, q, mask_mod=DOC, captures=[doc], block_mask=bm,
                                         **extra))
    return out


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        with open(sys.argv[2], "w") as f:
            f.write("\n".join(v.mlir() for v in emitted()))
    elif sys.argv[1] == "test":
        unittest.main(argv=[sys.argv[0]] + sys.argv[2:])
    else:
        sys.exit(f"unknown command {sys.argv[1]!r}")
