# SPDX-License-Identifier: GPL-2.0-only
"""The per-event fast paths (docs/performance.md, docs/design.md):
evlist.read_on_cpu's calling conventions and argument errors, the per-format
classes of tracepoint samples (fields as getsets, members answered first unless a field shadows them), and the
columnar batch reader evlist.read_columns()."""

import shutil
from pathlib import Path

import pytest

from sidebyside.harness import needs_root, needs_tracefs

pytestmark = [needs_root, needs_tracefs]

# N getppid() samples of this process, in `evlist`.
GETPPID = """
import os, sys
N = 300
cpus, threads = perf.cpu_map(), perf.thread_map(os.getpid())
def getppid_evlist(**kw):
    ev = perf.evsel(type=perf.TYPE_TRACEPOINT, config=perf.tracepoint("syscalls", "sys_enter_getppid"),
                    freq=0, sample_period=1, wakeup_events=1,
                    sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU | perf.SAMPLE_RAW, **kw)
    ev.open(cpus=cpus, threads=threads)
    evlist = perf.evlist(cpus, threads)
    evlist.add(ev)
    evlist.mmap(pages=64)
    return evlist
evlist = getppid_evlist()
for _ in range(N):
    os.getppid()
"""

CALLS = GETPPID + """
forms = [lambda c: evlist.read_on_cpu(c), lambda c: evlist.read_on_cpu(c, 1),
         lambda c: evlist.read_on_cpu(cpu=c), lambda c: evlist.read_on_cpu(c, sample_id_all=0),
         lambda c: evlist.read_on_cpu(sample_id_all=1, cpu=c)]
n = i = 0
for c in cpus:
    while True:
        e = forms[i % len(forms)](c)
        i += 1
        if e is None:
            break
        n += isinstance(e, perf.sample_event) and e.sample_pid == os.getpid()
# [exception class name, str(e), its notes]: pyo3 notes the argument a
# conversion failed for (Python >= 3.11).
def noted(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - any outcome is data here
        return [type(e).__name__, str(e), getattr(e, "__notes__", [])]
    return ["ok", "", []]
errors = [noted(evlist.read_on_cpu), noted(evlist.read_on_cpu, 0, 1, 2),
          noted(lambda: evlist.read_on_cpu(foo=1)), noted(lambda: evlist.read_on_cpu(0, cpu=0)),
          noted(evlist.read_on_cpu, "x"), noted(evlist.read_on_cpu, 1.5), noted(evlist.read_on_cpu, 2**40),
          noted(evlist.read_on_cpu, -2**40), noted(perf.evlist.read_on_cpu, 5, 0),
          noted(lambda: evlist.read_on_cpu(0, sample_id_all="no"))]
result({"n": n, "errors": errors, "sig": perf.evlist.read_on_cpu.__text_signature__,
        "version": list(sys.version_info[:2])})
"""

# Per bad call of CALLS: the exception class, what its text must contain, and
# the argument a conversion error is noted for (None: the text names it).
# The texts are pyo3's (the method is an ordinary pyo3 method) or CPython's
# own conversion errors; the C module's are PyArg_ParseTupleAndKeywords'.
EXPECTED_ERRORS = [
    ["TypeError", ["read_on_cpu", "'cpu'"], None],
    ["TypeError", ["read_on_cpu", "3"], None],
    ["TypeError", ["read_on_cpu", "'foo'"], None],
    ["TypeError", ["read_on_cpu", "'cpu'"], None],
    ["TypeError", ["'str' object cannot be interpreted as an integer"], "cpu"],
    ["TypeError", ["'float' object cannot be interpreted as an integer"], "cpu"],
    ["OverflowError", [], "cpu"],
    ["OverflowError", [], "cpu"],
    ["TypeError", ["descriptor 'read_on_cpu' for 'perf.evlist' objects doesn't apply to a 'int' object"], None],
    ["TypeError", ["'str' object cannot be interpreted as an integer"], "sample_id_all"],
]


def pyenv_python(version):
    """A pyenv interpreter X.Y (as tests/loader uses them), or skip."""
    found = sorted(Path.home().glob(f".pyenv/versions/{version}.*/bin/python{version}"))
    if not found:
        pytest.skip(f"no pyenv python {version}")
    return str(found[-1])


@pytest.mark.parametrize("version", ["system", "3.10", "3.12", "3.13"])
def test_read_on_cpu_calling_conventions(ours, version):
    """Every way of passing the arguments reads every event, and each bad
    call raises an error that names the argument at fault, on every
    supported Python."""
    python = None if version == "system" else pyenv_python(version)
    got = ours.run(CALLS, python=python).check()
    assert got["n"] == 300
    assert got["sig"] == "($self, /, cpu, sample_id_all=1)"
    if version != "system":
        assert got["version"] == [int(x) for x in version.split(".")]
    notes = tuple(got["version"]) >= (3, 11)  # BaseException.add_note
    assert len(got["errors"]) == len(EXPECTED_ERRORS)
    for (cls, text, notes_got), (want_cls, words, arg) in zip(got["errors"], EXPECTED_ERRORS):
        assert cls == want_cls, text
        assert all(w in text for w in words), text
        if arg is not None and notes:
            assert any(f"'{arg}'" in n for n in notes_got), (text, notes_got)


def test_read_on_cpu_argument_errors_match_the_c_module(ours, c_module):
    """The same exception classes as the C module for each bad call (the
    texts are pyo3's and CPython's, the C module's PyArg_ParseTupleAndKeywords')."""
    o = ours.run(CALLS).check()
    c = c_module.run(CALLS).check()
    assert o["n"] == c["n"] == 300
    assert [e[0] for e in o["errors"]] == [e[0] for e in c["errors"]]


SHADOW_FORMAT = """name: sys_enter_getppid
ID: {id}
format:
\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;
\tfield:int type;\toffset:8;\tsize:4;\tsigned:1;

print fmt: ""
"""


@pytest.mark.skipif(not shutil.which("unshare"), reason="needs unshare(1)")
def test_a_field_named_like_a_member_shadows_it(module, tmp_path):
    """A tracepoint field named `type` is what ev.type answers, as in the C
    module (its getattro looks fields up first); the other members are
    unchanged. The format is bind-mounted over the real one in a private
    mount namespace, so only the test process sees it."""
    tracing = "/sys/kernel/tracing/events/syscalls/sys_enter_getppid"
    with open(f"{tracing}/id") as f:
        tp = int(f.read())
    fake = tmp_path / "format"
    fake.write_text(SHADOW_FORMAT.format(id=tp))
    fake.chmod(0o644)
    wrapper = ["unshare", "--mount", "--propagation", "private", "sh", "-c",
               f'mount --bind {fake} {tracing}/format && exec "$@"', "sh"]
    got = module.run(GETPPID + """
out = []
for c in cpus:
    while (e := evlist.read_on_cpu(c)) is not None:
        if isinstance(e, perf.sample_event):
            out.append([e.type, getattr(e, "__syscall_nr"), e.sample_pid, type(e).__name__])
result(out)
""", wrapper=wrapper).check()
    assert len(got) == 300
    nr = got[0][1]
    assert nr != 9 and all(row[:2] == [nr, nr] for row in got), got[:3]
    assert {row[3] for row in got} == {"sample_event"}


COLUMNS = GETPPID + """
import subprocess
tracked = getppid_evlist(task=1, comm=1)
for _ in range(N):
    os.getppid()
subprocess.run(["true"])
first = evlist.read_columns(max_events=10)
classic = []
for c in cpus:
    while (e := evlist.read_on_cpu(c)) is not None:
        classic.append(e)
rest = evlist.read_columns()
cols = tracked.read_columns()
members = ["sample_ip", "sample_pid", "sample_tid", "sample_addr", "sample_id", "sample_stream_id",
           "sample_period"]
some = tracked.read_columns(["sample_time", "evsel"])
result({
    "first": len(first), "classic": len(classic), "rest": len(rest),
    "len": len(cols), "keys": list(cols), "lens": {k: len(cols[k]) for k in cols},
    "typecodes": {k: cols[k].typecode for k in cols},
    "constant": {k: sorted(set(cols[k])) for k in members + ["type", "evsel"]},
    "classic_constant": {k: sorted({getattr(e, k) for e in classic}) for k in members + ["type"]},
    "pid": os.getpid(),
    "cpus_ok": set(cols["sample_cpu"]) <= set(cpus),
    "times_per_cpu_sorted": all(
        [t for t, c in zip(cols["sample_time"], cols["sample_cpu"]) if c == cpu]
        == sorted(t for t, c in zip(cols["sample_time"], cols["sample_cpu"]) if c == cpu)
        for cpu in cpus),
    "others": sorted({type(e).__name__ for e in cols.others}),
    "repr": repr(some), "some_keys": list(some), "in": ["evsel" in some, "sample_ip" in some],
    "missing": exc(lambda: some["sample_ip"]),
    "bad": [exc(tracked.read_columns, "sample_time"), exc(tracked.read_columns, ["nope"]),
            exc(tracked.read_columns, [1]), exc(tracked.read_columns, 5),
            exc(tracked.read_columns, max_events=-1)],
    "empty": len(tracked.read_columns()),
})
"""


def test_read_columns(ours):
    """read_columns() gives the same members as read_on_cpu() (the same
    defaults for what was not sampled), one array per column, the other
    records as event objects; bounded reads resume where they stopped;
    bad column lists are TypeError/ValueError."""
    got = ours.run(COLUMNS).check()
    # Bounded, then classic, then the rest: every sample once.
    assert got["first"] == 10
    # evlist saw both rounds of getppid() calls, tracked the second one.
    assert got["first"] + got["classic"] + got["rest"] == 600
    assert got["len"] == 300
    assert got["keys"] == ["type", "sample_ip", "sample_pid", "sample_tid", "sample_time", "sample_addr",
                           "sample_id", "sample_stream_id", "sample_cpu", "sample_period", "evsel"]
    assert set(got["lens"].values()) == {300}
    assert got["typecodes"] == {"type": "I", "sample_ip": "Q", "sample_pid": "i", "sample_tid": "i",
                                "sample_time": "Q", "sample_addr": "Q", "sample_id": "Q",
                                "sample_stream_id": "Q", "sample_cpu": "I", "sample_period": "Q",
                                "evsel": "I"}
    constant = got.pop("constant")
    assert constant["sample_pid"] == constant["sample_tid"] == [got["pid"]]
    assert constant["type"] == [9] and constant["evsel"] == [0]
    for k, values in got["classic_constant"].items():
        assert constant[k] == values, k
    assert got["cpus_ok"] and got["times_per_cpu_sorted"]
    # The child's fork and exit (task=1): not samples, so event objects.
    assert "task_event" in got["others"]
    assert got["repr"] == "sample_columns(0 samples, columns=[sample_time, evsel], others=0)"
    assert got["some_keys"] == ["sample_time", "evsel"] and got["in"] == [True, False]
    assert got["missing"] == ["KeyError", "'sample_ip'", None]
    assert got["bad"][0][0] == "TypeError" and "not str" in got["bad"][0][1]
    assert got["bad"][1][0] == "ValueError" and "unknown column 'nope'" in got["bad"][1][1]
    assert got["bad"][2] == ["TypeError", "column names must be str", None]
    assert got["bad"][3][0] == "TypeError"
    assert got["bad"][4][0] == "OverflowError"
    assert got["empty"] == 0


COLUMN_BUFFERS = GETPPID + """
tracked = getppid_evlist()
def round_(columns):
    for _ in range(N):
        os.getppid()
    return tracked.read_columns(columns)
a = round_(["sample_time", "sample_cpu", "sample_pid"])
kept = {k: list(a[k]) for k in a}
# The next calls reuse the evlist's column buffers, in another number,
# order and width: what a call returned stays as it was.
b = round_(["sample_pid", "sample_time"])
c = round_(None)
d = round_(())
result({
    "a_unchanged": all(list(a[k]) == v for k, v in kept.items()),
    "lens": [len(a), len(b), len(c), len(d)],
    "b": {k: [b[k].typecode, len(b[k])] for k in b},
    "pids": sorted(set(a["sample_pid"]) | set(b["sample_pid"]) | set(c["sample_pid"])),
    "pid": os.getpid(),
    "in_order": max(a["sample_time"]) < min(b["sample_time"]) and max(b["sample_time"]) < min(c["sample_time"]),
    "cpus_ok": set(a["sample_cpu"]) | set(c["sample_cpu"]) <= set(cpus),
    "d_keys": list(d),
})
"""


def test_read_columns_reuses_its_buffers_safely(ours):
    """The column buffers an evlist keeps between read_columns() calls are
    emptied and refilled: each call's arrays hold that call's samples only,
    in their own type, and arrays returned earlier do not change."""
    got = ours.run(COLUMN_BUFFERS).check()
    assert got["a_unchanged"]
    assert got["lens"] == [300, 300, 300, 300]
    assert got["b"] == {"sample_pid": ["i", 300], "sample_time": ["Q", 300]}
    assert got["pids"] == [got["pid"]]
    assert got["in_order"] and got["cpus_ok"]
    assert got["d_keys"] == []


DECODED_COLUMNS = GETPPID + """
# A callchain makes the layout variable: read_columns() decodes each record
# instead of reading planned offsets.
ev = perf.evsel(type=perf.TYPE_TRACEPOINT, config=perf.tracepoint("syscalls", "sys_enter_getppid"),
                freq=0, sample_period=1, wakeup_events=1,
                sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU | perf.SAMPLE_PERIOD
                | perf.SAMPLE_CALLCHAIN | perf.SAMPLE_RAW)
ev.open(cpus=cpus, threads=threads)
chained = perf.evlist(cpus, threads)
chained.add(ev)
chained.mmap(pages=64)
for _ in range(N):
    os.getppid()
cols = chained.read_columns(["sample_period", "type", "sample_tid", "evsel", "sample_time", "sample_pid"])
for _ in range(N):
    os.getppid()
classic = [e for c in cpus for e in iter(lambda: chained.read_on_cpu(c), None)]
members = ["sample_pid", "sample_tid", "sample_period", "type"]
result({
    "len": len(cols), "classic": len(classic), "keys": list(cols),
    "constant": {k: sorted(set(cols[k])) for k in members + ["evsel"]},
    "classic_constant": {k: sorted({getattr(e, k) for e in classic}) for k in members},
    "before": max(cols["sample_time"]) < min(e.sample_time for e in classic),
    "pid": os.getpid(),
})
"""


def test_read_columns_decodes_variable_layouts(ours):
    """Samples whose layout is not fixed (a callchain) go through the full
    decoder into the same columns, with the values read_on_cpu gives."""
    got = ours.run(DECODED_COLUMNS).check()
    assert got["len"] == got["classic"] == 300
    assert got["keys"] == ["type", "sample_pid", "sample_tid", "sample_time", "sample_period", "evsel"]
    assert got["constant"]["sample_pid"] == got["constant"]["sample_tid"] == [got["pid"]]
    assert got["constant"]["evsel"] == [0] and got["constant"]["type"] == [9]
    for k, values in got["classic_constant"].items():
        assert got["constant"][k] == values, k
    assert got["before"]
