#!/usr/bin/env python3
"""Per-second CPU of a process's threads, grouped by thread name, until it exits.

    scripts/thread-cpu.py PID

Prints one line a second: the seconds since the start, the process's total CPU (100 =
one core) and each thread name's share, e.g. `total= 196 quire-reindex=38
reindex-documen=42 thrd-tantivy=115`. Reads /proc/PID/task/*/stat (Linux only); used
to see which stage of a reindex waits on which (session 18, in the history of docs/benchmarks.md).
"""
import collections
import os
import sys
import time


def sample(pid):
    """CPU ticks per (thread id, name), or None once the process is gone."""
    ticks = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                stat = f.read()
        except OSError:
            continue  # the thread ended meanwhile
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2 :].split()
        ticks[(tid, name)] = int(fields[11]) + int(fields[12])  # utime + stime
    return ticks


def main():
    pid = sys.argv[1]
    hz = os.sysconf("SC_CLK_TCK")
    start = time.time()
    before = {}
    while (now := sample(pid)) is not None:
        by_name = collections.Counter()
        for key, ticks in now.items():
            by_name[key[1]] += ticks - before.get(key, 0)
        before = now
        shares = " ".join(f"{name[:15]}={t * 100 / hz:.0f}" for name, t in sorted(by_name.items()) if t)
        print(f"{time.time() - start:6.1f} total={sum(by_name.values()) * 100 / hz:4.0f} {shares}", flush=True)
        time.sleep(1)


if __name__ == "__main__":
    main()
