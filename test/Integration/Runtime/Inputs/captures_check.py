"""CPU checks of the binding's captures= (run by python-captures.test).

Opens the test artifact's fake_cap entry (ABI "captures": i32 rank 2, f32
rank 1) without GPU code and calls it with CPU tensors: every mismatch with
the ABI is a FlashError (a non-tensor a FlashTypeError, also a TypeError)
before anything reaches the runtime; a matching call gets as far as the
device check.
"""
import os
import sys

import torch

import flashmlir

fake_dir = sys.argv[1]
noload = os.path.join(fake_dir, "libfake_artifact_noload.so")
q = torch.zeros(2, 4, 33, 64, dtype=torch.bfloat16)
k = torch.zeros(2, 2, 70, 64, dtype=torch.bfloat16)
ids = torch.zeros(2, 70, dtype=torch.int32)
bias = torch.zeros(4, dtype=torch.float32)


def attempt(what, kernel, **kw):
    try:
        kernel(q, k, k, **kw)
        print(what, "-> ran")
    except flashmlir.FlashError as ex:
        print(what, "->", type(ex).__name__, ex)


with flashmlir.Kernel(noload, "fake_cap") as cap:
    print("abi:", [(c["dtype"], c["rank"], c["arg"]) for c in cap.abi["captures"]])
    attempt("none", cap)
    attempt("one", cap, captures=[ids])
    attempt("swapped", cap, captures=[bias, ids])
    attempt("dtype", cap, captures=[ids.float(), bias])
    attempt("rank", cap, captures=[ids, bias[None]])
    attempt("list", cap, captures=[ids, [0.5] * 4])
    attempt("ok", cap, captures=[ids, bias])
with flashmlir.Kernel(noload, "fake") as plain:
    attempt("plain", plain, captures=[ids])
    attempt("plain none", plain, captures=[])
print("done")
