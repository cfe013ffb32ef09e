#!/bin/bash
i=0
for order in twain,rocksdb rocksdb,twain twain,rocksdb; do
  i=$((i+1))
  rm -rf /work/abdb; mkdir -p /work/abdb
  echo "# run $i order $order $(date)"
  /tmp/final-peers --engines $order --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 3000 \
      --workloads fillrandom,updatezipf,idle60,multiget100,readrandom,scan --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out /tmp/fin/peer/r$i.jsonl > /tmp/fin/peer/r$i.txt 2>&1
done
rm -rf /work/abdb
echo "# ltm $(date)"
rm -rf /work/ltm/db; mkdir -p /work/ltm/db
/tmp/final-peers --engines twain --num 10000000 --value-size 1024 \
      --overwrites 30000000 --reads 1000000 --scans 20000 \
      --workloads fillrandom,readrandom,updatezipf,idle60,readrandom,scan \
      --memory-limit 2G --drop-caches --quiet --dir /work/ltm/db --out /tmp/fin/ltm/r2.twain.jsonl > /tmp/fin/ltm/r2.twain.txt 2> /tmp/fin/ltm/r2.twain.err
rm -rf /work/ltm/db
echo "# done $(date)"
