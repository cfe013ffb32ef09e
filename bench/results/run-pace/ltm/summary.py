#!/usr/bin/env python3
# Usage: ./summary.py [DIR]: medians (spread), p99.9, space, CPU per op, GC runs and bytes
# read from the disk per phase, for twain 2129efe (old), 694a367 (new) and RocksDB.
import json, glob, sys, statistics as st
d = sys.argv[1] if len(sys.argv) > 1 else "."
rows = {}
for f in sorted(glob.glob(d + "/r*.jsonl")):
    run, eng = f.split("/")[-1].split(".")[:2]
    for line in open(f):
        j = json.loads(line)
        rows.setdefault((j["phase"], eng), []).append(j)
phases = ["fillrandom", "updatezipf", "scan10", "scan100", "scan1000", "scankeys100", "readrandom"]
for ph in phases:
    print(ph)
    for e in ("old", "new", "rocksdb"):
        js = rows.get((ph, e), [])
        if not js:
            continue
        ops = [j["ops_per_sec"] for j in js]
        gc = f" gc runs {[j.get('gc_runs') for j in js]}" if e != "rocksdb" else ""
        print(f"    {e:8} {st.median(ops):8.0f} ({min(ops):.0f}-{max(ops):.0f})"
              f" p99.9 {st.median(j['p999_us'] for j in js) / 1000:6.1f} ms"
              f" space {st.median(j['space_amp'] for j in js):.2f}"
              f" cpu/op {st.median(j['cpu_us_per_op'] for j in js):.0f} us{gc}"
              f" disk read GB {[round(j['read_bytes'] / 1e9, 1) for j in js]}")
