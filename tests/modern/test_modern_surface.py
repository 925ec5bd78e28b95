# SPDX-License-Identifier: GPL-2.0-only
"""The 6.14-6.18 evlist/evsel surface (docs/api.md §2, §5, §6):
str/repr, indexing and iteration, parse_events' arguments, open() without
maps, close(), evsel.read() deltas, config() against python.c's record
options (docs/api.md §6, `config()`) and against what `perf record -vv` gives the kernel for the same event, and
perf.pmus() against /sys/bus/event_source/devices."""

import os
import re
import subprocess
import tempfile
from pathlib import Path

import pytest

from sidebyside.harness import (needs_root, real_perf, needs_strace, needs_tracefs, online_cpus, parse_strace_attr,
                                tracepoint_id)
from sidebyside.stolen import stolen_seconds

SAMPLE_IDENTIFIER = 1 << 16
FORMAT_LOST = 16


# -- str / repr / sequence ---------------------------------------------------

@pytest.mark.parametrize("string, names", [
    ("task-clock,page-faults", ["task-clock", "page-faults"]),
    ("cs", ["cs"]),
    ("cpu-clock:u", ["cpu-clock:u"]),
    ("{cpu-clock,task-clock}:u", ["cpu-clock", "task-clock"]),  # perf stat prints these too
    ("software/config=1/", ["software/config=1/"]),
    ("mem:0x1000:rw", ["mem:0x1000:rw"]),
    ("L1-dcache-load-misses", ["L1-dcache-load-misses"]),
])
def test_str_and_repr_of_parsed_events(perf_ours, string, names):
    evlist = perf_ours.parse_events(string)
    text = f"evlist([{','.join(names)}])"
    assert (str(evlist), repr(evlist)) == (text, text)
    assert [(str(e), repr(e)) for e in evlist] == [(f"evsel({n})", f"evsel({n})") for n in names]


@needs_tracefs
def test_str_of_tracepoints_and_globs(perf_ours):
    assert str(perf_ours.parse_events("sched:sched_switch")) == "evlist([sched:sched_switch])"
    evlist = perf_ours.parse_events("sched:sched_wakeup*")
    assert str(evlist) == "evlist([sched:sched_wakeup,sched:sched_wakeup_new])"


def test_str_of_constructed_evsels(perf_ours):
    """Without a parsed name: perf's evsel__name() with its modifiers."""
    p = perf_ours
    evlist = p.evlist(p.cpu_map("0"), p.thread_map(-1))
    for kw in [{}, dict(type=p.TYPE_SOFTWARE, config=p.COUNT_SW_TASK_CLOCK),
               dict(type=p.TYPE_SOFTWARE, config=p.COUNT_SW_DUMMY, exclude_kernel=1),
               dict(precise_ip=2), dict(type=p.TYPE_RAW, config=0x3c),
               dict(type=p.TYPE_BREAKPOINT, bp_addr=0x1000, bp_type=3)]:
        assert evlist.add(p.evsel(**kw)) == len(evlist)
    assert str(evlist) == repr(evlist) == \
        "evlist([cycles:HG,task-clock:HG,dummy:uh,cycles:pp,raw 0x3c,mem:0x1000:rw])"
    assert str(p.evlist(None, None)) == "evlist([])"


def test_indexing_and_iteration(perf_ours):
    evlist = perf_ours.parse_events("task-clock,page-faults,cs")
    items = list(evlist)
    assert len(evlist) == 3 and [str(e) for e in items] == ["evsel(task-clock)", "evsel(page-faults)", "evsel(cs)"]
    assert all(evlist[i] is items[i] for i in range(3)) and evlist[-1] is items[2] and evlist[-3] is items[0]
    for bad in (3, -4, 1 << 62):
        with pytest.raises(IndexError, match="^Index out of range$"):
            evlist[bad]
    with pytest.raises(TypeError, match="^sequence index must be integer, not 'slice'$"):
        evlist[0:1]
    with pytest.raises(TypeError):
        evlist["0"]


def test_parse_events_arguments(perf_ours):
    p = perf_ours
    with pytest.raises(TypeError, match="positional-only"):
        p.parse_events(event_string="task-clock")
    with pytest.raises(TypeError, match="positional-only"):
        p.parse_events("task-clock", cpus=None)
    with pytest.raises(TypeError, match="^cpus must be a perf.cpu_map or None$"):
        p.parse_events("task-clock", "0")
    with pytest.raises(TypeError, match="^threads must be a perf.thread_map or None$"):
        p.parse_events("task-clock", None, 5)
    evlist = p.parse_events("task-clock", None, None)
    assert len(evlist) == 1


@pytest.mark.parametrize("string, caret, text", [
    ("task-clocks", 0, "unknown event 'task-clocks'"),
    ("task-clock,,x", 11, "parser error"),
])
def test_parse_errors_point_at_the_position(perf_ours, string, caret, text):
    with pytest.raises(ValueError) as info:
        perf_ours.parse_events(string)
    first, second = str(info.value).splitlines()[:2]
    assert first == f"event syntax error: '{string}'"
    # perf's layout: the caret line's backslash is under the offending char.
    assert second.index("\\") - len("event syntax error: '") == caret, str(info.value)
    assert text in second


# -- open / close / read -----------------------------------------------------

@needs_root
def test_open_without_maps_is_system_wide(ours):
    got = ours.run("""
evlist = perf.parse_events("cpu-clock,task-clock")
before = [list(evlist[0].cpus()), list(evlist[0].threads())]
evlist.open()
result({"before": before, "cpus": [list(e.cpus()) for e in evlist],
        "threads": [list(e.threads()) for e in evlist], "all": list(evlist.all_cpus())})
""").check()
    cpus = online_cpus()
    assert got["before"] == [[-1], [-1]]
    assert got["cpus"] == [cpus, cpus] and got["threads"] == [[-1], [-1]] and got["all"] == cpus


@needs_root
def test_open_with_threads_only_is_any_cpu(ours):
    got = ours.run("""
import os
evlist = perf.parse_events("task-clock", None, perf.thread_map(os.getpid()))
evlist.open()
result([list(evlist[0].cpus()), list(evlist[0].threads()) == [os.getpid()]])
""").check()
    assert got == [[-1], True]


READ = """
import os
pid = os.getpid()
def spin(seconds):
    import time
    t = time.process_time()
    while time.process_time() - t < seconds:
        pass
evlist = perf.parse_events("task-clock", perf.cpu_map(""), perf.thread_map(pid))
evlist[0].read_format = perf.FORMAT_TOTAL_TIME_ENABLED | perf.FORMAT_TOTAL_TIME_RUNNING
evlist.open()
spin(0.05)
a = evlist[0].read(-1, pid)
spin(0.15)
b = evlist[0].read(-1, pid)
c = evlist[0].read(-1, pid)
errors = [exc(evlist[0].read, 0, pid), exc(evlist[0].read, -1, pid + 1), exc(evlist[0].read, cpu=-1, thread=pid)]
evlist.close()
after_close = exc(evlist[0].read, -1, pid)
evlist.open()
spin(0.05)
reopened = evlist[0].read(-1, pid)
result({"a": a.values, "b": b.values, "c": c.values, "type": type(a).__name__, "errors": errors,
        "after_close": after_close, "reopened": reopened.values, "pid": pid})
"""


@needs_root
def test_evsel_read_gives_deltas(ours):
    """6.17+ semantics: each read() is the change since the previous one
    (the first: since open); a closed evsel raises, a reopened one counts
    afresh."""
    stolen = stolen_seconds()
    got = ours.run(READ).check()
    stolen = (stolen_seconds() - stolen) * 1e9  # task-clock counts it, process_time() does not
    assert got["type"] == "counts_values"
    (a, a_ena, a_run, _, _), (b, b_ena, b_run, _, _) = got["a"], got["b"]
    assert 0.04e9 <= a <= 0.08e9 + stolen and 0.14e9 <= b <= 0.2e9 + stolen, (got, stolen)  # not 0.2 s cumulated
    # task-clock and the enabled time are sampled at slightly different
    # instants: equal to within a fraction of a percent.
    assert a_run == a_ena and b_run == b_ena
    assert abs(a - a_ena) <= 0.01 * a_ena and abs(b - b_ena) <= 0.01 * b_ena
    assert got["c"][0] < 0.01e9 + stolen   # two reads in a row; stolen time counts here too
    pid = got["pid"]
    assert got["errors"] == [["TypeError", "CPU 0 is not part of evsel's CPUs", None],
                             ["TypeError", f"Thread {pid + 1} is not part of evsel's threads", None],
                             ["TypeError", got["errors"][2][1], None]]
    assert "keyword" in got["errors"][2][1]
    assert got["after_close"][0] in ("ValueError", "TypeError"), got["after_close"]
    assert 0.04e9 <= got["reopened"][0] <= 0.08e9 + stolen


@needs_root
def test_close_then_use_raises_and_never_crashes(ours):
    got = ours.run("""
import os
evlist = perf.parse_events("task-clock", perf.cpu_map("0"), perf.thread_map(os.getpid()))
evlist.open()
evlist.mmap()
fds = len(os.listdir("/proc/self/fd"))
evlist.close()
out = {"closed_fds": fds - len(os.listdir("/proc/self/fd"))}
out["read_on_cpu"] = exc(evlist.read_on_cpu, 0)
out["read_all"] = exc(lambda: list(evlist.read_all()))
out["close_again"] = exc(evlist.close)
out["poll"] = exc(evlist.poll, 0)
out["get_pollfd"] = exc(evlist.get_pollfd)
out["enable"] = exc(evlist.enable)
out["mmap"] = exc(evlist.mmap)
out["len"] = len(evlist)
evlist.open()
evlist.mmap()
out["reopened"] = exc(evlist.read_on_cpu, 0)
result(out)
""").check()
    assert got["closed_fds"] == 1  # the one event fd (its ring unmapped with it)
    assert got["read_on_cpu"] == ["TypeError", "Unknown CPU '0'", None]
    assert got["read_all"] == ["ok", "[]"] and got["close_again"] == ["ok", "None"]
    assert got["poll"] == ["ok", "0"] and got["get_pollfd"] == ["ok", "[]"]
    assert got["enable"] == ["ok", "None"]
    assert got["mmap"][0] == "ValueError" and "not open" in got["mmap"][1]
    assert got["len"] == 1
    assert got["reopened"] == ["ok", "None"]


# -- config() ----------------------------------------------------------------

IP, TID, TIME, CPU, PERIOD, RAW = 1, 2, 4, 128, 256, 1024


@pytest.mark.parametrize("string, tracking, sample_type, period", [
    # docs/api.md §6 (config()): sample_type |= IP|TID|TIME, +PERIOD when freq;
    # 4000 Hz for evsels without a period; read_format LOST; a wakeup per
    # record; the first evsel tracks.
    ("task-clock", [True], [IP | TID | TIME | PERIOD], [4000]),
    ("task-clock,page-faults", [True, False], [IP | TID | TIME | PERIOD | SAMPLE_IDENTIFIER] * 2, [4000, 4000]),
    # A period term keeps its period, and no PERIOD sample without freq.
    ("task-clock/period=10000/", [True], [IP | TID | TIME], [10000]),
    ("cpu-clock/freq=100/", [True], [IP | TID | TIME | PERIOD], [100]),
])
def test_config_sets_record_defaults(perf_ours, string, tracking, sample_type, period):
    evlist = perf_ours.parse_events(string)
    assert [e.tracking for e in evlist] == tracking
    evlist.config()
    assert [e.sample_type for e in evlist] == sample_type
    assert [e.sample_period for e in evlist] == period
    assert [e.read_format for e in evlist] == [FORMAT_LOST] * len(evlist)
    assert [e.wakeup_events for e in evlist] == [1] * len(evlist)


@needs_tracefs
def test_config_of_a_tracepoint(perf_ours):
    evlist = perf_ours.parse_events("sched:sched_switch")
    before = evlist[0].sample_type
    evlist.config()
    assert before == TIME | CPU | PERIOD | RAW
    assert evlist[0].sample_type == IP | TID | TIME | CPU | PERIOD | RAW
    assert evlist[0].sample_period == 1



FLAGS = ["disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel", "exclude_hv",
         "exclude_idle", "mmap", "comm", "freq", "enable_on_exec", "task", "watermark", "precise_ip",
         "mmap_data", "sample_id_all", "exclude_host", "exclude_guest", "mmap2", "comm_exec",
         "context_switch", "ksymbol", "bpf_event", "wakeup_events"]


def bits(text, prefix):
    return frozenset() if text in ("0", "", None) else frozenset(b.removeprefix(prefix) for b in text.split("|"))


def from_strace(attr):
    """The config()-owned fields of an attr strace printed."""
    out = {f: attr.get(f, "0") for f in FLAGS}
    out["period"] = attr.get("sample_freq") or attr.get("sample_period") or "0"
    out["sample_type"] = bits(attr.get("sample_type"), "PERF_SAMPLE_")
    out["read_format"] = bits(attr.get("read_format"), "PERF_FORMAT_")
    return out


def from_perf_record(string):
    """The same fields of the first attr `perf record -vv` prints for the
    event (it prints only the non-zero ones)."""
    p = subprocess.run([real_perf(), "record", "-vv", "-o", "/dev/null", "-e", string, "--", "true"],
                       capture_output=True, text=True)
    text = p.stderr + p.stdout
    block = text.split("perf_event_attr:\n", 1)[1].split("-" * 20, 1)[0]
    raw = {}
    for line in block.splitlines():
        m = re.match(r"^  (\S.*?)\s{2,}(\S.*)$", line)
        if m:
            raw[m.group(1)] = m.group(2)
    out = {f: raw.get(f, "0") for f in FLAGS}
    out["wakeup_events"] = raw.get("{ wakeup_events, wakeup_watermark }", "0")
    out["period"] = raw.get("{ sample_period, sample_freq }", "0")
    out["sample_type"] = bits(raw.get("sample_type"), "")
    out["read_format"] = bits(raw.get("read_format"), "")
    return out


# What python.c's config() deliberately does otherwise than perf record,
# field -> (perf record, ours).
DIFFERS = {
    # record_opts.no_inherit = true in python.c
    "inherit": ("1", "0"),
    # record_opts.no_buffering = true: a wakeup per record
    "wakeup_events": ("0", "1"),
    # perf record adds a dummy tracking evsel, so its list has two evsels
    # and evsel__set_sample_id() adds FORMAT_ID; a one-evsel list has not.
    "read_format": (frozenset({"ID", "LOST"}), frozenset({"LOST"})),
    # Ours asks for no KSYMBOL/BPF_EVENT side-band records (docs/api.md:
    # there is no event class for them; C 6.15-6.18 raised MemoryError).
    "ksymbol": ("1", "0"),
    "bpf_event": ("1", "0"),
}

CONFIG_OPEN = """
import os
evlist = perf.parse_events({string!r}, perf.cpu_map("0"), perf.thread_map(os.getpid()))
{before_config}
evlist.config()
{after_config}
try:
    os.chdir("/mdrn-config-marker")
except OSError:
    pass
evlist.open()
result(os.getpid())
"""


def kernel_attrs(ours, string, before_config="", after_config=""):
    """The attrs of the successful perf_event_open calls of our module for
    parse_events(string) + config() + open(), as strace shows them."""
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        wrapper = ["strace", "-f", "-qq", "-v", "-s", "0", "-e", "trace=perf_event_open,chdir",
                   "-e", "signal=none", "-o", log.name]
        ours.run(CONFIG_OPEN.format(string=string, before_config=before_config, after_config=after_config),
                 wrapper=wrapper).check()
        lines = log.read().decode().splitlines()
    marker = next(i for i, line in enumerate(lines) if "/mdrn-config-marker" in line)
    calls = [parse_strace_attr(line) for line in lines[marker:] if "perf_event_open(" in line]
    return [attr for attr, _, ret in calls if re.fullmatch(r"\d+", ret)]


RECORD_CASES = ["task-clock", "page-faults", "cpu-clock:u", "task-clock/period=10000/", "sched:sched_switch"]


@needs_root
@needs_strace
@pytest.mark.skipif(real_perf() is None, reason="the perf tool (linux-perf) is not installed")
@pytest.mark.parametrize("string", RECORD_CASES)
def test_config_matches_perf_record(ours, string):
    """The kernel gets what `perf record -vv -e <string>` gives it, but for
    the DIFFERS fields that python.c's record options (and ours) set
    otherwise."""
    if string.startswith("sched:") and tracepoint_id("sched", "sched_switch") is None:
        pytest.skip("needs tracefs")
    (attr,) = kernel_attrs(ours, string)
    mine, theirs = from_strace(attr), from_perf_record(string)
    for field, (record_value, our_value) in DIFFERS.items():
        assert (theirs[field], mine[field]) == (record_value, our_value), field
    same = [f for f in mine if f not in DIFFERS]
    assert {f: mine[f] for f in same} == {f: theirs[f] for f in same}


@needs_root
@needs_strace
def test_config_of_two_events_uses_identifier(ours):
    """Two evsels: ours puts SAMPLE_IDENTIFIER (not SAMPLE_ID) in both and
    no FORMAT_ID (perf adds SAMPLE_ID and FORMAT_ID when the sample_types
    are equal); only the first tracks."""
    first, second = (from_strace(a) for a in kernel_attrs(ours, "task-clock,page-faults"))
    for attr in (first, second):
        assert attr["sample_type"] == {"IP", "TID", "TIME", "PERIOD", "IDENTIFIER"}
        assert attr["read_format"] == {"LOST"}
        assert (attr["disabled"], attr["enable_on_exec"], attr["freq"], attr["period"]) == ("1", "1", "1", "4000")
    assert [(a["mmap"], a["comm"], a["task"], a["mmap2"]) for a in (first, second)] == \
        [("1", "1", "1", "1"), ("0", "0", "0", "0")]


@needs_root
@needs_strace
@pytest.mark.skipif(real_perf() is None, reason="the perf tool (linux-perf) is not installed")
def test_config_of_a_group_starts_only_the_leader_disabled(ours):
    leader, member = (from_strace(a) for a in kernel_attrs(ours, "{task-clock,page-faults}"))
    assert (leader["disabled"], leader["enable_on_exec"]) == ("1", "1")
    theirs = subprocess.run([real_perf(), "record", "-vv", "-o", "/dev/null", "-e", "{task-clock,page-faults}",
                             "--", "true"], capture_output=True, text=True).stderr
    second = theirs.split("perf_event_attr:\n")[2].split("-" * 20)[0]
    assert "disabled" not in second and "enable_on_exec" not in second  # perf: the member is enabled
    assert (member["disabled"], member["enable_on_exec"]) == ("0", "0")


@needs_root
@needs_strace
def test_attribute_setters_reach_the_kernel(ours):
    """What tracepoint.py (6.15+) does: tracking off before config(), then
    sample_type and read_format set by hand."""
    (attr,) = kernel_attrs(ours, "task-clock",
                           before_config="evlist[0].tracking = False",
                           after_config="evlist[0].sample_type &= ~perf.SAMPLE_IP\n"
                                        "evlist[0].read_format = 0\n"
                                        "evlist[0].wakeup_events = 7")
    mine = from_strace(attr)
    assert (mine["mmap"], mine["comm"], mine["task"], mine["mmap2"], mine["comm_exec"]) == ("0",) * 5
    assert mine["sample_type"] == {"TID", "TIME", "PERIOD"}
    assert mine["read_format"] == frozenset()
    assert mine["wakeup_events"] == "7"


# -- PMUs --------------------------------------------------------------------

SYSFS_PMUS = Path("/sys/bus/event_source/devices")
ALIAS_SUFFIXES = (".scale", ".unit", ".per-pkg", ".snapshot")


def sysfs_aliases(name):
    d = SYSFS_PMUS / name / "events"
    if not d.is_dir():
        return {}
    return {f: (d / f).read_text().strip() for f in os.listdir(d) if not f.endswith(ALIAS_SUFFIXES)}


def test_pmus_are_the_sysfs_devices(perf_ours):
    """The sysfs PMUs and perf's tool PMU (type PERF_PMU_TYPE_TOOL)."""
    pmus = list(perf_ours.pmus())
    assert sorted(p.name() for p in pmus) == sorted(os.listdir(SYSFS_PMUS) + ["tool"])
    for p in pmus:
        assert isinstance(p, perf_ours.pmu)
        if p.name() == "tool":
            assert p.type == 0xFFFFFFFE
        else:
            assert p.type == int((SYSFS_PMUS / p.name() / "type").read_text())
        assert (str(p), repr(p)) == (p.name(), f"pmu({p.name()})")
    it = perf_ours.pmus()
    assert iter(it) is it and len(list(it)) == len(pmus) and next(it, None) is None
    with pytest.raises(TypeError):
        perf_ours.pmu()


def test_pmu_events_include_the_sysfs_aliases(perf_ours):
    """Every sysfs alias is listed (tests/modern/test_pmu_events.py checks the
    keys against perf)."""
    with_events = [p for p in perf_ours.pmus() if sysfs_aliases(p.name())]
    if not with_events:
        pytest.skip("no PMU with event aliases in sysfs")
    keys = {"name", "alias", "scale_unit", "desc", "long_desc", "encoding_desc", "topic",
            "event_type_desc", "str", "deprecated"}
    for p in with_events:
        expected = sysfs_aliases(p.name())
        events = p.events()
        assert all(set(e) <= keys and all(isinstance(v, str) for v in e.values()) for e in events)
        names = {e.get("alias", e["name"]) for e in events}
        assert {f"{p.name()}/{a}/" for a in expected} <= names


def test_parsed_pmu_event_uses_the_pmu_type(perf_ours):
    with_events = [p for p in perf_ours.pmus() if sysfs_aliases(p.name())]
    if not with_events:
        pytest.skip("no PMU with event aliases in sysfs")
    p = with_events[0]
    alias = sorted(sysfs_aliases(p.name()))[0]
    (evsel,) = perf_ours.parse_events(f"{p.name()}/{alias}/")
    assert evsel.type == p.type
    assert str(evsel) == f"evsel({p.name()}/{alias}/)"
