# SPDX-License-Identifier: GPL-2.0-only
"""6.18's metrics: perf.parse_metrics(), evlist.metrics() and
evlist.compute_metric() with perf's common software metrics, counted live
and checked against the counts evsel.read() gives; bad input as api.md
documents upstream's behaviour. (The metrics' formulas against perf 6.1's
perf stat: crates/perf-core/tests/metric_vs_perf_stat.rs.)"""

import errno
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from modern.child import Child
from sidebyside.harness import needs_root

pytestmark = needs_root

HERE = Path(__file__).resolve().parent
# Context switches: sleeps in small steps; CPU time: a short spin.
WORK = ("import time\n"
        "for _ in range(50):\n"
        "    time.sleep(0.002)\n"
        "t = time.process_time()\n"
        "while time.process_time() - t < 0.1:\n"
        "    pass\n")


def run_child(code):
    child = Child(code)
    try:
        child.go()
        child.wait_exited()
    finally:
        child.reap()


def test_parse_metrics_gives_the_metrics_events(perf_ours):
    ev = perf_ours.parse_metrics("CPUs_utilized,cs_per_second")
    assert ev.metrics() == ["CPUs_utilized", "cs_per_second"]
    # Shared, ungrouped (NO_GROUP_EVENTS); system-wide, so cpu-clock.
    assert [str(e) for e in ev] == ["evsel(cpu-clock)", "evsel(context-switches)",
                                    "evsel(duration_time)"]
    group = perf_ours.parse_metrics("Default")
    assert group.metrics() == ["CPUs_utilized", "cs_per_second",
                               "migrations_per_second", "page_faults_per_second"]
    assert len(group) == 5
    assert perf_ours.parse_metrics("cpus_utilized").metrics() == ["CPUs_utilized"]
    assert perf_ours.parse_events("cpu-clock").metrics() == []


def test_compute_metric_agrees_with_evsel_read(perf_ours):
    ev = perf_ours.parse_metrics("CPUs_utilized,cs_per_second")
    ev.open()
    ev.enable()
    run_child(WORK)
    ev.disable()  # the counters stop; duration_time goes on (a clock)
    cpus = list(ev.all_cpus())
    cpu = cpus[0]
    before = time.monotonic_ns()
    first = {m: ev.compute_metric(m, cpu, -1) for m in ev.metrics()}
    again = {m: ev.compute_metric(m, cpu, -1) for m in ev.metrics()}
    others = {c: ev.compute_metric("cs_per_second", c, -1) for c in cpus[1:]}
    clock, cs, duration = (e.read(cpu, -1) for e in ev)
    between = time.monotonic_ns() - before
    assert clock.val > 0 and duration.val > between
    # compute_metric leaves the counts evsel.read() compares with.
    assert again["cs_per_second"] == first["cs_per_second"]
    assert first["cs_per_second"] == pytest.approx(cs.val * 1e9 / clock.val, rel=1e-12)
    # duration_time went on between compute_metric() and read(): by at most
    # the time between them.
    low, high = clock.val / duration.val, clock.val / (duration.val - between)
    assert low <= first["CPUs_utilized"] <= high, (first, clock, duration, between)
    assert 0.3 < first["CPUs_utilized"] <= 1.05
    for c, value in others.items():
        count, c_clock = (e.read(c, -1) for e in (ev[1], ev[0]))
        assert value == pytest.approx(count.val * 1e9 / c_clock.val, rel=1e-12)
        # duration_time counts on the first CPU only: x / 0 is NaN.
        assert math.isnan(ev.compute_metric("CPUs_utilized", c, -1))
    # After evsel.read(), the change since it: nothing counted, 0 / 0.
    assert math.isnan(ev.compute_metric("cs_per_second", cpu, -1))
    ev.close()


def test_a_thread_of_a_child(perf_ours):
    child = Child("import time\nt = time.process_time()\n"
                  "while time.process_time() - t < 0.3:\n    pass\n")
    try:
        ev = perf_ours.parse_metrics("CPUs_utilized", None, None, perf_ours.thread_map(child.pid))
        assert [str(e) for e in ev] == ["evsel(cpu-clock)", "evsel(duration_time)"]
        ev.open()
        child.go()
        child.wait_exited()
        before = time.monotonic_ns()
        value = ev.compute_metric("CPUs_utilized", -1, child.pid)
        clock, duration = (e.read(-1, child.pid) for e in ev)
        between = time.monotonic_ns() - before
    finally:
        child.reap()
    # The child's CPU time (it spun 0.3 s of it) over the time counted.
    assert clock.val >= 0.25e9 and duration.val > between
    assert clock.val / duration.val <= value <= clock.val / (duration.val - between), \
        (value, clock, duration, between)
    with pytest.raises(TypeError, match=f"Unknown metric 'CPUs_utilized' for CPU '0' and thread '{child.pid}'"):
        ev.compute_metric("CPUs_utilized", 0, child.pid)


def test_bad_input(perf_ours):
    with pytest.raises(OSError) as e:
        perf_ours.parse_metrics("no_such_metric")
    assert e.value.errno == errno.EINVAL
    assert "Cannot find metric or group `no_such_metric'" in str(e.value)
    with pytest.raises(OSError) as e:
        perf_ours.parse_metrics("CPUs_utilized", "no_such_pmu")
    assert e.value.errno == errno.EINVAL
    for args in [(1,), ("CPUs_utilized", 1), ("CPUs_utilized", None, "0"),
                 ("CPUs_utilized", None, None, 1)]:
        with pytest.raises(TypeError):
            perf_ours.parse_metrics(*args)
    with pytest.raises(TypeError, match="cpus must be a perf.cpu_map or None"):
        perf_ours.parse_metrics("CPUs_utilized", None, "0")
    with pytest.raises(TypeError):
        perf_ours.parse_metrics(metrics_string="CPUs_utilized")
    ev = perf_ours.parse_metrics("CPUs_utilized")
    with pytest.raises(TypeError, match=r"^Unknown metric 'nope' for CPU '0' and thread '-1'$"):
        ev.compute_metric("nope", 0, -1)
    with pytest.raises(TypeError, match=r"^Unknown metric 'CPUs_utilized' for CPU '100000' and thread '-1'$"):
        ev.compute_metric("CPUs_utilized", 100000, -1)
    for args in [(1, 0, -1), ("CPUs_utilized", "0", -1), ("CPUs_utilized", 0)]:
        with pytest.raises(TypeError):
            ev.compute_metric(*args)
    with pytest.raises(TypeError):
        ev.compute_metric(metric="CPUs_utilized", cpu=0, thread=-1)
    with pytest.raises(OverflowError):
        ev.compute_metric("CPUs_utilized", 1 << 40, -1)
    # Not open: the counts read 0, 0 / 0.
    assert math.isnan(ev.compute_metric("CPUs_utilized", 0, -1))
    with pytest.raises(TypeError, match="Unknown metric 'CPUs_utilized'"):
        perf_ours.parse_events("cpu-clock").compute_metric("CPUs_utilized", 0, -1)


def test_ilist_style_client(perf_ours, run_ours_file):
    if not hasattr(perf_ours, "metrics"):
        pytest.skip("perf.metrics() is not in this build")
    p = run_ours_file(HERE / "ilist_client.py", "cpu-clock", "CPUs_utilized", "2", "0.2")
    assert p.returncode == 0, p.stderr
    lines = [json.loads(l) for l in p.stdout.splitlines()]
    tree, intervals = lines[0], lines[1:]
    assert tree["pmus"] >= 3 and tree["events"] > 10 and "Default" in tree["metric_groups"]
    assert len(intervals) == 2
    ncpus = len(perf_ours.cpu_map())
    for line in intervals:
        assert len(line["event"]) == ncpus and len(line["metric"]) == ncpus
        # cpu-clock of each CPU over 0.2 s: about 0.2 s each.
        assert all(0.1e9 < v < 10e9 for v in line["event"].values()), line
        first = line["metric"][f"{perf_ours.cpu_map()[0]}/-1"]
        assert 0.5 < first <= 1.05, line
