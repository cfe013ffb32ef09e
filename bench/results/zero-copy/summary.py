# Medians (with min–max) of the zero-copy runs: copying against pinned reads, per phase.
# usage: summary.py bench/results/zero-copy
import json, glob, os, statistics, sys
here = sys.argv[1]
out = here + '/runs'
rows = {}
for f in sorted(glob.glob(out + '/*.json')):
    name, mode, rnd = os.path.basename(f)[:-5].rsplit('-', 2)
    for line in open(f):
        v = json.loads(line)
        rows.setdefault((name, v['phase'], mode), []).append(v)
print(open(here + '/disk.txt').read().strip())
print('| values | phase | copying ops/s | pinned ops/s | pinned / copying | p99.9 µs copy / pinned | max µs copy / pinned | CPU µs/op copy / pinned | runs |')
print('|---|---|---|---|---|---|---|---|---|')
for (name, phase, mode) in sorted(rows):
    if mode != 'copy' or phase.startswith('fill'):
        continue
    c, p = rows[(name, phase, 'copy')], rows.get((name, phase, 'pinned'), [])
    if not p: continue
    med = lambda rs, k: statistics.median(r[k] for r in rs)
    cs = [r['ops_per_sec'] for r in c]; ps = [r['ops_per_sec'] for r in p]
    print(f"| {name} | {phase} | {med(c,'ops_per_sec'):,.0f} ({min(cs):,.0f}–{max(cs):,.0f}) | {med(p,'ops_per_sec'):,.0f} ({min(ps):,.0f}–{max(ps):,.0f}) | {med(p,'ops_per_sec')/med(c,'ops_per_sec'):.2f} | {med(c,'p999_us'):.0f} / {med(p,'p999_us'):.0f} | {med(c,'max_us'):.0f} / {med(p,'max_us'):.0f} | {med(c,'cpu_us_per_op'):.2f} / {med(p,'cpu_us_per_op'):.2f} | {len(c)}+{len(p)} |")
