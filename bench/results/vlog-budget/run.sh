#!/usr/bin/env bash
# Issue 12's update experiment after vlog mode began holding its space budget (writes wait
# while GC frees the log's tail, as in HashKV's fixed-size vLog): the hash layout against
# the vlog baseline and drop-records, the shape of bench/results/hashkv/run.sh (load 1 M x
# 1 KiB, three update phases of 1 M puts, uniform and zipfian, space_amp_target 1.3), three
# rounds with the order rotated, twain alone.
# usage: bench/results/vlog-budget/run.sh   (from the repository root; about 15 min)
set -euo pipefail
here=bench/results/vlog-budget
dd if=/dev/zero of=/tmp/twain-dd bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f /tmp/twain-dd
export CONFIGS="vlog:gc_mode=vlog dr:gc_mode=drop-records hash:value_layout=hash"
export NUM=1000000 OVERWRITES=1000000
WORKLOADS=fillrandom,updatezipf,updatezipf,updatezipf bench/gc-modes.sh "$here/zipf" 3 > "$here/zipf.md"
[ "${ZIPF_ONLY:-0}" = 1 ] || WORKLOADS=fillrandom,overwrite,overwrite,overwrite bench/gc-modes.sh "$here/uniform" 3 > "$here/uniform.md"
