#!/usr/bin/env python3
"""Writes one function of a generated variants module (gen-variants.py,
gen-decode-variants.py: top-level func.func ops, each closed by a "}" line)
alone to OUT: one variant, as the kernel cache compiles it.

  one-function.py IN.mlir NAME OUT.mlir"""
import sys

text = open(sys.argv[1]).read()
start = text.index(f"func.func @{sys.argv[2]}(")
end = text.index("\n}\n", start) + 3
open(sys.argv[3], "w").write(text[start:end])
