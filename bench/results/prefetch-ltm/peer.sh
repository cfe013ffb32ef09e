#!/bin/bash
out=/tmp/exp/peer; mkdir -p $out
i=0
for order in twain,rocksdb rocksdb,twain twain,rocksdb; do
  i=$((i+1))
  rm -rf /work/abdb; mkdir -p /work/abdb
  echo "# run $i order $order $(date)"
  /tmp/new-peers --engines $order --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 3000 \
      --workloads fillrandom,updatezipf,idle60,readrandom,scan --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out $out/r$i.jsonl > $out/r$i.txt 2>&1
done
rm -rf /work/abdb
