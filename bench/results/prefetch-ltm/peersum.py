import json,statistics as st,glob,sys
rows={}
for f in sorted(glob.glob(sys.argv[1]+'/r*.jsonl')):
  for l in open(f):
    d=json.loads(l)
    rows.setdefault((d['engine'],d['phase']),[]).append(d)
for (e,ph),ds in sorted(rows.items(), key=lambda x:(x[0][1],x[0][0])):
  if ph=='idle60': continue
  f=lambda k: st.median([d[k] or 0 for d in ds])
  print(f"{ph:11} {e:8} ops {f('ops_per_sec'):9.0f} {[round(d['ops_per_sec']) for d in ds]} cpu {f('cpu_us_per_op'):7.1f} rdKB {st.median([d['read_bytes']/d['ops']/1000 for d in ds]):6.1f} p50 {f('p50_us'):7.0f} p99 {f('p99_us'):7.0f} p999 {f('p999_us'):7.0f} max {f('max_us'):8.0f} sp {f('space_amp'):.2f}")
