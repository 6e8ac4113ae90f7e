"""Build step of the flashmlir package (metadata: pyproject.toml).

At build time it bundles libflashrt.so into the package and records where
the source and build trees are (flashmlir/_install_paths.py), so that the
installed package finds its runtime with no environment variables, and the
compiler (scripts/flash-compile.sh + build/bin/flash-opt) where there is one.
The runtime is taken from, in order: $FLASHRT_LIB, $FLASH_BUILD_DIR/lib,
the CMake install prefix's lib ($FLASH_INSTALL_PREFIX) and the checkout's
build/lib. Without one the package still installs (a warning says so) and
then looks for libflashrt at run time as flashmlir.load_runtime documents.
"""
import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def build_dir():
    return os.path.abspath(os.environ.get("FLASH_BUILD_DIR") or os.path.join(ROOT, "build"))


def runtime_candidates():
    out = []
    if os.environ.get("FLASHRT_LIB"):
        out.append(os.environ["FLASHRT_LIB"])
    out.append(os.path.join(build_dir(), "lib", "libflashrt.so"))
    if os.environ.get("FLASH_INSTALL_PREFIX"):
        out.append(os.path.join(os.environ["FLASH_INSTALL_PREFIX"], "lib", "libflashrt.so"))
    return [os.path.abspath(p) for p in out]


class BuildPy(build_py):
    def run(self):
        super().run()
        pkg = os.path.join(self.build_lib, "flashmlir")
        found = next((p for p in runtime_candidates() if os.path.isfile(p)), None)
        if found:
            shutil.copy2(found, os.path.join(pkg, "libflashrt.so"))
            print(f"flashmlir: bundled {found}")
        else:
            print("flashmlir: WARNING: no libflashrt.so to bundle (tried "
                  + ", ".join(runtime_candidates()) + ")")
        dirs = [os.path.dirname(p) for p in runtime_candidates()]
        with open(os.path.join(pkg, "_install_paths.py"), "w") as f:
            f.write("# Written by setup.py: the trees this package was built from.\n")
            f.write(f"SOURCE_ROOT = {ROOT!r}\nBUILD_DIR = {build_dir()!r}\n"
                    f"RUNTIME_DIRS = {dirs!r}\n")


class BinaryDistribution(Distribution):
    """The bundled libflashrt.so is x86-64 code: a platform wheel."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildPy}, distclass=BinaryDistribution)
