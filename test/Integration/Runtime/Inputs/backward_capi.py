"""flashrt_attention_backward's C API on the fake driver (run by
flashrt-backward.test): ctypes straight on libflashrt ($FLASHRT_LIB), no
PyTorch, pointer checks on. Prints one line per call: the status and the
runtime's message, for a valid call, the kinds refused both ways, each
misuse, an unknown "kind" and an empty problem.
"""
import ctypes
import os
import struct
import sys

fake_dir = sys.argv[1]
lib = ctypes.CDLL(os.environ["FLASHRT_LIB"], mode=ctypes.RTLD_GLOBAL)
lib.flashrt_last_error.restype = ctypes.c_char_p
P = ctypes.c_void_p
BF16, F16, F32 = 2, 1, 3


class Tensor(ctypes.Structure):
    _fields_ = [("data", P), ("sizes", ctypes.c_int64 * 4), ("strides", ctypes.c_int64 * 4),
                ("rank", ctypes.c_int32), ("dtype", ctypes.c_int32)]


def tensor(data, sizes, dtype=BF16):
    t = Tensor()
    t.data, t.rank, t.dtype = data, len(sizes), dtype
    stride = 1
    for i in reversed(range(len(sizes))):
        t.sizes[i], t.strides[i] = sizes[i], stride
        stride *= sizes[i]
    return t


def malloc(nbytes, fill=None):
    ptr = P()
    assert lib.flashrt_malloc(ctypes.byref(ptr), ctypes.c_size_t(nbytes)) == 0
    if fill is not None:
        buf = ctypes.create_string_buffer(fill, nbytes)
        assert lib.flashrt_memcpy_htod(ptr, buf, ctypes.c_size_t(nbytes)) == 0
    return ptr.value


def words(ptr, n):
    buf = ctypes.create_string_buffer(2 * n)
    assert lib.flashrt_memcpy_dtoh(buf, P(ptr), ctypes.c_size_t(2 * n)) == 0
    return struct.unpack(f"{n}H", buf.raw)


def open_entry(func):
    handle = P()
    rc = lib.flashrt_open(os.path.join(fake_dir, "libfake_artifact.so").encode(),
                          func.encode(), ctypes.byref(handle))
    return rc, handle


def report(what, rc):
    print(f"{what}: {rc} {lib.flashrt_last_error().decode()}")


B, HQ, HKV, SQ, SK, D = 2, 4, 2, 33, 70, 64
one = struct.pack("H", 0x3c00)  # bf16 1/128
shapes = {"q": (B, HQ, SQ, D), "k": (B, HKV, SK, D), "v": (B, HKV, SK, D),
          "o": (B, HQ, SQ, D), "do": (B, HQ, SQ, D), "dq": (B, HQ, SQ, D),
          "dk": (B, HKV, SK, D), "dv": (B, HKV, SK, D)}
t = {}
for name, s in shapes.items():
    n = s[0] * s[1] * s[2] * s[3]
    t[name] = tensor(malloc(2 * n, one * n), s)
t["lse"] = tensor(malloc(4 * B * HQ * SQ, struct.pack("f", 1.0) * (B * HQ * SQ)),
                  (B, HQ, SQ), F32)


def backward(handle, caps=None, ncaps=0, **override):
    a = dict(t, **override)
    ref = lambda name: ctypes.byref(a[name]) if a[name] is not None else None
    return lib.flashrt_attention_backward(
        handle, ref("q"), ref("k"), ref("v"), ref("o"), ref("lse"), ref("do"), caps,
        ctypes.c_int(ncaps), ref("dq"), ref("dk"), ref("dv"), None)


rc, bwd = open_entry("fake_bwd")
report("open fake_bwd", rc)
report("backward", backward(bwd))
report("gradients written", 0 if 0xffff not in words(t["dq"].data, B * HQ * SQ * D) else 1)
ms = ctypes.c_float(-1)
rc = lib.flashrt_time_backward_ms(bwd, *(ctypes.byref(t[n]) for n in ("q", "k", "v", "o",
                                                                       "lse", "do")),
                                  None, 0, *(ctypes.byref(t[n]) for n in ("dq", "dk", "dv")),
                                  None, 1, 3, ctypes.byref(ms))
report(f"time {ms.value} ms", rc)

# Each kind of entry through the other kind's functions.
refs = [ctypes.byref(t[n]) for n in ("q", "k", "v", "o", "lse")]
report("flashrt_attention", lib.flashrt_attention(bwd, *refs, None))
report("flashrt_time_ms", lib.flashrt_time_ms(bwd, *refs, None, 0, 1, ctypes.byref(ms)))
for func in ("fake", "fake_kv", "fake_cap"):
    rc, fwd = open_entry(func)
    report(f"backward on {func}", backward(fwd))
    lib.flashrt_close(fwd)

# Misuses: an error each, nothing launched.
host = ctypes.create_string_buffer(2 * B * HQ * SQ * D + 16)  # not device memory
host_addr = (ctypes.addressof(host) + 15) // 16 * 16
bad = dict(
    dout_f16=dict(do=tensor(t["do"].data, shapes["do"], F16)),
    lse_rank=dict(lse=tensor(t["lse"].data, (B, HQ, SQ, 1), F32)),
    lse_dtype=dict(lse=tensor(t["lse"].data, (B, HQ, SQ), BF16)),
    dk_heads=dict(dk=tensor(t["dk"].data, (B, 1, SK, D))),
    dv_length=dict(dv=tensor(t["dv"].data, (B, HKV, SK - 1, D))),
    dq_head_dim=dict(dq=tensor(t["dq"].data, (B, HQ, SQ, 32))),
    dq_over_q=dict(dq=t["q"]),
    dv_null=dict(dv=None),
    dout_host=dict(do=tensor(host_addr, shapes["do"])),
)
for what, override in bad.items():
    report(what, backward(bwd, **override))
cap = tensor(malloc(16), (4,), F32)
report("captures", backward(bwd, ctypes.byref(cap), 1))

# Without a query nothing runs and dK, dV are zeroed.
empty = {n: tensor(t[n].data, (B, HQ, 0, D)) for n in ("q", "o", "do", "dq")}
empty["lse"] = tensor(t["lse"].data, (B, HQ, 0), F32)
report("empty", backward(bwd, **empty))
report("dK zeroed", 0 if set(words(t["dk"].data, B * HKV * SK * D)) == {0} else 1)
lib.flashrt_close(bwd)

rc, kind = open_entry("fake_kind")
report("open fake_kind", rc)
print("done")
