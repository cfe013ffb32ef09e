#!/bin/bash
out=$1; shift
mkdir -p $out
for spec in "$@"; do
    exe=${spec%%:*}; n=${spec##*:}; tag=$exe.$n.$RANDOM
    rm -rf /work/abdb; mkdir -p /work/abdb
    /tmp/$exe-peers --engines twain --num 3000000 --value-size 1024 --overwrites 3000000 --reads 50000 --scans 3000 \
      --workloads fillrandom,updatezipf,idle60,readrandom,scan --memory-limit 600M --drop-caches \
      --quiet --dir /work/abdb --out $out/$tag.jsonl --set prefetch_threads=$n > $out/$tag.txt 2>&1
    python3 -c "
import json
r=[json.loads(l) for l in open('$out/$tag.jsonl')]
print('$tag', ' '.join('%s %.2fk cpu %.0f rd %.1fKB p50 %.0f p999 %.0f' % (d['phase'], d['ops_per_sec']/1000, d['cpu_us_per_op'], d['read_bytes']/max(d['ops'],1)/1000, d['p50_us'], d['p999_us']) for d in r if d['phase'] in ('readrandom','scan')))
"
done
