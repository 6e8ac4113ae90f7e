#!/usr/bin/env python3
"""Runs a command and succeeds only if it exits normally with the given
code (a crash or an abort is a failure); its stdout and stderr go to stdout
for FileCheck.

  expect-exit.py CODE CMD ARGS..."""
import subprocess
import sys

p = subprocess.run(sys.argv[2:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
sys.stdout.buffer.write(p.stdout)
if p.returncode != int(sys.argv[1]):
    sys.exit(f"expect-exit: exit {p.returncode}, expected {sys.argv[1]}")
