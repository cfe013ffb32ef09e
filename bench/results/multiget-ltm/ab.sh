#!/bin/bash
# A/B of twain-peers builds, twain alone, 3 M x 1 KiB in 600 MiB, alternating:
#   BINS="base new" ab.sh OUT PAIRS   runs /tmp/base-peers and /tmp/new-peers PAIRS times each.
# ab/: base = multi_get's coalesced reads one after another, new = read_batch;
# pw/: mg = that new build, pw = with the prefetch window that stops at the usual end.
out=$1; pairs=$2; mkdir -p $out
BINS=${BINS:-base new}
for i in $(seq 1 $pairs); do
  for b in $BINS; do
    rm -rf /work/abdb; mkdir -p /work/abdb
    echo "# $b $i $(date)"
    /tmp/$b-peers --engines twain --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 3000 \
      --workloads fillrandom,updatezipf,idle60,multiget100,readrandom,scan --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out $out/$b.$i.jsonl > $out/$b.$i.txt 2>&1
  done
done
rm -rf /work/abdb
# peer/: one run with RocksDB (the new build):
#   twain-peers --engines rocksdb,twain ... (the same arguments) --out peer/r1.jsonl
