"""A stand-in for the real `flashmlir` binding (python/flashmlir), for
dry-running bench/ and scripts/gpu-suite.sh on a GPU machine before the
compiler produces kernels. Same API; the "kernels" are PyTorch: the FA2
kernel behind torch SDPA (aten._scaled_dot_product_flash_attention) where it
applies (Sq == Sk, Hq == Hkv), float32 math otherwise. Never a measurement of
FlashMLIR.

  python3 bench/fake/make_artifacts.py DIR
  PYTHONPATH=bench/fake scripts/gpu-suite.sh DIR OUT_DIR

FLASHMLIR_FAKE_BUG="func:bug[,func:bug...]" plants a bug in some kernels, to
see the harness catch it: lastrow (O's last query row left unwritten),
noise (O off by 1e-2), lse (LSE off by 1e-2), race (every second call
differs), raise (FlashError).
"""
import json
import math
import os

FAKE = True


def torch_mod():
    import torch
    return torch


class FlashError(RuntimeError):
    pass


def load_runtime(path=None):
    return None


class Kernel:
    def __init__(self, artifact_path, func):
        if not os.path.exists(artifact_path):
            raise FlashError(f"cannot open {artifact_path}")
        with open(os.path.join(os.path.dirname(artifact_path), "manifest.json")) as f:
            ents = [e for e in json.load(f) if e["func"] == func]
        if not ents:
            raise FlashError(f"{func}: no such entry point")
        e = ents[0]
        d = int(e["head_dim"])
        bugs = dict(x.split(":", 1) for x in os.environ.get("FLASHMLIR_FAKE_BUG", "").split(",") if ":" in x)
        self.bug = bugs.get(func)
        self.calls = 0
        self.abi = {"func": func, "dtype": e["dtype"], "head_dim": d, "head_dim_v": int(e.get("head_dim_v", d)),
                    "causal": bool(e.get("causal")), "window": list(e.get("window", [-1, -1])),
                    "softcap": float(e.get("softcap", 0.0)), "scale": float(e.get("scale", 1 / math.sqrt(d))),
                    "lse": True, "arch": "fake", "block_m": 0, "block_n": 0, "warps": 0, "stages": 0,
                    "smem_bytes": 0}

    def __call__(self, q, k, v, out=None, lse=None):
        out, lse = self._run(q, k, v, out, lse)
        self.calls += 1
        if self.bug == "lastrow":
            out[:, :, -1].fill_(float("nan"))
        elif self.bug == "noise":
            out.add_(1e-2 * torch_mod().randn_like(out))
        elif self.bug == "lse" and lse is not None:
            lse.add_(1e-2)
        elif self.bug == "race" and self.calls % 2 == 0:
            out.view(-1)[:1].add_(0.5) if out.is_contiguous() else out[:1, :1, :1, :1].add_(0.5)
        elif self.bug == "raise":
            raise FlashError(f"{self.abi['func']}: planted failure")
        return out, lse

    def _run(self, q, k, v, out, lse):
        import torch
        a = self.abi
        dt = {"bf16": torch.bfloat16, "f16": torch.float16}[a["dtype"]]
        if q.dtype != dt or k.dtype != dt or v.dtype != dt:
            raise FlashError(f"{a['func']}: expects {a['dtype']}")
        if q.shape[-1] != a["head_dim"]:
            raise FlashError(f"{a['func']}: head dim {q.shape[-1]} != {a['head_dim']}")
        b, hq, sq, _ = q.shape
        hkv, sk = k.shape[1], k.shape[2]
        if out is None:
            out = torch.empty(b, sq, hq, a["head_dim_v"], dtype=dt, device=q.device).transpose(1, 2)
        if lse is None and a["lse"]:
            lse = torch.empty(b, hq, sq, dtype=torch.float32, device=q.device)
        plain = a["window"] == [-1, -1] and not a["softcap"] and a["head_dim_v"] == a["head_dim"]
        if sq == sk and hq == hkv and plain and q.is_cuda:
            r = torch.ops.aten._scaled_dot_product_flash_attention(q, k, v, 0.0, a["causal"], False,
                                                                   scale=a["scale"])
            o, l = r[0], r[1]
            if l.shape == (b, hq, sq) or (l.dim() == 3 and l.shape[2] >= sq):
                out.copy_(o)
                if lse is not None:
                    lse.copy_(l[:, :, :sq])
                return out, lse
        g = hq // hkv
        for h0 in range(0, hq, 4):  # head chunks bound the float32 score matrix
            hs = slice(h0, min(hq, h0 + 4))
            qc = q[:, hs].float()
            kc = k.float().repeat_interleave(g, 1)[:, hs]
            vc = v.float().repeat_interleave(g, 1)[:, hs]
            s = qc @ kc.transpose(-1, -2) * a["scale"]
            if a["softcap"]:
                s = a["softcap"] * torch.tanh(s / a["softcap"])
            i = torch.arange(sq, device=q.device).unsqueeze(1)
            j = torch.arange(sk, device=q.device).unsqueeze(0)
            vis = torch.ones(sq, sk, dtype=torch.bool, device=q.device)
            off = sk - sq
            if a["causal"]:
                vis &= j <= i + off
            if a["window"][0] >= 0:
                vis &= j >= i + off - a["window"][0]
            if a["window"][1] >= 0:
                vis &= j <= i + off + a["window"][1]
            s = s.masked_fill(~vis, float("-inf"))
            l = torch.logsumexp(s, -1)
            p = torch.exp(s - torch.where(torch.isinf(l), torch.zeros_like(l), l).unsqueeze(-1))
            out[:, hs].copy_(p @ vc)
            if lse is not None:
                lse[:, hs].copy_(l)
        return out, lse
