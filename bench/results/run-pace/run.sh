#!/bin/bash
# In memory, after a burst: twain 2129efe (old) vs 694a367 (new: value GC rests as it works),
# twain alone, three runs each, the order rotated. The binaries are bench/peers built at each
# commit (cargo build --release, copied to /work/bin). Then: ./summary.py
for r in 1 2 3; do
  if [ $((r % 2)) = 1 ]; then order="old new"; else order="new old"; fi
  for e in $order; do
    bin=/work/bin/twain-peers-2129efe; [ $e = new ] && bin=/work/bin/twain-peers-new
    rm -rf /work/qdb; sync; echo 3 > /proc/sys/vm/drop_caches
    echo "== run $r $e $(date +%T)"
    $bin --engines twain --num 2000000 --value-size 1024 --overwrites 2000000 --scans 2000 --reads 200000 \
      --workloads fillrandom,updatezipf,scan10,scan100,scan1000 --dir /work/qdb --out bench/results/run-pace/r$r.$e.jsonl > bench/results/run-pace/r$r.$e.txt 2>&1
    echo "rc=$?"
  done
done
echo ALLDONE
