import json,statistics as st,glob,sys,collections
rows=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/*.jsonl')):
  tag=f.split('/')[-1].split('.')[0]
  for l in open(f):
    d=json.loads(l); rows[(d['phase'],tag,d['engine'])].append(d)
for (ph,tag,e),ds in sorted(rows.items()):
  if ph.startswith('idle'): continue
  m=lambda k: st.median([d[k] or 0 for d in ds])
  rd=st.median([d['read_bytes']/max(d['ops'],1)/1000 for d in ds])
  extra=''
  if ds[0].get('reads'):
    r=ds[0]['reads']; ops=max(ds[0]['ops'],1)
    extra=' '.join(f"{k}={v/ops:.1f}" for k,v in r.items() if v)
  print(f"{ph:11} {tag:5} {e:8} ops {m('ops_per_sec'):9.0f} {[round(d['ops_per_sec']) for d in ds]} cpu {m('cpu_us_per_op'):8.1f} rdKB {rd:7.1f} p50 {m('p50_us'):7.0f} p99 {m('p99_us'):7.0f} p999 {m('p999_us'):7.0f} max {m('max_us'):8.0f} | {extra}")
