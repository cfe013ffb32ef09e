#!/bin/bash
# Run 8 (issue 10): peer comparison, three runs per scale, engine order rotated.
cd /work/run8
P=/work/target-peers/release/twain-peers
mkdir -p /work/peers-scratch
{ date -u; uptime; dd if=/dev/zero of=/work/peers-scratch/dd.dat bs=1M count=2048 conv=fdatasync 2>&1 | tail -1; rm -f /work/peers-scratch/dd.dat; } > disk.txt
i=0
for order in twain,rocksdb,blobdb,fjall rocksdb,blobdb,fjall,twain blobdb,fjall,twain,rocksdb; do
  i=$((i+1))
  for scale in 1k 100b; do
    rm -rf /work/peers-db
    echo "$(date -u +%T) start $scale r$i order $order load: $(cut -d' ' -f1-3 /proc/loadavg)" >> times.txt
    $P --engines $order --scale $scale --quiet --dir /work/peers-db \
        --out p$scale-r$i.jsonl --plot p$scale-r$i.svg > p$scale-r$i.txt 2>&1
    echo "$(date -u +%T) end   $scale r$i rc=$? load: $(cut -d' ' -f1-3 /proc/loadavg)" >> times.txt
  done
done
rm -rf /work/peers-db
echo done >> times.txt
