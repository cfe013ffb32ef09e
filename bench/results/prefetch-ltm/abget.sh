#!/bin/bash
out=$1; pairs=$2
mkdir -p $out
for i in $(seq 1 $pairs); do
  for b in new base; do
    rm -rf /work/abdb; mkdir -p /work/abdb
    /tmp/$b-peers --engines twain --num 3000000 --value-size 1024 --overwrites 3000000 --reads 300000 \
      --workloads fillrandom,updatezipf,idle60,readrandom --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out $out/$b.$i.jsonl > $out/$b.$i.txt 2>&1
    python3 -c "
import json
r=[json.loads(l) for l in open('$out/$b.$i.jsonl')]
print('$b $i', ' '.join('%s %.2fk cpu %.0f rd %.1fKB p50 %.0f p999 %.0f gc %d' % (d['phase'], d['ops_per_sec']/1000, d['cpu_us_per_op'], d['read_bytes']/max(d['ops'],1)/1000, d['p50_us'], d['p999_us'], d['gc_runs']) for d in r if d['phase'] in ('readrandom',)))
"
  done
done
rm -rf /work/abdb
