#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Futex contention of a perf.data file of syscalls:sys_{enter,exit}_futex
samples: perf's scripts/python/futex-contention.py on the perf.data API,
printing what perf 6.1's prints for the same file (its running "average"
included: the mean of the previous average and the new value).

    futex_contention.py [-i perf.data]
"""

import argparse

import perf

FUTEX_WAIT = 0
FUTEX_PRIVATE_FLAG = 128
FUTEX_CLOCK_REALTIME = 256
FUTEX_CMD_MASK = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)

process_names = {}
thread_thislock = {}
thread_blocktime = {}
lock_waits = {}  # (tid, lock) -> (min, max, avg, count)
session = None


def add_stats(key, value):
    if key not in lock_waits:
        lock_waits[key] = (value, value, value, 1)
    else:
        low, high, avg, count = lock_waits[key]
        lock_waits[key] = (min(low, value), max(high, value), (avg + value) / 2, count + 1)


def process_event(sample):
    event = str(sample.evsel)
    # perf hands its handlers common_pid, the tid of the sampled thread.
    tid = getattr(sample, "common_pid", sample.sample_tid)
    if event == "evsel(syscalls:sys_enter_futex)":
        if getattr(sample, "op", 0) & FUTEX_CMD_MASK != FUTEX_WAIT:
            return
        thread = session.find_thread(sample.sample_pid, sample.sample_tid)
        process_names[tid] = thread.comm() if thread else "unknown"
        thread_thislock[tid] = getattr(sample, "uaddr", 0)
        thread_blocktime[tid] = sample.sample_time
    elif event == "evsel(syscalls:sys_exit_futex)":
        if tid in thread_blocktime:
            add_stats((tid, thread_thislock[tid]), sample.sample_time - thread_blocktime[tid])
            del thread_blocktime[tid]
            del thread_thislock[tid]


def main():
    global session
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", "--input", default="perf.data")
    args = ap.parse_args()
    session = perf.session(perf.data(args.input), sample=process_event)
    session.process_events()
    for (tid, lock), (low, high, avg, count) in lock_waits.items():
        print("%s[%d] lock %x contended %d times, %d avg ns [max: %d ns, min %d ns]" %
              (process_names[tid], tid, lock, count, avg, high, low))


if __name__ == "__main__":
    main()
