#!/usr/bin/env python3
"""sass-loops: the SASS instruction mix of each loop of a kernel, the
GPU-side complement of ptx-stats.py (ptxas rewrites predicate logic,
selects and address arithmetic, so PTX counts are only a proxy).

    scripts/sass-loops.py CUBIN KERNEL [KERNEL...] [--cuobjdump PATH]
    scripts/sass-loops.py LISTING.sass   (a kept cuobjdump -sass listing)

Disassembles KERNEL from CUBIN with cuobjdump -sass (from $PATH, CUDA_HOME,
or Triton's bundled copy), finds every backward branch (a loop: from the
branch target to the branch) and prints, per loop, its instruction count
and the opcodes by frequency (the first dotted part: FFMA, MUFU, FSEL,
ISETP, HGMMA, ...). Loops nested in others are listed on their own too.
"""
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys


def find_cuobjdump(explicit):
    if explicit:
        return explicit
    for cand in (shutil.which("cuobjdump"),
                 os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "cuobjdump")):
        if cand and os.path.exists(cand):
            return cand
    try:
        import triton
        cand = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin",
                            "cuobjdump")
        if os.path.exists(cand):
            return cand
    except ImportError:
        pass
    sys.exit("sass-loops: no cuobjdump (give --cuobjdump)")


def loops(sass):
    """(instruction count, [(first, last, opcode mix)] per backward branch);
    branch targets as addresses (cuobjdump) or .L_x_N labels (nvdisasm)."""
    ins, labels = [], {}
    for line in sass.splitlines():
        lab = re.match(r'\s*(\.L_x_\d+):', line)
        if lab:
            labels[lab.group(1)] = len(ins)
        m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;', line)
        if m:
            ins.append((int(m.group(1), 16), m.group(2).strip()))
    where = {a: i for i, (a, _) in enumerate(ins)}
    found = []
    for i, (a, text) in enumerate(ins):
        m = re.search(r'\bBRA\b[^;]*?(?:0x([0-9a-f]+)|(\.L_x_\d+))', text)
        if not m:
            continue
        start = where.get(int(m.group(1), 16)) if m.group(1) else labels.get(m.group(2))
        if start is None or start > i:
            continue
        mix = collections.Counter()
        for _, t in ins[start:i + 1]:
            op = re.sub(r'^@!?U?P[T0-9]+\s+', '', t).split()[0]
            mix[op.split('.')[0]] += 1
        found.append((start, i, mix))
    return len(ins), found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubin")
    ap.add_argument("kernels", nargs="*")
    ap.add_argument("--cuobjdump")
    a = ap.parse_args()
    if a.cubin.endswith(".sass"):  # a kept cuobjdump -sass listing
        listings = [(a.cubin, open(a.cubin).read())]
    else:
        if not a.kernels:
            ap.error("name the kernels to disassemble")
        tool = find_cuobjdump(a.cuobjdump)
        listings = [(k, subprocess.run([tool, "-sass", "-fun", k, a.cubin],
                                       capture_output=True, text=True,
                                       check=True).stdout) for k in a.kernels]
    for k, sass in listings:
        total, found = loops(sass)
        print(f"{k}: {total} instructions")
        for start, end, mix in found:
            print(f"  loop [{start}, {end}] {end - start + 1}: " +
                  " ".join(f"{op}:{n}" for op, n in mix.most_common(24)))


if __name__ == "__main__":
    main()
