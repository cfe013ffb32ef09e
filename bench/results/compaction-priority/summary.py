#!/usr/bin/env python3
"""Medians (and spread) of rounds of fillrandom, updatezipf and idle30 runs
(NAME-rN.jsonl; compaction-priority/run.sh, joined-records/run.sh): throughput, log bytes,
write amplification, compaction bytes, space, tails.

    summary.py OUT_DIR
"""
import glob
import json
import os
import statistics
import sys

out = sys.argv[1]
rows = {}
for path in sorted(glob.glob(os.path.join(out, '*-r*.jsonl'))):
    name = os.path.basename(path).split('-r')[0]
    phases = {}
    for line in open(path):
        d = json.loads(line)
        if 'phase' in d:
            phases[d['phase']] = d
    if 'idle30' not in phases:
        continue  # still running, or cut short
    user = sum(p['user_bytes'] for p in phases.values())
    written = sum(p['write_bytes'] - p.get('cancelled_write_bytes', 0) for p in phases.values())
    comp = sum(p.get('compaction_write_bytes') or 0 for p in phases.values())
    fill, upd = phases['fillrandom'], phases['updatezipf']
    rows.setdefault(name, []).append({
        'fill ops/s': fill['ops_per_sec'],
        'update ops/s': upd['ops_per_sec'],
        'whole-run write amp (io, net)': written / user,
        'log bytes per user byte': sum(p.get('log_bytes') or 0 for p in phases.values()) / user,
        'compaction GB (all phases)': comp / 1e9,
        'update write amp (io, net)': upd['write_amp_io_net'],
        'space at end of updates': upd['space_amp'],
        'space at the end': phases['idle30']['space_amp'],
        'update p99.9 us': upd['p999_us'],
        'update max ms': upd['max_us'] / 1000,
        'fill max ms': fill['max_us'] / 1000,
    })
names = sorted(rows)
metrics = list(rows[names[0]][0])
print('| metric | ' + ' | '.join(f'{n} (median, min-max, {len(rows[n])} runs)' for n in names) + ' |')
print('|---' * (len(names) + 1) + '|')
for m in metrics:
    cells = []
    for n in names:
        v = [r[m] for r in rows[n]]
        cells.append(f'{statistics.median(v):.3g} ({min(v):.3g}-{max(v):.3g})')
    print(f'| {m} | ' + ' | '.join(cells) + ' |')
