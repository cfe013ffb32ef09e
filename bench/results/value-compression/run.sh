#!/usr/bin/env bash
# Issue 16, item 3: compression of separated values (value_compression = none, lz4, zstd)
# on 1 KiB values compressible to half (db_bench's scheme, --compressible 0.5) and on
# incompressible 1 KiB values, where compressing can only cost. Every value is separated
# (default placement): the tables hold keys and handles. fillrandom, readrandom, overwrite
# (uniform) and readrandom again; three rounds, order rotated. twain alone.
# usage: bench/results/value-compression/run.sh   (from the repository root; about 15 min)
set -euo pipefail
here=bench/results/value-compression
dd if=/dev/zero of=/tmp/twain-dd bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f /tmp/twain-dd
export CONFIGS="none:value_compression=none lz4:value_compression=lz4 zstd:value_compression=zstd"
export WORKLOADS=fillrandom,readrandom,overwrite,readrandom READS=200000
NUM=1000000 OVERWRITES=1000000 EXTRA="--value-size 1024 --compressible 0.5" \
  bench/gc-modes.sh "$here/1k-half" 3 > "$here/1k-half.md"
NUM=1000000 OVERWRITES=1000000 EXTRA="--value-size 1024" \
  bench/gc-modes.sh "$here/1k-random" 3 > "$here/1k-random.md"
