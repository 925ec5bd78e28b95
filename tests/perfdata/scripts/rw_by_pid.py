#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Read/write activity of every process of a perf.data file of
syscalls:sys_{enter,exit}_{read,write} samples: perf's
scripts/perl/rw-by-pid.pl on the perf.data API, printing what perf 6.1's
prints for the same file (`perf script -s rw-by-pid.pl`; a return value of
0 counts as a failed read there, and is counted so here).

    rw_by_pid.py [-i perf.data]
"""

import argparse
import collections

import perf

reads = collections.defaultdict(lambda: {"bytes_requested": 0, "bytes_read": 0, "total_reads": 0,
                                         "comm": "", "errors": collections.Counter()})
writes = collections.defaultdict(lambda: {"bytes_written": 0, "total_writes": 0, "comm": "",
                                          "errors": collections.Counter()})
unhandled = collections.Counter()
session = None


def process_event(sample):
    event = str(sample.evsel)[len("evsel("):-1]
    # perf hands its handlers common_pid (the sampled thread's id) and the
    # thread's comm.
    pid = getattr(sample, "common_pid", sample.sample_tid)
    if event == "syscalls:sys_enter_read":
        r = reads[pid]
        r["bytes_requested"] += getattr(sample, "count", 0)
        r["total_reads"] += 1
        r["comm"] = comm_of(sample)
    elif event == "syscalls:sys_exit_read":
        ret = getattr(sample, "ret", 0)
        if ret > 0:
            reads[pid]["bytes_read"] += ret
        else:
            reads[pid]["errors"][ret] += 1
    elif event == "syscalls:sys_enter_write":
        w = writes[pid]
        w["bytes_written"] += getattr(sample, "count", 0)
        w["total_writes"] += 1
        w["comm"] = comm_of(sample)
    elif event == "syscalls:sys_exit_write":
        ret = getattr(sample, "ret", 0)
        if ret <= 0:
            writes[pid]["errors"][ret] += 1
    elif sample.evsel.type == perf.TYPE_TRACEPOINT:  # perl's trace_unhandled
        unhandled[event.replace(":", "::", 1)] += 1


def comm_of(sample):
    thread = session.find_thread(sample.sample_pid, sample.sample_tid)
    return thread.comm() if thread else ""


def print_errors(table):
    errcounts = [(pid, v["comm"], error, count)
                 for pid, v in table.items() for error, count in v["errors"].items()]
    for pid, comm, error, count in sorted(errcounts, key=lambda e: e[3], reverse=True):
        print("%6d  %-20s  %6d  %10s" % (pid, comm, error, count))


def print_totals():
    print("read counts by pid:\n")
    print("%6s  %20s  %10s  %10s  %10s" % ("pid", "comm", "# reads", "bytes_requested", "bytes_read"))
    print("%6s  %-20s  %10s  %10s  %10s" % ("------", "--------------------", "-----------",
                                            "----------", "----------"))
    for pid, r in sorted(reads.items(), key=lambda kv: kv[1]["bytes_read"], reverse=True):
        print("%6s  %-20s  %10s  %10s  %10s" % (pid, r["comm"], r["total_reads"], r["bytes_requested"],
                                                r["bytes_read"]))
    print("\nfailed reads by pid:\n")
    print("%6s  %20s  %6s  %10s" % ("pid", "comm", "error #", "# errors"))
    print("%6s  %20s  %6s  %10s" % ("------", "--------------------", "------", "----------"))
    print_errors(reads)
    print("\nwrite counts by pid:\n")
    print("%6s  %20s  %10s  %10s" % ("pid", "comm", "# writes", "bytes_written"))
    print("%6s  %-20s  %10s  %10s" % ("------", "--------------------", "-----------", "----------"))
    for pid, w in sorted(writes.items(), key=lambda kv: kv[1]["bytes_written"], reverse=True):
        print("%6s  %-20s  %10s  %10s" % (pid, w["comm"], w["total_writes"], w["bytes_written"]))
    print("\nfailed writes by pid:\n")
    print("%6s  %20s  %6s  %10s" % ("pid", "comm", "error #", "# errors"))
    print("%6s  %20s  %6s  %10s" % ("------", "--------------------", "------", "----------"))
    print_errors(writes)
    if unhandled:
        print("\nunhandled events:\n")
        print("%-40s  %10s" % ("event", "count"))
        print("%-40s  %10s" % ("----------------------------------------", "-----------"))
        for event, count in unhandled.items():
            print("%-40s  %10d" % (event, count))


def main():
    global session
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", "--input", default="perf.data")
    args = ap.parse_args()
    session = perf.session(perf.data(args.input), sample=process_event)
    session.process_events()
    print_totals()


if __name__ == "__main__":
    main()
