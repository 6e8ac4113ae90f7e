"""flashmlir.runtime: the ctypes binding of libflashrt (re-exported by the
package: flashmlir.Kernel, load_runtime, device_info, set_allocator).

Kernel runs one entry point of a compiled artifact (libNAME.so) that has an
ABI record, through flashrt_attention* (a backward entry, ABI "kind":
"backward", through flashrt_attention_backward), on PyTorch CUDA tensors;
CombineKernel runs a merge kernel (flashmlir.variants.Combine), which has
none, through its MLIR C interface (flashrt_invoke on the GPU, a direct
call on the CPU). Tensors are in logical [batch, heads, seq, head_dim] order
with any strides; kernels run on PyTorch's current stream and return without
waiting, like a PyTorch op. Every failure is a FlashError carrying the
runtime's message. The binding imports (and opens artifacts) without
PyTorch. It sits right above flashmlir.errors and imports nothing else of
the package.
"""

import ctypes
import json
import os
import struct
import threading

from .errors import FlashError, FlashTypeError

__all__ = ["Kernel", "CombineKernel", "load_runtime", "device_info", "set_allocator",
           "use_torch_allocator"]


class _Tensor(ctypes.Structure):
    # flashrt_tensor; `dtype` sits in what is padding to callers not naming it.
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("sizes", ctypes.c_int64 * 4),
        ("strides", ctypes.c_int64 * 4),
        ("rank", ctypes.c_int32),
        ("dtype", ctypes.c_int32),
    ]


_STATUS = {
    1: "invalid argument",
    2: "no driver",
    3: "no device",
    4: "wrong GPU architecture",
    5: "load error",
    6: "launch error",
    7: "CUDA error",
}

_lib = None
_lib_path = None


def _candidates(path):
    if path:
        return [path]
    here = os.path.dirname(os.path.abspath(__file__))
    repo = os.path.dirname(os.path.dirname(here))
    out = []
    if os.environ.get("FLASHRT_LIB"):
        out.append(os.environ["FLASHRT_LIB"])
    out.append(os.path.join(here, "libflashrt.so"))
    try:
        from . import _install_paths  # written by setup.py at install time
        out += [os.path.join(d, "libflashrt.so") for d in _install_paths.RUNTIME_DIRS]
    except ImportError:
        pass
    if os.environ.get("FLASH_BUILD_DIR"):
        out.append(os.path.join(os.environ["FLASH_BUILD_DIR"], "lib", "libflashrt.so"))
    out.append(os.path.join(repo, "build", "lib", "libflashrt.so"))
    return out


def _check_path(what, value):
    """ctypes would cut a str at its first NUL and open another file."""
    if "\0" in os.fsdecode(value):
        raise FlashError(f"{what} contains a NUL byte: {os.fsdecode(value)!r}")


def load_runtime(path=None):
    """Loads libflashrt.so once per process and returns it (a ctypes.CDLL).

    Looks at `path`, else $FLASHRT_LIB, then the copy bundled in this package
    (pip install), then the build or install directories recorded when the
    package was installed, $FLASH_BUILD_DIR/lib and the source checkout's
    build/lib. It is loaded with RTLD_GLOBAL: artifacts leave their mgpu*
    symbols for it to provide.
    """
    global _lib, _lib_path
    if path is not None:
        _check_path("runtime path", path)
    tried = _candidates(path)
    if _lib is not None:
        if path is None or os.path.realpath(path) == os.path.realpath(_lib_path):
            return _lib
        raise FlashError(f"libflashrt is already loaded from {_lib_path}, not {path}")
    found = next((p for p in tried if os.path.isfile(p)), None)
    if found is None:
        raise FlashError("libflashrt.so not found (tried: " + ", ".join(tried) +
                         "); set FLASHRT_LIB or pass its path to load_runtime()")
    try:
        lib = ctypes.CDLL(found, mode=ctypes.RTLD_GLOBAL)
    except OSError as ex:
        raise FlashError(f"cannot load {found}: {ex}") from None

    ptr, i32 = ctypes.c_void_p, ctypes.c_int
    lib.flashrt_last_error.restype = ctypes.c_char_p
    lib.flashrt_last_error.argtypes = []
    lib.flashrt_open.restype = i32
    lib.flashrt_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ptr)]
    lib.flashrt_abi.restype = ctypes.c_char_p
    lib.flashrt_abi.argtypes = [ptr]
    lib.flashrt_close.restype = None
    lib.flashrt_close.argtypes = [ptr]
    lib.flashrt_attention.restype = i32
    # Tensor arguments are addresses of packed flashrt_tensor (see _ArgBlock).
    lib.flashrt_attention.argtypes = [ptr] * 7
    if hasattr(lib, "flashrt_attention_kv"):
        lib.flashrt_attention_kv.restype = i32
        lib.flashrt_attention_kv.argtypes = [ptr] * 9
    if hasattr(lib, "flashrt_attention_captures"):
        lib.flashrt_attention_captures.restype = i32
        lib.flashrt_attention_captures.argtypes = [ptr] * 7 + [i32] + [ptr] * 3
    if hasattr(lib, "flashrt_attention_backward"):
        lib.flashrt_attention_backward.restype = i32
        lib.flashrt_attention_backward.argtypes = [ptr] * 8 + [i32] + [ptr] * 4
    lib.flashrt_set_async.restype = None
    lib.flashrt_set_async.argtypes = [i32]
    lib.flashrt_set_pointer_checks.restype = None
    lib.flashrt_set_pointer_checks.argtypes = [i32]
    lib.flashrt_device_info.restype = i32
    lib.flashrt_device_info.argtypes = [ctypes.POINTER(i32)] * 3
    if hasattr(lib, "flashrt_set_allocator"):
        lib.flashrt_set_allocator.restype = i32
        lib.flashrt_set_allocator.argtypes = [_ALLOC_FN, _FREE_FN, ptr]
    # PyTorch launches asynchronously; so do we (errors in a running kernel
    # surface at the next synchronisation, as with PyTorch's own kernels).
    lib.flashrt_set_async(1)
    # PyTorch CUDA tensors are device memory, in bounds of their storage
    # (PyTorch checks views) and Kernel checks their device: the driver
    # queries per tensor would only add latency to small launches.
    lib.flashrt_set_pointer_checks(0)
    _lib, _lib_path = lib, found
    return lib


def _error(lib, rc, what):
    msg = (lib.flashrt_last_error() or b"").decode(errors="replace")
    why = getattr(_alloc_state, "error", None)
    if why:
        _alloc_state.error = None
        msg += f" ({why})"
    return FlashError(f"{what}: {msg or _STATUS.get(rc, 'error %d' % rc)}")


# Scratch memory of the kernels (split-KV partials) through the caller's
# allocator: flashrt_set_allocator.
_ALLOC_FN = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p)
_FREE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p)
_alloc_state = threading.local()
_allocator = None  # (alloc, free, ctypes callbacks) of the installed allocator
_retired = []  # earlier callbacks: a call on another thread may still be in one


def set_allocator(alloc=None, free=None):
    """Routes the kernels' scratch allocations through Python callables:
    alloc(nbytes, stream) -> device address (int) and free(address, stream),
    stream being the CUstream as an int (0: the legacy default stream).
    free must be stream-ordered: work queued on `stream` may still use the
    block. With no arguments the runtime's own allocator is used again.
    flashmlir installs PyTorch's caching allocator by itself when a kernel
    is opened with CUDA available (use_torch_allocator)."""
    global _allocator
    lib = load_runtime()
    if _allocator is not None:
        _retired.append(_allocator)
    if not hasattr(lib, "flashrt_set_allocator"):
        raise FlashError("this libflashrt has no flashrt_set_allocator; use a newer runtime")
    if (alloc is None) != (free is None):
        raise FlashError("set_allocator: give both alloc and free, or neither")
    if alloc is None:
        rc = lib.flashrt_set_allocator(_ALLOC_FN(), _FREE_FN(), None)
        _allocator = None
    else:
        def c_alloc(nbytes, stream, _user):
            try:
                return alloc(nbytes, stream or 0) or None
            except BaseException as ex:  # noqa: BLE001 - must not unwind into C
                _alloc_state.error = f"allocator: {type(ex).__name__}: {ex}"
                return None

        def c_free(ptr, stream, _user):
            try:
                free(ptr, stream or 0)
            except BaseException as ex:  # noqa: BLE001
                _alloc_state.error = f"free: {type(ex).__name__}: {ex}"

        callbacks = (_ALLOC_FN(c_alloc), _FREE_FN(c_free))
        rc = lib.flashrt_set_allocator(callbacks[0], callbacks[1], None)
        if rc == 0:
            _allocator = (alloc, free, callbacks)
    if rc:
        raise _error(lib, rc, "set_allocator")


def use_torch_allocator():
    """Scratch memory from PyTorch's CUDA caching allocator, on the call's
    stream: accounted by PyTorch, and taken from a CUDA graph's private pool
    while the stream is being captured (so captures work and replay)."""
    torch = _get_torch()
    raw_alloc = torch._C._cuda_cudaCachingAllocator_raw_alloc
    raw_delete = torch._C._cuda_cudaCachingAllocator_raw_delete
    set_allocator(lambda n, stream: raw_alloc(n, stream), lambda p, stream: raw_delete(p))


def device_info():
    """(cc_major, cc_minor, num_sms) of the device the runtime uses."""
    lib = load_runtime()
    major, minor, sms = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    rc = lib.flashrt_device_info(ctypes.byref(major), ctypes.byref(minor), ctypes.byref(sms))
    if rc:
        raise _error(lib, rc, "device_info")
    return major.value, minor.value, sms.value


_torch = None
_torch_dtypes = None
_raw_stream = None  # device index -> its current cudaStream_t, as an int
_current_device = None


def _get_torch():
    """PyTorch, imported on first use; None without it."""
    global _torch, _torch_dtypes, _raw_stream, _current_device
    if _torch is None:
        try:
            import torch
        except ImportError:
            torch = False
        if torch:
            _torch_dtypes = {torch.float16: 1, torch.bfloat16: 2, torch.float32: 3,
                             torch.int32: 4}
            _raw_stream = getattr(torch._C, "_cuda_getCurrentRawStream", None) or (
                lambda d: torch.cuda.current_stream(d).cuda_stream)
            _current_device = getattr(torch._C, "_cuda_getDevice", None) or torch.cuda.current_device
        _torch = torch
    return _torch or None


def _torch_cuda_context():
    """Makes PyTorch initialise CUDA first where it can, so that the runtime
    finds PyTorch's context current and loads the kernel into it."""
    torch = _get_torch()
    try:
        if torch is not None and torch.cuda.is_available():
            torch.cuda.init()
            torch.cuda.current_device()
            if _allocator is None and hasattr(_lib, "flashrt_set_allocator"):
                use_torch_allocator()
    except Exception:  # noqa: BLE001 - the runtime then picks a device itself
        pass


# flashrt_tensor as bytes (data, sizes[4], strides[4], rank, dtype; 80 bytes,
# no padding): packing into a reused buffer is several times cheaper than
# building ctypes objects, and small launches are bound by this overhead.
_TENSOR = struct.Struct("=Q4q4qii")
assert _TENSOR.size == ctypes.sizeof(_Tensor)


class _ArgBlock:
    """`n` flashrt_tensor: seven for a forward call (Q, K, V, O, LSE, kv_lens,
    block_table), nine for a backward one (Q, K, V, O, LSE, dO, dQ, dK, dV);
    one per Kernel and thread."""

    def __init__(self, n=7):
        self.buf = ctypes.create_string_buffer(n * _TENSOR.size)
        base = ctypes.addressof(self.buf)
        self.ptrs = [base + i * _TENSOR.size for i in range(n)]

    def pack(self, i, name, t):
        code = _torch_dtypes.get(t.dtype, 0)
        if code == 0:
            raise FlashError(f"{name} has unsupported dtype {t.dtype}")
        shape = t.shape
        n = len(shape)
        if n == 4:
            _TENSOR.pack_into(self.buf, i * _TENSOR.size, t.data_ptr(), *shape, *t.stride(), 4, code)
        elif 0 < n < 4:
            pad = (0,) * (4 - n)
            _TENSOR.pack_into(self.buf, i * _TENSOR.size, t.data_ptr(), *shape, *pad,
                              *t.stride(), *pad, n, code)
        else:
            raise FlashError(f"{name} has rank {n}, expected 4 (3 for lse, 1 for kv_lens, "
                             "2 for block_table)")


class _CaptureBlock:
    """The flashrt_tensor array of an entry's capture tensors (rank 0 to 4)."""

    def __init__(self, n):
        self.buf = ctypes.create_string_buffer(max(n, 1) * _TENSOR.size)
        self.ptr = ctypes.addressof(self.buf)

    def pack(self, i, t, code):
        n = t.dim()
        pad = (0,) * (4 - n)
        _TENSOR.pack_into(self.buf, i * _TENSOR.size, t.data_ptr(), *t.shape, *pad,
                          *t.stride(), *pad, n, code)


_DTYPE_NAMES = {1: "f16", 2: "bf16", 3: "f32", 4: "i32"}

# How each kind of entry is called, for the errors that name the other one.
_FORWARD_CALL = ("kernel(q, k, v, out=None, lse=None, kv_lens=None, block_table=None, "
                 "captures=None, block_mask=None) -> (out, lse) or out")
_BACKWARD_CALL = ("kernel(q, k, v, o, lse, do, dq=None, dk=None, dv=None, captures=None) "
                  "-> (dq, dk, dv)")
_FORWARD_ONLY = ("out", "kv_lens", "block_table", "block_mask")
_BACKWARD_ONLY = ("o", "do", "dq", "dk", "dv")


def _empty_like_layout(torch, q, dv):
    """Uninitialised [B, Hq, Sq, dv] in q's storage order (BSHD stays BSHD)."""
    b, h, s = q.shape[0], q.shape[1], q.shape[2]
    if q.is_contiguous():
        return torch.empty((b, h, s, dv), dtype=q.dtype, device=q.device)
    if q.transpose(1, 2).is_contiguous():
        return torch.empty((b, s, h, dv), dtype=q.dtype, device=q.device).transpose(1, 2)
    order = sorted(range(4), key=lambda d: (-q.stride(d), d))
    if order[-1] != 3:
        order = [0, 1, 2, 3]
    shape = [q.shape[d] if d != 3 else dv for d in order]
    t = torch.empty(shape, dtype=q.dtype, device=q.device)
    return t.permute([order.index(d) for d in range(4)])


def _parse_abi(raw):
    """The ABI record (bytes of JSON) as a dict; FlashError if malformed."""
    try:
        abi = json.loads((raw or b"").decode("utf-8"))
    except UnicodeDecodeError as ex:
        raise FlashError(f"its ABI record is not UTF-8 ({ex.reason} at byte {ex.start})") from None
    except ValueError as ex:
        raise FlashError(f"its ABI record is not valid JSON ({ex})") from None
    if not isinstance(abi, dict):
        raise FlashError(f"its ABI record is not a JSON object: {raw[:80]!r}")
    return abi


class Kernel:
    """One entry point of an artifact: Kernel("libattn.so", "attn")."""

    # Public as flashmlir.Kernel: reprs of the class name it so.
    __module__ = "flashmlir"

    def __init__(self, artifact_path, func):
        if not isinstance(artifact_path, (str, bytes, os.PathLike)):
            raise FlashTypeError(f"artifact_path must be a path, not {type(artifact_path).__name__}")
        if not isinstance(func, str):
            raise FlashTypeError(f"func must be a str, not {type(func).__name__}")
        self._handle = None
        _check_path("artifact path", artifact_path)
        _check_path("function name", func)
        self._lib = load_runtime()
        self._tls = threading.local()
        self.artifact_path = os.fsdecode(artifact_path)
        self.func = func
        _torch_cuda_context()
        handle = ctypes.c_void_p()
        rc = self._lib.flashrt_open(os.fsencode(artifact_path), func.encode(), ctypes.byref(handle))
        if rc:
            raise _error(self._lib, rc, f"cannot open {func} in {self.artifact_path}")
        self._handle = handle
        try:
            self.abi = _parse_abi(self._lib.flashrt_abi(handle))
        except FlashError as ex:
            self.close()
            raise FlashError(f"{func} in {self.artifact_path}: {ex}") from None
        # flash.attention_backward entries ("kind": "backward"; records
        # without "kind" are forward ones).
        self.kind = "backward" if self.abi.get("kind") == "backward" else "forward"
        self._backward = self.kind == "backward"
        if self._backward and not hasattr(self._lib, "flashrt_attention_backward"):
            self.close()
            raise FlashError(f"{func} in {self.artifact_path} is a backward entry, but this "
                             "libflashrt has no flashrt_attention_backward; use a newer runtime")
        self._has_lse = bool(self.abi.get("lse"))
        self._dv = int(self.abi.get("head_dim_v") or self.abi.get("head_dim") or 0)
        # Entries over a KV cache take kv_lens and/or a block table.
        self._serving = bool(self.abi.get("kv_lens")) or bool(self.abi.get("paged"))
        # Entries with a score_mod / mask_mod take their capture tensors.
        self._captures = self.abi.get("captures") or []
        if not isinstance(self._captures, list) or not all(
                isinstance(c, dict) for c in self._captures):
            self.close()
            raise FlashError(f"{func} in {self.artifact_path}: its ABI record's \"captures\" "
                             "is not a list of objects")

    def _with_block_mask(self, captures, hint):
        """captures with the block_mask hint inserted where the ABI's
        "block_mask" puts it among them (its "arg")."""
        if hint is None:
            return captures
        record = self.abi.get("block_mask")
        if not isinstance(record, dict):
            raise FlashError(f"{self.func} takes no block_mask hint (its ABI names none): "
                             "pass block_mask=None")
        args = [c.get("arg") for c in self._captures]
        if record.get("arg") not in args:
            raise FlashError(f"{self.func}: its ABI's block_mask (argument "
                             f"{record.get('arg')}) is none of its captures {args}")
        captures = list(captures or ())
        captures.insert(args.index(record["arg"]), hint)
        return captures

    def _check_captures(self, captures, tensor):
        """The capture tensors against the ABI's \"captures\" (count, type, dtype,
        rank); the runtime checks the rest (layout, sizes, device memory)."""
        want = self._captures
        captures = list(captures or ())
        if len(captures) != len(want):
            kinds = ", ".join(f"{c.get('dtype')} rank {c.get('rank')}" for c in want)
            raise FlashError(f"{self.func} takes {len(want)} capture tensor(s)"
                             f"{' (' + kinds + ')' if want else ''}, got {len(captures)}")
        for i, (t, c) in enumerate(zip(captures, want)):
            if not isinstance(t, tensor):
                raise FlashTypeError(f"capture {i} must be a torch.Tensor, not {type(t).__name__}")
            got = _DTYPE_NAMES.get(_torch_dtypes.get(t.dtype, 0))
            if got != c.get("dtype"):
                raise FlashError(f"capture {i} is {t.dtype} but {self.func} takes "
                                 f"{c.get('dtype')}")
            if t.dim() != c.get("rank") or t.dim() > 4:
                raise FlashError(f"capture {i} has rank {t.dim()} (shape {tuple(t.shape)}) "
                                 f"but {self.func} takes rank {c.get('rank')}")
        return captures

    def __call__(self, q, k, v, *args, **kwargs):
        """Runs the entry: a forward one as kernel(q, k, v, out=None, lse=None,
        kv_lens=None, block_table=None, captures=None, block_mask=None) (see
        _forward), a backward one (kind "backward") as kernel(q, k, v, o,
        lse, do, dq=None, dk=None, dv=None, captures=None) -> (dq, dk, dv)
        (see _backward). Calling an entry the other kind's way is a
        FlashError naming its own call."""
        if self._backward:
            return self._run_backward(q, k, v, *args, **kwargs)
        return self._forward(q, k, v, *args, **kwargs)

    def _other_kind(self, names):
        """The error of a call with arguments only the other kind takes."""
        are = "is" if len(names) == 1 else "are"
        if self._backward:
            return FlashError(f"{self.func} is a backward entry (flash.attention_backward): "
                              f"call it as {_BACKWARD_CALL}; {', '.join(names)} {are} for "
                              "forward entries")
        return FlashError(f"{self.func} is a forward entry (flash.attention): call it as "
                          f"{_FORWARD_CALL}; {', '.join(names)} {are} for backward entries")

    def _unexpected(self, other, theirs):
        """The error for keyword arguments `other` that this kind does not take."""
        names = sorted(other)
        if any(n in theirs for n in names):
            return self._other_kind([n for n in names if n in theirs])
        return FlashTypeError(f"{self.func}() got an unexpected keyword argument {names[0]!r}")

    def _forward(self, q, k, v, out=None, lse=None, kv_lens=None, block_table=None,
                 captures=None, block_mask=None, **other):
        """Attention of q, k, v into out (and lse, f32 [B, Hq, Sq]), allocated
        when not given. Returns (out, lse) if the kernel writes LSE, else out.

        Entries whose ABI has "kv_lens" take kv_lens (int32 CUDA [B]: valid
        keys per sequence); "paged" ones block_table (int32 CUDA [B,
        pages_per_seq], unit inner stride) with k/v the page pools [pages,
        Hkv, page_size, D] (e.g. a [pages, page_size, Hkv, D] pool passed as
        x.transpose(1, 2)).

        Entries whose ABI lists "captures" (the operands of a score_mod /
        mask_mod) take them as captures=[t0, t1, ...], CUDA tensors of the
        dtypes and ranks listed, in that order; FlashError on a mismatch.
        An entry whose ABI names a "block_mask" takes its hint (int32
        [B|1, Hq|1, R, 4], contiguous) as block_mask=, or among the captures
        at its place."""
        if self._handle is None:
            raise FlashError(f"{self.func}: the kernel is closed")
        if other:
            raise self._unexpected(other, _BACKWARD_ONLY)
        torch = _get_torch()
        tensor = torch.Tensor if torch is not None else ()
        for name, t in (("q", q), ("k", k), ("v", v), ("out", out), ("lse", lse),
                        ("kv_lens", kv_lens), ("block_table", block_table)):
            if not isinstance(t, tensor) and (t is not None or name in ("q", "k", "v")):
                raise FlashTypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        # kernel(q, k, v, o, lse, do) puts dO where kv_lens ([B]) goes.
        if kv_lens is not None and kv_lens.dim() == 4:
            raise self._other_kind(["o", "lse", "do"])
        captures = self._with_block_mask(captures, block_mask)
        captures = self._check_captures(captures, tensor)
        # The runtime leaves the pointer checks to PyTorch (see load_runtime),
        # so the devices are checked here.
        device = q.get_device()
        if device < 0:
            raise FlashError(f"q is on {q.device}; pass CUDA tensors")
        if out is None:
            out = _empty_like_layout(torch, q, self._dv or q.shape[3])
        if lse is None and self._has_lse:
            lse = torch.empty(q.shape[0], q.shape[1], q.shape[2], dtype=torch.float32,
                              device=q.device)
        block = getattr(self._tls, "block", None)
        if block is None:
            block = self._tls.block = _ArgBlock()
        for i, (name, t) in enumerate((("q", q), ("k", k), ("v", v), ("out", out), ("lse", lse),
                                       ("kv_lens", kv_lens), ("block_table", block_table))):
            if t is None:
                continue
            if t.get_device() != device:
                raise FlashError(f"{name} is on {t.device}, q on cuda:{device}")
            block.pack(i, name, t)
        p = block.ptrs
        lse_ptr = p[4] if lse is not None else None
        if captures:
            if not hasattr(self._lib, "flashrt_attention_captures"):
                raise FlashError(f"{self.func}: this libflashrt has no "
                                 "flashrt_attention_captures; use a newer runtime")
            caps = getattr(self._tls, "captures", None)
            if caps is None or len(caps.buf) < len(captures) * _TENSOR.size:
                caps = self._tls.captures = _CaptureBlock(len(captures))
            for i, t in enumerate(captures):
                if t.get_device() != device:
                    raise FlashError(f"capture {i} is on {t.device}, q on cuda:{device}")
                caps.pack(i, t, _torch_dtypes[t.dtype])
            fn = self._lib.flashrt_attention_captures
            args = (self._handle, p[0], p[1], p[2], p[5] if kv_lens is not None else None,
                    p[6] if block_table is not None else None, caps.ptr, len(captures),
                    p[3], lse_ptr)
        elif self._serving or kv_lens is not None or block_table is not None:
            if not hasattr(self._lib, "flashrt_attention_kv"):
                raise FlashError(f"{self.func}: this libflashrt has no flashrt_attention_kv "
                                 "(kv_lens / block_table); use a newer runtime")
            fn = self._lib.flashrt_attention_kv
            args = (self._handle, p[0], p[1], p[2], p[5] if kv_lens is not None else None,
                    p[6] if block_table is not None else None, p[3], lse_ptr)
        else:
            fn = self._lib.flashrt_attention
            args = (self._handle, p[0], p[1], p[2], p[3], lse_ptr)
        if _current_device() == device:
            rc = fn(*args, _raw_stream(device))
        else:
            with torch.cuda.device(device):
                rc = fn(*args, _raw_stream(device))
        if rc:
            raise _error(self._lib, rc, self.func)
        return (out, lse) if self._has_lse else out

    def _run_backward(self, q, k, v, o=None, lse=None, do=None, dq=None, dk=None, dv=None,
                      captures=None, **other):
        """The gradients (dq, dk, dv) of L = sum(do * O) for O = attention(q,
        k, v), given the forward's o and lse (f32 [B, Hq, Sq], natural log)
        and do = dL/dO (like o). dq, dk and dv are written into the given
        tensors, else allocated like q, k and v (their storage order kept).
        ALiBi's slopes and a score_mod / mask_mod's tensors go in captures,
        in the order of the ABI's "captures"."""
        if self._handle is None:
            raise FlashError(f"{self.func}: the kernel is closed")
        if other:
            raise self._unexpected(other, _FORWARD_ONLY)
        if o is None or lse is None or do is None:
            raise FlashError(f"{self.func} is a backward entry (flash.attention_backward): "
                             f"call it as {_BACKWARD_CALL}; o, lse and do (the forward's "
                             "output and LSE, and dL/dO) are required")
        torch = _get_torch()
        tensor = torch.Tensor if torch is not None else ()
        named = (("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse), ("do", do),
                 ("dq", dq), ("dk", dk), ("dv", dv))
        for name, t in named:
            optional = name in ("dq", "dk", "dv")
            if not isinstance(t, tensor) and (t is not None or not optional):
                raise FlashTypeError(f"{name} must be a torch.Tensor, not {type(t).__name__}")
        captures = self._check_captures(captures, tensor)
        device = q.get_device()
        if device < 0:
            raise FlashError(f"q is on {q.device}; pass CUDA tensors")
        if dq is None:
            dq = _empty_like_layout(torch, q, q.shape[3])
        if dk is None:
            dk = _empty_like_layout(torch, k, k.shape[3])
        if dv is None:
            dv = _empty_like_layout(torch, v, v.shape[3])
        block = getattr(self._tls, "backward", None)
        if block is None:
            block = self._tls.backward = _ArgBlock(9)
        for i, (name, t) in enumerate((("q", q), ("k", k), ("v", v), ("o", o), ("lse", lse),
                                       ("do", do), ("dq", dq), ("dk", dk), ("dv", dv))):
            if t.get_device() != device:
                raise FlashError(f"{name} is on {t.device}, q on cuda:{device}")
            block.pack(i, name, t)
        caps_ptr = None
        if captures:
            caps = getattr(self._tls, "captures", None)
            if caps is None or len(caps.buf) < len(captures) * _TENSOR.size:
                caps = self._tls.captures = _CaptureBlock(len(captures))
            for i, t in enumerate(captures):
                if t.get_device() != device:
                    raise FlashError(f"capture {i} is on {t.device}, q on cuda:{device}")
                caps.pack(i, t, _torch_dtypes[t.dtype])
            caps_ptr = caps.ptr
        p = block.ptrs
        args = (self._handle, p[0], p[1], p[2], p[3], p[4], p[5], caps_ptr, len(captures),
                p[6], p[7], p[8])
        fn = self._lib.flashrt_attention_backward
        if _current_device() == device:
            rc = fn(*args, _raw_stream(device))
        else:
            with torch.cuda.device(device):
                rc = fn(*args, _raw_stream(device))
        if rc:
            raise _error(self._lib, rc, self.func)
        return dq, dk, dv

    def close(self):
        """Unloads the artifact (also done when the Kernel is collected)."""
        if self._handle is not None:
            self._lib.flashrt_close(self._handle)
            self._handle = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __repr__(self):
        return f"Kernel({self.artifact_path!r}, {self.func!r})"


# ---------------------------------------------------------------------------
# Merge kernels (flashmlir.combine): an entry with no ABI record, called
# through its MLIR C interface with memref descriptors built here.

def _descriptor(t):
    """An MLIR memref descriptor {allocated, aligned, offset, sizes, strides}
    of tensor t (its data pointer already includes the storage offset)."""
    n = t.dim()

    class Desc(ctypes.Structure):
        _fields_ = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p),
                    ("offset", ctypes.c_int64), ("sizes", ctypes.c_int64 * n),
                    ("strides", ctypes.c_int64 * n)]

    return Desc(t.data_ptr(), t.data_ptr(), 0, (ctypes.c_int64 * n)(*t.shape),
                (ctypes.c_int64 * n)(*t.stride()))


class CombineKernel:
    """The C-interface entry `_mlir_ciface_<func>` of a compiled combine."""

    def __init__(self, artifact_path, func):
        _check_path("artifact path", artifact_path)
        self.artifact_path = os.fsdecode(artifact_path)
        self.func = func
        self.abi = None
        self.gpu = True
        with open(self.artifact_path, "rb") as f:  # host-only artifacts need no runtime
            self.gpu = b"mgpuLaunchKernel" in f.read()
        if self.gpu:
            self._rt = load_runtime()  # RTLD_GLOBAL: the artifact's mgpu* symbols
            if not hasattr(self._rt, "flashrt_invoke"):
                raise FlashError("this libflashrt has no flashrt_invoke; use a newer runtime")
            self._rt.flashrt_invoke.restype = ctypes.c_int
            self._rt.flashrt_invoke.argtypes = [ctypes.c_void_p, ctypes.c_int,
                                                ctypes.POINTER(ctypes.c_void_p), ctypes.c_void_p]
            _torch_cuda_context()  # the constructor loads the cubin into PyTorch's context
        try:
            self._lib = ctypes.CDLL(os.path.abspath(self.artifact_path))
            self._entry = getattr(self._lib, "_mlir_ciface_" + func)
        except (OSError, AttributeError) as ex:
            raise FlashError(f"cannot open {func} in {self.artifact_path}: {ex}") from None
        self._entry.restype = None
        self._entry.argtypes = [ctypes.c_void_p] * 4

    def __call__(self, parts_o, parts_lse, out, lse):
        descs = [_descriptor(t) for t in (parts_o, parts_lse, out, lse)]
        ptrs = [ctypes.addressof(d) for d in descs]
        if not self.gpu:
            self._entry(*ptrs)
            return
        dev = out.get_device()
        args = (ctypes.c_void_p * 4)(*ptrs)
        rc = self._rt.flashrt_invoke(ctypes.cast(self._entry, ctypes.c_void_p), 4, args,
                                     _raw_stream(dev))
        if rc:
            raise _error(self._rt, rc, self.func)

    def __repr__(self):
        return f"CombineKernel({self.artifact_path!r}, {self.func!r})"
