#!/usr/bin/env python3
"""Medians of run.sh's rounds: per workload and configuration, ops/s and p99.9 per phase,
compaction bytes written and engine write amplification over the whole run, and space
amplification at the end; the new shape's ratios to the old.

    summary.py OUT_DIR
"""
import json
import pathlib
import statistics
import sys

out = pathlib.Path(sys.argv[1])


def load(path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    seen, named = {}, {}
    for r in rows:
        seen[r['phase']] = seen.get(r['phase'], 0) + 1
        named[r['phase'] if seen[r['phase']] == 1 else f"{r['phase']}#{seen[r['phase']]}"] = r
    return named


def med(vals):
    return statistics.median(vals) if vals else float('nan')


for w in ('fill', '100b', '1k'):
    runs = {}
    names = sorted({f.name[len(w) + 1:f.name.rindex('-r')] for f in out.glob(f'{w}-*-r*.jsonl')},
                   key=lambda n: (n == 'rocksdb', n))
    for name in names:
        files = sorted(out.glob(f'{w}-{name}-r*.jsonl'))
        runs[name] = [load(f) for f in files]
    if not runs:
        continue
    phases = list(next(iter(runs.values()))[0])
    print(f'## {w}\n')
    print('| | ' + ' | '.join(f'{p} kops/s (p99.9 µs)' for p in phases if not p.startswith('idle'))
          + ' | compaction GB | engine write amp | space amp at end | rounds |')
    print('|---' * (len([p for p in phases if not p.startswith('idle')]) + 5) + '|')
    for name, rs in runs.items():
        cells = []
        for p in phases:
            if p.startswith('idle'):
                continue
            if any(p not in r for r in rs):
                cells.append('-')
                continue
            cells.append(f"{med([r[p]['ops_per_sec'] for r in rs]) / 1e3:.0f} ({med([r[p]['p999_us'] for r in rs]):.0f})")
        comp = med([sum(x.get('compaction_write_bytes') or 0 for x in r.values()) for r in rs]) / 1e9
        wa = med([sum(x.get('engine_bytes_written') or 0 for x in r.values())
                  / sum(x.get('user_bytes') or 0 for x in r.values()) for r in rs])
        space = med([list(r.values())[-1]['space_amp'] for r in rs])
        print(f"| {name} | " + ' | '.join(cells) + f" | {comp:.2f} | {wa:.2f} | {space:.2f} | {len(rs)} |")
    pairs = [(a, b) for a, b in (('new', 'old'), ('old-heap', 'old'), ('new-heap', 'old-heap'),
                                 ('new-heap', 'old')) if a in runs and b in runs]
    for a, b in pairs:
        ratios = []
        for p in phases:
            if p.startswith('idle'):
                continue
            rs = [x[p]['ops_per_sec'] / y[p]['ops_per_sec'] for x, y in zip(runs[a], runs[b])]
            ratios.append(f"{p} {med(rs):.2f} ({' / '.join(f'{x:.2f}' for x in rs)})")
        print(f'\n{a} / {b}, per round: ' + '; '.join(ratios))
    if 'rocksdb' in runs:
        def comp(rs):
            return med([sum(x.get('compaction_write_bytes') or 0 for x in r.values()) for r in rs])
        for name in runs:
            if name != 'rocksdb':
                print(f"{name} / RocksDB: compaction bytes {comp(runs[name]) / comp(runs['rocksdb']):.2f}x, "
                      f"fill {med([r['fillrandom']['ops_per_sec'] for r in runs[name]]) / med([r['fillrandom']['ops_per_sec'] for r in runs['rocksdb']]):.2f}x")
    print()
