#!/usr/bin/env python3
"""Writes a fake artifact directory (manifest.json + an empty kernels.so)
for bench/fake/flashmlir: bf16 and f16, head dims 64 and 128, causal and not.

  make_artifacts.py DIR [--hdims 64,128] [--dtypes bf16,f16]
"""
import argparse
import json
import os

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--hdims", default="64,128")
ap.add_argument("--dtypes", default="bf16,f16")
a = ap.parse_args()
os.makedirs(a.dir, exist_ok=True)
open(os.path.join(a.dir, "kernels.so"), "wb").close()
m = [{"so": "kernels.so", "func": f"attn_{dt}_d{d}{'_causal' if c else ''}", "dtype": dt, "head_dim": int(d),
      "causal": c}
     for dt in a.dtypes.split(",") for d in a.hdims.split(",") for c in (False, True)]
json.dump(m, open(os.path.join(a.dir, "manifest.json"), "w"), indent=1)
print(f"{len(m)} fake kernels in {a.dir}")
