#!/usr/bin/env bash
# YCSB A-F with GC resting under a reading foreground below the space target (new) against
# the build before (old), with BlobDB in the same rounds: three rounds, order rotated.
#   bench/results/read-pacing/run.sh OLD_PEERS NEW_PEERS OUT_DIR
set -euo pipefail
old=$1 new=$2 out=$3
db=${DB:-/work/peers-db}
mkdir -p "$out"
args=(--num 1000000 --value-size 1024 --ops 1000000
      --workloads ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-f,ycsb-d,ycsb-e --quiet)
dd if=/dev/zero of="$db.dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"; rm -f "$db.dd"
run() { # name exe engines round
  rm -rf "$db"; echo "$(date -u +%T) $1 $3 r$4 load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/times.txt"
  "$2" --engines "$3" --dir "$db" --out "$out/$1-r$4.jsonl" "${args[@]}" > "$out/$1-r$4.txt" 2>&1
}
run old "$old" twain 1; run new "$new" twain,blobdb 1
run new "$new" blobdb,twain 2; run old "$old" twain 2
run old "$old" twain 3; run new "$new" twain,blobdb 3
rm -rf "$db"
