#!/usr/bin/env python3
# Samples every thread of PID each second: comm, schedstat (cpu ns, runqueue wait ns, slices).
# Prints one line per thread per interval: t, tid, comm, cpu_ms, wait_ms, slices; plus
# system-wide /proc/stat cpu (user, sys, iowait, softirq) and /proc/loadavg.
import os, sys, time
pid = int(sys.argv[1]); out = open(sys.argv[2], "w")
prev = {}
t0 = time.time()
while os.path.exists(f"/proc/{pid}"):
    now = time.time() - t0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except FileNotFoundError:
        break
    for tid in tids:
        try:
            comm = open(f"/proc/{pid}/task/{tid}/comm").read().strip()
            c, w, s = map(int, open(f"/proc/{pid}/task/{tid}/schedstat").read().split())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
        p = prev.get(tid)
        prev[tid] = (c, w, s)
        if p:
            out.write(f"{now:.1f} {tid} {comm} {(c-p[0])/1e6:.1f} {(w-p[1])/1e6:.2f} {s-p[2]}\n")
    st = open("/proc/stat").readline().split()
    out.write(f"{now:.1f} stat {' '.join(st[1:9])}\n")
    out.flush()
    time.sleep(1)
