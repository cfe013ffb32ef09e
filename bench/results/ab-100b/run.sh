#!/usr/bin/env bash
# twain at 100 B, two builds side by side: fillrandom and updatezipf of the headline's
# `--scale 100b` (2 M × 100 B, 2 M zipfian puts), five rounds, the order alternating.
#   bench/results/ab-100b/run.sh OLD_PEERS NEW_PEERS OUT_DIR
set -euo pipefail
old=$1 new=$2 out=$3
db=${DB:-/work/peers-db}
mkdir -p "$out"
args=(--scale 100b --workloads fillrandom,updatezipf --quiet)
dd if=/dev/zero of="$db.dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"; rm -f "$db.dd"
run() { # name exe round
  rm -rf "$db"; echo "$(date -u +%T) $1 r$3 load $(cut -d' ' -f1 /proc/loadavg)" >> "$out/times.txt"
  "$2" --engines twain --dir "$db" --out "$out/$1-r$3.jsonl" "${args[@]}" > "$out/$1-r$3.txt" 2>&1
}
for r in 1 2 3 4 5; do
  if [ $((r % 2)) = 1 ]; then run old "$old" $r; run new "$new" $r
  else run new "$new" $r; run old "$old" $r; fi
done
rm -rf "$db"
