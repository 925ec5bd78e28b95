"""pmu.events() (6.18+) as upstream's pyrf_pmu__events_cb fills it, against
perf 6.1's `perf list`: the software PMU's events, the tool PMU's, one entry
per tracepoint, and the keys perf sets for each kind."""

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.modern.test_modern_surface import real_perf

KEYS = ("name", "alias", "scale_unit", "desc", "long_desc", "encoding_desc", "topic",
        "event_type_desc", "str", "deprecated")
PMU_TYPE_TOOL = 0xFFFFFFFE
TRACEFS = Path("/sys/kernel/tracing/events")


def perf_list(*what):
    perf = real_perf()
    if perf is None:
        pytest.skip("no perf executable")
    p = subprocess.run([perf, "list", "--no-desc", *what], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


def listed(text, kind):
    """Event names on the `[kind]` lines of perf list, aliases split on OR."""
    names = set()
    for line in text.splitlines():
        if line.rstrip().endswith(f"[{kind}]"):
            left = line.rsplit("[", 1)[0]
            names.update(n.strip() for n in left.split(" OR ") if n.strip())
    return names


def pmu(perf_ours, name):
    (p,) = [p for p in perf_ours.pmus() if p.name() == name]
    return p


def check_keys(events):
    for e in events:
        assert list(e) == [k for k in KEYS if k in e], e  # perf's insertion order
        assert all(isinstance(v, str) for v in e.values())


def test_software_events_are_perf_lists(perf_ours):
    expected = listed(perf_list("sw"), "Software event")
    assert len(expected) >= 12
    events = pmu(perf_ours, "software").events()
    check_keys(events)
    assert {e["name"] for e in events} == expected
    by_name = {e["name"]: e for e in events}
    assert by_name["cs"]["encoding_desc"] == "software/config=0x3/"
    assert by_name["cpu-clock"]["str"] == "config=0"
    assert by_name["task-clock"]["scale_unit"] == "1E-06msec"
    for e in events:
        assert e["topic"] == "software" and e["event_type_desc"] == "Kernel PMU event"
        assert e["desc"] == e["long_desc"] and "alias" not in e
        # Each listed name parses to the config its encoding names.
        (evsel,) = perf_ours.parse_events(e["name"])
        assert (evsel.type, f"config={evsel.config:#x}".replace("0x0", "0")) == \
            (perf_ours.TYPE_SOFTWARE, e["str"])


def test_tool_events_are_perf_lists(perf_ours):
    expected = listed(perf_list("sw"), "Tool event")
    assert expected >= {"duration_time", "user_time", "system_time"}
    tool = pmu(perf_ours, "tool")
    assert tool.type == PMU_TYPE_TOOL and repr(tool) == "pmu(tool)"
    events = tool.events()
    check_keys(events)
    assert {e["name"] for e in events} == expected
    by_name = {e["name"]: e for e in events}
    assert by_name["duration_time"]["encoding_desc"] == "tool/config=0x1/"
    assert by_name["system_time"]["desc"] == "System/kernel time in nanoseconds"
    assert all(e["topic"] == "tool" for e in events)


def test_tracepoints_are_perf_lists(perf_ours):
    expected = listed(perf_list("tracepoint"), "Tracepoint event")
    if not expected:
        pytest.skip("perf lists no tracepoints here")
    events = pmu(perf_ours, "tracepoint").events()
    check_keys(events)
    # perf 6.1 lists only the ftrace events it can open (function, print);
    # newer perf's tp_pmu lists every directory of the system, as ours does.
    ftrace = {e["name"] for e in events if e["name"].startswith("ftrace:")}
    assert ftrace == {f"ftrace:{n}" for n in os.listdir(TRACEFS / "ftrace")
                      if (TRACEFS / "ftrace" / n / "format").is_file()}
    assert {e["name"] for e in events} - ftrace == expected - ftrace
    assert expected & ftrace <= ftrace
    by_name = {e["name"]: e for e in events}
    switch = by_name.get("sched:sched_switch")
    if switch is not None:
        tid = perf_ours.tracepoint("sched", "sched_switch")
        assert switch["encoding_desc"] == f"tracepoint/config={tid:#x}/"
        assert switch["event_type_desc"] == "Tracepoint event"
        assert "\t" not in switch["long_desc"] and "field:" in switch["long_desc"]
        assert set(switch) == {"name", "long_desc", "encoding_desc", "event_type_desc"}


def test_sysfs_aliases_of_a_non_core_pmu(perf_ours):
    """A non-core PMU's alias is listed as pmu/alias/, without an `alias` key;
    str is the terms as perf prints them (numbers in %#x); scale_unit from
    the .scale/.unit files."""
    root = Path("/sys/bus/event_source/devices")
    seen = 0
    for p in perf_ours.pmus():
        d = root / p.name() / "events"
        if p.name() in ("software", "tool", "tracepoint") or not d.is_dir() or (root / p.name() / "cpus").exists():
            continue
        files = set(os.listdir(d))
        events = {e["name"]: e for e in p.events()}
        check_keys(events.values())
        for alias in (f for f in files if not f.endswith((".scale", ".unit", ".per-pkg", ".snapshot"))):
            e = events[f"{p.name()}/{alias}/"] if f"{p.name()}/{alias}/" in events else None
            assert e is not None, (p.name(), alias, sorted(events))
            seen += 1
            assert "alias" not in e and e["event_type_desc"] == "Kernel PMU event"
            assert e["encoding_desc"] == f"{p.name()}/{e['str']}/"
            assert not re.search(r"=0x0*(?=,|$)|=0x0\d", e["str"])  # %#x: no 0x0, no leading zeros
            unit = (d / f"{alias}.unit").read_text().strip() if f"{alias}.unit" in files else ""
            scale = (d / f"{alias}.scale").read_text().strip() if f"{alias}.scale" in files else "1"
            if unit or float(scale) != 1.0:
                assert e["scale_unit"].endswith(unit) and float(e["scale_unit"][:len(e["scale_unit"]) - len(unit)]) \
                    == pytest.approx(float(scale), rel=1e-5)
            else:
                assert "scale_unit" not in e
    if not seen:
        pytest.skip("no non-core PMU with sysfs aliases")
