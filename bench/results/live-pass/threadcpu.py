#!/usr/bin/env python3
"""Samples the CPU time (user + system) of each named thread of process PID every 0.2 s
until it exits; prints the last figure per thread name as JSON (seconds)."""
import json, os, sys, time
pid = sys.argv[1]
tick = os.sysconf("SC_CLK_TCK")
last = {}
while os.path.exists(f"/proc/{pid}"):
    seen = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            try:
                with open(f"/proc/{pid}/task/{tid}/stat") as f:
                    s = f.read()
            except OSError:
                continue
            name = s[s.index("(") + 1 : s.rindex(")")]
            fields = s[s.rindex(")") + 2 :].split()
            cpu = (int(fields[11]) + int(fields[12])) / tick
            key = f"{name}/{tid}"
            seen[key] = cpu
    except OSError:
        break
    last.update(seen)
    time.sleep(0.2)
by_name = {}
for key, cpu in last.items():
    name = key.split("/")[0]
    by_name[name] = round(by_name.get(name, 0) + cpu, 2)
print(json.dumps(by_name, sort_keys=True))
