# SPDX-License-Identifier: GPL-2.0-only
"""One benchmark run: decode events through the classic read_on_cpu loop.

The process traces its own getppid() calls (tracepoint
syscalls:sys_enter_getppid, one record per call), makes CHUNK calls, then
drains every ring with read_on_cpu() and touches two members of each event,
as consumers do. Only the draining is timed. Prints one JSON line:
{"module": ..., "events": N, "seconds": S, "lost": L}.

Works with any `perf` module: run it under /usr/bin/python3 with no PYTHONPATH
for the kernel's C module, or with the loader's environment for ours.
"""

import json
import os
import sys
import time

import perf

MODE = os.environ.get("BENCH_MODE", "classic")  # classic | batch | columns
CHUNK = int(os.environ.get("BENCH_CHUNK", "20000"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "10"))
PAGES = int(os.environ.get("BENCH_PAGES", "1024"))


def tracepoint_id(sys_, name):
    for root in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        try:
            with open(f"{root}/events/{sys_}/{name}/id") as f:
                return int(f.read())
        except OSError:
            pass
    sys.exit("tracefs with syscalls:sys_enter_getppid is needed")


def main():
    cpus = perf.cpu_map()
    threads = perf.thread_map(os.getpid())
    evsel = perf.evsel(type=perf.TYPE_TRACEPOINT, config=tracepoint_id("syscalls", "sys_enter_getppid"),
                       freq=0, sample_period=1, wakeup_events=1,
                       sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU
                       | perf.SAMPLE_PERIOD | perf.SAMPLE_RAW)
    evsel.open(cpus=cpus, threads=threads)
    evlist = perf.evlist(cpus, threads)
    evlist.add(evsel)
    evlist.mmap(pages=PAGES)
    events = lost = 0
    elapsed = 0.0
    getppid = os.getppid
    read = evlist.read_on_cpu
    cpu_list = list(cpus)
    for _ in range(ROUNDS):
        for _ in range(CHUNK):
            getppid()
        t0 = time.perf_counter()
        if MODE == "columns":
            # The columnar reader: the consumer aggregates the two columns
            # (at C speed) instead of touching two members per event.
            cols = evlist.read_columns(("type", "sample_time"))
            events += len(cols)
            max(cols["type"], default=0)
            max(cols["sample_time"], default=0)
            lost += sum(ev.lost for ev in cols.others if ev.type == perf.RECORD_LOST)
        elif MODE == "batch":
            for ev in evlist.read_all():
                if ev.type == perf.RECORD_SAMPLE:
                    events += 1
                    ev.sample_time
                elif ev.type == perf.RECORD_LOST:
                    lost += ev.lost
        else:
            for cpu in cpu_list:
                while True:
                    ev = read(cpu)
                    if ev is None:
                        break
                    if ev.type == perf.RECORD_SAMPLE:
                        events += 1
                        ev.sample_time
                    elif ev.type == perf.RECORD_LOST:
                        lost += ev.lost
        elapsed += time.perf_counter() - t0
    print(json.dumps({"module": perf.__file__, "mode": MODE, "events": events, "seconds": elapsed, "lost": lost}))


if __name__ == "__main__":
    main()
