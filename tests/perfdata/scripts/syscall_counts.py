#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""System-wide system call totals, by syscall, from a perf.data file of
raw_syscalls:sys_enter (or syscalls:sys_enter_*) samples: perf's
scripts/python/syscall-counts.py on the perf.data API, printing what
perf 6.1's prints for the same file (`perf script -s syscall-counts.py`),
with syscall names from perf.syscall_name for the file's machine.

    syscall_counts.py [-i perf.data] [comm]
"""

import argparse
import collections

import perf

syscalls = collections.Counter()
for_comm = None
session = None


def process_event(sample):
    event = str(sample.evsel)
    if event.startswith("evsel(raw_syscalls:sys_enter"):
        sc_id = getattr(sample, "id", -1)
    elif event.startswith("evsel(syscalls:sys_enter_"):
        sc_id = getattr(sample, "__syscall_nr", -1)
    else:
        return
    if for_comm is not None:
        thread = session.find_thread(sample.sample_pid, sample.sample_tid)
        if thread is None or thread.comm() != for_comm:
            return
    syscalls[sc_id] += 1


def print_syscall_totals():
    if for_comm is not None:
        print("\nsyscall events for %s:\n" % for_comm)
    else:
        print("\nsyscall events:\n")
    print("%-40s  %10s" % ("event", "count"))
    print("%-40s  %10s" % ("----------------------------------------", "-----------"))
    e_machine = session.e_machine
    # As perf's: by count, then by id, both descending.
    for sc_id, count in sorted(syscalls.items(), key=lambda kv: (kv[1], kv[0]), reverse=True):
        name = perf.syscall_name(sc_id, e_machine) or str(sc_id)
        print("%-40s  %10d" % (name, count))


def main():
    global for_comm, session
    ap = argparse.ArgumentParser()
    ap.add_argument("comm", nargs="?")
    ap.add_argument("-i", "--input", default="perf.data")
    args = ap.parse_args()
    for_comm = args.comm
    session = perf.session(perf.data(args.input), sample=process_event)
    session.process_events()
    print_syscall_totals()


if __name__ == "__main__":
    main()
