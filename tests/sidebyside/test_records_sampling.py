# SPDX-License-Identifier: GPL-2.0-only
"""cpu-clock samples, lost and throttle records (workloads/sampling.py), side
by side: a busy child pinned to one CPU, sampled per thread. docs/api.md §6, §8."""

import pytest

from sidebyside.harness import sysctl
from sidebyside.records import U64_UNSET, check_repr, compare, normalise, shape, workload

# The kernel throttles an event that overflows more than
# perf_event_max_sample_rate / HZ times in one tick (40 at HZ=250): the
# throttle workload's 10 us period overflows 400 times in a 4 ms tick, so any
# tick in which its child runs 0.4 ms throttles it, whatever the load.
THROTTLE_RATE = 10000


def sampled(module, variant):
    """The sampling workload's result, once its child has exited and every
    record it caused was read (the workload kills a child still running when
    its own 60 s loop ends, and says so)."""
    got = workload(module, "sampling", variant).check()
    assert got["finished"], (f"{module.name}: the child was still running after the workload's "
                             f"60 s loop ({got['bursts']} bursts read, counts {got['counts']})")
    return got


def test_cpu_clock_samples(module):
    got = sampled(module, "cpu-clock")
    child = got["child"]
    # 0.3 s of the child's CPU time at one sample per 100 us: ~3000; more
    # than 1000 even if the kernel throttled it to 20 a 4 ms tick.
    assert got["counts"].get("sample_event", 0) > 1000, got["counts"]
    assert set(got["counts"]) <= {"sample_event", "throttle_event", "lost_event"}
    times = []
    for e in got["samples"]:
        assert e["class"] == "sample_event" and e["type"] == 9
        assert e["sample_ip"] != 0
        assert [e["sample_pid"], e["sample_tid"]] == [child, child]
        assert e["sample_period"] == got["period"] == 100000
        assert e["sample_cpu"] == got["cpu"]
        assert [e["sample_addr"], e["sample_id"], e["sample_stream_id"]] == [0, U64_UNSET, U64_UNSET]
        assert e["repr"] == e["str"] == "{ type: sample }"
        times.append(e["sample_time"])
    assert times == sorted(times) and len(set(times)) == len(times)
    assert got["bad"] == [] and got["backwards"] == 0


def test_records_crossing_the_end_of_the_ring(module):
    """The one-page ring of the lost workload wraps thousands of times: every
    sample read must still be whole (pid, tid, cpu, period, ip, time order).
    Each of its 30 bursts leaves at least a ring's worth (85) to read."""
    got = sampled(module, "lost")
    assert got["bursts"] == 30, got["bursts"]
    assert got["counts"].get("sample_event", 0) > 1000, got["counts"]
    assert got["bad"] == [] and got["backwards"] == 0


def test_lost_records(module):
    got = sampled(module, "lost")
    child = got["child"]
    lost = [e for e in got["others"] if e["class"] == "lost_event"]
    assert got["counts"].get("lost_event", 0) >= 1, got["counts"]
    assert lost
    ids = set()
    for e in lost:
        assert e["lost"] > 0
        assert e["id"] > 0
        ids.add(e["id"])
        check_repr(e)
        assert shape(e["repr"]) == "{ type: lost, id: N, lost: N }"
        assert e["repr"].startswith(f"{{ type: lost, id: {hex(e['id'])}, lost: {hex(e['lost'])}")
        # sample_id_all (default 1): the trailer carries the child's TID, TIME and CPU
        assert [e["sample_pid"], e["sample_tid"], e["sample_cpu"]] == [child, child, got["cpu"]]
    assert len(ids) == 1  # one event, one id
    for e in got["others"]:
        check_repr(e)


def test_same_samples_as_the_c_module(ours, c_module):
    o = sampled(ours, "cpu-clock")
    c = sampled(c_module, "cpu-clock")
    compare(o["samples"][:3], c["samples"][:3], {o["child"]: "CHILD"}, {c["child"]: "CHILD"})


def test_same_lost_records_as_the_c_module(ours, c_module):
    """The same members with the same meaning; how many samples were lost is
    the kernel's timing, so `lost` and `id` compare as numbers (normalise)."""
    o = sampled(ours, "lost")
    c = sampled(c_module, "lost")
    first = lambda run: [e for e in run["others"] if e["class"] == "lost_event"][:1]  # noqa: E731
    compare(first(o), first(c), {o["child"]: "CHILD"}, {c["child"]: "CHILD"})


def test_a_count_equal_to_a_pid_is_not_that_task():
    """compare() names the known pids only in members that hold a task: a
    lost count that happens to equal the child's pid stays a number."""
    got = normalise({"lost": 14900, "id": 7, "sample_pid": 14900, "next_prev_tid": 14900,
                     "common_pid": 14900, "prev_prio": 14900}, {14900: "CHILD"})
    assert got == {"lost": "N", "id": "N", "sample_pid": "CHILD", "next_prev_tid": "CHILD",
                   "common_pid": "CHILD", "prev_prio": 14900}


@pytest.mark.parametrize("variant", ["cpu-clock", "lost"])
def test_ours_is_silent_on_stderr(ours, variant):
    run = workload(ours, "sampling", variant)
    run.check()
    assert run.stderr == ""


@pytest.fixture
def throttling():
    """kernel.perf_event_max_sample_rate lowered to THROTTLE_RATE while the
    test runs (restored afterwards)."""
    with sysctl("kernel.perf_event_max_sample_rate") as set_rate:
        set_rate(THROTTLE_RATE)
        yield


def throttle_records(run):
    return [e for e in run["others"] if e["class"] == "throttle_event"]


def test_throttle_records(module, throttling):
    """What the kernel guarantees of throttling one event: THROTTLE and
    UNTHROTTLE records, the first a THROTTLE (only a throttle sets what an
    unthrottle clears), each logged on the event's CPU while the sampled
    child runs, with the event's id (id == stream_id: not inherited) and a
    time no later than the trailer's. A full ring drops records like any
    other (a slow reader on a busy machine saw UNTHROTTLE first): after a
    lost record the next one may be either. They need not alternate: since
    Linux 6.16's rework of throttling, an event that is not active is
    unthrottled without a record and cpu-clock is not stopped when
    throttled, so a THROTTLE can follow a THROTTLE (seen on 6.18 under load,
    with both modules)."""
    got = sampled(module, "throttle")
    child = got["child"]
    records = throttle_records(got)
    types = [e["type"] for e in records]
    assert 5 in types and 6 in types, got["counts"]
    first = next(e for e in got["others"] if e["class"] in ("lost_event", "throttle_event"))
    assert first["class"] == "lost_event" or first["type"] == 5, (types, got["others"])
    for e in records:
        check_repr(e)
        assert [e["sample_pid"], e["sample_tid"], e["sample_cpu"]] == [child, child, got["cpu"]]
        assert e["id"] == e["stream_id"] > 0
        assert 0 < e["time"] <= e["sample_time"]
    assert {e["id"] for e in records} == {records[0]["id"]}
    assert got["counts"].get("sample_event", 0) > 0 and got["bad"] == []


def test_same_throttle_records_as_the_c_module(ours, c_module, throttling):
    """The first THROTTLE and UNTHROTTLE: the same members, the same meaning,
    the same repr once the numbers are N (the C module's repr prints the
    record one u64 late; check_repr holds both to that)."""
    o = sampled(ours, "throttle")
    c = sampled(c_module, "throttle")
    first = lambda run: [next(e for e in throttle_records(run) if e["type"] == t)  # noqa: E731
                         for t in (5, 6)]
    compare(first(o), first(c), {o["child"]: "CHILD"}, {c["child"]: "CHILD"})


def test_throttle_repr_reads_one_word_late(module):
    """A made throttle_event prints id as time and stream_id as id, as C
    does (its repr reads the record one u64 late); members are unaffected."""
    got = module.run("""
e = perf.throttle_event()
e.type, e.time, e.id, e.stream_id = perf.RECORD_THROTTLE, 1, 2, 3
result([repr(e), e.time, e.id, e.stream_id])
""").check()
    assert got == ["{ type: throttle, time: 2, id: 3, stream_id: 0 }", 1, 2, 3]
