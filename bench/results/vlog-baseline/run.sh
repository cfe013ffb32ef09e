#!/usr/bin/env bash
# Issue 12, item 5: the vlog baseline (gc_mode=vlog) beside drop-records and lsm-lookup, in
# HashKV's update experiment's shape, scaled down: load 1 M x 1 KiB, then three update phases
# of 1 M puts each (P1..P3), zipfian (scrambled, 0.99) and uniform, with the default space
# budget (space_amp_target 1.3: 30% reserved). Three rounds, order rotated.
# usage: bench/results/vlog-baseline/run.sh   (from the repository root; about 15 min)
set -euo pipefail
here=bench/results/vlog-baseline
dd if=/dev/zero of=/tmp/twain-dd bs=1M count=1024 oflag=direct conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f /tmp/twain-dd
export CONFIGS="dr:gc_mode=drop-records ll:gc_mode=lsm-lookup vlog:gc_mode=vlog"
export NUM=1000000 OVERWRITES=1000000
WORKLOADS=fillrandom,updatezipf,updatezipf,updatezipf bench/gc-modes.sh "$here/zipf" 3 > "$here/zipf.md"
WORKLOADS=fillrandom,overwrite,overwrite,overwrite bench/gc-modes.sh "$here/uniform" 3 > "$here/uniform.md"
