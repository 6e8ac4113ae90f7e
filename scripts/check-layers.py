#!/usr/bin/env python3
"""check-layers: the compiler's libraries depend downward only.

    scripts/check-layers.py [ROOT]

Layers, lowest first: Target <- Dialect (flash IR) <- Utils <- Transforms
(tile-level passes) <- Conversion <- Pipelines <- Tools. Reference (the
double reference) and the runtime stand apart: neither includes MLIR or any
flash compiler header. Checked over ROOT (default: the repository):

  * every `#include "flash/..."` of a file names a header of its own layer or
    a lower one;
  * a quoted include that is not under flash/, flashrt/, mlir/, llvm/ or gtest/ names
    a file beside the includer (no reaching into another directory's private
    headers, no `../`);
  * each `target_link_libraries` of a flash library in lib/ names only flash
    libraries of its layer or lower;
  * no CMakeLists.txt compiles a source file of another directory
    (`${PROJECT_SOURCE_DIR}/.../X.cpp`) or adds another directory's
    private include path (`${PROJECT_SOURCE_DIR}/lib/...`,
    `${PROJECT_SOURCE_DIR}/runtime/lib`).

Prints one line per violation and exits 1 if there is any; otherwise prints
the layer of each library and "layers: ok".
"""

import os
import re
import sys

LAYERS = ["Target", "Dialect", "Utils", "Transforms", "Conversion",
          "Pipelines", "Tools"]

# Path prefixes (relative to the root) of each layer's sources and headers.
PATHS = [
    ("include/flash/Target/", "Target"), ("lib/Target/", "Target"),
    ("include/flash/Dialect/Flash/IR/", "Dialect"),
    ("lib/Dialect/Flash/IR/", "Dialect"),
    ("include/flash/Dialect/Flash/Utils/", "Utils"),
    ("lib/Dialect/Flash/Utils/", "Utils"),
    ("include/flash/Dialect/Flash/Transforms/", "Transforms"),
    ("lib/Dialect/Flash/Transforms/", "Transforms"),
    ("include/flash/Conversion/", "Conversion"), ("lib/Conversion/", "Conversion"),
    ("include/flash/Pipelines/", "Pipelines"), ("lib/Pipelines/", "Pipelines"),
    ("include/flash/InitAllFlash.h", "Pipelines"),
    ("include/flash/Reference/", "Reference"), ("lib/Reference/", "Reference"),
    ("runtime/", "Runtime"),
    ("tools/", "Tools"), ("fuzz/", "Tools"), ("examples/", "Tools"),
    ("unittests/", "Tools"),
]

# The flash libraries of lib/ and their layers.
LIBRARIES = {
    "MLIRFlashTargets": "Target", "MLIRFlash": "Dialect",
    "MLIRFlashUtils": "Utils", "MLIRFlashTransforms": "Transforms",
    "MLIRFlashTileToSCF": "Conversion", "MLIRFlashToGPU": "Conversion",
    "MLIRFlashPipelines": "Pipelines",
}

SOURCE_EXT = (".h", ".cpp", ".c", ".inc")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(rel):
    for prefix, layer in PATHS:
        if rel == prefix or rel.startswith(prefix):
            return layer
    return None


def allowed(src, dst):
    """May a file of layer `src` include a header of layer `dst`?"""
    if src in ("Reference", "Runtime"):
        return dst == src
    if dst == "Reference":
        return src == "Tools"
    if dst == "Runtime":
        return src == "Tools"
    return LAYERS.index(dst) <= LAYERS.index(src)


def check_includes(root, rel, errors):
    src = layer_of(rel)
    if src is None:
        return
    here = os.path.dirname(os.path.join(root, rel))
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        for n, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            inc = m.group(1)
            where = f"{rel}:{n}"
            if inc.startswith("flash/"):
                if inc.endswith(".inc"):  # generated beside its header
                    inc = os.path.dirname(inc) + "/"
                dst = layer_of("include/" + inc)
                if dst is None:
                    errors.append(f"{where}: {inc} belongs to no layer")
                elif not allowed(src, dst):
                    errors.append(f"{where}: {src} includes {dst} ({inc})")
            elif inc.startswith("flashrt"):
                if not allowed(src, "Runtime"):
                    errors.append(f"{where}: {src} includes the runtime ({inc})")
            elif inc.startswith(("mlir/", "llvm/", "mlir-c/", "gtest/", "gmock/")):
                if src in ("Reference", "Runtime"):
                    errors.append(f"{where}: {src} includes MLIR/LLVM ({inc})")
            elif "/" in inc or not os.path.exists(os.path.join(here, inc)):
                errors.append(f"{where}: {inc} is not beside its includer "
                              "(another directory's private header)")


def cmake_calls(text, name):
    """The argument lists of every `name(...)` call in CMake `text`."""
    for m in re.finditer(name + r"\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        body = re.sub(r"#[^\n]*", "", text[m.end():i - 1])
        yield body.split()


def check_cmake(root, rel, errors):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        text = f.read()
    for args in cmake_calls(text, "target_link_libraries"):
        if not args or args[0] not in LIBRARIES:
            continue
        src = LIBRARIES[args[0]]
        for dep in args[1:]:
            if dep in LIBRARIES and not allowed(src, LIBRARIES[dep]):
                errors.append(f"{rel}: {args[0]} ({src}) links {dep} "
                              f"({LIBRARIES[dep]})")
    for m in re.finditer(r"\$\{PROJECT_SOURCE_DIR\}/([\w/.-]+)", text):
        path = m.group(1)
        if path.endswith((".cpp", ".c")):
            errors.append(f"{rel}: compiles another directory's source {path}")
        elif path.startswith("lib/") or path.startswith("runtime/lib"):
            errors.append(f"{rel}: reaches into {path}")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(__file__), ".."))
    errors = []
    for top in ("include", "lib", "runtime", "tools", "fuzz", "examples",
                "unittests"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for name in sorted(filenames):
                rel = os.path.relpath(os.path.join(dirpath, name), root)
                if name.endswith(SOURCE_EXT):
                    check_includes(root, rel, errors)
                elif name == "CMakeLists.txt":
                    check_cmake(root, rel, errors)
    for e in errors:
        print(e)
    if errors:
        print(f"layers: {len(errors)} violation(s)")
        return 1
    for lib, layer in LIBRARIES.items():
        print(f"{layer}: {lib}")
    print("layers: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
