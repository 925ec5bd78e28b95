# SPDX-License-Identifier: GPL-2.0-only
"""Hardware events on a machine without a hardware PMU (this VM): open()
fails with FileNotFoundError (ENOENT) whose message suggests a software
event, leaks no fd and leaves the module usable; never a crash."""

import os

import pytest

from sidebyside.harness import needs_root

pytestmark = [
    needs_root,
    pytest.mark.skipif(os.path.exists("/sys/bus/event_source/devices/cpu"),
                       reason="this machine has a hardware PMU: hardware events open here"),
]

OPEN = """
import errno, os

def fds():
    return len(os.listdir("/proc/self/fd"))

out = {{}}
before = fds()
evlist = perf.parse_events({string!r}{maps})
try:
    evlist.open()
    out["outcome"] = "opened"
except OSError as e:
    out["outcome"] = [type(e).__name__, e.errno, str(e)]
out["leaked_fds"] = fds() - before
evlist.close()
# The module keeps working: a software event opens and counts.
sw = perf.parse_events("task-clock", perf.cpu_map(""), perf.thread_map(os.getpid()))
sw.open()
sum(range(100000))
out["after"] = sw[0].read(-1, os.getpid()).val
result(out)
"""

HW = ["cycles", "instructions", "ref-cycles", "branch-misses:u", "L1-dcache-load-misses",
      "LLC-loads", "{cycles,instructions}", "task-clock,cycles", "cycles,task-clock"]


@pytest.mark.parametrize("maps", ["", ", None, perf.thread_map(os.getpid())"], ids=["system-wide", "per-thread"])
@pytest.mark.parametrize("string", HW)
def test_hardware_event_open_is_a_clear_enoent(ours, string, maps):
    got = ours.run(OPEN.format(string=string, maps=maps)).check()
    kind, errno, text = got["outcome"]
    assert (kind, errno) == ("FileNotFoundError", 2), got
    # perf_event_open: no hardware PMU for this event on this machine (e.g.
    # a VM); the software event 'cpu-clock' (...) counts time instead
    assert "no hardware PMU" in text and "software event 'cpu-clock'" in text, text
    assert got["leaked_fds"] == 0, got
    assert got["after"] > 0


def test_classic_evsel_defaults_to_cycles_and_fails_clearly(ours):
    got = ours.run("""
import os
ev = perf.evsel()
result([str(ev), exc(ev.open, cpus=perf.cpu_map("0"), threads=perf.thread_map(os.getpid()))])
""").check()
    name, (kind, text, errno) = got
    assert name == "evsel(cycles:HG)"
    assert (kind, errno) == ("FileNotFoundError", 2) and "software event 'cpu-clock'" in text, got


def test_raw_event_open_suggests_a_software_event(ours):
    got = ours.run(OPEN.format(string="r003c", maps="")).check()
    kind, errno, text = got["outcome"]
    assert (kind, errno) == ("FileNotFoundError", 2), got
    assert "software event" in text, text
