#!/usr/bin/env python3
"""Compactions and flushes of a twain LOG (written with info_log=true), summed: flush count
and mean table size, and per (level, output level, reason) the count and bytes read and
written. Usage: loglines.py LOG... (bench/results/inline-logs/probe-10000000)."""
import re,sys,collections
for path in sys.argv[1:]:
    comp=collections.defaultdict(lambda:[0,0,0]); flushes=[]; moves=collections.Counter()
    for line in open(path, errors='replace'):
        m=re.search(r'compaction L(\d+) -> L(\d+) \((\w[\w ]*)\): (\d+) tables, (\d+) bytes read; (\d+) tables, (\d+) bytes written', line)
        if m:
            k=(int(m[1]),int(m[2]),m[3]); c=comp[k]; c[0]+=1; c[1]+=int(m[5]); c[2]+=int(m[7]); continue
        m=re.search(r'compaction L(\d+) -> L(\d+) \((\w[\w ]*)\): (\d+) tables moved', line)
        if m: moves[(int(m[1]),int(m[2]),m[3])]+=1; continue
        m=re.search(r'flush: table of (\d+) bytes', line)
        if m: flushes.append(int(m[1]))
    print(path)
    print('  flushes', len(flushes), 'bytes %.2f GB'%(sum(flushes)/1e9), 'mean %.1f MB'%(sum(flushes)/max(1,len(flushes))/1e6))
    for k in sorted(comp): print('  L%d->L%d %-8s n=%3d read %.2f GB written %.2f GB'%(k[0],k[1],k[2],comp[k][0],comp[k][1]/1e9,comp[k][2]/1e9))
    for k in sorted(moves): print('  move L%d->L%d %s n=%d'%(k[0],k[1],k[2],moves[k]))
