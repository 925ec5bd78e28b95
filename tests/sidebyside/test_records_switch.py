# SPDX-License-Identifier: GPL-2.0-only
"""PERF_RECORD_SWITCH on a per-thread map (workloads/switch.py, twatch.py
with context_switch=1), side by side. docs/api.md §8."""

from sidebyside.records import check_repr, compare, shape, workload


def test_switch_records(module):
    got = workload(module, "switch").check()
    child = got["child"]
    switches = [e for e in got["events"] if e["class"] == "context_switch_event"]
    assert len(switches) >= 10, [e["repr"] for e in got["events"]]
    outs = set()
    for e in switches:
        assert e["type"] == 14  # RECORD_SWITCH: per-thread monitoring
        assert [e["sample_pid"], e["sample_tid"]] == [child, child]
        check_repr(e)
        outs.add(e["repr"].endswith("switch_out: 1 }"))
        # Quirk 2: a SWITCH record has no next/prev ids; the 6.1 module reads
        # the sample_id trailer (pid, tid) in their place. Ours matches.
        assert [e["next_prev_pid"], e["next_prev_tid"]] == [child, child]
    assert outs == {True, False}
    exits = [e for e in got["events"] if e["class"] == "task_event" and e["type"] == 4]
    assert [e["pid"] for e in exits] == [child]


def test_switch_event_class_name(module):
    got = workload(module, "switch").check()
    assert {e["class"] for e in got["events"]} == {"context_switch_event", "task_event"}
    assert {shape(e["repr"]) for e in got["events"] if e["type"] == 14} == {
        "{ type: context_switch, next_prev_pid: N, next_prev_tid: N, switch_out: N }"}


def test_same_records_as_the_c_module(ours, c_module):
    o = workload(ours, "switch").check()
    c = workload(c_module, "switch").check()
    # The number of switches depends on scheduling; their content does not.
    o_set = {shape(e["repr"]) for e in o["events"]}
    c_set = {shape(e["repr"]) for e in c["events"]}
    assert o_set == c_set
    first = lambda evs, out: [e for e in evs if e["repr"].endswith(f"switch_out: {out} }}")][:1]  # noqa: E731
    for out in (0, 1):
        compare(first(o["events"], out), first(c["events"], out), {o["child"]: "CHILD"}, {c["child"]: "CHILD"})


def test_ours_is_silent_on_stderr(ours):
    run = workload(ours, "switch")
    run.check()
    assert run.stderr == ""
