#!/usr/bin/env bash
# Issue 16, item 3: the peer comparison on compressible data (values compressible to half,
# db_bench's scheme), compression on for every engine: LZ4 on RocksDB's and BlobDB's table
# blocks and blob files, on fjall's data blocks and blobs, and on twain's table blocks and
# separated values. 1,000,000 keys x 1 KiB: fillrandom, readrandom, 1,000,000 scrambled
# zipfian updates, readrandom, 2,000 scans of 100. Three runs, engine order rotated.
# usage: bench/results/compression-peers/run.sh PEERS_BINARY   (from the repository root)
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY}
here=bench/results/compression-peers
db=$here/db
dd if=/dev/zero of="$here/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$here/disk.txt"
rm -f "$here/dd.tmp"
: > "$here/times.txt"
i=0
for order in twain,rocksdb,blobdb,fjall rocksdb,blobdb,fjall,twain blobdb,fjall,twain,rocksdb; do
  i=$((i + 1))
  rm -rf "$db"
  echo "$(date -u +%T) start r$i order $order load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
  "$peers" --engines "$order" --num 1000000 --value-size 1024 --compressible 0.5 \
    --workloads fillrandom,readrandom,updatezipf,readrandom,scan --overwrites 1000000 \
    --peer-compression lz4 --set compression=lz4 --set value_compression=lz4 \
    --quiet --dir "$db" --out "$here/r$i.jsonl" > "$here/r$i.txt" 2>&1
  echo "$(date -u +%T) end   r$i load: $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
done
rm -rf "$db"
python3 bench/peers-median.py "$here/r1.jsonl" "$here/r2.jsonl" "$here/r3.jsonl" > "$here/median.txt"
cat "$here/median.txt"
