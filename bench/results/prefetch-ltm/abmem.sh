#!/bin/bash
out=$1; pairs=$2
mkdir -p $out
for i in $(seq 1 $pairs); do
  for b in base new; do
    rm -rf /work/abdb; mkdir -p /work/abdb
    /tmp/$b-peers --engines twain --num 1000000 --value-size 1024 --overwrites 1000000 --scans 2000 --reads 100000 \
      --workloads fillrandom,updatezipf,scan10,scan100,scan1000,readrandom --quiet --dir /work/abdb --out $out/$b.$i.jsonl > $out/$b.$i.txt 2>&1
    python3 -c "
import json
r=[json.loads(l) for l in open('$out/$b.$i.jsonl')]
print('$b $i', ' '.join('%s %.2fk cpu %.0f p999 %.0f' % (d['phase'], d['ops_per_sec']/1000, d['cpu_us_per_op'], d['p999_us']) for d in r if d['phase'] not in ('fillrandom','updatezipf')))
"
  done
done
rm -rf /work/abdb
