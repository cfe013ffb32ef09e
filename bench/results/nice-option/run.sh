#!/bin/bash
B=/work/target-peers/release/twain-peers
W="--num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 --workloads fillrandom,updatezipf,scan10,scan100,scan1000,scankeys100,readrandom --quiet --dir /work/sweepdb"
for r in 1 2 3; do
  order=("n10" "n0" "rocks"); 
  case $r in 2) order=("n0" "rocks" "n10");; 3) order=("rocks" "n10" "n0");; esac
  for e in "${order[@]}"; do
    rm -rf /work/sweepdb; mkdir -p /work/sweepdb
    case $e in
      n10) $B --engines twain --set background_nice=10 $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
      n0) $B --engines twain --set background_nice=0 $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
      rocks) $B --engines rocksdb $W --out ./r$r.$e.jsonl > ./r$r.$e.txt 2>&1;;
    esac
  done
done


# The four-writer runs (two pairs, nice 10 first):
# for r in 1 2; do for n in 10 0; do rm -rf /work/sweepdb; mkdir -p /work/sweepdb; \
#   $B --engines twain --set background_nice=$n --threads 4 --num 2000000 --value-size 1024 \
#   --overwrites 4000000 --reads 200000 --workloads fillrandom,updatezipf,readrandom --quiet \
#   --dir /work/sweepdb --out w$r.n$n.jsonl > w$r.n$n.txt; done; done
