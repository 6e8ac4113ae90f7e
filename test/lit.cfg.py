# -*- Python -*-
# lit configuration of the FlashMLIR tests: FileCheck tests of every pass and
# of the dialect, plus the gtest unit tests under Unit/ (their own config).

import ctypes
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FLASH"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.flash_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%flash_src_root", config.flash_src_root))
config.substitutions.append(("%mlir_lib_dir", config.mlir_lib_dir))
# The flash passes with an embedder's cleanups after each one (the tail
# re-runs the named pipeline, whose flash stages then have nothing to do).
_cleanups = ",".join(p + ",canonicalize,cse" for p in [
    "flash-fold-gqa", "flash-plan", "flash-split-kv", "flash-tile",
    "flash-online-softmax", "flash-backward-recompute", "flash-tile-to-scf"])
config.substitutions.append(
    ("%cleanups", "builtin.module(" + _cleanups + ",flash-lower-to-cpu)"))

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

tool_dirs = [config.flash_tools_dir, config.llvm_tools_dir]
tools = ["flash-opt", "flash-compile", "flash-run", "flash-run-gpu", "flash-fuzz-parse",
         "mlir-runner", "mlir-translate", "mlir-opt"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# ptxas (CUDA toolkit) is optional on a developer machine; tests that need
# it say `REQUIRES: ptxas`.
if config.cuda_bin_dir and os.path.exists(os.path.join(config.cuda_bin_dir, "ptxas")):
    config.available_features.add("ptxas")
    llvm_config.add_tool_substitutions(["ptxas"], [config.cuda_bin_dir])
    config.substitutions.append(("%cuda_root", os.path.dirname(config.cuda_bin_dir)))

# The runtime (test/Integration/Runtime): libflashrt, plus the test artifacts and the
# fake libcuda.so.1 that unittests/Runtime builds.
config.substitutions.append(
    ("%flashrt_lib", os.path.join(config.flash_obj_root, "lib", "libflashrt.so")))
config.substitutions.append(
    ("%fake_dir", os.path.join(config.flash_obj_root, "unittests", "Runtime")))
config.substitutions.append(("%flash_tools_dir", config.flash_tools_dir))
config.available_features.add("python3")
# Tests of the no-driver messages are unsupported where a driver exists.
try:
    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass

# bench/test_bench_logic.py needs torch: the first of the configured Python
# and Debian's /usr/bin/python3 that imports it runs it (%torch_python).
# FLASH_REQUIRE_TORCH=1 (scripts/test.sh, i.e. CI) makes its absence an
# error rather than an UNSUPPORTED test.
import subprocess

for py in dict.fromkeys([config.python_executable, "/usr/bin/python3"]):
    try:
        ok = subprocess.run([py, "-c", "import torch"], capture_output=True,
                            timeout=120).returncode == 0
    except (OSError, subprocess.SubprocessError):
        ok = False
    if ok:
        config.available_features.add("torch")
        config.substitutions.append(("%torch_python", py))
        break
else:
    if os.environ.get("FLASH_REQUIRE_TORCH") == "1":
        lit_config.fatal("FLASH_REQUIRE_TORCH=1 but no Python with torch "
                         "(Debian: apt install python3-torch)")
