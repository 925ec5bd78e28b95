# SPDX-License-Identifier: GPL-2.0-only
"""`__iter__` on cpu_map, thread_map and evlist (declared by upstream's 7.3
stub; the C types have none and iterate through sq_item): CPython's
sequence iterator, so iteration is what C's gives (docs/api.md §4, §6)."""

import pytest


@pytest.mark.parametrize("make", [
    lambda p: p.cpu_map("0-1,5"),
    lambda p: p.thread_map(tid=42),
    lambda p: p.parse_events("task-clock,page-faults,cs"),
])
def test_iter_is_the_sequence_iterator(perf_ours, make):
    seq = make(perf_ours)
    assert "__iter__" in vars(type(seq))
    it = iter(seq)
    assert type(it).__name__ == "iterator" and iter(it) is it
    items = list(it)
    assert len(items) == len(seq) and next(it, None) is None
    for i, item in enumerate(items):
        assert item == seq[i]


def test_evlist_iteration_sees_the_evsels_themselves_and_later_adds(perf_ours):
    evlist = perf_ours.evlist(perf_ours.cpu_map(""), perf_ours.thread_map())
    first = perf_ours.evsel()
    evlist.add(first)
    seen = []
    for ev in evlist:  # C's sq_item reads the list at each step
        seen.append(ev)
        if len(seen) == 1:
            evlist.add(perf_ours.evsel(config=1))
    assert len(seen) == 2 and seen[0] is first and seen[1] is evlist[1]
