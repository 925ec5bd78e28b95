# SPDX-License-Identifier: GPL-2.0-only
"""Task, comm and mmap records from a known child (workloads/lifecycle.py),
side by side: twatch.py's evsel, system-wide; the child execs /bin/true.
docs/api.md §8."""

import os

import pytest

from sidebyside.harness import needs_root, online_cpus, oracle_self_check
from sidebyside.records import U32_UNSET, U64_UNSET, check_repr, compare, shape, workload

OURS_IS_C = oracle_self_check()

pytestmark = needs_root


def by_kind(events):
    """{"fork"|"exit"|"comm"|"mmap": [records]}."""
    out = {}
    for e in events:
        kind = {7: "fork", 4: "exit", 3: "comm", 1: "mmap"}.get(e.get("type"), e["class"])
        out.setdefault(kind, []).append(e)
    return out


def test_fork_comm_exit(module):
    got = workload(module, "lifecycle").check()
    child, parent = got["child"], got["parent"]
    kinds = by_kind(got["events"])
    assert sorted(kinds) == ["comm", "exit", "fork"], got["events"]
    assert [len(v) for v in kinds.values()] == [1, 1, 1]
    fork, comm, exit_ = kinds["fork"][0], kinds["comm"][0], kinds["exit"][0]
    assert fork["class"] == exit_["class"] == "task_event"
    assert comm["class"] == "comm_event"
    assert [fork[k] for k in ("pid", "ppid", "tid", "ptid")] == [child, parent, child, parent]
    assert [exit_[k] for k in ("pid", "ppid", "tid", "ptid")] == [child, parent, child, parent]
    assert [comm[k] for k in ("pid", "tid", "comm")] == [child, child, "true"]
    # The sample_id trailer: the fork record is written in the parent's context.
    assert [fork["sample_pid"], fork["sample_tid"]] == [parent, parent]
    assert [comm["sample_pid"], comm["sample_tid"]] == [child, child]
    assert [exit_["sample_pid"], exit_["sample_tid"]] == [child, child]
    for e in (fork, comm, exit_):
        assert e["sample_cpu"] in online_cpus()
        assert e["sample_id"] == e["sample_stream_id"]
        assert e["sample_id"] not in (0, U64_UNSET)
        assert [e["sample_ip"], e["sample_addr"], e["sample_period"]] == [0, 0, 0]
        assert 0 < e["sample_time"] < U64_UNSET
        check_repr(e)
    assert fork["time"] < exit_["time"]
    assert fork["sample_time"] <= comm["sample_time"] <= exit_["sample_time"]


def test_task_repr_lacks_the_space_before_the_brace(module):
    got = workload(module, "lifecycle").check()
    for e in got["events"]:
        if e["class"] == "task_event":
            assert e["repr"].endswith(f", time: {e['time']}}}")
            assert shape(e["repr"]) in ("{ type: fork, pid: N, ppid: N, tid: N, ptid: N, time: N}",
                                        "{ type: exit, pid: N, ppid: N, tid: N, ptid: N, time: N}")


@pytest.mark.parametrize("variant", ["task", "mmap", "defaults", "noid"])
def test_same_records_as_the_c_module(ours, c_module, variant):
    o = workload(ours, "lifecycle", variant).check()
    c = workload(c_module, "lifecycle", variant).check()
    assert sorted(shape(e["repr"]) for e in o["events"]) == sorted(shape(e["repr"]) for e in c["events"])
    compare(o["events"], c["events"],
            {o["child"]: "CHILD", o["parent"]: "PARENT"}, {c["child"]: "CHILD", c["parent"]: "PARENT"})


def mmap_size(filename, trailer):
    """sizeof a PERF_RECORD_MMAP: header, pid/tid, start/len/pgoff, the
    filename NUL-padded to 8 bytes, then the sample_id trailer."""
    return 8 + 8 + 24 + (len(filename.encode()) + 1 + 7) // 8 * 8 + trailer


def test_mmap_records(module):
    got = workload(module, "lifecycle", "mmap").check()
    child = got["child"]
    mmaps = by_kind(got["events"]).get("mmap", [])
    files = {e["filename"]: e for e in mmaps}
    assert os.path.realpath("/bin/true") in files, sorted(files)
    assert "[vdso]" in files
    for e in mmaps:
        assert e["class"] == "mmap_event"
        assert [e["pid"], e["tid"], e["sample_pid"], e["sample_tid"]] == [child] * 4
        assert e["start"] > 0 and e["len"] > 0
        check_repr(e)
    vdso = files["[vdso]"]
    assert vdso["pgoff"] == 0 and ", offset: 0, " in vdso["repr"]  # %#lx prints 0, not 0x0


def test_mmap_misc(module, request):
    """A quirk of the C module (docs/api.md §8): in C ≤7.2 `misc` is a u32
    read at the u16 header.misc, so it is misc | header.size << 16. Ours
    returns header.misc itself, as 7.3 does (T_USHORT): the low 16 bits
    agree."""
    got = workload(module, "lifecycle", "mmap").check()
    trailer = 5 * 8  # TID, TIME, ID, STREAM_ID, CPU
    is_ours = request.node.callspec.params["module"] == "ours" and not OURS_IS_C
    for e in by_kind(got["events"])["mmap"]:
        assert e["misc"] & 0xFFFF == 2, e  # PERF_RECORD_MISC_USER
        if is_ours:
            assert e["misc"] == 2, e
        else:
            assert e["misc"] >> 16 == mmap_size(e["filename"], trailer), e


def test_untouched_sample_members(module):
    """sample_type TID only, freq=1, sample_freq=1234: what was not sampled
    keeps perf's defaults (docs/api.md §8)."""
    got = workload(module, "lifecycle", "defaults").check()
    assert got["events"]
    for e in got["events"]:
        assert e["sample_pid"] > 0 and e["sample_tid"] > 0
        assert [e["sample_time"], e["sample_id"], e["sample_stream_id"]] == [U64_UNSET] * 3
        assert e["sample_cpu"] == U32_UNSET
        assert [e["sample_ip"], e["sample_addr"]] == [0, 0]
        assert e["sample_period"] == 1234  # the union slot: here the frequency


def test_no_sample_id_all(module):
    got = workload(module, "lifecycle", "noid").check()
    assert len(got["events"]) == 3
    for e in got["events"]:
        assert [e["sample_pid"], e["sample_tid"]] == [-1, -1]
        assert [e["sample_time"], e["sample_id"], e["sample_stream_id"]] == [U64_UNSET] * 3
        assert e["sample_cpu"] == U32_UNSET
        assert [e["sample_ip"], e["sample_addr"], e["sample_period"]] == [0, 0, 0]


@pytest.mark.parametrize("variant", ["task", "mmap", "defaults", "noid"])
def test_ours_is_silent_on_stderr(ours, variant):
    run = workload(ours, "lifecycle", variant)
    run.check()
    assert run.stderr == ""


def test_c_module_prints_libperf_debug_lines(c_module):
    """The difference item 8 is about: the C module's mmap() talks on stderr."""
    run = workload(c_module, "lifecycle", "task")
    run.check()
    assert "libperf: " in run.stderr
