#!/usr/bin/env bash
# The benchmark suite: every table and plot of docs/benchmarks.md from one command.
#
#   bench/suite.sh [--quick] [--out DIR] [--steps STEP,...] [--runs N] [--without ENGINE,...] [--list]
#
# Each step runs RUNS times (default 3; quick: 1) with the engine order rotated, each engine
# in its own twain-peers process (DIR/STEP/rI.ENGINE.{jsonl,txt,err}), then the run's
# tables and plots are made from them (DIR/STEP/rI.{jsonl,txt,svg,time.svg}). Finished
# engines and runs leave .done files, and a rerun of the suite skips them (resume: run the
# same command again; a failed engine is retried). Then
# bench/suite-summary.py writes DIR/summary.md: medians of the runs, their spread, and
# twain's ratios to each peer, per question.
#
# --without leaves engines out of every step (an engine a memory cgroup kills every time,
# say): the runs it is left out of are finished without it, and times.txt says so.
#
# --quick runs every step at a small scale in under 10 minutes (a check that the suite
# works, not figures to quote). The full suite takes many hours (see docs/benchmarks.md,
# "Status"); the larger-than-memory steps need root (a memory cgroup, dropped caches).
#
# The binary is built here with cargo (bench/peers, release); CARGO_TARGET_DIR is honoured.
# Databases go under DIR/db (or $SUITE_DB_DIR), emptied before each run.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
quick=0
out=""
only=""
runs=""
list=0
without=""
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) quick=1 ;;
        --out) out="$2"; shift ;;
        --steps) only="$2"; shift ;;
        --runs) runs="$2"; shift ;;
        --without) without="$2"; shift ;;
        --list) list=1 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "suite.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
    shift
done
# Quick mode is a check that everything runs: one run per step unless --runs says more.
if [ -z "$runs" ]; then if [ $quick = 1 ]; then runs=1; else runs=3; fi; fi
case "$runs" in ''|*[!0-9]*|0) echo "suite.sh: --runs must be a positive number" >&2; exit 2 ;; esac
if [ -z "$out" ]; then
    if [ $quick = 1 ]; then out="$repo/bench/results/suite-quick"; else out="$repo/bench/results/suite"; fi
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
db="${SUITE_DB_DIR:-$out/db}"

all_engines="twain,rocksdb,blobdb,fjall"
# step name | engines | twain-peers arguments (full) | twain-peers arguments (quick)
# Values: 1 KiB unless said; keys are 16 B. "ltm" steps run larger than memory.
q_small="--set memtable_size=16M --set block_cache_size=16M"
# The `twain` binary whose `compaction-worker` serves the twain-worker engine (built below).
twain_exe="${CARGO_TARGET_DIR:-$repo/target}/release/twain"
offload="--set max_subcompactions=2 --twain-exe $twain_exe"
steps=(
"headline-1k|$all_engines|--scale 1k|--num 100000 --overwrites 200000 --reads 20000 --scans 300 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan"
"headline-100b|$all_engines|--scale 100b|--num 200000 --value-size 100 --overwrites 200000 --reads 20000 --scans 300 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan"
"scale-1k|$all_engines|--num 10000000 --value-size 1024 --overwrites 30000000 --reads 1000000 --scans 20000 --workloads fillrandom,readrandom,updatezipf,idle60,readrandom,scan|--num 150000 --overwrites 450000 --reads 20000 --scans 200 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan"
"scale-1k-ltm|$all_engines|--num 10000000 --value-size 1024 --overwrites 30000000 --reads 1000000 --scans 20000 --workloads fillrandom,readrandom,updatezipf,idle60,readrandom,scan --memory-limit 2G --drop-caches|--num 300000 --overwrites 300000 --reads 10000 --scans 100 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan --memory-limit 200M --drop-caches $q_small"
"scale-100b|$all_engines|--num 50000000 --value-size 100 --overwrites 150000000 --reads 1000000 --scans 20000 --workloads fillrandom,readrandom,updatezipf,idle60,readrandom,scan|--num 300000 --value-size 100 --overwrites 900000 --reads 20000 --scans 200 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan"
"scale-100b-ltm|$all_engines|--num 50000000 --value-size 100 --overwrites 150000000 --reads 1000000 --scans 20000 --workloads fillrandom,readrandom,updatezipf,idle60,readrandom,scan --memory-limit 1G --drop-caches|--num 1000000 --value-size 100 --overwrites 1000000 --reads 10000 --scans 100 --workloads fillrandom,readrandom,updatezipf,idle5,readrandom,scan --memory-limit 128M --drop-caches $q_small"
)
# The value-size sweep (WiscKey's figures 8 and 9): load and random lookup with a
# constant data volume (4 GiB; quick: 32 MiB).
for size in 64 256 1024 4096 16384 65536; do
    full_num=$(( (4 << 30) / (size + 16) ))
    quick_num=$(( (32 << 20) / (size + 16) ))
    steps+=("sweep-$size|$all_engines|--num $full_num --value-size $size --reads 200000 --workloads fillrandom,readrandom|--num $quick_num --value-size $size --reads 10000 --workloads fillrandom,readrandom")
done
steps+=(
"ycsb|$all_engines|--num 1000000 --value-size 1024 --ops 1000000 --workloads ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-f,ycsb-d,ycsb-e|--num 100000 --value-size 1024 --ops 20000 --workloads ycsb-load,ycsb-a,ycsb-b,ycsb-c,ycsb-f,ycsb-d,ycsb-e"
"sync-t1|$all_engines|--sync --threads 1 --num 20000 --workloads fillrandom|--sync --threads 1 --num 1000 --workloads fillrandom"
"sync-t4|$all_engines|--sync --threads 4 --num 80000 --workloads fillrandom|--sync --threads 4 --num 4000 --workloads fillrandom"
"sync-t16|$all_engines|--sync --threads 16 --num 320000 --workloads fillrandom|--sync --threads 16 --num 16000 --workloads fillrandom"
"mixed-t4|$all_engines|--threads 4 --num 1000000 --value-size 1024 --ops 2000000 --workloads fillrandom,ycsb-a|--threads 4 --num 100000 --value-size 1024 --ops 100000 --workloads fillrandom,ycsb-a"
"scans-1k|$all_engines|--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom|--num 100000 --value-size 1024 --overwrites 100000 --scans 200 --reads 10000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom"
"scans-4k|$all_engines|--num 500000 --value-size 4096 --overwrites 500000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom|--num 25000 --value-size 4096 --overwrites 25000 --scans 200 --reads 10000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom"
"scans-1k-ltm|$all_engines|--num 5000000 --value-size 1024 --overwrites 5000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 1G --drop-caches|--num 200000 --value-size 1024 --overwrites 200000 --scans 100 --reads 5000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 128M --drop-caches $q_small"
"scans-4k-ltm|$all_engines|--num 1250000 --value-size 4096 --overwrites 1250000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 1G --drop-caches|--num 50000 --value-size 4096 --overwrites 50000 --scans 100 --reads 5000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 128M --drop-caches $q_small"
"cokv-100b-p1|twain,rocksdb|--num 30000000 --value-size 100 --workloads fillrandom --set max_subcompactions=1|--num 300000 --value-size 100 --workloads fillrandom --set max_subcompactions=1"
"cokv-100b-p2|twain,rocksdb|--num 30000000 --value-size 100 --workloads fillrandom --set max_subcompactions=2|--num 300000 --value-size 100 --workloads fillrandom --set max_subcompactions=2"
"cokv-100b-offload|twain,twain-worker,rocksdb|--num 30000000 --value-size 100 --workloads fillrandom $offload|--num 300000 --value-size 100 --workloads fillrandom $offload"
"cokv-ycsb-1k-p1|twain,rocksdb|--num 1000000 --value-size 1024 --overwrites 4000000 --workloads fillrandom,updatezipf --set max_subcompactions=1|--num 100000 --value-size 1024 --overwrites 400000 --workloads fillrandom,updatezipf --set max_subcompactions=1"
"cokv-ycsb-1k|twain,twain-worker,rocksdb|--num 1000000 --value-size 1024 --overwrites 4000000 --workloads fillrandom,updatezipf $offload|--num 100000 --value-size 1024 --overwrites 400000 --workloads fillrandom,updatezipf $offload"
"novkv|twain,twain-vlog,twain-lookup|--num 1000000 --value-size 1024 --overwrites 3000000 --reads 1000000 --workloads fillrandom,updatezipf,readrandom|--num 100000 --value-size 1024 --overwrites 300000 --reads 30000 --workloads fillrandom,updatezipf,readrandom"
)

if [ $list = 1 ]; then
    for s in "${steps[@]}"; do
        IFS='|' read -r name engines full small <<<"$s"
        if [ $quick = 1 ]; then args=$small; else args=$full; fi
        echo "$name  [$engines]  $args"
    done
    exit 0
fi

# Build (a no-op when fresh): the peers, and the twain binary of the compaction worker.
( cd "$repo/bench/peers" && cargo build --release --quiet )
( cd "$repo" && cargo build --release --quiet -p twain-cli )
peers="${CARGO_TARGET_DIR:-$repo/bench/peers/target}/release/twain-peers"
[ -x "$peers" ] || { echo "suite.sh: $peers was not built" >&2; exit 1; }

# The disk, measured in the same session: synced sequential writes.
if [ ! -s "$out/disk.txt" ]; then
    mkdir -p "$db"
    {
        date -u
        uptime
        echo "synced sequential write, dd 1 GiB with fdatasync:"
        dd if=/dev/zero of="$db/dd.tmp" bs=1M count=1024 conv=fdatasync 2>&1 | tail -1
        rm -f "$db/dd.tmp"
    } > "$out/disk.txt"
fi
cat "$out/disk.txt"

# The engine order of run i: the list rotated left by i - 1.
rotate() {
    local list=$1 by=$2
    IFS=',' read -r -a e <<<"$list"
    local n=${#e[@]} k r=()
    for ((k = 0; k < n; k++)); do r+=("${e[$(( (k + by) % n ))]}"); done
    (IFS=','; echo "${r[*]}")
}

failed=0
for s in "${steps[@]}"; do
    IFS='|' read -r name engines full small <<<"$s"
    if [ -n "$only" ] && [[ ",$only," != *",$name,"* ]]; then continue; fi
    if [ $quick = 1 ]; then args=$small; else args=$full; fi
    mkdir -p "$out/$name"
    for ((i = 1; i <= runs; i++)); do
        base="$out/$name/r$i"
        if [ -e "$base.done" ]; then
            echo "$name r$i: done before, skipped"
            continue
        fi
        order=$(rotate "$engines" $((i - 1)))
        if [ -n "$without" ]; then
            kept=()
            IFS=',' read -r -a all <<<"$order"
            for e in "${all[@]}"; do
                if [[ ",$without," == *",$e,"* ]]; then
                    echo "$(date -u +%T) $name r$i $e left out (--without)" | tee -a "$out/times.txt"
                else
                    kept+=("$e")
                fi
            done
            order=$(IFS=','; echo "${kept[*]}")
            if [ -z "$order" ]; then continue; fi
        fi
        # One process per engine: each starts with a fresh heap (and, larger than memory, a
        # fresh memory cgroup), and one engine's failure costs only its own figures.
        ok=1
        IFS=',' read -r -a run_engines <<<"$order"
        for e in "${run_engines[@]}"; do
            one="$base.$e"
            if [ -e "$one.done" ]; then continue; fi
            rm -rf "$db"
            mkdir -p "$db"
            echo "$(date -u +%T) $name r$i $e (order $order) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/times.txt"
            # shellcheck disable=SC2086 # the step's arguments are words
            if "$peers" --engines "$e" $args --quiet --dir "$db" --out "$one.jsonl" \
                > "$one.txt" 2> "$one.err"; then
                touch "$one.done"
            else
                rc=$?
                echo "$(date -u +%T) $name r$i $e FAILED (exit $rc$( [ $rc = 137 ] && echo ', killed: out of memory?')), see $one.err" | tee -a "$out/times.txt" >&2
                failed=$((failed + 1))
                ok=0
            fi
        done
        # The run: every finished engine's lines in the run's order, then its tables and
        # plots. A run with a failed engine is shown without it, and not marked done: the
        # next invocation retries that engine and assembles the run again.
        finished_engines=()
        for e in "${run_engines[@]}"; do
            if [ -e "$base.$e.done" ]; then finished_engines+=("$base.$e.jsonl"); fi
        done
        if [ ${#finished_engines[@]} -gt 0 ]; then
            cat "${finished_engines[@]}" > "$base.jsonl"
            "$peers" --replot "$base.jsonl" --plot "$base.svg" --plot-over-time "$base.time.svg" > "$base.txt"
        fi
        if [ $ok = 1 ]; then touch "$base.done"; fi
    done
    finished=()
    for f in "$out/$name"/r*.jsonl; do
        if [[ $(basename "$f") =~ ^r[0-9]+\.jsonl$ ]]; then finished+=("$f"); fi
    done
    if [ ${#finished[@]} -gt 0 ]; then
        python3 "$repo/bench/peers-median.py" "${finished[@]}" > "$out/$name/median.txt"
    fi
done
rm -rf "$db"
if [ $quick = 1 ]; then
    python3 "$repo/bench/suite-summary.py" "$out" --quick > "$out/summary.md"
else
    python3 "$repo/bench/suite-summary.py" "$out" > "$out/summary.md"
fi
echo "summary: $out/summary.md"
if [ $failed -gt 0 ]; then
    echo "suite.sh: $failed run(s) failed; run the same command again to retry them" >&2
    exit 1
fi
