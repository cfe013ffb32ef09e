#!/bin/bash
# Larger than memory (scans-1k-ltm's parameters): twain 2129efe (old) vs 694a367 (new, value GC
# rests as it works) vs RocksDB, each in its own process, three runs with the order rotated.
# The binaries are bench/peers built at each commit, copied to /work/bin. Then: ./summary.py
engines=(old new rocksdb)
for r in 1 2 3; do
  order=("${engines[@]:$((r-1))}" "${engines[@]:0:$((r-1))}")
  for e in "${order[@]}"; do
    bin=/work/bin/twain-peers-new; eng=twain
    [ $e = old ] && bin=/work/bin/twain-peers-2129efe
    [ $e = rocksdb ] && eng=rocksdb
    rm -rf /work/qdb; sync
    echo "== run $r $e $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    $bin --engines $eng --num 5000000 --value-size 1024 --overwrites 5000000 --scans 2000 --reads 200000 \
      --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --memory-limit 1G --drop-caches \
      --dir /work/qdb --out bench/results/run-pace/ltm/r$r.$e.jsonl > bench/results/run-pace/ltm/r$r.$e.txt 2>&1
    echo "rc=$?"
  done
done
echo ALLDONE
