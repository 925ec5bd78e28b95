# SPDX-License-Identifier: GPL-2.0-only
"""`.evsel` on the events of a perf.data file (docs/api.md §8): samples and
context_switch records carry their file evsel; stat records get None, as
upstream's session builds them without one."""


def test_switch_records_carry_the_files_evsel(perf_ours, record):
    path = record("comm")
    samples, switches = [], []
    perf_ours.session(perf_ours.data(str(path)), sample=samples.append,
                      context_switch=switches.append).process_events()
    assert samples and switches
    evsel = samples[0].evsel
    assert str(evsel) == "evsel(task-clock/period=200000/)"  # the name perf wrote
    assert all(s.evsel is evsel for s in samples + switches)


def test_stat_events_have_no_evsel(perf_ours, record):
    path = record("stat")
    got = []
    perf_ours.session(perf_ours.data(str(path)),
                      stat=lambda e, name: got.append((type(e).__name__, e.evsel, name))).process_events()
    assert {t for t, _, _ in got} == {"stat_event", "stat_round_event"}
    assert all(e is None for _, e, _ in got)
    assert {n for t, _, n in got if t == "stat_event"} == {"task-clock", "context-switches", "page-faults"}
