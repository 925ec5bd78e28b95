# SPDX-License-Identifier: GPL-2.0-only
"""perf_core::parse_events against the real perf tool (Debian linux-perf 6.1).

For every event string in the tables below, the real perf is run with -vv
and the `perf_event_attr:` blocks it prints are compared, field by field,
with what our parser returns (through the example binary
crates/perf-core/examples/parse_events.rs, built once per session).

Which fields are compared, and why only those:

* perf stat mode (`perf stat -vv -e S -- true`): the fields the *parser*
  owns and perf stat leaves alone -- type, config, config1 (bp_addr),
  config2 (bp_len), bp_type, exclude_user/kernel/hv/idle/host/guest,
  precise_ip, pinned, exclusive. Not compared: size, sample_type,
  read_format, disabled, inherit, enable_on_exec, sample_period/freq --
  perf stat overwrites or sets those itself (sample_type IDENTIFIER,
  read_format TOTAL_TIME_*, inherit 1 ...) and never applies per-event
  terms such as period=.
* perf record mode (`perf record -vv -o /dev/null -e S -- true`): per-event
  terms (period, freq, time, call-graph, stack-size, max-stack, inherit,
  branch_type) are only applied by perf record's evsel__config(), on top of
  record's own defaults (freq 4000, sample_type IP|TID|TIME|PERIOD,
  inherit 1). So each record case names the extra fields the terms decide,
  and sample_type is compared under a mask of the bits the terms (and
  tracepoint defaults) own. Only software events and tracepoints are used
  there: record falls back from failing hardware events to cpu-clock.
* The first attempt's block of each evsel is used: perf retries a failed
  open with a changed attr (no exclude_guest, no cloexec), which shows as
  further blocks with the same type/config after a failed open.
* Names: `perf stat -x'|'` prints each evsel's name (column 3).
* Errors: strings perf refuses must be refused; for perf's semantic errors
  (not bison's "parser error") the message and the caret position match.
* PMUs differ between machines (sysfs): a string whose PMU or event this
  machine lacks must be refused as perf refuses it here; its attr (or the
  table's error, which needs that PMU) is then not compared, and the test
  skips saying so.

Tracepoint globs are compared as sets: perf 6.1 expands them in readdir
order, we sort (deliberately).
"""

import json
import os
from concurrent.futures import ThreadPoolExecutor
import re
import subprocess
from pathlib import Path

import pytest

from sidebyside.harness import real_perf

ROOT = Path(__file__).resolve().parents[1]



PERF = real_perf()
pytestmark = pytest.mark.skipif(PERF is None, reason="the perf tool is not installed")

# -- the tables ------------------------------------------------------------

STAT_CASES = [
    # software names and aliases
    "cpu-clock", "task-clock", "page-faults", "faults", "context-switches", "cs",
    "cpu-migrations", "migrations", "minor-faults", "major-faults",
    "alignment-faults", "emulation-faults", "dummy", "bpf-output", "cgroup-switches",
    # hardware names (they fail to open here, perf prints the attr anyway)
    "cycles", "cpu-cycles", "instructions", "cache-references", "cache-misses",
    "branches", "branch-instructions", "branch-misses", "bus-cycles",
    "stalled-cycles-frontend", "idle-cycles-frontend", "stalled-cycles-backend",
    "idle-cycles-backend", "ref-cycles",
    # hardware cache events
    "L1-dcache-load-misses", "L1-dcache-loads", "LLC-loads", "LLC-prefetch-refs",
    "dTLB-store-misses", "iTLB-load-misses", "branch-loads", "bpu-loads",
    "node-prefetches", "l1d-misses-misses", "L1-dcache-stores-misses",
    "dTLB-speculative-read-miss", "L1-icache-prefetches",
    # modifiers
    "cpu-clock:u", "faults:k", "faults:h", "faults:uk", "faults:kh", "cs:G", "cs:H",
    "cs:GH", "faults:uG", "faults:kH", "faults:Gk", "faults:p", "faults:pp",
    "cpu-clock:ppp", "faults:I", "faults:D", "faults:e", "faults:P", "faults:S",
    "faults:W", "faults:", "faults:kp", "faults:upp", "faults:ukhGHpppPSDIWeb",
    "cycles:u", "cycles:k", "L1-dcache-loads:u",
    # groups and group modifiers
    "{task-clock,page-faults}:S", "{faults,cs}:u", "{faults:k,cs}:u", "{faults,cs}:uG",
    "{faults:G,cs}:p", "{faults,cs}:D", "{faults,cs:D}", "{faults,cs}:e",
    "g{faults,cs}:k", "{faults}:u", "{faults,cs},{cs}",
    # tracepoints
    "sched:sched_switch", "sched:sched_switch:u", "sched:sched_switch:p",
    "irq:irq_handler_entry", "sched:sched_wak*", "sched:sched_s*",
    # raw and TYPE:CONFIG
    "r1a2", "r1A2", "r1a2:u", "r1a2/config=5/", "1:2", "1:2:u", "0:0", "4:0x1a2",
    # PMU terms, format fields, aliases
    "software/config=1/", "software/config=1/u", "software/config=1,name=bar/",
    "software/config/", "software//", "software/config = 1/", "tracepoint/config=372/",
    "msr/tsc/", "msr/smi/", "msr/event=0x4/", "msr/event=smi/", "msr/SMI/", "tsc", "smi",
    "tsc:u", "power/event=1/", "uprobe/retprobe,ref_ctr_offset=3/",
    "breakpoint/config=1/", "faults/config=3/", "cpu-clock/period=100/u", "cpu-clock//",
    # breakpoints
    "mem:0x1000", "mem:0x1000:rw", "mem:0x1000:rwx", "mem:0x1000:x", "mem:0x1000:w",
    "mem:4096", "mem:0x1000/8", "mem:0x1000/2:w", "mem:0x1000:u", "mem:0x1000/8:u",
    # lists
    "cycles,faults", "faults,cs,dummy", "faults:u,{cs,dummy}:k,sched:sched_switch",
]

# (string, extra fields the terms decide); "sample_type:A|B" compares those bits.
OWNED_SAMPLE_BITS = "CALLCHAIN|REGS_USER|STACK_USER|ADDR|DATA_SRC|BRANCH_STACK|RAW|CPU"
CALLCHAIN_FIELDS = ["sample_type:" + OWNED_SAMPLE_BITS, "branch_sample_type",
                    "sample_regs_user", "sample_stack_user", "sample_max_stack",
                    "exclude_callchain_user", "mmap_data"]
RECORD_CASES = [
    ("faults/period=100/", ["sample_period", "freq", "sample_type:PERIOD"]),
    ("faults/freq=200/", ["sample_period", "freq", "sample_type:PERIOD"]),
    ("faults/period=100,freq=50/", ["sample_period", "freq", "sample_type:PERIOD"]),
    ("faults/freq=50,period=100/", ["sample_period", "freq", "sample_type:PERIOD"]),
    ("software/config=1,period=1000/", ["sample_period", "freq"]),
    ("faults/time=0/", ["sample_type:TIME"]),
    ("faults/no-inherit/", ["inherit"]),
    ("faults/inherit=0/", ["inherit"]),
    ("faults/no-inherit=0/", ["inherit"]),
    ("faults/inherit/", ["inherit"]),
    ("faults/call-graph=fp/", CALLCHAIN_FIELDS),
    ("faults/call-graph=dwarf/", CALLCHAIN_FIELDS),
    ("faults/call-graph=dwarf,stack-size=4096/", CALLCHAIN_FIELDS),
    ("faults/stack-size=4100,call-graph=dwarf/", CALLCHAIN_FIELDS),
    ("faults/call-graph=lbr/", CALLCHAIN_FIELDS),
    ("faults/call-graph=no/", CALLCHAIN_FIELDS),
    ("faults/max-stack=5/", CALLCHAIN_FIELDS),
    ("faults/max-stack=5,call-graph=dwarf/", CALLCHAIN_FIELDS),
    ("faults/stack-size=4096/", CALLCHAIN_FIELDS),
    ("faults/branch_type=any/", ["sample_type:BRANCH_STACK", "branch_sample_type"]),
    ("faults/branch_type=u/", ["sample_type:BRANCH_STACK", "branch_sample_type"]),
    ("faults/branch_type=any_call/", ["sample_type:BRANCH_STACK", "branch_sample_type"]),
    ("faults/branch_type=no/", ["sample_type:BRANCH_STACK", "branch_sample_type"]),
    ("sched:sched_switch", ["sample_period", "sample_type:RAW|CPU|PERIOD|TIME"]),
    ("sched:sched_switch/call-graph=fp/", ["sample_period"] + CALLCHAIN_FIELDS),
    ("sched:sched_switch/max-stack=3/", CALLCHAIN_FIELDS),
    ("sched:sched_switch/inherit=0/", ["inherit"]),
    ("mem:0x1000", ["sample_period"]),
    ("mem:0x1000:x", ["sample_period"]),
]

# Strings perf refuses. For those with a semantic error, (message, position).
ERROR_CASES = {
    "faults:uu": ("Bad modifier", 7),
    "faults:pppp": ("Bad modifier", 7),
    "sched:nosuch": ("unknown tracepoint", 0),
    "software/foo/": ("unknown term 'foo' for pmu 'software'", 9),
    "software/config=1,foo=2/": ("unknown term 'foo' for pmu 'software'", 18),
    "msr/foo/": ("unknown term 'foo' for pmu 'msr'", 4),
    "power/event=0x100/": ("value too big for format, maximum is 255", 12),
    "software/config=abc/": ("expected numeric value", 16),
    "nosuchpmu/config=1/": ("Cannot find PMU `nosuchpmu'. Missing kernel support?", 0),
    "sched:sched_switch/name=x/": ("unknown term", 19),
    "faults:x": None, "xyz": None, "r1a2,foo": None, "L1-icache-stores": None,
    "iTLB-store": None, "mem:0x1000:q": None, "mem:0x1000:rr": None,
    "software/config=1/:u": None, "Faults": None, "software/name=3/": None,
    "software": None, "": None, ",": None, "faults,": None, "{}": None,
    "{faults}:x": None, "faults:u:k": None, "branches-loads": None,
    "L1-DCACHE-loads": None, "faults/": None, "software/config=1,/": None,
    "software/,config=1/": None, "software/config=0X10/": None,
    "software/config=18446744073709551616/": None, "r0x1a2": None, "R1a2": None,
    "mem:0x1000:x/8": None, "cycles-foo": None, "faults{cs}": None,
}

# -- running the two sides ---------------------------------------------------

SAMPLE_BITS = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD",
               "STREAM_ID", "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT",
               "DATA_SRC", "IDENTIFIER", "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX",
               "CGROUP", "DATA_PAGE_SIZE", "CODE_PAGE_SIZE", "WEIGHT_STRUCT"]
READ_BITS = ["TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"]
BRANCH_BITS = ["USER", "KERNEL", "HV", "ANY", "ANY_CALL", "ANY_RETURN", "IND_CALL",
               "ABORT_TX", "IN_TX", "NO_TX", "COND", "CALL_STACK", "IND_JUMP", "CALL",
               "NO_FLAGS", "NO_CYCLES", "TYPE_SAVE", "HW_INDEX", "PRIV_SAVE"]
# perf's labels for union members.
KEY_ALIASES = {
    "{ sample_period, sample_freq }": "sample_period",
    "{ bp_addr, config1 }": "config1",
    "{ bp_len, config2 }": "config2",
    "{ wakeup_events, wakeup_watermark }": "wakeup_events",
}
STAT_FIELDS = ["type", "config", "config1", "config2", "bp_type", "exclude_user",
               "exclude_kernel", "exclude_hv", "exclude_idle", "exclude_host",
               "exclude_guest", "precise_ip", "pinned", "exclusive"]


def bits(names, table):
    return sum(1 << table.index(n) for n in names.split("|") if n)


def value(key, text):
    if key == "sample_type":
        return bits(text, SAMPLE_BITS)
    if key == "branch_sample_type":
        return bits(text, BRANCH_BITS)
    if key == "read_format":
        return bits(text, READ_BITS)
    return int(text, 0)


def perf_attrs(args):
    """The attr blocks perf prints for one run, one dict per evsel (first
    open attempt only); and the whole output."""
    run = subprocess.run([PERF, *args], capture_output=True, text=True, timeout=60,
                         env=dict(os.environ, LC_ALL="C"))
    out = run.stdout + run.stderr
    attempts = []  # (attr, failed)
    current = None
    for line in out.splitlines():
        if line.startswith("perf_event_attr:"):
            current = {}
            attempts.append([current, False])
        elif current is not None and line.startswith("  "):
            m = re.match(r"^  (\{[^}]*\}|\S+)\s+(\S+)$", line)
            if m:
                key = KEY_ALIASES.get(m.group(1), m.group(1))
                current[key] = value(key, m.group(2))
        elif line.startswith("sys_perf_event_open failed"):
            if attempts:
                attempts[-1][1] = True
            current = None
        else:
            current = None

    def ident(attr):
        return tuple(attr.get(k, 0) for k in ("type", "config", "config1", "config2", "bp_type"))

    evsels = []
    for i, (attr, _) in enumerate(attempts):
        prev = attempts[i - 1] if i else None
        if prev and prev[1] and ident(prev[0]) == ident(attr):
            continue  # a retry of the previous evsel
        evsels.append(attr)
    return evsels, run.returncode, out


def perf_stat(s):
    return perf_attrs(["stat", "-vv", "-e", s, "--", "true"])


def perf_record(s):
    return perf_attrs(["record", "-vv", "-o", "/dev/null", "-e", s, "--", "true"])


def perf_names(s):
    run = subprocess.run([PERF, "stat", "-x|", "-e", s, "--", "true"], capture_output=True,
                         text=True, timeout=60, env=dict(os.environ, LC_ALL="C"))
    names = []
    for line in run.stderr.splitlines():
        cols = line.split("|")
        if len(cols) > 3 and not line.startswith("#"):
            names.append(cols[2])
    return names


@pytest.fixture(scope="session")
def perf():
    """Every perf run the tests need, made up front a few at a time:
    `perf[(kind, s)]` with kind "stat", "record" or "names"."""
    jobs = [("stat", s) for s in STAT_CASES + list(ERROR_CASES)]
    jobs += [("record", s) for s, _ in RECORD_CASES]
    jobs += [("names", s) for s in STAT_CASES]
    run = {"stat": perf_stat, "record": perf_record, "names": perf_names}
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = pool.map(lambda job: run[job[0]](job[1]), jobs)
        return dict(zip(jobs, results))


@pytest.fixture(scope="session")
def ours():
    """Our parser's result for every string of the tables, from one run of
    the example binary."""
    strings = list(dict.fromkeys(STAT_CASES + [s for s, _ in RECORD_CASES] + list(ERROR_CASES)))
    run = subprocess.run(
        ["cargo", "run", "-q", "-p", "perf-core", "--example", "parse_events", "--", *strings],
        cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stderr
    results = [json.loads(line) for line in run.stdout.splitlines()]
    assert [r["input"] for r in results] == strings
    return {r["input"]: r for r in results}


def our_evsels(ours, s):
    r = ours[s]
    assert r["ok"], f"{s!r}: we refuse it:\n{r['display']}"
    return r["evsels"]


def field(attr, spec):
    """attr[spec] for perf's dicts (missing = 0) and ours; "sample_type:A|B"
    masks sample_type to those bits."""
    if spec.startswith("sample_type:"):
        return attr.get("sample_type", 0) & bits(spec.split(":", 1)[1], SAMPLE_BITS)
    return attr.get(spec, 0)


def compare(s, theirs, mine, fields, unordered):
    assert len(mine) == len(theirs), f"{s!r}: perf made {len(theirs)} evsels, we made {len(mine)}"
    mine = [e["attr"] for e in mine]
    if unordered:
        def key(attr):
            return (attr.get("type", 0), attr.get("config", 0))
        theirs, mine = sorted(theirs, key=key), sorted(mine, key=key)
    for i, (t, m) in enumerate(zip(theirs, mine)):
        diff = {f: (field(t, f), field(m, f)) for f in fields if field(t, f) != field(m, f)}
        assert not diff, f"{s!r} evsel {i}: field: (perf, ours) {diff}"


def is_glob(s):
    return "*" in s or "?" in s


# -- the tests ---------------------------------------------------------------

def test_tables_are_big_enough():
    assert len(STAT_CASES) + len(RECORD_CASES) >= 40
    assert len(ERROR_CASES) >= 20


def perf_error(s, out):
    """(message, position) of the caret perf printed under `event syntax
    error: '…'` in `out`, or None."""
    m = re.search(r"event syntax error: '(.*)'\n( *)\\___ (.*)", out)
    if not m:
        return None
    shown, spaces, message = m.groups()
    cut = len(s) - len(shown) if shown.startswith("..") else 0
    return message, len(spaces) - 1 - len("event syntax error: ") + cut


def assert_refused_alike(ours, s, out):
    """We refuse `s` as perf did: for its semantic errors with its message at
    its caret (bison's "parser error" is ours to word better)."""
    r = ours[s]
    assert not r["ok"], f"we accept {s!r}: {r['evsels']}"
    assert 0 <= r["position"] <= len(s)
    assert r["display"].startswith("event syntax error: '")
    error = perf_error(s, out)
    assert error, out
    message, position = error
    if message != "parser error":
        assert (r["message"], r["position"]) == (message, position), out


@pytest.mark.parametrize("s", STAT_CASES)
def test_attr_matches_perf_stat(ours, perf, s):
    theirs, _, out = perf["stat", s]
    if not theirs and perf_error(s, out):
        # The PMU or its event is not on this machine (sysfs differs from
        # host to host): nothing to compare but the refusal.
        assert_refused_alike(ours, s, out)
        pytest.skip(f"perf refuses {s!r} on this machine ({perf_error(s, out)[0]}), "
                    "and so do we; no attr to compare")
    assert theirs, f"perf printed no attr for {s!r}:\n{out}"
    compare(s, theirs, our_evsels(ours, s), STAT_FIELDS, is_glob(s))


@pytest.mark.parametrize("s,extra", RECORD_CASES, ids=[s for s, _ in RECORD_CASES])
def test_attr_matches_perf_record(ours, perf, s, extra):
    theirs, _, out = perf["record", s]
    mine = our_evsels(ours, s)
    # perf record appends its own tracking dummy event after the user's.
    assert len(theirs) >= len(mine), f"perf printed too few attrs for {s!r}:\n{out}"
    compare(s, theirs[:len(mine)], mine, STAT_FIELDS + extra, is_glob(s))


@pytest.mark.parametrize("s", STAT_CASES)
def test_names_match_perf_stat(ours, perf, s):
    theirs = perf["names", s]
    if not theirs:
        pytest.skip(f"perf stat cannot open {s!r} here, so it prints no names")
    mine = [e["name"] for e in our_evsels(ours, s)]
    if is_glob(s):
        theirs, mine = sorted(theirs), sorted(mine)
    assert mine == theirs


@pytest.mark.parametrize("s", list(ERROR_CASES))
def test_refused_like_perf(ours, perf, s):
    _, rc, out = perf["stat", s]
    assert rc != 0, f"perf accepts {s!r} now:\n{out}"
    r = ours[s]
    assert not r["ok"], f"we accept {s!r}: {r['evsels']}"
    assert 0 <= r["position"] <= len(s)
    assert r["display"].startswith("event syntax error: '")
    want = ERROR_CASES[s]
    if want is None:
        return
    # perf's own caret, recovered from its output, must agree with the table.
    error = perf_error(s, out)
    assert error, out
    if error[0].startswith("Cannot find PMU") and not want[0].startswith("Cannot find PMU"):
        assert_refused_alike(ours, s, out)
        pytest.skip(f"{s!r} needs a PMU this machine lacks ({error[0]}); "
                    "we refuse it as perf does")
    message, position = want
    assert error == (message, position)
    assert r["message"].startswith(message)
    assert r["position"] == position
