#!/usr/bin/env python3
import json, glob, sys, statistics as S, collections
d=sys.argv[1] if len(sys.argv)>1 else '.'
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(f"{d}/r*.jsonl")):
    v=f.split('.')[-2]
    for l in open(f):
        if not l.startswith('{'): continue
        j=json.loads(l)
        p=j['phase']
        rows[(p,'ops/s')][v].append(j['ops_per_sec'])
        rows[(p,'p99.9 ms')][v].append(j['p999_us']/1000)
        rows[(p,'gc MB')][v].append(j['gc_read_bytes']/1e6)
        rows[(p,'space')][v].append(j['space_amp'])
        rows[(p,'cpu us/op')][v].append(j['cpu_us_per_op'])
vs=sorted({v for r in rows.values() for v in r})
print('phase metric', *vs)
for k,r in rows.items():
    print(*k, *[f"{S.median(r[v]):.4g}({min(r[v]):.4g}-{max(r[v]):.4g})" if r[v] else '-' for v in vs])
