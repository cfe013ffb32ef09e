#!/usr/bin/env bash
# zstd with one compression and one decompression context per thread (this build) against
# one context per block (build 48b53d2), on compressible 100 B values (inline: the tables
# hold them), with no compression beside each for the ratio. Two release binaries, given
# as OLD and NEW; three rounds, the four runs of a round in rotated order.
# usage: OLD=/path/twain NEW=/path/twain bench/results/compression/zstd-contexts.sh OUT
set -euo pipefail
out=${1:?usage: OLD=... NEW=... $0 OUT}
old=${OLD:?}
new=${NEW:?}
db=$(mktemp -d)/db
runs=("old-none:$old:none" "old-zstd:$old:zstd" "new-none:$new:none" "new-zstd:$new:zstd")
for round in 1 2 3; do
  mkdir -p "$out/$round"
  for i in 0 1 2 3; do
    r=${runs[$(((i + round - 1) % 4))]}
    name=${r%%:*}; rest=${r#*:}; bin=${rest%%:*}; codec=${rest#*:}
    rm -rf "$db"
    echo "round $round: $name (load $(cut -d' ' -f1 /proc/loadavg))" >&2
    "$bin" --set "compression=$codec" bench --workloads fillrandom,readrandom,overwrite \
      --num 2000000 --overwrites 2000000 --reads 200000 --value-size 100 --compressible 0.5 \
      --quiet --dir "$db" --json > "$out/$round/$name.jsonl" 2> "$out/$round/$name.err"
  done
done
rm -rf "$(dirname "$db")"
python3 "$(dirname "$0")/../../gc-modes-summary.py" "$out"
