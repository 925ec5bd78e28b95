# SPDX-License-Identifier: GPL-2.0-only
"""One benchmark run: decode events through the classic read_on_cpu loop,
or through one of our batch readers.

The process traces its own getppid() calls (tracepoint
syscalls:sys_enter_getppid, one record per call), makes CHUNK calls, then
drains every ring. Every mode does the same work with what it reads, as a
consumer would: it tells samples from other records, counts the samples and
adds up lost records, and with BENCH_WORK=time (the default) it also keeps
the latest sample_time. The classic loop and read_all() do it per event
object; read_columns() gets the samples' times as an array and the other
records as objects, so it takes max() of the column (BENCH_WORK=count asks
it for no column at all).
One untimed round first, in the same mode (so one-time costs such as the
first call's `import array`, the allocations and the per-evsel plans are not
counted), then ROUNDS timed rounds; only the draining is timed. Prints one
JSON line: {"module": ..., "events": N, "seconds": S, "lost": L}.

Works with any `perf` module: run it under /usr/bin/python3 with no PYTHONPATH
for the kernel's C module, or with the loader's environment for ours.
"""

import json
import os
import sys
import time

import perf

MODE = os.environ.get("BENCH_MODE", "classic")  # classic | batch | columns
WORK = os.environ.get("BENCH_WORK", "time")  # time | count
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
    getppid = os.getppid
    read = evlist.read_on_cpu
    cpu_list = list(cpus)
    sample, lost_type = perf.RECORD_SAMPLE, perf.RECORD_LOST

    # One function per mode and work, written out: a per-event test of which
    # work to do would be timed with the loop.
    def classic_time():
        events = lost = last = 0
        for cpu in cpu_list:
            while True:
                ev = read(cpu)
                if ev is None:
                    break
                if ev.type == sample:
                    events += 1
                    t = ev.sample_time
                    if t > last:
                        last = t
                elif ev.type == lost_type:
                    lost += ev.lost
        return events, lost

    def classic_count():
        events = lost = 0
        for cpu in cpu_list:
            while True:
                ev = read(cpu)
                if ev is None:
                    break
                if ev.type == sample:
                    events += 1
                elif ev.type == lost_type:
                    lost += ev.lost
        return events, lost

    def batch_time():
        events = lost = last = 0
        for ev in evlist.read_all():
            if ev.type == sample:
                events += 1
                t = ev.sample_time
                if t > last:
                    last = t
            elif ev.type == lost_type:
                lost += ev.lost
        return events, lost

    def batch_count():
        events = lost = 0
        for ev in evlist.read_all():
            if ev.type == sample:
                events += 1
            elif ev.type == lost_type:
                lost += ev.lost
        return events, lost

    def columns_time():
        cols = evlist.read_columns(("sample_time",))
        max(cols["sample_time"], default=0)
        return len(cols), sum(ev.lost for ev in cols.others if ev.type == lost_type)

    def columns_count():
        cols = evlist.read_columns(())
        return len(cols), sum(ev.lost for ev in cols.others if ev.type == lost_type)

    drain = locals()[f"{MODE}_{WORK}"]
    events = lost = 0
    elapsed = 0.0
    for warm_up in [True] + [False] * ROUNDS:
        for _ in range(CHUNK):
            getppid()
        t0 = time.perf_counter()
        n, lo = drain()
        t = time.perf_counter() - t0
        if not warm_up:
            events, lost, elapsed = events + n, lost + lo, elapsed + t
    print(json.dumps({"module": perf.__file__, "mode": MODE, "work": WORK, "events": events, "seconds": elapsed, "lost": lost}))


if __name__ == "__main__":
    main()
