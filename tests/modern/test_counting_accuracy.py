# SPDX-License-Identifier: GPL-2.0-only
"""Counting mode against the kernel's own accounting of a child process:
task-clock is the child's CPU time (utime + stime of /proc/<pid>/stat, plus
at most what the host stole meanwhile),
page-faults grows with the pages it touches (and matches minflt + majflt).
Both ways of making the counter: the classic evsel(type=, config=) with
enable_on_exec, and parse_events('task-clock') opened on the child's pid."""

import os

import pytest

from modern.child import Child
from sidebyside.harness import needs_root
from sidebyside.stolen import stolen_seconds

pytestmark = needs_root

PAGE = os.sysconf("SC_PAGE_SIZE")

BUSY = ("import time\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < {seconds}:\n"
        "    pass\n")
TOUCH = ("import mmap\n"
         "n = {pages}\n"
         "m = mmap.mmap(-1, n * {page})\n"
         "m.madvise(mmap.MADV_NOHUGEPAGE)\n"
         "for i in range(0, n * {page}, {page}):\n"
         "    m[i] = 1\n")



def run_counted(perf, how, event, code):
    """Runs `code` in a child counted with `event` made `how`; returns
    (counter value, /proc stat of the exited child, with the seconds the
    host stole meanwhile as 'stolen')."""
    stolen = stolen_seconds()
    child = Child(code)
    try:
        cpus, threads = perf.cpu_map(""), perf.thread_map(child.pid)
        if how == "evsel":
            config = {"task-clock": perf.COUNT_SW_TASK_CLOCK, "page-faults": perf.COUNT_SW_PAGE_FAULTS}[event]
            evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=config, disabled=1, enable_on_exec=1,
                               read_format=perf.FORMAT_TOTAL_TIME_ENABLED | perf.FORMAT_TOTAL_TIME_RUNNING)
            evsel.open(cpus=cpus, threads=threads)
            keep = evsel
        elif how == "parse_events":
            keep = perf.parse_events(event, cpus, threads)
            keep.open()
            evsel = keep[0]
        else:  # parse_events on every online CPU: one counter per CPU, summed
            cpus = perf.cpu_map()
            keep = perf.parse_events(event, cpus, threads)
            keep.open()
            evsel = keep[0]
        child.go()
        child.wait_exited()
        counts = [evsel.read(cpu, child.pid) for cpu in cpus]
        stat = child.stat()
        stat["stolen"] = stolen_seconds() - stolen
        assert all(c.run == c.ena for c in counts if how == "evsel")
        del keep
        return sum(c.val for c in counts), stat
    finally:
        child.reap()


HOWS = ["evsel", "parse_events", "parse_events-per-cpu"]


@pytest.mark.parametrize("how", HOWS)
def test_task_clock_is_the_childs_cpu_time(perf_ours, how):
    val, stat = run_counted(perf_ours, how, "task-clock", BUSY.format(seconds=0.5))
    counted = val / 1e9
    assert stat["cpu_seconds"] >= 0.45, stat  # the child did spin
    # task-clock also counts what the host stole while the child ran (see
    # sidebyside/stolen.py); the stolen figure is for every CPU, an upper bound.
    slack = 0.1 * stat["cpu_seconds"]
    assert stat["cpu_seconds"] - slack <= counted <= stat["cpu_seconds"] + stat["stolen"] + slack, (counted, stat)


@pytest.mark.parametrize("how", HOWS)
def test_page_faults_grow_with_pages_touched(perf_ours, how):
    n = 2000
    small, small_stat = run_counted(perf_ours, how, "page-faults", TOUCH.format(pages=n, page=PAGE))
    big, big_stat = run_counted(perf_ours, how, "page-faults", TOUCH.format(pages=4 * n, page=PAGE))
    # Every touched page faults once; the interpreter's own faults are the
    # same in both runs.
    assert small >= n and big >= 4 * n, (small, big)
    assert abs((big - small) - 3 * n) <= 0.1 * 3 * n, (small, big)
    # The kernel's own count of the child's faults (it also has the shell's
    # few hundred before the exec).
    for counted, stat in ((small, small_stat), (big, big_stat)):
        assert abs(counted - stat["faults"]) <= 0.1 * stat["faults"], (counted, stat)
