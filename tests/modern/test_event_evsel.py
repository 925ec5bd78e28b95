# SPDX-License-Identifier: GPL-2.0-only
"""`.evsel` on every event class (7.3's getter, docs/api.md §8): live
records carry the evsel they matched, by sample id, so side-band records
of a tracking evsel point at it and samples at the sampling one."""

from sidebyside.harness import needs_root

LIVE = """
import ctypes, mmap, os, tempfile, time
IDENTIFIER = 1 << 16
st = perf.SAMPLE_TID | perf.SAMPLE_TIME | IDENTIFIER
track = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, mmap=1, mmap_data=1, comm=1,
                   task=1, context_switch=1, sample_id_all=1, sample_type=st, wakeup_events=1)
clock = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_TASK_CLOCK, sample_period=1000000,
                   freq=0, sample_id_all=1, sample_type=st, wakeup_events=1)
evlist = perf.evlist(perf.cpu_map(""), perf.thread_map(os.getpid()))
evlist.add(track)
evlist.add(clock)
evlist.open()
evlist.mmap()
with tempfile.NamedTemporaryFile() as f:           # MMAP (mmap_data)
    f.write(b"x" * 4096)
    f.flush()
    mmap.mmap(f.fileno(), 4096, prot=mmap.PROT_READ).close()
ctypes.CDLL(None).prctl(15, b"evsel-test", 0, 0, 0)  # COMM (PR_SET_NAME)
time.sleep(0.001)                                   # SWITCH out and in
pid = os.fork()                                     # FORK
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0)
t = time.process_time()                             # task-clock samples: 10 ms of CPU
while time.process_time() - t < 0.01:
    pass
events = [evlist.read_on_cpu(-1), *evlist.read_all()]
out = {}
for e in events:
    want = clock if isinstance(e, perf.sample_event) else track
    out.setdefault(type(e).__name__, []).append(e.evsel is want)
made = [getattr(c(), "evsel", "missing") for c in (perf.mmap_event, perf.comm_event, perf.task_event,
        perf.lost_event, perf.throttle_event, perf.read_event, perf.switch_event, perf.mmap2_event,
        perf.stat_event, perf.stat_round_event, perf.sample_event)]
result({"events": out, "made": made})
"""


@needs_root
def test_live_events_carry_the_evsel_they_matched(ours):
    got = ours.run(LIVE).check()
    events = got["events"]
    for kind in ("mmap_event", "comm_event", "task_event", "context_switch_event", "sample_event"):
        assert kind in events, (kind, sorted(events))
    assert all(all(v) for v in events.values()), events
    # Instantiated events belong to no evsel.
    assert got["made"] == [None] * 11


def test_evsel_is_read_only(perf_ours):
    e = perf_ours.comm_event()
    try:
        e.evsel = None
    except AttributeError:
        return
    raise AssertionError("evsel is writable")
