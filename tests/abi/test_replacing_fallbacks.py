# SPDX-License-Identifier: GPL-2.0-only
"""perf's fallbacks that replace a value (docs/abi.md, "Replacing fallbacks"),
compared under strace with Debian's perf 6.1 on refusals of the real kernel:

* a clock the kernel refuses (CLOCK_PROCESS_CPUTIME_ID, `perf record -k 2`):
  perf retries with CLOCK_MONOTONIC, which opens, then closes it and fails
  with "wrong clockid (2)". Ours names the clock under the default policy
  (one call), and under "lenient" sends the same two attrs and keeps the
  second, listed as ("clockid=2 -> clockid=1", "kernel").
* `:P` (max precise): `evlist.config()` asks for precise_ip=3, as perf
  record's evsel__config does; the software PMU takes it; msr refuses every
  level (it does not sample), and both step down 3, 2, 1, 0 before giving
  up. Strict mode lowers nothing.

PERF_SAMPLE_WEIGHT_STRUCT -> PERF_SAMPLE_WEIGHT needs a kernel before 5.12:
the emulator shows it (crates/perf-core/src/abi/tests_replacing.rs).
"""

import os
import subprocess
import tempfile
from pathlib import Path

import pytest

from sidebyside.harness import needs_strace, parse_strace_attr, real_perf

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="opens CPU-wide and msr events: needs root"),
    needs_strace,
]

STRACE = ["strace", "-f", "-qq", "-v", "-s", "0", "-e", "trace=perf_event_open,chdir",
          "-e", "signal=none"]
MARKER = "/replacing-fallback-marker"
MSR_TSC = Path("/sys/bus/event_source/devices/msr/events/tsc")


def ok(ret):
    return ret.split()[0].isdigit()


def calls(lines, keep):
    """The perf_event_open calls whose attr `keep` accepts: [(attr, args, ret)]."""
    parsed = [parse_strace_attr(line) for line in lines if "perf_event_open(" in line]
    return [c for c in parsed if keep(c[0])]


def perf_record(*args):
    """Runs `perf record ARGS -- true` under strace: (its calls, rc, stderr)."""
    perf = real_perf()
    if not perf:
        pytest.skip("needs Debian's perf (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as tmp, tempfile.NamedTemporaryFile(suffix=".strace") as log:
        p = subprocess.run(STRACE + ["-o", log.name, perf, "record", "-o", f"{tmp}/perf.data", *args,
                                     "--", "true"], capture_output=True, text=True, timeout=120)
        return log.read().decode().splitlines(), p.returncode, p.stderr


def ours_traced(ours, code):
    """Runs `code` under strace: (its result, the calls after the marker)."""
    prelude = f"""
import os
try:
    os.chdir({MARKER!r})
except OSError:
    pass
"""
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        got = ours.run(prelude + code, wrapper=STRACE + ["-o", log.name]).check()
        lines = log.read().decode().splitlines()
    start = next(i for i, line in enumerate(lines) if MARKER in line)
    return got, lines[start:]


def clocked(attr):
    """A cpu-clock event with a clock (not the ABI probes, which use task-clock)."""
    return attr.get("use_clockid") == "1" and attr.get("config") == "PERF_COUNT_SW_CPU_CLOCK"


CLOCK = """
perf.set_abi_policy({policy!r})
ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CPU_CLOCK, use_clockid=1, clockid=2)
def go():
    ev.open(perf.cpu_map("0"), perf.thread_map(-1))
    return ev.fallbacks
result(exc(go))
"""


def test_refused_clock_as_perf(ours):
    lines, rc, stderr = perf_record("-k", "2", "-e", "cpu-clock")
    theirs = calls(lines, clocked)
    # perf: CLOCK_PROCESS_CPUTIME_ID refused (once per feature it wrongly
    # blames first), then CLOCK_MONOTONIC opens, and perf gives up anyway.
    assert theirs[0][0]["clockid"] == "CLOCK_PROCESS_CPUTIME_ID" and theirs[0][2].startswith("-1 EINVAL")
    assert all(not ok(ret) for a, _, ret in theirs if a["clockid"] == "CLOCK_PROCESS_CPUTIME_ID")
    assert theirs[-1][0]["clockid"] == "CLOCK_MONOTONIC" and ok(theirs[-1][2]), theirs[-1]
    assert rc != 0 and "wrong clockid (2)" in stderr, (rc, stderr)

    got, lines = ours_traced(ours, CLOCK.format(policy="lenient"))
    mine = calls(lines, clocked)
    assert [(a["clockid"], ok(ret)) for a, _, ret in mine] == [
        ("CLOCK_PROCESS_CPUTIME_ID", False), ("CLOCK_MONOTONIC", True)]
    assert mine[0][2].startswith("-1 EINVAL"), mine
    assert got == ["ok", repr([("clockid=2 -> clockid=1", "kernel")])], got

    for policy in ("default", "strict"):
        got, lines = ours_traced(ours, CLOCK.format(policy=policy))
        assert got[0] == "OSError" and got[2] == 22, got
        assert "clockid=2 is not a clock perf accepts" in got[1], got
        assert 'set_abi_policy("lenient") opens the event with it' in got[1], got
        assert [a["clockid"] for a, _, _ in calls(lines, clocked)] == ["CLOCK_PROCESS_CPUTIME_ID"]


MAX_PRECISE = """
perf.set_abi_policy({policy!r})
el = perf.parse_events({event!r})
el.config()
ev = next(iter(el))
def go():
    el.open()
    return ev.fallbacks
result(exc(go))
"""


def precise_levels(lines, type_):
    found = calls(lines, lambda a: a.get("type", "").lower() in (type_, hex(int(type_, 0))))
    return [(a["precise_ip"], ok(ret)) for a, _, ret in found]


def test_max_precise_on_the_software_pmu_as_perf(ours):
    lines, rc, stderr = perf_record("-e", "cpu-clock:P")
    assert rc == 0, stderr
    sampling = calls(lines, lambda a: a.get("config") == "PERF_COUNT_SW_CPU_CLOCK" and "sample_freq" in a)
    assert sampling and all(a["precise_ip"] == "3" and ok(ret) for a, _, ret in sampling), sampling

    got, lines = ours_traced(ours, MAX_PRECISE.format(policy="default", event="cpu-clock:P"))
    assert got == ["ok", "[]"], got
    mine = calls(lines, lambda a: a.get("config") == "PERF_COUNT_SW_CPU_CLOCK")
    assert mine and all(a["precise_ip"] == "3" and ok(ret) for a, _, ret in mine), mine


def test_max_precise_steps_down_as_perf(ours):
    if not MSR_TSC.exists():
        pytest.skip(f"no {MSR_TSC}")
    type_ = (MSR_TSC.parent.parent / "type").read_text().strip()
    lines, rc, _ = perf_record("-e", "msr/tsc/P")
    assert rc != 0
    theirs = precise_levels(lines, type_)
    # msr does not sample: every level is refused, from 3 down to 0.
    steps = [("3", False), ("2", False), ("1", False), ("0", False)]
    assert theirs[:4] == steps, theirs

    # Ours steps down, then (nothing opened) the probes that look for a
    # field to name lower precise_ip once more. Strict does not step: only
    # the probes lower it.
    for policy, twos in (("default", 2), ("lenient", 2), ("strict", 1)):
        got, lines = ours_traced(ours, MAX_PRECISE.format(policy=policy, event="msr/tsc/P"))
        assert got[0] == "OSError" and got[2] == 22, got
        levels = precise_levels(lines, type_)
        assert levels[:4] == steps, (policy, levels)
        assert levels.count(("2", False)) == twos, (policy, levels)
