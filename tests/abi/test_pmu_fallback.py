# SPDX-License-Identifier: GPL-2.0-only
"""Events of a PMU that refuses an attribute open as perf opens them
(docs/abi.md §1.8): the msr and power PMUs have no guest/host filtering and
answer EINVAL to perf's parse-time `exclude_guest=1`; perf retries without
it, and so do we. Compared under strace with Debian's perf: which attrs each
tries, which it keeps, and on which CPUs (`perf stat -a`, the system-wide
open `parse_events(...).open()` with no maps does).

perf 6.1 blames close-on-exec first (its retries guess one feature at a
time, oldest last: the second call drops PERF_FLAG_FD_CLOEXEC and keeps
exclude_guest); the probed ABI knows the kernel has close-on-exec, so ours
keeps it, as the newest perf does.
"""

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from sidebyside.harness import expand_cpu_list, needs_strace, online_cpus, parse_strace_attr

pytestmark = [
    pytest.mark.skipif(os.geteuid() != 0, reason="opens CPU-wide events: needs root"),
    needs_strace,
]

DEVICES = Path("/sys/bus/event_source/devices")
EVENTS = ["msr/tsc/", "msr/smi/", "power/energy-psys/", "power/energy-pkg/"]
STRACE = ["strace", "-f", "-qq", "-v", "-s", "0", "-e", "trace=perf_event_open,chdir",
          "-e", "signal=none"]


def pmu_of(event):
    """(PMU type, its cpumask CPUs or None) for `pmu/name/`; skips if absent."""
    pmu, name = event.strip("/").split("/")
    if not (DEVICES / pmu / "events" / name).exists():
        pytest.skip(f"no {event} here: {DEVICES / pmu / 'events'} lacks {name}")
    type_ = int((DEVICES / pmu / "type").read_text())
    mask = DEVICES / pmu / "cpumask"
    cpus = expand_cpu_list(mask.read_text()) if mask.exists() and mask.read_text().strip() else None
    return type_, cpus


def calls_of(lines, type_):
    """The perf_event_open calls for PMU `type_`: [(attr, [pid, cpu, group, flags], ret)]."""
    calls = [parse_strace_attr(line) for line in lines if "perf_event_open(" in line]
    return [c for c in calls if c[0].get("type", "").lower() in (hex(type_), str(type_))]


def guest_host(attr):
    return (attr.get("exclude_guest") == "1", attr.get("exclude_host") == "1")


def ok(ret):
    return ret.split()[0].isdigit()


def perf_calls(event, type_):
    if not shutil.which("perf"):
        pytest.skip("needs Debian's perf (apt-get install linux-perf)")
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        p = subprocess.run(STRACE + ["-o", log.name, "perf", "stat", "-a", "-e", event, "--", "true"],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, p.stderr
        return calls_of(log.read().decode().splitlines(), type_)


OURS = """
import os
try:
    os.chdir("/pmu-fallback-marker")
except OSError:
    pass
el = perf.parse_events({event!r})
el.open()
ev = next(iter(el))
cpu = list(ev.cpus())[0]
result({{"fallbacks": ev.fallbacks, "cpus": list(ev.cpus()), "threads": list(ev.threads()),
        "count": ev.read(cpu, -1).val}})
"""


def our_calls(ours, event, type_):
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        got = ours.run(OURS.format(event=event), wrapper=STRACE + ["-o", log.name]).check()
        lines = log.read().decode().splitlines()
    marker = next(i for i, line in enumerate(lines) if "/pmu-fallback-marker" in line)
    return got, calls_of(lines[marker:], type_)


@pytest.mark.parametrize("event", EVENTS)
def test_refused_exclude_guest_falls_back_as_perf(ours, event):
    type_, cpumask = pmu_of(event)
    theirs = perf_calls(event, type_)
    got, mine = our_calls(ours, event, type_)

    # Both ask first with perf's parse-time exclude_guest and are refused.
    assert theirs and mine, (theirs, mine)
    for calls in (theirs, mine):
        assert guest_host(calls[0][0]) == (True, False), calls[0]
        assert calls[0][2].startswith("-1 EINVAL"), calls[0]
    # Every refused try carries exclude_guest; every kept fd is without it.
    for calls in (theirs, mine):
        assert all(guest_host(a)[0] for a, _, ret in calls if not ok(ret)), calls
        assert all(guest_host(a) == (False, False) for a, _, ret in calls if ok(ret)), calls
    # The same CPUs, with no task, kept by both.
    def kept(calls):
        return sorted((args[0], args[1]) for _, args, ret in calls if ok(ret))
    cpus = cpumask if cpumask is not None else online_cpus()
    assert kept(theirs) == kept(mine) == sorted(("-1", str(c)) for c in cpus)
    # perf 6.1 drops close-on-exec on its way; ours keeps it (the kernel has it).
    assert all(args[3] == "PERF_FLAG_FD_CLOEXEC" for _, args, _ in mine), mine
    # One refused call, then one per CPU: no other retries.
    assert len(mine) == 1 + len(cpus), mine

    assert got["fallbacks"] == [["exclude_guest", "pmu"]], got
    assert got["cpus"] == cpus and got["threads"] == [-1], got
    assert isinstance(got["count"], int) and got["count"] >= 0, got
    if event == "msr/tsc/":
        assert got["count"] > 0, got  # the TSC always advances


def test_config_on_a_counting_pmu_names_sampling(ours):
    """evlist.config() adds perf record's sampling defaults, which the msr
    PMU refuses (perf record fails on it too). parse_events' exclude_guest
    stays a default that falls back, so the error names sampling, not
    exclude_guest."""
    pmu_of("msr/tsc/")
    got = ours.run("""
el = perf.parse_events("msr/tsc/")
el.config()
result(exc(el.open))
""").check()
    assert got[0] == "OSError" and got[2] == 22, got
    assert "refused sampling (sample_freq=" in got[1] and "opens counting" in got[1], got
    assert "exclude_guest" not in got[1], got


def test_requested_exclude_guest_is_named(ours):
    """perf.evsel(exclude_guest=1) on the msr PMU: a request, not a default:
    EINVAL that names the field, no silent retry."""
    type_, _ = pmu_of("msr/tsc/")
    got = ours.run(f"""
ev = perf.evsel(type={type_}, config=0, exclude_guest=1)
result(exc(ev.open, cpus=perf.cpu_map("0"), threads=perf.thread_map(-1)))
""").check()
    assert got[0] == "OSError" and got[2] == 22, got
    assert "exclude_guest=1" in got[1], got


def test_uncore_pmu_opens_on_its_cpumask(ours):
    """A PMU with a cpumask file opens there with thread -1 when no maps are given."""
    found = [d for d in DEVICES.iterdir()
             if (d / "cpumask").exists() and (d / "cpumask").read_text().strip() and (d / "events").is_dir()
             and any((d / "events").iterdir())]
    if not found:
        pytest.skip(f"no PMU with a cpumask and events under {DEVICES}")
    pmu = found[0]
    event = next(e.name for e in sorted((pmu / "events").iterdir()) if "." not in e.name)
    got = ours.run(f"""
ev = perf.evsel(type={int((pmu / "type").read_text())}, config=0)
el = perf.parse_events("{pmu.name}/{event}/")
el.open()
ev = next(iter(el))
result({{"cpus": list(ev.cpus()), "threads": list(ev.threads())}})
""").check()
    assert got == {"cpus": expand_cpu_list((pmu / "cpumask").read_text()), "threads": [-1]}, got
