#!/usr/bin/env python3
"""Writes the bytes of a defined symbol of an ELF64 little-endian file (the
cubin that flash-compile embeds as `flash_kernels_binary`) to OUT.

  embedded-binary.py SO OUT [SYMBOL]"""
import struct
import sys

path, out = sys.argv[1], sys.argv[2]
name = (sys.argv[3] if len(sys.argv) > 3 else "flash_kernels_binary").encode()
data = open(path, "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, "not ELF64 LE"
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
            for i in range(shnum)]
for sh in sections:
    if sh[1] != 2:  # SHT_SYMTAB
        continue
    strtab = sections[sh[6]]
    for off in range(sh[4], sh[4] + sh[5], sh[9]):
        st_name, _, _, shndx, value, size = struct.unpack_from("<IBBHQQ", data, off)
        end = data.index(b"\0", strtab[4] + st_name)
        if data[strtab[4] + st_name:end] == name and shndx != 0:
            sec = sections[shndx]
            start = sec[4] + value - sec[3]
            open(out, "wb").write(data[start:start + size])
            sys.exit(0)
sys.exit(f"embedded-binary: no symbol {name.decode()} in {path}")
