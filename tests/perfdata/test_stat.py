# SPDX-License-Identifier: GPL-2.0-only
"""`perf stat record` files: the stat(event, name) and stat(round, None)
callbacks against `perf script`'s table of the same file (CPU, THREAD,
VAL, ENA, RUN, TIME, EVENT per counter and round). perf prints interval
rounds as differences from the previous round; the records (and our
stat_event objects, like upstream's) hold the running totals."""

import subprocess
import warnings

import pytest

from perfdata import oracle

U32_MAX = 2**32 - 1


def read_ours(perf, path):
    """[(round type, round time, [stat values])] of the file, in order, and
    the stat values after the last round."""
    rounds, pending = [], []

    def stat(event, name):
        if name is None:
            assert type(event) is perf.stat_round_event and event.type == perf.RECORD_STAT_ROUND
            rounds.append((event.stat_round_type, event.time, pending[:]))
            pending.clear()
            return
        assert type(event) is perf.stat_event and event.type == perf.RECORD_STAT
        assert repr(event) == (f"{{ type: stat, id: {event.id}, cpu: {event.cpu}, thread: {event.thread}, "
                               f"val: {event.val}, ena: {event.ena}, run: {event.run} }}")
        pending.append((event.id, event.cpu, event.thread, event.val, event.ena, event.run, name))

    samples = []
    perf.session(perf.data(str(path)), sample=samples.append, stat=stat).process_events()
    assert samples == []
    return rounds, pending


@pytest.mark.parametrize("name", ["stat", "stat_i"])
def test_stat_as_perf_script(perf_ours, record, name):
    path = record(name)
    rows = oracle.stat_rows(path)
    rounds, after = read_ours(perf_ours, path)
    interval = name == "stat_i"
    if interval:
        # --interval-count 3: three rounds (recordings.py). perf 6.1's -I
        # writes its last counts after the last interval round, with no
        # round of their own: perf script prints none of them.
        assert [t for t, _, _ in rounds] == [0] * len(rounds) and len(rounds) == 3
        assert len(after) == len(rounds[-1][2])
    else:
        assert [t for t, _, _ in rounds] == [1] and after == []
    previous = {}
    ours = []
    for _, time, stats in rounds:
        for sid, cpu, thread, val, ena, run, event in stats:
            key = (sid, cpu, thread)
            last = previous.get(key, (0, 0, 0)) if interval else (0, 0, 0)
            previous[key] = (val, ena, run)
            # This machine's CPU map is 0..n-1: the record's CPU index is
            # the CPU perf prints; -1 (no CPU) is U32_MAX in the record.
            ours.append((-1 if cpu == U32_MAX else cpu, thread, val - last[0], ena - last[1],
                         run - last[2], time, event))
    theirs = [(cpu, 0, val, ena, run, time, event) for cpu, _, val, ena, run, time, event in rows]
    # perf prints a round's counters event by event, ours come CPU by CPU.
    assert sorted(ours) == sorted(theirs)
    assert len({t for _, t, *_ in rows}) == 1, "one thread (map index 0)"
    assert {r[6] for r in ours} == ({"task-clock", "context-switches", "page-faults"} if name == "stat"
                                    else {"task-clock", "context-switches"})


@pytest.mark.parametrize("name", ["stat", "stat_i"])
def test_stat_record_files_read_without_warning(perf_ours, record, name):
    """perf stat record writes a COMPRESSED section saying "not compressed"
    (type 0, mmap_len 0), as `perf report --header-only` shows: nothing is
    unreadable, so no DataWarning."""
    path = record(name)
    header = subprocess.run([oracle.PERF, "report", "-i", str(path), "--header-only"],
                            capture_output=True, text=True, timeout=120).stdout
    assert "# compressed : Unknown, level = 0, ratio = 0" in header
    with warnings.catch_warnings():
        warnings.simplefilter("error", perf_ours.DataWarning)
        data = perf_ours.data(str(path))
        assert "unreadable_features" not in data.header or not data.header["unreadable_features"]
        perf_ours.session(data, stat=lambda e, n: None).process_events()


def test_stat_events_are_constructible(perf_ours):
    """Both classes are instantiable, zeroed, as upstream's
    (PyType_GenericNew); their members are writable."""
    e = perf_ours.stat_event()
    assert (e.type, e.id, e.cpu, e.thread, e.val, e.ena, e.run) == (76, 0, 0, 0, 0, 0, 0)
    assert repr(e) == "{ type: stat, id: 0, cpu: 0, thread: 0, val: 0, ena: 0, run: 0 }"
    e.val = 5
    assert e.val == 5
    r = perf_ours.stat_round_event()
    assert (r.type, r.stat_round_type, r.time) == (77, 0, 0)
    r.stat_round_type, r.time = 1, 7
    assert repr(r) == "{ type: stat_round, type: 1, time: 7 }"
    assert perf_ours.RECORD_STAT == 76 and perf_ours.RECORD_STAT_ROUND == 77
