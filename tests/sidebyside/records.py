# SPDX-License-Identifier: GPL-2.0-only
"""Running the record workloads (workloads/*.py) under a module, once per
session, and the C module's repr formats (docs/api.md §8) to check them."""

import re
from pathlib import Path

WORKLOADS = Path(__file__).resolve().parent / "workloads"
U64_UNSET = 2**64 - 1
U32_UNSET = 2**32 - 1

_runs = {}


def workload(module, script, variant=None, timeout=180):
    """The Run of workloads/<script>.py under `module` (cached per session).
    The workloads bound their own reading loops (60 s); `timeout` only
    catches a hang, and must leave room for a busy machine's start-up and
    for that whole loop (CI hit an equal 60 s limit)."""
    key = (module.name, script, variant)
    if key not in _runs:
        code = (WORKLOADS / "common.py").read_text() + "\n" + (WORKLOADS / f"{script}.py").read_text()
        _runs[key] = module.run(code, args=[variant] if variant else [], timeout=timeout)
    return _runs[key]


def lx(value):
    """C's %#lx: 0x-prefixed lowercase hex, but plain 0 for zero."""
    return hex(value) if value else "0"


def c_repr(d):
    """The repr the C module builds from a record's members (6.1 formats), or
    None for records whose repr needs a member 6.1 does not expose."""
    kind = d["class"]
    if kind == "mmap_event":
        return (f"{{ type: mmap, pid: {d['pid']}, tid: {d['tid']}, start: {lx(d['start'])}, "
                f"length: {lx(d['len'])}, offset: {lx(d['pgoff'])}, filename: {d['filename']} }}")
    if kind == "task_event":
        label = "fork" if d["type"] == 7 else "exit"
        return (f"{{ type: {label}, pid: {d['pid']}, ppid: {d['ppid']}, tid: {d['tid']}, "
                f"ptid: {d['ptid']}, time: {d['time']}}}")
    if kind == "comm_event":
        return f"{{ type: comm, pid: {d['pid']}, tid: {d['tid']}, comm: {d['comm']} }}"
    if kind == "throttle_event":
        # C reads the record one u64 late (`&header + 1` taken as a struct
        # that starts with the header): it prints id as time, stream_id as
        # id, and the first word of the sample_id trailer as stream_id.
        label = "" if d["type"] == 5 else "un"
        word = trailer_word(d)
        return (f"{{ type: {label}throttle, time: {d['id']}, id: {d['stream_id']}, "
                f"stream_id: {'N' if word is None else word} }}")
    if kind == "lost_event":
        return f"{{ type: lost, id: {lx(d['id'])}, lost: {lx(d['lost'])} }}"
    if kind == "read_event":
        return f"{{ type: read, pid: {d['pid']}, tid: {d['tid']} }}"
    if kind == "sample_event":
        return "{ type: sample }"
    return None


def trailer_word(d):
    """The first u64 of a record's sample_id trailer, rebuilt from the
    sample_* members it fills (TID, TIME, ID, STREAM_ID, CPU, in the kernel's
    order; IDENTIFIER alone is not told apart from ID), or None if the record
    has no trailer."""
    if d["sample_pid"] != -1:
        return (d["sample_tid"] & U32_UNSET) << 32 | (d["sample_pid"] & U32_UNSET)
    for key in ("sample_time", "sample_id", "sample_stream_id"):
        if d[key] != U64_UNSET:
            return d[key]
    return d["sample_cpu"] if d["sample_cpu"] != U32_UNSET else None


SWITCH_REPR = re.compile(r"\{ type: context_switch, next_prev_pid: (\d+), next_prev_tid: (\d+), "
                         r"switch_out: ([01]) \}")


def check_repr(d):
    """Asserts repr == str == the C format filled with the record's members."""
    assert d["str"] == d["repr"], d
    if d["class"] == "context_switch_event":
        m = SWITCH_REPR.fullmatch(d["repr"])
        assert m, d["repr"]
        assert [int(m.group(1)), int(m.group(2))] == [d["next_prev_pid"], d["next_prev_tid"]]
        return
    expected = c_repr(d)
    assert expected is not None, f"unexpected record class {d['class']}"
    if d["class"] == "throttle_event" and trailer_word(d) is None:
        # No trailer: C prints what lies after its copy of the record.
        head = expected[:expected.rindex("stream_id: ")]
        assert d["repr"].startswith(head) and shape(d["repr"]) == shape(expected), d["repr"]
        return
    assert d["repr"] == expected


def shape(text):
    """A repr with every number replaced by N (0x.. and decimal alike)."""
    return re.sub(r"0x[0-9a-f]+|\d+", "N", text)


VOLATILE = {"time", "sample_time", "sample_id", "sample_stream_id", "sample_cpu", "start", "len",
            "pgoff", "sample_ip", "id", "stream_id", "lost", "misc"}


def names_a_task(key):
    """Members and tracepoint fields that hold a pid or tid (pid, ptid,
    sample_tid, next_prev_pid, common_pid, ...)."""
    return key.endswith(("pid", "tid"))


def normalise(d, names):
    """A record with known pids named (names: pid -> label) and run-dependent
    numbers reduced to what they mean (unset markers kept). Only members that
    hold a task are named: a count or id that happens to equal a pid (a lost
    count of 0x3a34 in a run whose child is 14900) is a number, not that
    task."""
    out = {}
    for key, value in d.items():
        if key in ("repr", "str"):
            out[key] = shape(value)
        elif names_a_task(key) and isinstance(value, int) and value in names:
            out[key] = names[value]
        elif key in VOLATILE and isinstance(value, int):
            kept = {U64_UNSET: "unset-u64", U32_UNSET: "unset-u32"}
            if key not in ("sample_cpu", "time", "sample_time"):
                kept[0] = 0
            out[key] = kept.get(value, "N")
        else:
            out[key] = value
    return out


def compare(ours, c, names_ours, names_c):
    """Asserts two record lists carry the same records, field for field, on
    every member the C module has (ours may add members)."""
    def key(d):
        return repr(sorted(d.items()))
    c_norm = sorted((normalise(d, names_c) for d in c), key=key)
    o_norm = sorted(({k: v for k, v in normalise(d, names_ours).items() if k in dc}
                     for d, dc in _pair_by_class(ours, c)), key=key)
    assert o_norm == c_norm


def _pair_by_class(ours, c):
    """Each of our records with a C record of the same class (for its keys)."""
    by_class = {d["class"]: d for d in c}
    for d in ours:
        yield d, by_class.get(d["class"], d)
