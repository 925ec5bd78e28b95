# SPDX-License-Identifier: GPL-2.0-only
# Shared by the workloads: run after the prelude, in the same namespace, under
# either module. Records are handed back as dicts of their members.
import os
import sys
import time

ATTRS = ["type", "misc", "pid", "ppid", "tid", "ptid", "time", "comm", "start", "len", "pgoff",
         "filename", "id", "lost", "stream_id", "next_prev_pid", "next_prev_tid",
         "sample_ip", "sample_pid", "sample_tid", "sample_time", "sample_addr", "sample_id",
         "sample_stream_id", "sample_period", "sample_cpu"]


def dump(event, extra=()):
    """A record as JSON: its class, repr, str and every member it has."""
    d = {"class": type(event).__name__, "repr": repr(event), "str": str(event)}
    for name in list(ATTRS) + list(extra):
        try:
            value = getattr(event, name)
        except AttributeError:
            continue
        d[name] = value if isinstance(value, (int, str)) else repr(value)
    return d


def drain(evlist, cpus, keep, done, timeout=5.0, extra=()):
    """Polls and reads every CPU until done(kept) or the timeout; returns the
    dumped records for which keep(event) is true."""
    kept = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        evlist.poll(timeout=100)
        while True:
            got = False
            for cpu in cpus:
                event = evlist.read_on_cpu(cpu)
                if event is None:
                    continue
                got = True
                if keep(event):
                    kept.append(dump(event, extra))
            if not got:
                break
        if done(kept):
            break
    return kept


def spawn(argv, wait=True):
    """fork + exec argv; returns the child's pid (reaped if wait)."""
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    if wait:
        os.waitpid(pid, 0)
    return pid


def set_comm(name):
    """Renames this thread (a COMM record, without exec)."""
    with open("/proc/self/comm", "w") as f:
        f.write(name)
