"""Command line of the flashmlir package.

  python3 -m flashmlir precompile --chip=sm_90a [--cache-dir=DIR] VARIANT...
  python3 -m flashmlir mlir VARIANT...       # the MLIR compiled for them
  python3 -m flashmlir info                  # runtime, compiler, cache dir

VARIANT is a variant name (flashmlir.variants.Variant.name), as a missing
kernel's FlashError names it, e.g. attn_bf16_d128_causal or
decode_bf16_d128_h32x8_q1_lens_page16, or a merge kernel combine_<dtype>_v<Dv>
(flashmlir.combine; --chip=cpu compiles it for the CPU).
"""
import argparse
import sys

from . import runtime
from .cache import default_cache_dir, find_compiler
from .errors import FlashError
from .ops import precompile
from .variants import parse_name


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m flashmlir", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("precompile", help="compile variants into a kernel cache")
    p.add_argument("--chip", required=True, help="sm_90a for the H200 (warpgroup MMA)")
    p.add_argument("--cache-dir", default=None, help=f"default: {default_cache_dir()}")
    p.add_argument("variants", nargs="+")
    m = sub.add_parser("mlir", help="print a variant's MLIR")
    m.add_argument("variants", nargs="+")
    sub.add_parser("info", help="where the runtime, compiler and cache are")
    a = ap.parse_args(argv)
    try:
        if a.cmd == "precompile":
            for path in precompile(a.variants, a.chip, a.cache_dir):
                print(path)
        elif a.cmd == "mlir":
            sys.stdout.write("\n".join(parse_name(v).mlir() for v in a.variants))
        else:
            try:
                runtime.load_runtime()
                print("runtime:", runtime._lib_path)
            except FlashError as ex:
                print("runtime:", ex)
            print("compiler:", find_compiler())
            print("cache dir:", default_cache_dir())
    except FlashError as ex:
        print(f"error: {ex}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
