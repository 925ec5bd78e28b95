# SPDX-License-Identifier: GPL-2.0-only
"""perf's tool PMU events (duration_time, user_time, system_time), which
perf computes itself (tool_pmu.c): parsed to type PERF_PMU_TYPE_TOOL, opened
without perf_event_open, read from the monotonic clock and /proc. Values are
checked against the kernel's accounting of a child and against perf stat of
the same workload, with loose bounds (the machine may be busy)."""

import errno
import os
import shutil
import subprocess
import sys
import tempfile
import time

import pytest

from modern.child import CLK_TCK, Child
from sidebyside.harness import needs_root, needs_strace, parse_strace_attr, real_perf

pytestmark = needs_root




PERF = real_perf()
TOOL_TYPE = 0xFFFFFFFE
EVENTS = {"duration_time": 1, "user_time": 2, "system_time": 3}
# Mostly user time: the clock is looked at every 100000 iterations.
BUSY = ("import time\n"
        "t = time.process_time()\n"
        "i = 0\n"
        "while True:\n"
        "    i += 1\n"
        "    if i % 100000 == 0 and time.process_time() - t >= {seconds}:\n"
        "        break\n")



@pytest.mark.parametrize("text", [*EVENTS, "tool/duration_time/", "tool/user_time/"])
def test_parse_gives_a_tool_evsel(perf_ours, text):
    evlist = perf_ours.parse_events(text)
    assert len(evlist) == 1
    evsel = evlist[0]
    name = text.removeprefix("tool/").removesuffix("/")
    assert (evsel.type, evsel.config) == (TOOL_TYPE, EVENTS[name])
    assert repr(evsel) == f"evsel({text})"


def test_unknown_tool_events_are_refused(perf_ours):
    for text in ("tool/num_cpus/", "tool/config=1/", "duration_times"):
        with pytest.raises(Exception):
            perf_ours.parse_events(text)


def count_child(perf, seconds):
    """Counts a busy child with the three tool events opened on its pid:
    (values by name, the child's rusage, wall seconds inside and around
    the count)."""
    child = Child(BUSY.format(seconds=seconds))
    try:
        evlist = perf.parse_events("duration_time,user_time,system_time", None,
                                   perf.thread_map(child.pid))
        before_open = time.monotonic()
        evlist.open()
        after_open = time.monotonic()
        child.go()
        child.wait_exited()
        before_read = time.monotonic()
        values = {repr(e)[6:-1]: e.read(-1, child.pid) for e in evlist}
        after_read = time.monotonic()
    finally:
        usage = child.reap()
    return values, usage, (before_read - after_open, after_read - before_open)


def test_values_against_the_childs_rusage(perf_ours):
    values, (utime, stime), (inner, outer) = count_child(perf_ours, 0.5)
    assert utime >= 0.4, (utime, stime)  # the child did spin
    for c in values.values():
        assert c.val == c.ena == c.run, values
    tick = 1e9 / CLK_TCK
    assert values["user_time"].val >= 0.5 * utime * 1e9, (values, utime)
    assert values["system_time"].val >= 0.5 * stime * 1e9 - 2 * tick, (values, stime)
    cpu = values["user_time"].val + values["system_time"].val
    assert cpu <= 2 * (utime + stime) * 1e9 + 2 * tick, (values, utime, stime)
    duration = values["duration_time"].val / 1e9
    assert 0.9 * inner <= duration <= 1.5 * outer + 1, (duration, inner, outer)


@pytest.mark.skipif(PERF is None, reason="the perf tool is not installed")
def test_values_against_perf_stat(perf_ours):
    """perf stat of the same workload: the CPU times are of the same order
    (the workload is bounded by CPU time, not wall time)."""
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(BUSY.format(seconds=0.5))
        f.flush()
        run = subprocess.run([PERF, "stat", "-x,", "-e", "duration_time,user_time,system_time",
                              "--", sys.executable, f.name], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    perf = {}
    for line in run.stderr.splitlines():
        fields = line.split(",")
        if len(fields) > 2 and fields[2] in EVENTS:
            perf[fields[2]] = int(fields[0])
    assert set(perf) == set(EVENTS), run.stderr
    ours, _, _ = count_child(perf_ours, 0.5)
    perf_cpu = perf["user_time"] + perf["system_time"]
    ours_cpu = ours["user_time"].val + ours["system_time"].val
    assert 0.5 * perf_cpu <= ours_cpu <= 2 * perf_cpu, (ours, perf)
    assert ours["user_time"].val >= 0.25 * perf["user_time"], (ours, perf)
    assert ours["duration_time"].val >= 0.5 * 1e9 * 0.9, ours


def test_only_the_first_slot_counts(perf_ours):
    cpus = perf_ours.cpu_map()
    if len(cpus) < 2:
        pytest.skip("needs two CPUs")
    evlist = perf_ours.parse_events("duration_time,user_time,system_time", cpus, None)
    evlist.open()
    t = time.process_time()
    while time.process_time() - t < 0.2:
        pass
    spun = time.process_time() - t
    duration, user, system = evlist
    before_first = time.monotonic()
    first = duration.read(cpus[0], -1)
    assert first.val > 0 and first.val == first.ena == first.run
    for cpu in list(cpus)[1:]:
        c = duration.read(cpu, -1)
        assert (c.val, c.ena, c.run) == (0, 0, 0)
    # System-wide CPU times come from each CPU's /proc/stat line: this
    # process's spin is somewhere among them (less a tick per CPU and kind).
    tick = 1e9 / CLK_TCK
    total = sum(e.read(cpu, -1).val for e in (user, system) for cpu in cpus)
    assert total >= 0.5 * spun * 1e9 - 2 * len(cpus) * tick, (total, spun)
    # A second read gives the change since the first, as for counters: at
    # least the sleep between them, at most the time around both reads.
    time.sleep(0.05)
    second = duration.read(cpus[0], -1)
    after_second = time.monotonic()
    assert 0.05e9 <= second.val <= (after_second - before_first) * 1e9, (first, second)


@pytest.mark.parametrize("name", list(EVENTS))
def test_a_sample_period_is_einval(perf_ours, name):
    evlist = perf_ours.parse_events(name, None, perf_ours.thread_map(os.getpid()))
    evlist[0].sample_period = 1000
    with pytest.raises(OSError) as e:
        evlist.open()
    assert e.value.errno == errno.EINVAL


def test_config_makes_them_sample_so_open_refuses(perf_ours):
    evlist = perf_ours.parse_events("duration_time", None, perf_ours.thread_map(os.getpid()))
    evlist.config()
    with pytest.raises(OSError) as e:
        evlist.open()
    assert e.value.errno == errno.EINVAL


def test_mmap_skips_tool_evsels(perf_ours):
    threads = perf_ours.thread_map(os.getpid())
    only = perf_ours.parse_events("duration_time,user_time", None, threads)
    only.open()
    only.mmap()
    assert only.get_pollfd() == []
    with pytest.raises(TypeError):
        only.read_on_cpu(-1)
    assert [e.ids for e in only] == [[], []]
    mixed = perf_ours.parse_events("duration_time,task-clock", None, threads)
    mixed.open()
    mixed.mmap()
    assert len(mixed.get_pollfd()) == 1
    assert mixed[0].ids == [] and len(mixed[1].ids) == 1


NO_SYSCALL = """
import os
threads = perf.thread_map(os.getpid())
evlist = perf.parse_events("duration_time,user_time,system_time,task-clock", None, threads)
evlist.open()
values = [e.read(-1, os.getpid()).val for e in evlist]
result({"values": values})
"""


@needs_strace
def test_no_perf_event_open_for_tool_events(ours):
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        wrapper = [shutil.which("strace"), "-f", "-qq", "-v", "-s", "0", "-e", "trace=perf_event_open",
                   "-e", "signal=none", "-o", log.name]
        got = ours.run(NO_SYSCALL, wrapper=wrapper).check()
        lines = log.read().decode().splitlines()
    calls = [parse_strace_attr(line)[0] for line in lines if "perf_event_open(" in line]
    # Exactly the task-clock counter reached the kernel.
    kinds = [(a.get("type"), a.get("config")) for a in calls]
    assert kinds == [("PERF_TYPE_SOFTWARE", "PERF_COUNT_SW_TASK_CLOCK")], lines
    assert got["values"][0] > 0
