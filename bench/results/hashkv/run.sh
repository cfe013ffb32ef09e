#!/usr/bin/env bash
# Issue 12: the hash layout (value_layout=hash, with hotness awareness and without) beside
# the vlog baseline (gc_mode=vlog) and drop-records (the default log layout), in HashKV's
# update experiment's shape, scaled
# down: load 1 M x 1 KiB, then three update phases of 1 M puts each (P1..P3), uniform and
# zipfian (scrambled, 0.99), with the default space budget (space_amp_target 1.3: 30%
# reserved). Three rounds, order rotated. twain alone (RocksDB and BlobDB: bench/peers).
# usage: bench/results/hashkv/run.sh   (from the repository root; about 16 min)
set -euo pipefail
here=bench/results/hashkv
dd if=/dev/zero of=/tmp/twain-dd bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f /tmp/twain-dd
export CONFIGS="vlog:gc_mode=vlog dr:gc_mode=drop-records hash:value_layout=hash hash-cold-off:value_layout=hash,hash_hotness=false"
export NUM=1000000 OVERWRITES=1000000
WORKLOADS=fillrandom,overwrite,overwrite,overwrite bench/gc-modes.sh "$here/uniform" 3 > "$here/uniform.md"
WORKLOADS=fillrandom,updatezipf,updatezipf,updatezipf bench/gc-modes.sh "$here/zipf" 3 > "$here/zipf.md"
