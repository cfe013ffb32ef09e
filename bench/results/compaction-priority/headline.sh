#!/bin/bash
# The headline scales (`--scale 100b`: 2 M x 100 B; `--scale 1k`: 1 M x 1 KiB), twain alone,
# the old defaults (static sizing, round-robin) against the new, ROUNDS rounds each (default
# 3), the order alternating.
#
#   bench/results/compaction-priority/headline.sh PEERS_BINARY [SCALES] [ROUNDS]
set -euo pipefail
peers=${1:?usage: headline.sh PEERS_BINARY [SCALES] [ROUNDS]}
scales=${2:-100b 1k}
rounds=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
out=$here/headline
mkdir -p "$out"
for round in $(seq 1 "$rounds"); do
    for scale in $scales; do
        names=(old new)
        [ $((round % 2)) -eq 0 ] && names=(new old)
        for name in "${names[@]}"; do
            extra=()
            [ "$name" = old ] && extra=(--set level_sizing=static --set compaction_priority=round-robin)
            cmd=("$peers" --engines twain --scale "$scale" --quiet "${extra[@]}" --out "$out/$scale-$name-r$round.jsonl")
            echo "# $(date -u +%T) load $(cut -d' ' -f1-3 /proc/loadavg): ${cmd[*]}" | tee -a "$out/runs.txt"
            "${cmd[@]}" > "$out/$scale-$name-r$round.txt" 2>&1
        done
    done
done
