#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Collapsed stacks from a perf.data file recorded with call chains, one
line per distinct stack, `comm;outer;...;leaf count`, sorted (the input of
flamegraph.pl): perf's scripts/python/stackcollapse.py on the perf.data
API, printing what perf 6.1's prints for the same file
(`perf script -s stackcollapse.py`).

    stackcollapse.py [-i perf.data] [--no-comm] [--pid] [--tid] [--annotate-kernel]
"""

import argparse
import collections

import perf

lines = collections.Counter()
opts = None
session = None


def tidy_function_name(sym, dso):
    sym = (sym or "[unknown]").replace(";", ":")
    if opts.annotate_kernel and dso == "[kernel.kallsyms]":
        return sym + "_[k]"
    return sym


def process_event(sample):
    chain = sample.callchain
    if chain is None:
        stack = [tidy_function_name(sample.symbol, sample.dso)]
    elif opts.annotate_kernel:
        stack = [tidy_function_name(node.symbol, node.dso) for node in chain]
    else:
        # tidy_function_name inline: a frame's symbol is never None
        # ("[unknown]"); a call per frame is 20 % of the script's time.
        stack = [node.symbol.replace(";", ":") for node in chain]
    if opts.include_comm:
        thread = session.find_thread(sample.sample_pid, sample.sample_tid)
        comm = (thread.comm() if thread is not None else "") or ""
        comm = comm.replace(" ", "_")
        sep = "-"
        if opts.include_pid:
            comm += sep + str(sample.sample_pid)
            sep = "/"
        if opts.include_tid:
            comm += sep + str(sample.sample_tid)
        stack.append(comm)
    lines[";".join(reversed(stack))] += 1


def main():
    global opts, session
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", "--input", default="perf.data")
    ap.add_argument("--no-comm", dest="include_comm", action="store_false")
    ap.add_argument("--pid", dest="include_pid", action="store_true")
    ap.add_argument("--tid", dest="include_tid", action="store_true")
    ap.add_argument("--annotate-kernel", action="store_true")
    opts = ap.parse_args()
    session = perf.session(perf.data(opts.input), sample=process_event)
    session.process_events()
    for stack in sorted(lines):
        print("%s %d" % (stack, lines[stack]))


if __name__ == "__main__":
    main()
