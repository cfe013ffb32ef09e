#!/usr/bin/env bash
# memtable_max_log_bytes at 1 KiB: the headline-1k command (twain alone) with the default
# 256 MiB and with 128 MiB, alternating, three rounds. A smaller memtable (in entries) makes
# the skiplist insert, the writer's largest cost, cheaper.
#
#   bench/results/memtable-log-bytes/run.sh PEERS_BINARY [OUT]   (about 8 minutes)
set -euo pipefail
peers=${1:?usage: run.sh PEERS_BINARY [OUT]}
out=${2:-$(cd "$(dirname "$0")" && pwd)}
db=$(mktemp -d)
for round in 1 2 3; do
  for m in 256M 128M; do
    rm -rf "$db/db"
    echo "round $round: $m (load $(cut -d' ' -f1-3 /proc/loadavg))" | tee -a "$out/runs.txt" >&2
    "$peers" --engines twain --scale 1k --workloads fillrandom,readrandom,updatezipf \
      --set memtable_max_log_bytes=$m --dir "$db/db" --quiet \
      --out "$out/$m.$round.jsonl" > "$out/$m.$round.txt" 2>&1
  done
done
rm -rf "$db"
python3 - "$out" <<'PY'
import json, statistics, sys, glob
out = sys.argv[1]
print("| memtable_max_log_bytes | fillrandom | updatezipf | CPU µs per put, fill / updates | space at the end of updatezipf | p99.9 / max of the updates, µs |")
print("|---|---|---|---|---|---|")
for m in ["256M", "128M"]:
    rows = {}
    for f in sorted(glob.glob(f"{out}/{m}.*.jsonl")):
        for line in open(f):
            d = json.loads(line)
            rows.setdefault(d["phase"], []).append(d)
    def med(phase, key):
        return statistics.median(d[key] for d in rows[phase])
    def span(phase, key):
        v = sorted(d[key] for d in rows[phase])
        return f"{v[0] / 1000:.0f}–{v[-1] / 1000:.0f}k"
    print(f"| {m} | {med('fillrandom', 'ops_per_sec') / 1000:.0f}k ({span('fillrandom', 'ops_per_sec')}) "
          f"| {med('updatezipf', 'ops_per_sec') / 1000:.0f}k ({span('updatezipf', 'ops_per_sec')}) "
          f"| {med('fillrandom', 'cpu_us_per_op'):.2f} / {med('updatezipf', 'cpu_us_per_op'):.2f} "
          f"| {med('updatezipf', 'space_amp'):.2f} "
          f"| {med('updatezipf', 'p999_us'):.0f} / {med('updatezipf', 'max_us'):.0f} |")
PY
