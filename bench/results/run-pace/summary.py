#!/usr/bin/env python3
import json,glob,sys,statistics as st
# Usage: ./summary.py [DIR]  (per-run rows, then medians per phase and build)
d=sys.argv[1] if len(sys.argv)>1 else "."
rows={}
for f in sorted(glob.glob(d+'/r*.jsonl')):
    run,eng=f.split('/')[-1].split('.')[:2]
    for l in open(f):
        j=json.loads(l)
        rows.setdefault((j['phase'],eng),[]).append(j)
        print(f"{run} {eng:4} {j['phase']:11} {j['ops_per_sec']:9.0f} p999 {j['p999_us']:8.0f} max {j['max_us']:7.0f} samp {j['space_amp']:.2f} gc_runs {j['gc_runs']:3} gcMB {j['gc_read_bytes']/1e6:6.0f} compMB {j['compaction_read_bytes']/1e6:6.0f} cpu/op {j['cpu_us_per_op']:.1f} thr {[round(x) for x in j['throughput'][:6]]}")
print()
for (ph,eng),js in sorted(rows.items()):
    print(f"{ph:11} {eng:4} median ops/s {st.median(j['ops_per_sec'] for j in js):9.0f}  p999 {st.median(j['p999_us'] for j in js):8.0f}  samp {st.median(j['space_amp'] for j in js):.2f}")
