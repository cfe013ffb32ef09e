#!/bin/bash
# In memory, after a burst: twain 694a367 (old: value GC rests as it works) vs the same with
# garbage/refresh compactions resting while users only read (new); five runs, order rotated.
for r in 1 2 3 4 5; do
  if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for e in $order; do
    bin=/work/bin/twain-peers-new; [ $e = new ] && bin=/work/bin/twain-peers-cpace
    rm -rf /work/qdb; sync; echo 3 > /proc/sys/vm/drop_caches
    echo "== run $r $e $(date +%T) load $(cut -d' ' -f1-3 /proc/loadavg)"
    $bin --engines twain --num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 \
      --workloads fillrandom,updatezipf,scan10,scan100,scan1000 --dir /work/qdb --out bench/results/run-pace/compactions/r$r.$e.jsonl > bench/results/run-pace/compactions/r$r.$e.txt 2>&1
    echo "rc=$?"
  done
done
echo ALLDONE
