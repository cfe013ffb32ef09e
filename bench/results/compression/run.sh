#!/usr/bin/env bash
# Issue 16, item 3: table block compression (none, lz4, zstd) on compressible values
# (--compressible 0.5, db_bench's scheme) at 100 B (inline: the tables hold the values) and
# 1 KiB (separated: the tables hold keys and handles), and on incompressible 100 B values,
# where compression can only cost. fillrandom, readrandom, overwrite; three rounds, order
# rotated. twain alone.
# usage: bench/results/compression/run.sh   (from the repository root; about 15 min)
set -euo pipefail
here=bench/results/compression
dd if=/dev/zero of=/tmp/twain-dd bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f /tmp/twain-dd
export CONFIGS="none:compression=none lz4:compression=lz4 zstd:compression=zstd"
export WORKLOADS=fillrandom,readrandom,overwrite READS=200000
NUM=2000000 OVERWRITES=2000000 EXTRA="--value-size 100 --compressible 0.5" \
  bench/gc-modes.sh "$here/100b-half" 3 > "$here/100b-half.md"
NUM=1000000 OVERWRITES=1000000 EXTRA="--value-size 1024 --compressible 0.5" \
  bench/gc-modes.sh "$here/1k-half" 3 > "$here/1k-half.md"
NUM=2000000 OVERWRITES=2000000 EXTRA="--value-size 100" \
  bench/gc-modes.sh "$here/100b-random" 3 > "$here/100b-random.md"
