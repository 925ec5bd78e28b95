# SPDX-License-Identifier: GPL-2.0-only
# What a test means when it says "no fd leaked": the perf_event fds and the
# ring mappings of this process, not every fd it holds. A pytest process
# shares its fd table with every earlier test, with threads they left
# running and with garbage the next gc.collect() frees; a count of all fds
# moves with them. Imported by in-process tests and appended to the
# subprocess prelude (tests/sidebyside/harness.py), so it is written once.
# Collect garbage (gc.collect()) before each count where a test means
# "nothing that is unreachable": the probes do not, so a test of what
# reference counting alone releases stays one.
import os as _os

PERF_EVENT_FD = "anon_inode:[perf_event]"


def perf_fds():
    """How many fds of this process are perf events."""
    n = 0
    for fd in _os.listdir("/proc/self/fd"):
        try:
            n += _os.readlink(f"/proc/self/fd/{fd}") == PERF_EVENT_FD
        except OSError:
            pass    # closed between listdir and readlink
    return n


def perf_maps():
    """How many mappings of this process are perf event rings."""
    with open("/proc/self/maps") as f:
        return sum(PERF_EVENT_FD in line for line in f)
