# SPDX-License-Identifier: GPL-2.0-only
"""sample_event.srccode() where there is no source line: upstream returns
Py_BuildValue("(sIs#)", NULL, 0, NULL, 0), i.e. (None, 0, None), once the
sample is resolved; None only when it cannot resolve it (docs/api.md §8)."""


def test_an_address_without_a_map_has_no_source_line(perf_ours, record):
    samples = []
    perf_ours.session(perf_ours.data(str(record("sw"))), sample=samples.append).process_events()
    assert samples
    s = samples[0]
    assert s.srccode(1) == (None, 0, None)   # no map at address 1
    assert s.srccode(addr=0) == (None, 0, None)


def test_an_unresolved_sample_has_no_srccode(perf_ours):
    assert perf_ours.sample_event().srccode() is None
