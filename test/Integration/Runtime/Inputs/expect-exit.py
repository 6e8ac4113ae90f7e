"""expect-exit.py CODE CMD [ARGS...]: runs CMD (output passed through) and
succeeds only if it exits with CODE, so tests can tell a failed case (1)
from an error (2) and from a crash."""
import subprocess
import sys

want = int(sys.argv[1])
rc = subprocess.call(sys.argv[2:])
if rc != want:
    print(f"expect-exit: {sys.argv[2]} exited with {rc}, expected {want}", flush=True)
    sys.exit(1)
