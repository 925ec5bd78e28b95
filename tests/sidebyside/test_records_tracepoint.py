# SPDX-License-Identifier: GPL-2.0-only
"""sched:sched_switch through tracepoint.py's ≤6.14 pattern
(workloads/sched_switch.py), side by side. docs/api.md §8."""

import pytest

from sidebyside.harness import needs_root, needs_tracefs, tracepoint_id
from sidebyside.records import U64_UNSET, compare, workload

pytestmark = [needs_root, needs_tracefs]

UNKNOWN = ["AttributeError", "'perf.sample_event' object has no attribute 'nosuchfield'", None]


def check_fields(got):
    child, comm = got["child"], got["comm"]
    assert len(got["events"]) >= 5
    for e in got["events"]:
        assert e["class"] == "sample_event" and e["type"] == 9  # not shadowed
        assert e["repr"] == "{ type: sample }"
        assert [e["sample_pid"], e["sample_tid"]] == [child, child]
        assert e["sample_period"] == 1 and e["sample_time"] < U64_UNSET
        # The switching task is the one switched out: our child.
        assert [e["prev_comm"], e["prev_pid"], e["common_pid"]] == [comm, child, child]
        assert e["common_type"] == got["file_id"] == tracepoint_id("sched", "sched_switch")
        assert isinstance(e["next_comm"], str) and isinstance(e["next_pid"], int)
        assert e["next_pid"] != child
        assert isinstance(e["prev_prio"], int) and isinstance(e["prev_state"], int)
        assert {"common_flags", "common_preempt_count", "next_prio"} <= set(e)
    assert got["unknown"] == [UNKNOWN]


def test_tracepoint_function(module):
    got = workload(module, "sched_switch", "tracepoint").check()
    checks = dict(got["checks"])
    assert checks.pop("int")[0] == "TypeError"
    assert checks == {"tracepoint": got["file_id"], "kw": got["file_id"], "unknown": -1,
                      "none": -1, "one": -1}


def test_fields_after_perf_tracepoint(module):
    check_fields(workload(module, "sched_switch", "tracepoint").check())


def test_fields_without_perf_tracepoint(ours):
    """Ours finds the format by the evsel's config: no prior perf.tracepoint()."""
    check_fields(workload(ours, "sched_switch", "tracefs-id").check())


def test_c_module_needs_perf_tracepoint_first(c_module):
    """The documented 6.1 limitation: without a prior perf.tracepoint() call
    every field is an AttributeError."""
    got = workload(c_module, "sched_switch", "tracefs-id").check()
    assert len(got["events"]) >= 5
    for e in got["events"]:
        assert "prev_comm" not in e and "common_pid" not in e
        assert e["sample_pid"] == got["child"]
    assert got["unknown"] == [UNKNOWN]


def test_same_records_as_the_c_module(ours, c_module):
    o = workload(ours, "sched_switch", "tracepoint").check()
    c = workload(c_module, "sched_switch", "tracepoint").check()
    # next_* name whatever ran next, and the state and flags depend on timing.
    timing = ("prev_state", "common_flags", "common_preempt_count")
    strip = lambda evs: [{k: v for k, v in e.items()  # noqa: E731
                          if not k.startswith("next_") and k not in timing} for e in evs[:3]]
    compare(strip(o["events"]), strip(c["events"]), {o["child"]: "CHILD"}, {c["child"]: "CHILD"})


@pytest.mark.parametrize("variant", ["tracepoint", "tracefs-id"])
def test_ours_is_silent_on_stderr(ours, variant):
    run = workload(ours, "sched_switch", variant)
    run.check()
    assert run.stderr == ""
