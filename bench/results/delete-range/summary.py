# Medians (with min–max) of the range-deletion runs: the delete phase and the gets after it.
# usage: summary.py bench/results/delete-range
import json, glob, os, statistics, sys
here = sys.argv[1]
runs = {}
for f in sorted(glob.glob(here + '/runs/*.json')):
    mode = os.path.basename(f)[:-5].rsplit('-', 1)[0]
    phases = [json.loads(line) for line in open(f)]
    runs.setdefault(mode, []).append(phases)
med = statistics.median
def span(xs, fmt):
    return f"{fmt(med(xs))} ({fmt(min(xs))}–{fmt(max(xs))})"
print(open(here + '/disk.txt').read().strip())
print()
print('| mode | delete ops | delete s (foreground) | flush s after it | CPU s (both) | bytes written (both) | gets/s after | get p99.9 µs | get max µs | runs |')
print('|---|---|---|---|---|---|---|---|---|---|')
order = ['deleterandom', 'deleterange100', 'deleterange1000', 'deleterange100000']
for mode in order:
    rs = runs.get(mode)
    if not rs:
        continue
    d = [r[1] for r in rs]
    g = [r[2] for r in rs]
    mib = lambda x: f"{x / 2**20:,.1f} MiB"
    print(f"| {mode} | {d[0]['ops']:,} "
          f"| {span([x['secs'] for x in d], lambda v: f'{v:.3f}')} "
          f"| {span([x['settle_secs'] for x in d], lambda v: f'{v:.3f}')} "
          f"| {span([x['cpu_secs'] for x in d], lambda v: f'{v:.2f}')} "
          f"| {span([x['write_bytes'] for x in d], mib)} "
          f"| {span([x['ops_per_sec'] for x in g], lambda v: f'{v:,.0f}')} "
          f"| {med(x['p999_us'] for x in g):.0f} | {med(x['max_us'] for x in g):.0f} | {len(rs)} |")
