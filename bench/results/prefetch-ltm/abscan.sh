#!/bin/bash
# A/B for scans larger than memory: alternate base and new twain-peers binaries, twain only.
# usage: abscan.sh OUTDIR PAIRS [extra twain-peers args...]
out=$1; pairs=$2; shift 2
mkdir -p $out
for i in $(seq 1 $pairs); do
  for b in base new; do
    exe=/tmp/$b-peers
    rm -rf /work/abdb; mkdir -p /work/abdb
    $exe --engines twain --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 3000 \
      --workloads fillrandom,updatezipf,idle60,readrandom,scan --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out $out/$b.$i.jsonl "$@" > $out/$b.$i.txt 2>&1
    python3 -c "
import json
r=[json.loads(l) for l in open('$out/$b.$i.jsonl')]
print('$b $i', ' '.join('%s %.1fk cpu %.0f rd %.1fKB sp %.2f' % (d['phase'], d['ops_per_sec']/1000, d['cpu_us_per_op'], d['read_bytes']/max(d['ops'],1)/1000, d['space_amp']) for d in r if d['phase']!='idle60'))
"
  done
done
rm -rf /work/abdb
