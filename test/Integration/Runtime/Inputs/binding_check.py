"""CPU-only checks of the flashmlir binding (run by python-binding.test).

Needs no GPU and no PyTorch: the test artifact without GPU code opens without
a driver, and argument errors are found before PyTorch is imported.
"""
import os
import sys

import flashmlir

fake_dir = sys.argv[1]
noload = os.path.join(fake_dir, "libfake_artifact_noload.so")

lib = flashmlir.load_runtime()
print("runtime:", os.path.basename(flashmlir._lib_path))
assert flashmlir.load_runtime() is lib  # once per process

try:
    flashmlir.Kernel(os.path.join(fake_dir, "missing.so"), "attn")
except flashmlir.FlashError as ex:
    print("missing:", ex)

try:
    flashmlir.Kernel(noload, "nope")
except flashmlir.FlashError as ex:
    print("unknown func:", ex)

try:
    flashmlir.device_info()
except flashmlir.FlashError as ex:
    print("device_info:", ex)

with flashmlir.Kernel(noload, "fake") as k:
    print("abi:", k.abi["dtype"], k.abi["head_dim"], k.abi["lse"], k.abi["causal"])
    for args in (([1], [2], [3]), ("q", "k", "v")):
        try:
            k(*args)
        except TypeError as ex:
            print("non-tensor:", ex)

with flashmlir.Kernel(noload, "fake_paged") as k2:
    print("kv abi:", k2.abi["kv_lens"], k2.abi["paged"], k2.abi["q_shape"], k2.abi["kv_shape"])
    try:
        k2([1], [2], [3], kv_lens=[4])
    except TypeError as ex:
        print("non-tensor:", ex)

try:
    k(None, None, None)
except flashmlir.FlashError as ex:
    print("closed:", ex)

try:
    flashmlir.Kernel(42, "fake")
except TypeError as ex:
    print("bad path:", ex)
print("done")
