#!/usr/bin/env bash
# Issue 12's update experiment with every engine it names in one run: the hash layout
# (with hotness awareness and without), the vlog baseline, drop-records (the default log
# layout), RocksDB and BlobDB, each in its own twain-peers process. HashKV's shape scaled to
# this machine: load N x 1 KiB, then three update phases of N puts (P1..P3), uniform
# and zipfian (scrambled, 0.99); twain's budget is the default space_amp_target 1.3 (30%
# reserved; RocksDB and BlobDB have none). Three rounds, the order rotated.
#
#   bench/results/hashkv-peers/run.sh PEERS_BINARY [OUT]   (about 15-30 minutes at N = 1 M)
#
# HASHKV_NUM sets N (default 1000000; the issue asks for several GiB, so 4000000 takes
# about four times as long), HASHKV_ROUNDS the rounds (default 3), HASHKV_FIRST_ROUND the
# first round to run (default 1: a later one completes an earlier run's OUT, each round
# keeping its own order), HASHKV_DISTS the distributions (default "uniform zipf").
#
# PEERS_BINARY: a twain-peers build of the commit measured (bench/peers/README.md). Writes
# OUT/{uniform,zipf}/ROUND/NAME.jsonl, the medians (bench/gc-modes-summary.py) in
# OUT/{uniform,zipf}.md, and a throughput-over-time plot of round 1 in OUT/*-r1.time.svg.
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY [OUT]}
here=$(cd "$(dirname "$0")" && pwd)
out=${2:-$here}
mkdir -p "$out"
db=$(mktemp -d)
dd if=/dev/zero of="$db/dd" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1 > "$out/disk.txt"
rm -f "$db/dd"
configs=(
  "hash|twain|value_layout=hash"
  "rocksdb|rocksdb|"
  "vlog|twain|gc_mode=vlog"
  "blobdb|blobdb|"
  "hash-cold-off|twain|value_layout=hash,hash_hotness=false"
  "dr|twain|gc_mode=drop-records"
)
num=${HASHKV_NUM:-1000000}
rounds=${HASHKV_ROUNDS:-3}
first=${HASHKV_FIRST_ROUND:-1}
for dist in ${HASHKV_DISTS:-uniform zipf}; do
  case $dist in
    uniform) workloads=fillrandom,overwrite,overwrite,overwrite ;;
    zipf) workloads=fillrandom,updatezipf,updatezipf,updatezipf ;;
  esac
  for round in $(seq "$first" "$rounds"); do
    mkdir -p "$out/$dist/$round"
    n=${#configs[@]}
    for i in $(seq 0 $((n - 1))); do
      IFS='|' read -r name engine sets <<< "${configs[$(((i + round - 1) % n))]}"
      args=()
      if [ -n "$sets" ]; then IFS=, read -ra kv <<< "$sets"; for s in "${kv[@]}"; do args+=(--set "$s"); done; fi
      rm -rf "$db/db"
      echo "$dist round $round: $name (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/runs.txt" >&2
      "$peers" --engines "$engine" "${args[@]}" --workloads "$workloads" --num "$num" \
        --value-size 1024 --overwrites "$num" --dir "$db/db" --quiet \
        --out "$out/$dist/$round/$name.jsonl" > "$out/$dist/$round/$name.txt" 2>&1
    done
  done
  python3 "$here/../../gc-modes-summary.py" "$out/$dist" > "$out/$dist.md"
  # The plot names lines by engine: the twain configurations are renamed after theirs.
  mkdir -p "$db/plot"
  for f in "$out/$dist/1/"*.jsonl; do
    name=$(basename "$f" .jsonl)
    sed "s/\"engine\":\"twain\"/\"engine\":\"twain-$name\"/" "$f" > "$db/plot/$name.jsonl"
  done
  files=$(ls "$db/plot/"*.jsonl | paste -sd, -)
  "$peers" --replot "$files" --plot-over-time "$out/$dist-r1.time.svg" > /dev/null
  rm -rf "$db/plot"
done
rm -rf "$db"
