#!/usr/bin/env bash
# Date 2026-12-06, 1 x NVIDIA H100 80GB HBM3 (sm_90a); run from the
# repository root with $OUT set. Session 23, device call 6: the SASS of the
# d64 document-mask kernel with the scan (call 1's library) and without it
# (call 4's -noscan build), to find call 5's extra instructions. Made here:
#   ptxas -arch=sm_90a <that kernel's PTX> -o build/sass/{scan,forced}.cubin
# (the kernel's .entry cut out of each library's flash-compile --ptx output),
# carried as build/sass. Kept: -call6-{scan,noscan}.sass (instruction lines).
set -u
cd "$(dirname "$0")/../.."
mkdir -p $OUT/s
for n in forced scan; do
  /usr/local/cuda-13.0/bin/cuobjdump -sass build/sass/$n.cubin | grep -E "^\s+/\*[0-9a-f]{4}\*/" > $OUT/s/$n.sass
done
wc -l $OUT/s/*
