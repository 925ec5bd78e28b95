#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Loss under overload by ring size: a child makes N getppid() calls as
fast as it can; a per-task syscalls:sys_enter_getppid evsel (sample_period
1) writes one sample per call; this process reads with poll/read_on_cpu.
For each ring size it prints samples read, lost (from lost_event), the
check read + lost == N, the read rate and how many times the ring wrapped.

Needs root and tracefs; imports whatever `perf` is on the path (run it with
the environment of the staged module, e.g.
  PERF_PYTHON_SYSROOT=$PWD/build/test-root PERF_PYTHON_KERNEL_RELEASE=$(uname -r) \\
  PYTHONPATH=$PWD/build/test-root/usr/lib/python3/dist-packages \\
  python3 benchmarks/robustness_overload.py [--calls 400000] [--pages 1 4 16 64]
"""

import argparse
import os
import time

import perf


def run(pages, calls):
    cpus = perf.cpu_map()
    online = sorted(cpus)
    go, burst_done, drained = os.pipe(), os.pipe(), os.pipe()
    pid = os.fork()
    if pid == 0:
        os.read(go[0], 1)
        for _ in range(calls - len(online)):
            os.getppid()
        os.write(burst_done[1], b"d")
        os.read(drained[0], 1)
        for cpu in online:          # flush each ring's pending lost count
            os.sched_setaffinity(0, {cpu})
            os.getppid()
        os._exit(0)
    tp = perf.tracepoint("syscalls", "sys_enter_getppid")
    el = perf.evlist(cpus, perf.thread_map(pid))
    el.add(perf.evsel(type=perf.TYPE_TRACEPOINT, config=tp, sample_period=1, freq=0,
                      sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU |
                      perf.SAMPLE_RAW, wakeup_events=1))
    el.open()
    el.mmap(pages=pages)
    os.set_blocking(burst_done[0], False)
    read = lost = 0
    t0 = time.monotonic()
    os.write(go[1], b"g")
    phase = 0
    while True:
        el.poll(timeout=10)
        got = 0
        for cpu in cpus:
            while (ev := el.read_on_cpu(cpu)) is not None:
                got += 1
                if isinstance(ev, perf.lost_event):
                    lost += ev.lost
                else:
                    read += 1
        if phase == 0:
            try:
                os.read(burst_done[0], 1)
                phase = 1
            except BlockingIOError:
                pass
        elif phase == 1 and got == 0:
            os.write(drained[1], b"g")
            phase = 2
        elif phase == 2 and got == 0 and os.waitpid(pid, os.WNOHANG)[0] == pid:
            break
    seconds = time.monotonic() - t0
    el.close()
    record = 8 + 24 + 16            # header, TID/TIME/CPU, raw (u32 + 12 bytes)
    return read, lost, seconds, read * record // (pages * os.sysconf("SC_PAGE_SIZE"))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=400_000)
    p.add_argument("--pages", type=int, nargs="+", default=[1, 4, 16, 64])
    a = p.parse_args()
    print(f"{'pages':>6} {'read':>8} {'lost':>8} {'read+lost==N':>13} {'read/s':>9} {'wraps':>7}")
    for pages in a.pages:
        read, lost, seconds, wraps = run(pages, a.calls)
        ok = "yes" if read + lost == a.calls else f"no ({read + lost})"
        print(f"{pages:>6} {read:>8} {lost:>8} {ok:>13} {read / seconds:>9.0f} {wraps:>7}")


if __name__ == "__main__":
    main()
