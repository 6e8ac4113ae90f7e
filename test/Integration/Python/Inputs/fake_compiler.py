"""A stand-in for the FlashMLIR compiler (used by package_check.py):
  fake_compiler.py IN.mlir OUT.so CHIP
checks that IN.mlir holds one flash.attention function, appends a line to
$FAKE_COMPILER_LOG, sleeps $FAKE_COMPILER_SLEEP seconds (to widen races) and
writes OUT.so; exits 1 when $FAKE_COMPILER_FAIL is set."""
import os
import re
import sys
import time

mlir, out, chip = sys.argv[1:4]
text = open(mlir).read()
m = re.search(r"func\.func @(\S+)\(", text)
if not m or "flash.attention" not in text:
    sys.exit(f"fake compiler: no flash.attention function in {mlir}")
if os.environ.get("FAKE_COMPILER_FAIL"):
    sys.exit("fake compiler: failing as asked")
with open(os.environ["FAKE_COMPILER_LOG"], "a") as f:
    f.write(f"{m.group(1)} {chip} {os.getpid()}\n")
time.sleep(float(os.environ.get("FAKE_COMPILER_SLEEP", "0")))
with open(out, "w") as f:
    f.write(f"artifact of {m.group(1)} for {chip}\n")
