#!/usr/bin/env python3
"""Writes the payload of the gpu.binary in an MLIR file (PTX text for
format=isa, cubin for format=bin) to a file: the string literal of the
#gpu.object, with MLIR's escapes undone. Used by tests and flash-compile."""
import re
import sys

if len(sys.argv) != 3:
    sys.exit("usage: extract-gpu-object.py IN.mlir OUT")
text = open(sys.argv[1], encoding="latin-1").read()
m = re.search(r'\b(?:assembly|bin) = "((?:[^"\\]|\\.)*)"', text, re.S)
if not m:
    sys.exit("extract-gpu-object: no gpu.binary object in " + sys.argv[1])
raw = m.group(1).encode("latin-1")
data = re.sub(rb'\\(\\|"|[0-9A-Fa-f]{2})',
              lambda x: {b'\\': b'\\', b'"': b'"'}.get(x.group(1)) or bytes([int(x.group(1), 16)]),
              raw)
open(sys.argv[2], "wb").write(data)
