"""The kernel cache: compiled variants on disk, compiled on a miss.

A cache directory holds, per chip, `<variant>-<compiler id>.so` (with the
`.mlir` it came from and a `.json` note of how it was built). The compiler id
is a hash of the compiler's command and of the files it runs (the driver
script, flash-opt, flash-compile), so a new compiler never reuses an old
kernel. Where no compiler is available (the GPU machine, which has no MLIR),
any artifact of the variant and chip is used, newest first; if there is
none, the FlashError names the variant and the command that builds it
elsewhere.

The compiler is a command template ({mlir}, {out}, {chip} are substituted),
found in this order: set_compiler(); $FLASHMLIR_COMPILER (a shell-quoted
command, or "none"); a `flash-compile` executable on PATH; the source tree's
scripts/flash-compile.sh with its build tree's bin/flash-opt (the source
tree recorded when the package was installed, else the one this package
lives in).

Concurrency: one compile per variant, also under concurrent first calls:
a lock per (variant, chip) inside the process and an fcntl lock file across
processes; artifacts are written to a temporary name and renamed into place.

The cache opens an artifact with the binding's class for its entry
(flashmlir.runtime): a merge kernel (Combine) with CombineKernel, a variant
with Kernel. It also holds the process's default cache and chip, which
flashmlir.attention and flashmlir.combine share (set_cache_dir, set_chip).
"""

import fcntl
import glob
import hashlib
import json
import os
import re
import shlex
import shutil
import string
import subprocess
import threading
import time

from .errors import FlashError, FlashValueError
from .runtime import CombineKernel, Kernel, device_info
from .variants import Combine

__all__ = ["Compiler", "KernelCache", "default_cache_dir", "find_compiler", "set_compiler",
           "chip_for_device", "kernel_cache", "set_cache_dir", "set_chip"]

_override = None  # set_compiler(): a Compiler, False (none) or None (search)


def _source_paths():
    """(source root, build dir) recorded at install time, else those of the
    checkout this package lives in."""
    try:
        from . import _install_paths as p  # written by setup.py
        return p.SOURCE_ROOT, p.BUILD_DIR
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(os.path.dirname(here))
        return root, os.path.join(root, "build")


_file_hashes = {}


def _hash_file(path, h):
    st = os.stat(path)
    key = (path, st.st_size, st.st_mtime_ns)
    digest = _file_hashes.get(key)
    if digest is None:
        fh = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                fh.update(chunk)
        digest = _file_hashes[key] = fh.hexdigest()
    h.update(digest.encode())


_PLACEHOLDERS = ("mlir", "out", "chip")


def _check_template(arg):
    """Refuses a command argument that str.format cannot fill with the
    placeholders (an unknown or positional field, an unmatched brace), when
    it is set rather than at the first cache miss."""
    try:
        fields = [f for _, f, _, _ in string.Formatter().parse(arg) if f is not None]
    except ValueError as ex:
        raise FlashValueError(f"compiler command argument {arg!r}: {ex} (write {{{{ and }}}} "
                              f"for literal braces)") from None
    for field in fields:
        if field not in _PLACEHOLDERS:
            raise FlashValueError(
                f"compiler command argument {arg!r} uses {{{field}}}; the placeholders are "
                f"{{mlir}}, {{out}} and {{chip}} (write {{{{ and }}}} for literal braces)")


class Compiler:
    """A compiler command. `command`: a list (or shell-quoted string) with
    {mlir}, {out} and {chip} placeholders; `files`: files whose content
    identifies the compiler besides the command's own executables; `env`:
    extra environment for it."""

    def __init__(self, command, files=(), env=None):
        if isinstance(command, str):
            command = shlex.split(command)
        self.command = [str(c) for c in command]
        if not self.command:
            raise FlashValueError("empty compiler command")
        for arg in self.command:
            _check_template(arg)
        self.files = [os.path.abspath(f) for f in files]
        self.env = dict(env or {})
        self._id = None

    @property
    def id(self):
        """12 hex digits: the command, its extra environment (which may change
        what it builds) and the content of the files it runs."""
        if self._id is None:
            h = hashlib.sha256("\0".join(self.command).encode())
            for name, value in sorted(self.env.items()):
                h.update(f"\0{name}={value}".encode())
            files = list(self.files)
            for arg in self.command:
                path = shutil.which(arg) if os.sep not in arg else arg
                if path and os.path.isfile(path):
                    files.append(os.path.abspath(path))
            for f in sorted(set(files)):
                h.update(f.encode())
                _hash_file(f, h)
            self._id = h.hexdigest()[:12]
        return self._id

    def argv(self, mlir, out, chip):
        return [a.format(mlir=mlir, out=out, chip=chip) for a in self.command]

    def run(self, mlir, out, chip):
        argv = self.argv(mlir, out, chip)
        env = dict(os.environ, **self.env)
        try:
            p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=env, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as ex:
            raise FlashError(f"compiler failed to run: {shlex.join(argv)}: {ex}") from None
        if p.returncode != 0 or not os.path.isfile(out):
            log = p.stdout.decode(errors="replace").strip()[-2000:]
            raise FlashError(f"compiling {mlir} failed (exit {p.returncode}): "
                             f"{shlex.join(argv)}\n{log}")

    def __repr__(self):
        return f"Compiler({shlex.join(self.command)!r}, id={self.id})"


def set_compiler(command=None, files=(), env=None):
    """Sets the compiler flashmlir uses on a cache miss: a Compiler, a
    command (see Compiler), False for none (misses are errors), or None to
    search again (the module docstring's order)."""
    global _override
    if command is None or command is False or isinstance(command, Compiler):
        _override = command
    else:
        _override = Compiler(command, files, env)


def find_compiler():
    """The compiler to use, or None where there is none: set_compiler's,
    $FLASHMLIR_COMPILER, flash-compile on PATH, or scripts/flash-compile.sh
    with the flash-opt of $FLASH_OPT, $FLASH_BUILD_DIR or the build this
    package was installed from or lives in."""
    if _override is not None:
        return _override or None
    env = os.environ.get("FLASHMLIR_COMPILER")
    if env:
        return None if env.strip().lower() == "none" else Compiler(env)
    tool = shutil.which("flash-compile")
    if tool:
        return Compiler([tool, "{mlir}", "{out}", "--chip={chip}"])
    root, build = _source_paths()
    script = os.path.join(root, "scripts", "flash-compile.sh")
    # The build the script runs: $FLASH_OPT's, else $FLASH_BUILD_DIR's (as
    # scripts/setup.sh and load_runtime read it), else the recorded one.
    build = os.environ.get("FLASH_BUILD_DIR") or build
    opt = os.environ.get("FLASH_OPT") or os.path.join(build, "bin", "flash-opt")
    if os.path.isfile(script) and os.access(opt, os.X_OK):
        # The script runs the C++ driver next to flash-opt where it is built.
        driver = os.path.join(os.path.dirname(opt), "flash-compile")
        files = [opt] + ([driver] if os.access(driver, os.X_OK) else [])
        return Compiler(["bash", script, "{mlir}", "{out}", "--chip={chip}"], files=files,
                        env={"FLASH_OPT": opt})
    return None


def default_cache_dir():
    """$FLASHMLIR_CACHE_DIR, else $XDG_CACHE_HOME/flashmlir, else
    ~/.cache/flashmlir."""
    if os.environ.get("FLASHMLIR_CACHE_DIR"):
        return os.environ["FLASHMLIR_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "flashmlir")


def chip_for_device(cc_major, cc_minor):
    """The compiler's chip for a compute capability: sm_90a on Hopper (the
    warpgroup-MMA kernels), sm_<major><minor> elsewhere."""
    return "sm_90a" if (cc_major, cc_minor) == (9, 0) else f"sm_{cc_major}{cc_minor}"


class KernelCache:
    """Compiled variants in `directory` for one chip; get() returns an open
    flashmlir.Kernel. `compiler`: a Compiler, None to search (find_compiler,
    at each miss), False for none. `opener` (tests): path, func -> kernel."""

    def __init__(self, directory=None, compiler=None, opener=None):
        self.directory = os.path.abspath(directory or default_cache_dir())
        self._compiler = compiler
        self._opener = opener
        self._kernels = {}  # (variant, chip) -> kernel
        self._locks = {}
        self._guard = threading.Lock()
        self.compiles = 0  # compiles done by this cache object (tests)

    def compiler(self):
        if self._compiler is None:
            return find_compiler()
        return self._compiler or None

    def path(self, variant, chip, compiler_id):
        return os.path.join(self.directory, chip, f"{variant.name}-{compiler_id}.so")

    def find(self, variant, chip, compiler=None):
        """The artifact for (variant, chip): the compiler's own, else (no
        compiler) the newest of any compiler; None if absent."""
        if compiler is not None:
            path = self.path(variant, chip, compiler.id)
            return path if os.path.isfile(path) else None
        found = glob.glob(os.path.join(glob.escape(os.path.join(self.directory, chip)),
                                       glob.escape(variant.name) + "-*.so"))
        found = [p for p in found
                 if re.fullmatch(r"[0-9a-f]{12}", os.path.basename(p)[len(variant.name) + 1:-3])]
        return max(found, key=os.path.getmtime) if found else None

    def _lock(self, key):
        with self._guard:
            lock = self._locks.get(key)
            if lock is None:
                lock = self._locks[key] = threading.Lock()
            return lock

    def get(self, variant, chip):
        """The kernel of `variant` for `chip`, compiled if needed."""
        key = (variant, chip)
        kern = self._kernels.get(key)
        if kern is not None:
            return kern
        with self._lock(key):
            kern = self._kernels.get(key)
            if kern is None:
                path = self.build(variant, chip)
                kern = self._open(path, variant)
                self._kernels[key] = kern
            return kern

    def _open(self, path, variant):
        # A merge kernel has no ABI record: it is called through its C interface.
        opener = self._opener or (CombineKernel if isinstance(variant, Combine) else Kernel)
        kern = opener(path, variant.name)
        abi = getattr(kern, "abi", None)
        if isinstance(abi, dict):
            kind = "backward" if getattr(variant, "backward", False) else "forward"
            if abi.get("kind", "forward") != kind:
                raise FlashError(f"{path}: its ABI says kind={abi.get('kind', 'forward')!r}, "
                                 f"the variant {variant.name} is a {kind} one; delete it")
            for field in ("dtype", "head_dim", "causal"):
                want = getattr(variant, field)
                if field in abi and abi[field] != want:
                    raise FlashError(f"{path}: its ABI says {field}={abi[field]!r}, the "
                                     f"variant {variant.name} needs {want!r}; delete it")
            # ALiBi's slopes and a score_mod / mask_mod's captures: the
            # tensors the kernel takes (the name's hash covers their types).
            want = getattr(variant, "num_captures", 0)
            got = abi.get("captures") or []
            if abi and isinstance(got, list) and len(got) != want:
                raise FlashError(f"{path}: its ABI lists {len(got)} capture tensor(s), the "
                                 f"variant {variant.name} takes {want}; delete it")
            # A block_mask hint: the rows the kernel's blocks were tiled for.
            bm = getattr(variant, "block_mask", None)
            record = abi.get("block_mask")
            got = record.get("rows") if isinstance(record, dict) else None
            if abi and (bm[0] if bm else None) != got:
                raise FlashError(f"{path}: its ABI's block_mask rows are {got}, the variant "
                                 f"{variant.name} needs {bm[0] if bm else None}; delete it")
        return kern

    def build(self, variant, chip):
        """The artifact path of (variant, chip), compiling it on a miss when
        a compiler is available; else FlashError with the command to run."""
        compiler = self.compiler()
        found = self.find(variant, chip, compiler)
        if found:
            return found
        if compiler is None:
            raise FlashError(
                f"no compiled kernel for variant {variant.name} (chip {chip}) in "
                f"{self.directory}, and no FlashMLIR compiler here to build it. On a "
                f"machine with FlashMLIR built, run: {precompile_command([variant], chip)} "
                f"and copy {os.path.join('DIR', chip)} to {os.path.join(self.directory, chip)}")
        final = self.path(variant, chip, compiler.id)
        try:
            return self._compile(variant, chip, compiler, final)
        except OSError as ex:
            # A cache directory that is a file, a lock that is a directory,
            # a full or read-only disk: the path and the reason.
            where = ex.filename or os.path.dirname(final)
            raise FlashError(f"kernel cache {self.directory}: cannot compile {variant.name} "
                             f"for {chip}: {where}: {ex.strerror or ex}") from None

    def _compile(self, variant, chip, compiler, final):
        os.makedirs(os.path.dirname(final), exist_ok=True)
        lock_path = os.path.join(self.directory, chip, f"{variant.name}.lock")
        with open(lock_path, "a") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)  # another process may be compiling it
            try:
                if os.path.isfile(final):
                    return final
                stem = f"{final[:-3]}.tmp{os.getpid()}.{threading.get_ident()}"
                mlir = final[:-3] + ".mlir"
                with open(stem + ".mlir", "w") as f:
                    f.write(variant.mlir())
                os.replace(stem + ".mlir", mlir)
                t0 = time.time()
                try:
                    compiler.run(mlir, stem + ".so", chip)
                    os.replace(stem + ".so", final)
                finally:
                    if os.path.exists(stem + ".so"):
                        os.unlink(stem + ".so")
                self.compiles += 1
                with open(final[:-3] + ".json", "w") as f:
                    json.dump({"variant": variant.name, "chip": chip, "compiler": compiler.id,
                               "command": compiler.argv(mlir, final, chip),
                               "seconds": round(time.time() - t0, 3),
                               "date": time.strftime("%Y-%m-%d %H:%M:%S")}, f, indent=1)
                return final
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def precompile_command(variants, chip, directory="DIR"):
    """The shell command that fills `directory` with these variants."""
    names = " ".join(shlex.quote(str(v) if isinstance(v, str) else v.name) for v in variants)
    return f"python3 -m flashmlir precompile --chip={chip} --cache-dir={directory} {names}"


# ---------------------------------------------------------------------------
# The process's kernel cache and chip (flashmlir.attention's and
# flashmlir.combine's; flashmlir.ops re-exports the setters).

_settings_lock = threading.Lock()
_cache = None
_chip = None


def set_cache_dir(directory):
    """Where compiled kernels are found and put (default:
    flashmlir.cache.default_cache_dir())."""
    global _cache
    with _settings_lock:
        _cache = KernelCache(directory)


def kernel_cache():
    global _cache
    if _cache is None:
        with _settings_lock:
            if _cache is None:
                _cache = KernelCache(default_cache_dir())
    return _cache


def set_chip(chip):
    """Overrides the chip kernels are compiled for (default: from the GPU,
    see flashmlir.cache.chip_for_device)."""
    global _chip
    _chip = chip


def _current_chip():
    global _chip
    if _chip is None:
        _chip = chip_for_device(*device_info()[:2])
    return _chip
