#!/usr/bin/env python3
"""Medians of three rounds of run.sh: fill ops/s, p99.9 and max latency; compaction bytes
written and engine write amplification over the fill and the idle phase after it (the
backlog done); space amplification at the end; and twain's ratios to RocksDB.

    summary.py OUT_DIR
"""
import json
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1])
rows = {}
for name in ('static', 'dynamic', 'rocksdb'):
    runs = []
    for path in sorted(out.glob(f'{name}-r*.jsonl')):
        recs = [json.loads(line) for line in path.read_text().splitlines()]
        fill = next((r for r in recs if r.get('phase') == 'fillrandom'), None)
        if fill is None:
            continue
        idle = [r for r in recs if r.get('phase', '').startswith('idle')]
        run = dict(fill)
        for key in ('compaction_write_bytes', 'engine_bytes_written'):
            run[key] = fill[key] + sum(r.get(key) or 0 for r in idle)
        run['write_amp_engine'] = run['engine_bytes_written'] / fill['user_bytes']
        run['space_amp'] = (idle[-1] if idle else fill)['space_amp']
        runs.append(run)
    if runs:
        rows[name] = runs


def med(runs, key):
    return statistics.median(r[key] for r in runs)


print('| | fill ops/s | compaction GB written | engine write amp | p99.9 µs | max ms | space amp | runs |')
print('|---|---|---|---|---|---|---|---|')
for name, runs in rows.items():
    per_run = ', '.join(f"{r['ops_per_sec'] / 1e3:.0f}k / {r['compaction_write_bytes'] / 1e9:.2f}" for r in runs)
    print(f"| {name} | {med(runs, 'ops_per_sec') / 1e3:.0f}k | {med(runs, 'compaction_write_bytes') / 1e9:.2f} | "
          f"{med(runs, 'write_amp_engine'):.2f} | {med(runs, 'p999_us'):.0f} | {med(runs, 'max_us') / 1e3:.0f} | "
          f"{med(runs, 'space_amp'):.2f} | {per_run} |")
if 'rocksdb' in rows:
    rock = rows['rocksdb']
    for name in ('static', 'dynamic'):
        if name in rows:
            r = rows[name]
            print(f"\n{name} / RocksDB: fill {med(r, 'ops_per_sec') / med(rock, 'ops_per_sec'):.2f}x, "
                  f"compaction bytes {med(r, 'compaction_write_bytes') / med(rock, 'compaction_write_bytes'):.2f}x")
