"""CPU unit tests of the flashmlir package (run by package.test):
variant names and MLIR, cache keys, compile on a miss through a fake
compiler command, one compile under concurrent first calls (threads and
processes), the missing-variant error, the binding's hardening (malformed
ABI records, NUL bytes), the allocator hook, and, where PyTorch is
installed, the operator's registration and fake (meta) shapes.

  package_check.py FAKE_DIR FAKE_COMPILER [-v]

FAKE_DIR holds the runtime's test artifacts (unittests/Runtime).
"""
import json
import math
import os
import subprocess
import sys
import tempfile
import threading
import unittest

import flashmlir
from flashmlir import FlashError, Variant
from flashmlir.cache import Compiler, KernelCache, chip_for_device

FAKE_DIR, FAKE_COMPILER = sys.argv[1], sys.argv[2]
try:
    import torch
except ImportError:
    torch = None


def fake_compiler(tmp, sleep=0.0, fail=False):
    env = {"FAKE_COMPILER_LOG": os.path.join(tmp, "compiles.log"),
           "FAKE_COMPILER_SLEEP": str(sleep)}
    if fail:
        env["FAKE_COMPILER_FAIL"] = "1"
    return Compiler([sys.executable, FAKE_COMPILER, "{mlir}", "{out}", "{chip}"], env=env)


# Child processes run without PyTorch: importing it takes seconds.
NO_TORCH = "import sys; sys.modules['torch'] = None; "


def flashmlir_cli(*args):
    return [sys.executable, "-c", NO_TORCH + "import runpy; sys.argv[0] = 'flashmlir'; "
            "runpy.run_module('flashmlir', run_name='__main__')", *args]


def compile_log(tmp):
    path = os.path.join(tmp, "compiles.log")
    return open(path).read().splitlines() if os.path.exists(path) else []


class FakeKernel:
    """What KernelCache opens instead of a flashmlir.Kernel in these tests."""

    def __init__(self, path, func):
        self.path, self.func = path, func
        self.abi = {}


class VariantNames(unittest.TestCase):
    def test_round_trip(self):
        cases = [
            Variant("bf16", 128),
            Variant("f16", 64, 128, causal=True),
            Variant("bf16", 128, window=(256, 0), softcap=30, scale=0.1),
            Variant("bf16", 128, scale=1e-5),
            Variant("bf16", 128, decode=True, heads_q=32, heads_kv=8, seq_q=1),
            Variant("bf16", 64, decode=True, heads_q=16, heads_kv=4, seq_q=4, causal=True,
                    kv_lens=True, page_size=256),
            Variant("bf16", 128, window=(-1, 64)),
        ]
        names = [v.name for v in cases]
        self.assertEqual(names[0], "attn_bf16_d128")
        self.assertEqual(names[1], "attn_f16_d64_v128_causal")
        self.assertEqual(names[2], "attn_bf16_d128_win256x0_cap30p0_s0p1")
        self.assertEqual(names[3], "attn_bf16_d128_s1em05")
        self.assertEqual(names[4], "decode_bf16_d128_h32x8_q1")  # gen-decode-variants' name
        self.assertEqual(names[5], "decode_bf16_d64_h16x4_q4_causal_lens_page256")
        self.assertEqual(names[6], "attn_bf16_d128_winux64")
        self.assertEqual(len(set(names)), len(names))
        for v in cases:
            self.assertEqual(Variant.parse(v.name), v)
            self.assertEqual(hash(Variant.parse(v.name)), hash(v))

    def test_normalisation(self):
        # The default scale (in f32) and FA2's causal window are the same kernels.
        self.assertEqual(Variant("bf16", 128, scale=1 / math.sqrt(128)), Variant("bf16", 128))
        self.assertNotEqual(Variant("bf16", 128, scale=0.1), Variant("bf16", 128))
        self.assertEqual(Variant("bf16", 64, window=(-1, 0)), Variant("bf16", 64, causal=True))
        self.assertEqual(Variant("bf16", 64, softcap=0), Variant("bf16", 64))

    def test_bad(self):
        for kw in (dict(dtype="f32", head_dim=64), dict(dtype="bf16", head_dim=60),
                   dict(dtype="bf16", head_dim=64, window=(-2, 0)),
                   dict(dtype="bf16", head_dim=64, scale=-1.0),
                   dict(dtype="bf16", head_dim=64, decode=True, heads_q=6, heads_kv=4, seq_q=1),
                   dict(dtype="bf16", head_dim=64, kv_lens=True)):
            with self.assertRaises(FlashError, msg=str(kw)):
                Variant(**kw)
        for name in ("attn_bf16", "attn_bf16_d128_bogus", "attn_bf16_d128_windowx",
                     "attn_bf16_d128_causal_win256x0_causal_x", "attn_bf16_winux0_d128"):
            with self.assertRaises(FlashError, msg=name):
                Variant.parse(name)

    def test_mlir(self):
        text = Variant("bf16", 64, 128, window=(16, 4), softcap=30, scale=0.2).mlir()
        self.assertIn("func.func @attn_bf16_d64_v128_win16x4_cap30p0_s0p2(", text)
        self.assertIn("memref<?x?x?x64xbf16, strided<[?, ?, ?, 1], offset: ?>>", text)
        self.assertIn("memref<?x?x?x128xbf16", text)
        self.assertIn("{window = array<i64: 16, 4>, softcap = 30.0 : f32, scale = 0.2 : f32}",
                      text)
        text = Variant("f16", 128, decode=True, heads_q=32, heads_kv=8, seq_q=1,
                       kv_lens=True, page_size=16).mlir()
        self.assertIn("%q: memref<?x32x1x128xf16", text)
        self.assertIn("%k: memref<?x8x16x128xf16", text)
        self.assertIn("kv_lens(%lens : memref<?xi32>) block_table(%table : memref<?x?xi32, "
                      "strided<[?, 1], offset: ?>>)", text)
        self.assertIn("%lse: memref<?x32x1xf32", text)


class Cache(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def test_compiler_id(self):
        a = fake_compiler(self.tmp)
        b = Compiler([sys.executable, FAKE_COMPILER, "{mlir}", "{out}", "--chip={chip}"])
        self.assertRegex(a.id, r"^[0-9a-f]{12}$")
        self.assertNotEqual(a.id, b.id)  # another command
        script = os.path.join(self.tmp, "cc.sh")
        for i, text in enumerate(("echo one", "echo two")):
            with open(script, "w") as f:
                f.write(text)
            os.utime(script, ns=(10**18 + i, 10**18 + i))  # as a rebuild changes it
            ids = Compiler(["bash", script, "{mlir}", "{out}"]).id
            if text == "echo one":
                first = ids
        self.assertNotEqual(first, ids)  # same command, another script
        # Every other part of the key: a listed file's content, the extra
        # environment; the same parts give the same id.
        extra = os.path.join(self.tmp, "pipeline.txt")
        with open(extra, "w") as f:
            f.write("v1")
        before = Compiler(["bash", script], files=[extra]).id
        self.assertEqual(before, Compiler(["bash", script], files=[extra]).id)
        with open(extra, "w") as f:
            f.write("v2")
        os.utime(extra, ns=(10**18 + 7, 10**18 + 7))
        self.assertNotEqual(before, Compiler(["bash", script], files=[extra]).id)
        self.assertNotEqual(Compiler(["bash", script], env={"X": "1"}).id,
                            Compiler(["bash", script], env={"X": "2"}).id)

    def test_template_checked_when_set(self):
        # An unknown or positional field, or a stray brace, is refused when
        # the command is set, not as a KeyError at the first cache miss.
        for arg in ("{chips}", "{0}", "${HOME}", "{", "}"):
            with self.assertRaisesRegex(flashmlir.FlashValueError, "compiler command argument"):
                Compiler(["cc", arg, "{mlir}", "{out}"])
        self.assertEqual(Compiler(["cc", "{{x}}", "--chip={chip}"]).argv("a", "b", "sm_90a"),
                         ["cc", "{x}", "--chip=sm_90a"])

    def test_filesystem_errors(self):
        # A cache directory that is a file, a lock path that is a directory:
        # FlashErrors naming the path, and nothing compiled.
        comp = fake_compiler(self.tmp)
        plain = os.path.join(self.tmp, "plain-file")
        open(plain, "w").close()
        with self.assertRaisesRegex(FlashError, "plain-file/sm_90a: Not a directory"):
            KernelCache(plain, comp, opener=FakeKernel).get(Variant("bf16", 64), "sm_90a")
        cache_dir = os.path.join(self.tmp, "cache")
        os.makedirs(os.path.join(cache_dir, "sm_90a", "attn_bf16_d64.lock"))
        with self.assertRaisesRegex(FlashError, r"attn_bf16_d64\.lock: Is a directory"):
            KernelCache(cache_dir, comp, opener=FakeKernel).get(Variant("bf16", 64), "sm_90a")
        self.assertEqual(compile_log(self.tmp), [])

    def test_chip(self):
        self.assertEqual(chip_for_device(9, 0), "sm_90a")
        self.assertEqual(chip_for_device(8, 0), "sm_80")

    def test_compile_on_miss(self):
        comp = fake_compiler(self.tmp)
        cache = KernelCache(self.tmp, comp, opener=FakeKernel)
        v = Variant("bf16", 128, causal=True)
        k = cache.get(v, "sm_90a")
        self.assertEqual(k.func, "attn_bf16_d128_causal")
        want = os.path.join(self.tmp, "sm_90a", f"attn_bf16_d128_causal-{comp.id}.so")
        self.assertEqual(k.path, want)
        self.assertTrue(os.path.isfile(want[:-3] + ".mlir"))
        note = json.load(open(want[:-3] + ".json"))
        self.assertEqual((note["variant"], note["chip"], note["compiler"]),
                         (v.name, "sm_90a", comp.id))
        self.assertIs(cache.get(v, "sm_90a"), k)
        # Another cache object (process) finds it on disk; another chip compiles.
        again = KernelCache(self.tmp, comp, opener=FakeKernel)
        self.assertEqual(again.get(v, "sm_90a").path, want)
        again.get(v, "sm_80")
        self.assertEqual(compile_log(self.tmp),
                         ["attn_bf16_d128_causal sm_90a " + compile_log(self.tmp)[0].split()[2],
                          "attn_bf16_d128_causal sm_80 " + compile_log(self.tmp)[1].split()[2]])

    def test_compile_failure(self):
        cache = KernelCache(self.tmp, fake_compiler(self.tmp, fail=True), opener=FakeKernel)
        with self.assertRaisesRegex(FlashError, r"(?s)compiling .*attn_bf16_d64-[0-9a-f]{12}\.mlir "
                                                r"failed \(exit 1\).*failing as asked"):
            cache.get(Variant("bf16", 64), "sm_90a")
        self.assertEqual(os.listdir(os.path.join(self.tmp, "sm_90a")).count("attn_bf16_d64.lock"), 1)
        self.assertFalse([f for f in os.listdir(os.path.join(self.tmp, "sm_90a"))
                          if f.endswith(".so")])

    def test_concurrent_first_calls_threads(self):
        cache = KernelCache(self.tmp, fake_compiler(self.tmp, sleep=0.3), opener=FakeKernel)
        v = Variant("f16", 64)
        got, errors = [], []
        barrier = threading.Barrier(8)

        def call():
            barrier.wait()
            try:
                got.append(cache.get(v, "sm_90a"))
            except Exception as ex:  # noqa: BLE001
                errors.append(ex)
        threads = [threading.Thread(target=call) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])
        self.assertEqual(len(compile_log(self.tmp)), 1)
        self.assertEqual(len({id(k) for k in got}), 1)

    def test_concurrent_first_calls_processes(self):
        comp = fake_compiler(self.tmp, sleep=0.5)
        code = (NO_TORCH + "from flashmlir.cache import Compiler, KernelCache; "
                "from flashmlir import Variant; "
                f"c = Compiler({comp.command!r}, env={comp.env!r}); "
                f"print(KernelCache({self.tmp!r}, c, opener=lambda p, f: p)"
                ".build(Variant('bf16', 96), 'sm_90a'))")
        procs = [subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
                 for _ in range(3)]
        outs = {p.communicate()[0] for p in procs}
        self.assertEqual([p.returncode for p in procs], [0, 0, 0])
        self.assertEqual(len(outs), 1)
        self.assertEqual(len(compile_log(self.tmp)), 1)

    def test_missing_variant_without_compiler(self):
        cache = KernelCache(self.tmp, False, opener=FakeKernel)
        v = Variant("bf16", 128, decode=True, heads_q=32, heads_kv=8, seq_q=1, kv_lens=True,
                    page_size=16)
        with self.assertRaises(FlashError) as cm:
            cache.get(v, "sm_90a")
        msg = str(cm.exception)
        self.assertIn("no compiled kernel for variant decode_bf16_d128_h32x8_q1_lens_page16 "
                      f"(chip sm_90a) in {self.tmp}, and no FlashMLIR compiler here", msg)
        self.assertIn("python3 -m flashmlir precompile --chip=sm_90a --cache-dir=DIR "
                      "decode_bf16_d128_h32x8_q1_lens_page16", msg)

    def test_without_compiler_any_compiler_id(self):
        # The GPU machine has no compiler: it takes what precompile left.
        v = Variant("bf16", 64)
        old = KernelCache(self.tmp, fake_compiler(self.tmp), opener=FakeKernel)
        path = old.build(v, "sm_90a")
        os.makedirs(os.path.join(self.tmp, "sm_90a"), exist_ok=True)
        # Other files of the directory are not artifacts of this variant.
        for junk in ("attn_bf16_d64-xyz.so", "attn_bf16_d64_causal-0123456789ab.so",
                     "attn_bf16_d64-0123456789ab.tmp1.2.so"):
            open(os.path.join(self.tmp, "sm_90a", junk), "w").close()
        self.assertEqual(KernelCache(self.tmp, False, opener=FakeKernel).get(v, "sm_90a").path,
                         path)
        with self.assertRaises(FlashError):
            KernelCache(self.tmp, False, opener=FakeKernel).get(v, "sm_80")

    def test_abi_mismatch(self):
        class Liar(FakeKernel):
            def __init__(self, path, func):
                super().__init__(path, func)
                self.abi = {"dtype": "f16", "head_dim": 64}
        cache = KernelCache(self.tmp, fake_compiler(self.tmp), opener=Liar)
        with self.assertRaisesRegex(FlashError, "its ABI says dtype='f16', the variant "
                                                "attn_bf16_d64 needs 'bf16'"):
            cache.get(Variant("bf16", 64), "sm_90a")

    def test_precompile_cli(self):
        env = dict(os.environ, FLASHMLIR_COMPILER=" ".join(
            [sys.executable, FAKE_COMPILER, "{mlir}", "{out}", "{chip}"]),
            FAKE_COMPILER_LOG=os.path.join(self.tmp, "compiles.log"))
        p = subprocess.run(flashmlir_cli("precompile", "--chip=sm_90a",
                                         f"--cache-dir={self.tmp}", "attn_bf16_d128_causal",
                                         "decode_bf16_d128_h32x8_q1"),
                           env=env, stdout=subprocess.PIPE)
        self.assertEqual(p.returncode, 0)
        self.assertEqual(len(p.stdout.decode().split()), 2)
        self.assertEqual([x.split()[0] for x in compile_log(self.tmp)],
                         ["attn_bf16_d128_causal", "decode_bf16_d128_h32x8_q1"])
        env["FLASHMLIR_COMPILER"] = "none"
        p = subprocess.run(flashmlir_cli("precompile", "--chip=sm_90a",
                                         f"--cache-dir={self.tmp}", "attn_bf16_d64"), env=env,
                           stderr=subprocess.PIPE)
        self.assertEqual(p.returncode, 1)
        self.assertIn("no FlashMLIR compiler found", p.stderr.decode())


class Binding(unittest.TestCase):
    """#14's hardening of the ctypes binding."""

    noload = os.path.join(FAKE_DIR, "libfake_artifact_noload.so")

    def test_nul_bytes(self):
        for path, func in ((self.noload + "\0x", "fake"), (self.noload, "fa\0ke"),
                           (os.fsencode(self.noload) + b"\0", "fake")):
            with self.assertRaisesRegex(FlashError, "contains a NUL byte"):
                flashmlir.Kernel(path, func)
        with self.assertRaisesRegex(FlashError, "contains a NUL byte"):
            flashmlir.load_runtime("/nonexistent\0/libflashrt.so")

    def test_wrong_types_are_flash_errors(self):
        # Every user error is a FlashError; a wrong type is also a TypeError
        # (and an empty compiler command a ValueError), as Python expects.
        for path, func in ((42, "fake"), (self.noload, 7)):
            with self.assertRaises(flashmlir.FlashTypeError):
                flashmlir.Kernel(path, func)
            with self.assertRaises(TypeError):
                flashmlir.Kernel(path, func)
        with self.assertRaisesRegex(FlashError, "empty compiler command"):
            Compiler([])
        with self.assertRaises(ValueError):
            Compiler("")

    def test_malformed_abi(self):
        lib = flashmlir.load_runtime()
        real = lib.flashrt_abi
        try:
            for raw, why in ((b'{"dtype": "bf16",', "not valid JSON"),
                             (b'{"dtype": "\xff"}', "not UTF-8"),
                             (b"[1, 2]", "not a JSON object"), (None, "not valid JSON")):
                lib.flashrt_abi = lambda handle, raw=raw: raw
                with self.assertRaisesRegex(FlashError, f"fake in .*noload.so: its ABI record "
                                                        f"is {why}"):
                    flashmlir.Kernel(self.noload, "fake")
        finally:
            lib.flashrt_abi = real
        with flashmlir.Kernel(self.noload, "fake") as k:
            self.assertEqual(k.abi["dtype"], "bf16")


class Allocator(unittest.TestCase):
    def test_callbacks(self):
        import ctypes
        lib = flashmlir.load_runtime()
        alloc = lib.mgpuMemAlloc
        alloc.restype, alloc.argtypes = ctypes.c_void_p, [ctypes.c_uint64, ctypes.c_void_p,
                                                          ctypes.c_bool]
        free = lib.mgpuMemFree
        free.restype, free.argtypes = None, [ctypes.c_void_p, ctypes.c_void_p]
        calls = []
        flashmlir.set_allocator(lambda n, s: calls.append(("alloc", n, s)) or 0x10000,
                                lambda p, s: calls.append(("free", p, s)))
        try:
            self.assertEqual(alloc(4096, 0x77, False), 0x10000)
            free(0x10000, 0x77)
            self.assertEqual(calls, [("alloc", 4096, 0x77), ("free", 0x10000, 0x77)])
            flashmlir.set_allocator(lambda n, s: 1 // 0, lambda p, s: None)
            self.assertIsNone(alloc(64, None, False))
            self.assertIn("the caller's allocator failed", lib.flashrt_last_error().decode())
            with self.assertRaisesRegex(FlashError, "give both"):
                flashmlir.set_allocator(lambda n, s: 0)
        finally:
            flashmlir.set_allocator()
        self.assertIsNone(flashmlir._allocator)


@unittest.skipIf(torch is None, "no PyTorch")
class TorchOp(unittest.TestCase):
    def meta(self, *shape, dtype=None, transpose=False):
        dtype = dtype or torch.bfloat16
        if transpose:  # BSHD storage as a BHSD view
            b, h, s, d = shape
            return torch.empty(b, s, h, d, dtype=dtype, device="meta").transpose(1, 2)
        return torch.empty(*shape, dtype=dtype, device="meta")

    def test_call_key_covers_every_variant_input(self):
        # flashmlir.attention's per-call key (ops._variant): a call that
        # differs from a cached one only in a capture's dtype or rank, a
        # region's text, ALiBi's rank or an option gets its own variant (or
        # its own error), never the cached one's kernel.
        from flashmlir import ops
        q, k = self.meta(2, 8, 100, 64), self.meta(2, 2, 100, 64)
        mask = ("^bb0(%b: index, %h: index, %i: index, %j: index, %c: memref<?xi32>):\n"
                "  %z = arith.constant 0 : index\n  %n = memref.dim %c, %z : memref<?xi32>\n"
                "  %t = arith.cmpi sle, %j, %n : index\n  flash.yield %t : i1\n")
        def variant(capture, text=mask, alibi=None, causal=False):
            return ops._variant(q, k, k, causal, None, None, None, None, None,
                                (alibi, None, text, [capture])).name
        i32 = torch.empty(2, dtype=torch.int32, device="meta")
        base = variant(i32)
        self.assertEqual(base, variant(i32))
        # The region takes an i32 vector: another capture type is refused,
        # not run by the i32 kernel.
        for other in (torch.empty(2, dtype=torch.float32, device="meta"),
                      torch.empty(2, 3, dtype=torch.int32, device="meta")):
            with self.assertRaisesRegex(FlashError, "capture 0"):
                variant(other)
        others = [variant(i32, causal=True), variant(i32, text=mask.replace("sle", "slt")),
                  variant(i32, alibi=torch.empty(8, dtype=torch.float32, device="meta"))]
        self.assertEqual(len(set(others + [base])), len(others) + 1, others)

    def test_backward(self):
        # A call whose q, k or v requires grad records the operator's
        # autograd formula (custom_op: register_autograd) and its backward
        # runs the _bwd variant of the forward's; an older torch, which has
        # no register_autograd, gets a FlashError instead of ungraded output.
        from flashmlir import ops
        import flashmlir
        q, k = self.meta(2, 8, 100, 64), self.meta(2, 2, 100, 64)
        var = ops._variant(q, k, k, True, None, 30.0, None, None, None).backward_of()
        self.assertEqual(var.name, "attn_bf16_d64_causal_cap30p0_bwd")
        self.assertEqual(flashmlir.variants.parse_name(var.name), var)
        # The kind is part of the key: the backward is another kernel.
        fwd = ops._variant(q, k, k, True, None, 30.0, None, None, None)
        self.assertNotEqual(fwd, var)
        self.assertNotEqual(fwd.name, var.name)
        # A backward takes neither a KV cache nor Dv != D: FlashError.
        V = flashmlir.variants.Variant
        for kw in (dict(decode=True, heads_q=8, heads_kv=2, seq_q=1), dict(head_dim_v=32)):
            with self.assertRaisesRegex(FlashError, "backward variant"):
                V("bf16", 64, backward=True, **kw)
        qg = q.clone().requires_grad_()
        if ops._registered == "library":
            with self.assertRaisesRegex(FlashError, r"torch >= 2\.4"):
                flashmlir.attention(qg, k, k, causal=True)
            with torch.no_grad():  # no grad wanted: the fake kernel runs
                self.assertEqual(flashmlir.attention(qg, k, k).shape, q.shape)
            return
        out = flashmlir.attention(qg, k, k, causal=True)
        self.assertTrue(out.requires_grad)
        dq, dk, dv = torch.ops.flashmlir.attention_backward(
            q, k, k, q, torch.empty(2, 8, 100, device="meta"), q, [], True)
        self.assertEqual((dq.shape, dk.shape, dv.shape), (q.shape, k.shape, k.shape))

    def test_registered(self):
        from flashmlir import ops
        want = "custom_op" if hasattr(torch.library, "custom_op") else "library"
        self.assertEqual(ops._registered, want)
        self.assertTrue(hasattr(torch.ops.flashmlir, "attention"))

    def test_fake_shapes_prefill(self):
        q = self.meta(2, 8, 100, 128, transpose=True)
        k, v = self.meta(2, 2, 300, 128), self.meta(2, 2, 300, 64)
        o, lse = torch.ops.flashmlir.attention(q, k, v, True, None, None, None, None, None)
        self.assertEqual(tuple(o.shape), (2, 8, 100, 64))
        self.assertEqual(o.device.type, "meta")
        self.assertEqual(o.dtype, torch.bfloat16)
        self.assertTrue(o.transpose(1, 2).is_contiguous())  # q's BSHD order kept
        self.assertEqual((tuple(lse.shape), lse.dtype), ((2, 8, 100), torch.float32))
        o2, lse2 = flashmlir.attention(q, k, v, causal=True, return_lse=True)
        self.assertEqual((o2.shape, lse2.shape), (o.shape, lse.shape))

    def test_fake_shapes_paged_decode(self):
        q = self.meta(3, 32, 1, 128)
        pool = self.meta(40, 8, 16, 128, transpose=True)
        lens = torch.empty(3, dtype=torch.int32, device="meta")
        table = torch.empty(3, 5, dtype=torch.int32, device="meta")
        o = flashmlir.attention(q, pool, pool, kv_lens=lens, block_table=table)
        self.assertEqual(tuple(o.shape), (3, 32, 1, 128))
        self.assertEqual(flashmlir.variant_for(q, pool, pool, kv_lens=lens, block_table=table).name,
                         "decode_bf16_d128_h32x8_q1_lens_page16")
        kv = self.meta(3, 8, 1000, 128)
        self.assertEqual(flashmlir.variant_for(q, kv, kv, causal=True, scale=0.5).name,
                         "attn_bf16_d128_causal_s0p5")  # decode kernels need kv_lens

    def test_fake_rejects_bad_inputs(self):
        q, k = self.meta(2, 8, 10, 128), self.meta(2, 3, 10, 128)
        with self.assertRaisesRegex(Exception, "not a multiple of k's 3"):
            torch.ops.flashmlir.attention(q, k, k, False, None, None, None, None, None)
        with self.assertRaisesRegex(FlashError, "unsupported dtype torch.float32"):
            flashmlir.attention(self.meta(1, 1, 1, 64, dtype=torch.float32),
                                *[self.meta(1, 1, 1, 64, dtype=torch.float32)] * 2)
        with self.assertRaisesRegex(FlashError, "kv_lens must be int32"):
            flashmlir.attention(q, q, q, kv_lens=torch.empty(2, device="meta"))

    def test_cpu_tensors(self):
        q = torch.zeros(1, 1, 1, 64, dtype=torch.bfloat16)
        with self.assertRaisesRegex(FlashError, "q is on cpu; flashmlir.attention runs on CUDA"):
            flashmlir.attention(q, q, q)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]] + sys.argv[3:])
