"""Helpers shared by bench/correctness.py and bench/benchmark.py.

Finds the Python binding (python/flashmlir) next to this directory, reads an
artifact directory's manifest.json, and loads the kernels it lists. Nothing
here touches the GPU until a kernel is loaded.
"""
import json
import math
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PYDIR = os.path.join(REPO, "python")
if os.path.isdir(PYDIR) and PYDIR not in sys.path:
    sys.path.append(PYDIR)  # after $PYTHONPATH, so a binding named there wins

DTYPES = ("bf16", "f16")


def torch_dtype(name):
    import torch
    return {"bf16": torch.bfloat16, "f16": torch.float16, "f32": torch.float32}[name]


def read_manifest(art_dir, name="manifest.json"):
    """The manifest's entries, each with 'so' made absolute as 'path'
    (`name`: the manifest's file name in `art_dir`, or a path)."""
    path = os.path.join(art_dir, name)
    with open(path) as f:
        entries = json.load(f)
    if isinstance(entries, dict):  # tolerate {"kernels": [...]}
        entries = entries.get("kernels", entries.get("entries", []))
    out = []
    for e in entries:
        e = dict(e)
        e["path"] = os.path.join(art_dir, e["so"])
        out.append(e)
    return out


def norm_window(w):
    if w is None:
        return (-1, -1)
    l, r = (int(x) for x in w)
    return (l if l >= 0 else -1, r if r >= 0 else -1)


def entry_abi(e, abi=None):
    """The kernel's semantics as one dict: the ABI when the kernel is loaded,
    else the manifest's fields, with defaults filled in."""
    src = dict(e)
    if abi:
        src.update({k: v for k, v in abi.items() if v is not None})
    d = int(src["head_dim"])
    dv = int(src.get("head_dim_v") or d)
    scale = src.get("scale")
    if scale is None or float(scale) == 0.0:
        scale = 1.0 / math.sqrt(d)
    return {
        "func": src["func"],
        "dtype": src["dtype"],
        "head_dim": d,
        "head_dim_v": dv,
        "causal": bool(src.get("causal", False)),
        "window": norm_window(src.get("window")),
        "softcap": float(src.get("softcap") or 0.0),
        "scale": float(scale),
        "lse": bool(src.get("lse", True)),
    }


def is_plain(a):
    """True for plain (optionally causal) attention: no window, no softcap, Dv == D."""
    return a["window"] == (-1, -1) and a["softcap"] == 0.0 and a["head_dim_v"] == a["head_dim"]


def abi_mismatch(manifest_entry, abi):
    """Fields where the manifest and the loaded kernel's ABI disagree."""
    bad = []
    for key in ("dtype", "head_dim", "causal", "head_dim_v", "softcap", "window", "scale", "lse"):
        if key in manifest_entry and key in abi and manifest_entry[key] is not None and abi[key] is not None:
            a, b = manifest_entry[key], abi[key]
            if key == "window":
                a, b = norm_window(a), norm_window(b)
            elif key in ("softcap", "scale"):
                if abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(a))):
                    continue
            elif key in ("causal", "lse"):
                a, b = bool(a), bool(b)
            if a != b:
                bad.append(f"{key}: manifest {a!r} vs abi {b!r}")
    return bad


class KernelLoader:
    """Loads flashmlir kernels once each; remembers load errors."""

    def __init__(self, runtime_path=None):
        self.runtime_path = runtime_path
        self._fm = None
        self._cache = {}

    def module(self):
        if self._fm is None:
            import flashmlir
            flashmlir.load_runtime(self.runtime_path)
            self._fm = flashmlir
        return self._fm

    def get(self, e):
        key = (e["path"], e["func"])
        if key not in self._cache:
            try:
                fm = self.module()
                self._cache[key] = (fm.Kernel(e["path"], e["func"]), None)
            except Exception as ex:  # noqa: BLE001 - reported per case
                self._cache[key] = (None, f"{type(ex).__name__}: {ex}")
        return self._cache[key]


def gpu_info():
    import torch
    info = {"torch": torch.__version__}
    try:
        if torch.cuda.is_available():
            p = torch.cuda.get_device_properties(0)
            info.update(gpu=torch.cuda.get_device_name(0), sms=p.multi_processor_count,
                        cuda=torch.version.cuda)
    except Exception:  # noqa: BLE001
        pass
    try:
        import triton
        info["triton"] = triton.__version__
    except Exception:  # noqa: BLE001
        pass
    return info


def cuda_ready():
    """The GPU scripts' common start: False (after an error line on stderr)
    without a CUDA device, else True with float32 references made strict
    (strict_fp32)."""
    import torch
    if not torch.cuda.is_available():
        print("error: no CUDA device", file=sys.stderr)
        return False
    strict_fp32()
    return True


def strict_fp32():
    """No TF32 in float32 reference matmuls. Uses the new fp32_precision API
    where it exists (PyTorch >= 2.9 raises on a mix of the new and legacy
    flags), the legacy flag otherwise. Both default to IEEE for matmul."""
    import torch
    m = torch.backends.cuda.matmul
    try:
        m.fp32_precision = "ieee"
        return
    except Exception:  # noqa: BLE001 - older PyTorch: no such attribute
        pass
    try:
        m.allow_tf32 = False
    except Exception as ex:  # noqa: BLE001
        print(f"# warning: could not disable TF32 for matmul: {ex}", flush=True)
