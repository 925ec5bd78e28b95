# SPDX-License-Identifier: GPL-2.0-only
# Shared by the workloads: run after the prelude, in the same namespace, under
# either module. Records are handed back as dicts of their members.
import os
import select
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


def drain(evlist, cpus, keep, done, timeout=5.0, extra=(), eager=False):
    """Polls and reads every CPU until done(kept) or the timeout; returns the
    dumped records for which keep(event) is true. done() is asked once the
    rings are dry, or, if eager, after each record kept (for records that
    keep coming, such as a system-wide tracepoint's, where the rings may
    never be dry)."""
    kept = []
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        evlist.poll(timeout=100)
        # Records may arrive as fast as they are read (a system-wide
        # tracepoint on a busy machine): the deadline bounds this loop too.
        while time.monotonic() < deadline:
            got = False
            for cpu in cpus:
                event = evlist.read_on_cpu(cpu)
                if event is None:
                    continue
                got = True
                if keep(event):
                    kept.append(dump(event, extra))
                    if eager and done(kept):
                        return kept
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


class Bursts:
    """A writer that makes records in bursts, each far bigger than a ring,
    and a reader that empties the rings after each: the writer calls end()
    after a burst and waits there until a whole pass of the reader over the
    rings has begun after the burst ended (so that pass read what the burst
    left). The reader calls first() before reading at all (the first burst
    thus overflows the ring: a loss the kernel must report) and after_pass()
    after each pass. On any schedule, then, every burst leaves at least a
    ring's worth to read. Made before the fork: both sides share its pipes."""

    def __init__(self):
        self.ended_r, self.ended_w = os.pipe()
        self.go_r, self.go_w = os.pipe()
        self.pending = False
        self.count = 0

    def end(self):
        os.write(self.ended_w, b"e")
        os.read(self.go_r, 1)

    def first(self):
        os.read(self.ended_r, 1)
        self.pending = True

    def after_pass(self):
        if self.pending:
            self.pending = False
            self.count += 1
            os.write(self.go_w, b"g")
        elif select.select([self.ended_r], [], [], 0)[0]:
            os.read(self.ended_r, 1)
            self.pending = True

    def release(self):
        """The reader is done: a writer still in end() may finish."""
        os.write(self.go_w, b"g")
