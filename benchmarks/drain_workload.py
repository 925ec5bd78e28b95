# SPDX-License-Identifier: GPL-2.0-only
"""Workload for benchmarks/instructions.sh: trace N of our own getppid()
calls (tracepoint syscalls:sys_enter_getppid, one sample each), then drain.

Usage: drain_workload.py N MODE, MODE one of
  skip       generate only (the baseline to subtract)
  classic    read_on_cpu loop
  attr       read_on_cpu loop reading ev.type and ev.sample_time
  members    read_on_cpu loop reading ev.type and three sample members
             (ev.sample_time, ev.sample_pid, ev.sample_cpu)
  batch      evlist.read_all() (ours only)
  batchattr  read_all() reading ev.type and ev.sample_time
  columns    evlist.read_columns(("type", "sample_time")) (ours only)
  columnsattr  the same, then max() over both columns
"""

import os
import sys

import perf

N, MODE = int(sys.argv[1]), sys.argv[2]
cpus = perf.cpu_map()
threads = perf.thread_map(os.getpid())
with open("/sys/kernel/tracing/events/syscalls/sys_enter_getppid/id") as f:
    tp = int(f.read())
evsel = perf.evsel(type=perf.TYPE_TRACEPOINT, config=tp, freq=0, sample_period=1, wakeup_events=1,
                   sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU
                   | perf.SAMPLE_PERIOD | perf.SAMPLE_RAW)
evsel.open(cpus=cpus, threads=threads)
evlist = perf.evlist(cpus, threads)
evlist.add(evsel)
evlist.mmap(pages=2048)
for _ in range(N):
    os.getppid()


def drain():
    n = 0
    if MODE.startswith("columns"):
        cols = evlist.read_columns(("type", "sample_time"))
        if MODE == "columnsattr":
            max(cols["type"], default=0)
            max(cols["sample_time"], default=0)
        return len(cols) + len(cols.others)
    if MODE.startswith("batch"):
        for ev in evlist.read_all():
            n += 1
            if MODE == "batchattr":
                ev.type
                ev.sample_time
        return n
    for cpu in cpus:
        while (ev := evlist.read_on_cpu(cpu)) is not None:
            n += 1
            if MODE == "attr":
                ev.type
                ev.sample_time
            elif MODE == "members":
                ev.type
                ev.sample_time
                ev.sample_pid
                ev.sample_cpu
    return n


print(drain() if MODE != "skip" else 0)
