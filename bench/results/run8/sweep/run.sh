#!/bin/bash
# space_amp_target sweep: twain alone, --scale 1k, targets rotated, three rounds.
cd /work/run8/sweep
P=/work/target-peers/release/twain-peers
for i in 1 2 3; do
  case $i in 1) order="1.2 1.3 1.5";; 2) order="1.3 1.5 1.2";; 3) order="1.5 1.2 1.3";; esac
  for t in $order; do
    rm -rf /work/peers-db
    echo "$(date -u +%T) start t$t r$i load: $(cut -d' ' -f1-3 /proc/loadavg)" >> times.txt
    $P --engines twain --scale 1k --set space_amp_target=$t --quiet --dir /work/peers-db \
        --out t$t-r$i.jsonl > t$t-r$i.txt 2>&1
    echo "$(date -u +%T) end   t$t r$i rc=$? load: $(cut -d' ' -f1-3 /proc/loadavg)" >> times.txt
  done
done
rm -rf /work/peers-db
echo done >> times.txt
