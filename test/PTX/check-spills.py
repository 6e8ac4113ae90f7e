#!/usr/bin/env python3
"""Checks `ptxas -v` output for register spills in every compiled function.

  check-spills.py PTX LOG [--allowances FILE --set SET]
                  [--allow NAME=STORES:LOADS ...]

Every `.entry` (and `.func`) defined in PTX must have exactly one
"Function properties for NAME" record in LOG, and each record must report
0 bytes of spill stores and loads, except a kernel with an allowance, whose
spills may not exceed the stated bytes. Allowances come from --allow or from
the lines `SET NAME STORES LOADS` of an allowances file whose SET is
--set ('#' starts a comment). An allowance naming no function of the PTX
is an error too (a stale allowance would mislead).
Prints one line per function that spills and a summary line
`checked N functions: M spill within allowances`; exits 1 on any violation.
"""
import re
import sys


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    ptx = open(argv[1]).read()
    log = open(argv[2]).read()
    allow = {}
    opts = dict(zip(argv[3::2], argv[4::2]))
    if len(argv[3:]) % 2 or any(k not in ("--allow", "--allowances", "--set")
                                for k in argv[3::2]):
        print(__doc__, file=sys.stderr)
        return 2
    for key, value in zip(argv[3::2], argv[4::2]):
        if key == "--allow":
            name, _, amounts = value.partition("=")
            stores, _, loads = amounts.partition(":")
            allow[name] = (int(stores), int(loads))
    if "--allowances" in opts:
        for line in open(opts["--allowances"]):
            fields = line.split("#")[0].split()
            if fields and fields[0] == opts.get("--set"):
                allow[fields[1]] = (int(fields[2]), int(fields[3]))

    defined = re.findall(r"^\s*(?:\.visible\s+|\.weak\s+)?\.(?:entry|func)\s+"
                         r"(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\s*\(?", ptx, re.M)
    records = re.findall(r"Function properties for (\S+)\n\s*(\d+) bytes stack "
                         r"frame, (\d+) bytes spill stores, (\d+) bytes spill "
                         r"loads", log)
    errors = []
    seen = {}
    for name, _, stores, loads in records:
        if name in seen:
            errors.append(f"{name}: two property records")
        seen[name] = (int(stores), int(loads))
    for name in defined:
        if name not in seen:
            errors.append(f"{name}: no 'Function properties' record in the log")
    for name in seen:
        if name not in defined:
            errors.append(f"{name}: in the log but not defined in the PTX")
    for name in allow:
        if name not in seen:
            errors.append(f"--allow {name}: no such function")
    spilling = 0
    for name in defined:
        if name not in seen:
            continue
        stores, loads = seen[name]
        if stores == 0 and loads == 0:
            continue
        spilling += 1
        cap = allow.get(name)
        verdict = "allowed" if cap and stores <= cap[0] and loads <= cap[1] else "NOT ALLOWED"
        print(f"{name}: {stores} bytes spill stores, {loads} bytes spill loads"
              f" ({verdict}{f', at most {cap[0]}:{cap[1]}' if cap else ''})")
        if verdict != "allowed":
            errors.append(f"{name} spills")
    if not defined:
        errors.append("no function defined in the PTX")
    for e in errors:
        print(f"error: {e}")
    print(f"checked {len(defined)} functions: {spilling} spill"
          f"{' within allowances' if not errors else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
