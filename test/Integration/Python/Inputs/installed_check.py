"""What pip-install.test checks in the installed package, run with no
flashmlir environment variables: where the runtime and compiler were found,
that an artifact opens and the operator is registered."""
import os
import sys

import flashmlir
from flashmlir.cache import find_compiler

assert not any(k.startswith(("FLASH", "PYTHONPATH")) for k in os.environ), os.environ
flashmlir.load_runtime()
print("runtime:", flashmlir._lib_path)
comp = find_compiler()
print("compiler:", comp and comp.command[1])
with flashmlir.Kernel(os.path.join(sys.argv[1], "libfake_artifact_noload.so"), "fake") as k:
    print("kernel:", k.func, k.abi["dtype"])
print("variant:", flashmlir.Variant("bf16", 128, causal=True).name)
from flashmlir import ops  # noqa: E402
print("op:", ops._registered or "no torch")
print("done")
