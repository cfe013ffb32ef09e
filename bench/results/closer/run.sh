#!/usr/bin/env bash
# Scans and updates after the closer thread (f287f4c) against the build before it, with
# RocksDB in the same rounds: issue 14's scans-1k step, three rounds, order rotated.
#   bench/results/closer/run.sh OLD_PEERS NEW_PEERS OUT_DIR
set -euo pipefail
old=$1 new=$2 out=$3
db=${DB:-/work/peers-db}
mkdir -p "$out"
args=(--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000
      --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --quiet)
dd if=/dev/zero of="$db.dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"; rm -f "$db.dd"
run() { # name exe engines round
  rm -rf "$db"; echo "$(date -u +%T) $1 $3 r$4 load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/times.txt"
  "$2" --engines "$3" --dir "$db" --out "$out/$1-r$4.jsonl" "${args[@]}" > "$out/$1-r$4.txt" 2>&1
}
run old "$old" twain 1; run new "$new" twain,rocksdb 1
run new "$new" rocksdb,twain 2; run old "$old" twain 2
run old "$old" twain 3; run new "$new" twain,rocksdb 3
rm -rf "$db"
