#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Collapsed stacks from a perf.data file recorded with call chains, one
line per distinct stack, `comm;outer;...;leaf count`, sorted (the input of
flamegraph.pl): perf's scripts/python/stackcollapse.py on the perf.data
API, printing what perf 6.1's prints for the same file
(`perf script -s stackcollapse.py`).

    stackcollapse.py [-i perf.data] [--no-comm] [--pid] [--tid] [--annotate-kernel] [--inline]

--inline gives the frames of inlined functions as perf script does by
default (perf.session's inline=True; perf's `perf script -s` without
--no-inline), otherwise the Python session's frames (perf's --no-inline).
"""

import argparse
import collections

import perf

lines = collections.Counter()
opts = None
session = None
# The line of each (callchain, comm) seen lately: the session gives the
# samples of one stack in one address space one shared perf.callchain, so
# most samples find theirs here. The chains kept are its keys (alive, so
# their ids are not reused); bounded like the session's own memo.
stacks = {}
STACKS = 8192


def tidy_function_name(sym, dso):
    sym = (sym or "[unknown]").replace(";", ":")
    if opts.annotate_kernel and dso == "[kernel.kallsyms]":
        return sym + "_[k]"
    return sym


def comm_of(sample):
    thread = session.find_thread(sample.sample_pid, sample.sample_tid)
    comm = (thread.comm() if thread is not None else "") or ""
    comm = comm.replace(" ", "_")
    sep = "-"
    if opts.include_pid:
        comm += sep + str(sample.sample_pid)
        sep = "/"
    if opts.include_tid:
        comm += sep + str(sample.sample_tid)
    return comm


def process_event(sample):
    chain = sample.callchain
    comm = comm_of(sample) if opts.include_comm else None
    if chain is not None:
        key = (chain, comm)
        line = stacks.get(key)
        if line is None:
            if len(stacks) >= STACKS:
                stacks.clear()
            line = stacks[key] = stack_line(sample, chain, comm)
        lines[line] += 1
    else:
        lines[stack_line(sample, chain, comm)] += 1


def stack_line(sample, chain, comm):
    if chain is None:
        stack = [tidy_function_name(sample.symbol, sample.dso)]
    elif opts.annotate_kernel:
        stack = [tidy_function_name(node.symbol, node.dso) for node in chain]
    else:
        # a frame's symbol is never None ("[unknown]")
        stack = [node.symbol.replace(";", ":") for node in chain]
    if comm is not None:
        stack.append(comm)
    return ";".join(reversed(stack))


def main():
    global opts, session
    ap = argparse.ArgumentParser()
    ap.add_argument("-i", "--input", default="perf.data")
    ap.add_argument("--no-comm", dest="include_comm", action="store_false")
    ap.add_argument("--pid", dest="include_pid", action="store_true")
    ap.add_argument("--tid", dest="include_tid", action="store_true")
    ap.add_argument("--annotate-kernel", action="store_true")
    ap.add_argument("--inline", action="store_true")
    opts = ap.parse_args()
    session = perf.session(perf.data(opts.input), sample=process_event, inline=opts.inline)
    session.process_events()
    for stack in sorted(lines):
        print("%s %d" % (stack, lines[stack]))


if __name__ == "__main__":
    main()
