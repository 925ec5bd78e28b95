# SPDX-License-Identifier: GPL-2.0-only
"""Module surface, side by side: constants, types, names, docstrings
(docs/api.md §1–§3, §8)."""

import pytest

from sidebyside.harness import oracle_self_check

OURS_IS_C = oracle_self_check()

# The 67 constants of the 6.1 module (docs/api.md §3), name -> value.
CONSTANTS = {
    "TYPE_HARDWARE": 0, "TYPE_SOFTWARE": 1, "TYPE_TRACEPOINT": 2, "TYPE_HW_CACHE": 3,
    "TYPE_RAW": 4, "TYPE_BREAKPOINT": 5,
    "COUNT_HW_CPU_CYCLES": 0, "COUNT_HW_INSTRUCTIONS": 1, "COUNT_HW_CACHE_REFERENCES": 2,
    "COUNT_HW_CACHE_MISSES": 3, "COUNT_HW_BRANCH_INSTRUCTIONS": 4, "COUNT_HW_BRANCH_MISSES": 5,
    "COUNT_HW_BUS_CYCLES": 6, "COUNT_HW_CACHE_L1D": 0, "COUNT_HW_CACHE_L1I": 1,
    "COUNT_HW_CACHE_LL": 2, "COUNT_HW_CACHE_DTLB": 3, "COUNT_HW_CACHE_ITLB": 4,
    "COUNT_HW_CACHE_BPU": 5, "COUNT_HW_CACHE_OP_READ": 0, "COUNT_HW_CACHE_OP_WRITE": 1,
    "COUNT_HW_CACHE_OP_PREFETCH": 2, "COUNT_HW_CACHE_RESULT_ACCESS": 0,
    "COUNT_HW_CACHE_RESULT_MISS": 1, "COUNT_HW_STALLED_CYCLES_FRONTEND": 7,
    "COUNT_HW_STALLED_CYCLES_BACKEND": 8,
    "COUNT_SW_CPU_CLOCK": 0, "COUNT_SW_TASK_CLOCK": 1, "COUNT_SW_PAGE_FAULTS": 2,
    "COUNT_SW_CONTEXT_SWITCHES": 3, "COUNT_SW_CPU_MIGRATIONS": 4, "COUNT_SW_PAGE_FAULTS_MIN": 5,
    "COUNT_SW_PAGE_FAULTS_MAJ": 6, "COUNT_SW_ALIGNMENT_FAULTS": 7,
    "COUNT_SW_EMULATION_FAULTS": 8, "COUNT_SW_DUMMY": 9,
    "SAMPLE_IP": 1, "SAMPLE_TID": 2, "SAMPLE_TIME": 4, "SAMPLE_ADDR": 8, "SAMPLE_READ": 16,
    "SAMPLE_CALLCHAIN": 32, "SAMPLE_ID": 64, "SAMPLE_CPU": 128, "SAMPLE_PERIOD": 256,
    "SAMPLE_STREAM_ID": 512, "SAMPLE_RAW": 1024,
    "FORMAT_TOTAL_TIME_ENABLED": 1, "FORMAT_TOTAL_TIME_RUNNING": 2, "FORMAT_ID": 4,
    "FORMAT_GROUP": 8,
    "RECORD_MMAP": 1, "RECORD_LOST": 2, "RECORD_COMM": 3, "RECORD_EXIT": 4,
    "RECORD_THROTTLE": 5, "RECORD_UNTHROTTLE": 6, "RECORD_FORK": 7, "RECORD_READ": 8,
    "RECORD_SAMPLE": 9, "RECORD_MMAP2": 10, "RECORD_AUX": 11, "RECORD_ITRACE_START": 12,
    "RECORD_LOST_SAMPLES": 13, "RECORD_SWITCH": 14, "RECORD_SWITCH_CPU_WIDE": 15,
    "RECORD_MISC_SWITCH_OUT": 8192,
}

TYPE_DOCS = {
    "cpu_map": "cpu map object.",
    "thread_map": "thread map object.",
    "evsel": "perf event selector list object.",
    "evlist": "perf event selector list object.",
    "mmap_event": "perf mmap event object.",
    "lost_event": "perf lost event object.",
    "comm_event": "perf comm event object.",
    "task_event": "perf task (fork/exit) event object.",
    "throttle_event": "perf throttle event object.",
    "read_event": "perf read event object.",
    "sample_event": "perf sample event object.",
    "switch_event": "perf context_switch event object.",
}

SAMPLE_MEMBERS = {
    "sample_ip": "event ip", "sample_pid": "event pid", "sample_tid": "event tid",
    "sample_time": "event timestamp", "sample_addr": "event addr", "sample_id": "event id",
    "sample_stream_id": "event stream id", "sample_period": "event period",
    "sample_cpu": "event cpu",
}

# Members of each event class in 6.1 (besides SAMPLE_MEMBERS) and their docs.
EVENT_MEMBERS = {
    "mmap_event": {"type": "event type", "misc": "event misc", "pid": "event pid",
                   "tid": "event tid", "start": "start of the map", "len": "map length",
                   "pgoff": "page offset", "filename": "backing store"},
    "task_event": {"type": "event type", "pid": "event pid", "ppid": "event ppid",
                   "tid": "event tid", "ptid": "event ptid", "time": "timestamp"},
    "comm_event": {"type": "event type", "pid": "event pid", "tid": "event tid",
                   "comm": "process name"},
    "throttle_event": {"type": "event type", "time": "timestamp", "id": "event id",
                       "stream_id": "event stream id"},
    "lost_event": {"id": "event id", "lost": "number of lost events"},
    "read_event": {"pid": "event pid", "tid": "event tid"},
    "sample_event": {"type": "event type"},
    "switch_event": {"type": "event type", "next_prev_pid": "next/prev pid",
                     "next_prev_tid": "next/prev tid"},
}

METHOD_DOCS = {
    "evsel": {"open": "open the event selector file descriptor table."},
    "evlist": {"mmap": "mmap the file descriptor table.", "open": "open the file descriptors.",
               "poll": "poll the file descriptor table.",
               "get_pollfd": "get the poll file descriptor table.",
               "add": "adds an event selector to the list.", "read_on_cpu": "reads an event."},
}

DESCRIBE = """
import types
out = {"doc": perf.__doc__, "name": perf.__name__, "names": {}}
for n in dir(perf):
    if n.startswith("__"):
        continue
    o = getattr(perf, n)
    d = {"kind": type(o).__name__}
    if isinstance(o, int):
        d["value"] = o
    elif isinstance(o, type):
        d.update(name=o.__name__, qualname=o.__qualname__, module=o.__module__, repr=repr(o), doc=o.__doc__,
                 attrs={a: getattr(o, a).__doc__ for a in dir(o) if not a.startswith("__")})
        try:
            class Sub(o):
                pass
            d["subclassable"] = True
        except TypeError:
            d["subclassable"] = False
    elif callable(o):
        d.update(name=o.__name__, doc=o.__doc__, module=getattr(o, "__module__", None))
    out["names"][n] = d
result(out)
"""

_described = {}


def describe(module):
    if module.name not in _described:
        _described[module.name] = module.run(DESCRIBE).check()
    return _described[module.name]


def test_module_doc_and_name(module):
    d = describe(module)
    assert d["doc"] == ""
    assert d["name"] == "perf"


# Ours also exports the three constants 7.3 added (perf.pyi 7.3 lists 70)
# and the three of the series after it.
CONSTANTS_7_3 = {"COUNT_HW_REF_CPU_CYCLES": 9, "RECORD_STAT": 76, "RECORD_STAT_ROUND": 77,
                 # and the perf.call_return flags of the series after 7.3
                 "CALL_RETURN_NO_CALL": 1, "CALL_RETURN_NO_RETURN": 2,
                 "CALL_RETURN_NON_CALL": 4}


def test_constants(module, request):
    names = describe(module)["names"]
    got = {n: v["value"] for n, v in names.items() if n.isupper()}
    expected = dict(CONSTANTS)
    if request.node.callspec.params["module"] == "ours" and not OURS_IS_C:
        expected.update(CONSTANTS_7_3)
    assert got == expected
    assert all(names[n]["kind"] == "int" for n in CONSTANTS)
    assert len(CONSTANTS) == 67


def test_constants_are_the_c_modules_plus_the_7_3_three(ours, c_module):
    def constants(m):
        return {n: v.get("value") for n, v in describe(m)["names"].items() if n.isupper()}
    theirs = constants(c_module)
    assert constants(ours) == {**theirs, **({} if OURS_IS_C else CONSTANTS_7_3)}


def test_every_public_name_of_the_c_module_exists(ours, c_module):
    missing = set(describe(c_module)["names"]) - set(describe(ours)["names"])
    assert not missing, f"missing from ours: {sorted(missing)}"


@pytest.mark.parametrize("name", sorted(TYPE_DOCS))
def test_type(module, name):
    d = describe(module)["names"].get(name)
    assert d is not None, f"perf.{name} is missing"
    assert d["kind"] == "type"
    expected_name = "context_switch_event" if name == "switch_event" else name
    assert d["name"] == expected_name
    assert d["module"] == "perf"
    assert d["repr"] == f"<class 'perf.{expected_name}'>"
    assert d["doc"] == TYPE_DOCS[name]
    assert d["subclassable"]


def test_no_context_switch_event_attribute(module):
    assert "context_switch_event" not in describe(module)["names"]


@pytest.mark.parametrize("name", sorted(EVENT_MEMBERS))
def test_event_members_and_docs(module, name):
    d = describe(module)["names"].get(name)
    assert d is not None, f"perf.{name} is missing"
    expected = {**SAMPLE_MEMBERS, **EVENT_MEMBERS[name]}
    attrs = d["attrs"]
    missing = set(expected) - set(attrs)
    assert not missing, f"perf.{name} lacks {sorted(missing)}"
    assert {a: attrs[a] for a in expected} == expected


def test_event_members_match_the_c_module(ours, c_module):
    """Ours may add members (e.g. `type` on lost_event, as 7.3),
    never drop one the C module has."""
    o, c = describe(ours)["names"], describe(c_module)["names"]
    for name in EVENT_MEMBERS:
        assert name in o, f"perf.{name} is missing"
        lost = set(c[name]["attrs"]) - set(o[name]["attrs"])
        assert not lost, f"perf.{name} lacks {sorted(lost)}"


@pytest.mark.parametrize("name", sorted(METHOD_DOCS))
def test_methods_and_docs(module, name):
    d = describe(module)["names"].get(name)
    assert d is not None, f"perf.{name} is missing"
    got = {m: d["attrs"].get(m) for m in METHOD_DOCS[name]}
    assert got == METHOD_DOCS[name]


def test_tracepoint_function(module):
    d = describe(module)["names"].get("tracepoint")
    assert d is not None, "perf.tracepoint is missing"
    assert d["kind"] == "builtin_function_or_method"
    assert d["name"] == "tracepoint"
    assert d["doc"] == "Get tracepoint config."
