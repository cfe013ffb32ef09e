#!/bin/bash
# GC's I/O at the idle class (ionice -c3 on twain-gc and twain-live), against the default
# and against GC held to 1 MiB/s; scans-4k-ltm's twain workload, rounds rotated.
here=$(cd "$(dirname "$0")" && pwd)
RUNS=${RUNS:-3}; FIRST=${FIRST_ROUND:-1}
VARIANTS=${VARIANTS:-base idle nogc}
read -r -a vs <<< "$VARIANTS"; n=${#vs[@]}
for r in $(seq "$FIRST" $((FIRST + RUNS - 1))); do
  for i in $(seq 0 $((n - 1))); do
    v=${vs[$(( (i + r - 1) % n ))]}
    extra=""; [ "$v" = nogc ] && extra="--set gc_bytes_per_sec=1048576"
    rm -rf /work/sweepdb/*; mkdir -p /work/sweepdb
    echo "$(date +%T) r$r $v $(cut -d' ' -f1-3 /proc/loadavg)" >> "$here/times.txt"
    /work/main/target/release/twain bench --num 1250000 --value-size 4096 --overwrites 1250000 --memory-limit 1G --drop-caches --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --dir /work/sweepdb/db --json $extra > "$here/r$r.$v.jsonl" 2>&1 &
    bp=$!
    if [ "$v" = idle ]; then
      done=0
      while [ $done -lt 2 ] && kill -0 $bp 2>/dev/null; do
        done=0
        for t in /proc/$bp/task/*; do
          c=$(cat $t/comm 2>/dev/null)
          if [ "$c" = twain-gc ] || [ "$c" = twain-live ]; then ionice -c3 -p ${t##*/} && done=$((done+1)); fi
        done
        sleep 0.2
      done
      echo "r$r idle: $done threads at idle class" >> "$here/times.txt"
    fi
    wait $bp
  done
done
