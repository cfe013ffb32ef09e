#!/usr/bin/env python3
"""Compaction bytes per pair of levels (and reason, where the LOG names it), from a twain
LOG file (info_log = true).

    levels.py LOG
"""
import collections
import re
import sys

merged = collections.Counter()
read = collections.Counter()
written = collections.Counter()
tables_in = collections.Counter()
moved = collections.Counter()
for line in open(sys.argv[1]):
    m = re.search(r'compaction (L\d+ -> L\d+)( \([^)]*\))?: (\d+) tables, (\d+) bytes read; '
                  r'(\d+) tables, (\d+) bytes written', line)
    if m:
        k = m.group(1) + (m.group(2) or '')
        merged[k] += 1
        tables_in[k] += int(m.group(3))
        read[k] += int(m.group(4))
        written[k] += int(m.group(6))
    m = re.search(r'compaction (L\d+ -> L\d+)( \([^)]*\))?: (\d+) tables moved', line)
    if m:
        moved[m.group(1) + (m.group(2) or '')] += int(m.group(3))
for k in sorted(set(merged) | set(moved)):
    print(f'{k}: {merged[k]} compactions, {tables_in[k]} tables in, {moved[k]} moved, '
          f'read {read[k] / 1e9:.2f} GB, wrote {written[k] / 1e9:.2f} GB')
print(f'total: wrote {sum(written.values()) / 1e9:.2f} GB')
