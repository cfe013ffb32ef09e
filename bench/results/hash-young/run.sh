#!/bin/bash
# Group GC leaves the log segments written since the group's last GC in place (judged for
# what they kill, merged at the group's next GC) instead of copying their records at once:
# base (build ab4c50b, /work/bin/twain-base) against young (the change,
# /work/bin/twain-young). HashKV's update experiment at 1 GiB (load 1 M x 1 KiB, three
# phases of 1 M updates, uniform: the half kept), twain's hash layout alone, RUNS rounds, order
# rotated. Then: ./summary.py [v1|v2] (each run moved by hand into v1/ or v2/)
set -e
here=$(cd "$(dirname "$0")" && pwd)
DISTS=uniform VARIANTS="base young" OUT="$here" exec "$here/../hash-gc-goal/run.sh"
