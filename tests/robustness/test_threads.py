# SPDX-License-Identifier: GPL-2.0-only
"""Threads. poll() releases the GIL; threads reading their
own evlists see only their own records; a thread closing an evlist under a
thread that polls and reads it gives no crash and no deadlock. Every run has
a timeout: a deadlock fails the test instead of hanging it."""

import pytest

THREADS = r"""
import os, threading, time, traceback
cpus = perf.cpu_map()
errors = []
def guarded(fn):
    def run(*a):
        try:
            fn(*a)
        except BaseException:
            errors.append(traceback.format_exc())
    return run
def start(fn, *a):
    t = threading.Thread(target=guarded(fn), args=a, daemon=True)
    t.start()
    return t
def join_all(threads, limit):
    deadline = time.monotonic() + limit
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return [t.name for t in threads if t.is_alive()]
def idle_evlist():
    # A dummy evsel on a child that sleeps: nothing will ever be written.
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    el = perf.evlist(cpus, perf.thread_map(pid))
    el.add(perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, freq=0))
    el.open(); el.mmap(pages=1)
    return el, pid
"""


def test_poll_releases_the_gil(run_ok):
    got = run_ok(THREADS + """
el, pid = idle_evlist()
ticks = [0]
polled = {}
def poller():
    t0 = time.monotonic()
    polled["n"] = el.poll(timeout=2000)
    polled["s"] = time.monotonic() - t0
def counter():
    end = time.monotonic() + 1.5
    while time.monotonic() < end:
        ticks[0] += 1
p = start(poller)
time.sleep(0.2)                  # the poller is now blocked in poll()
c = start(counter)
alive = join_all([p, c], 10)
os.kill(pid, 9); os.waitpid(pid, 0)
result({"ticks": ticks[0], "polled": polled, "alive": alive, "errors": errors})
""", timeout=30)
    assert got["errors"] == [] and got["alive"] == [], got
    assert got["polled"]["n"] == 0 and got["polled"]["s"] >= 1.9, got
    # 1.5 s of a Python loop: hundreds of thousands of ticks when it runs
    # while the other thread sits in poll(), none if poll() held the GIL.
    assert got["ticks"] > 10_000, got


def test_syscalls_release_the_gil(run_ok):
    """open() and mmap() of many fds, and thread_map() of every process of
    a user, run with the GIL released: a thread that only appends
    timestamps keeps ticking during each long call. A call that held the
    GIL would leave one gap in the ticks nearly as long as itself (after
    the ticker's last switch interval); the same measure of sum(range())
    (a C loop that holds the GIL) is the control that shows it."""
    got = run_ok(THREADS + """
ticks = []
stop = threading.Event()
def counter():
    while not stop.is_set():
        ticks.append(time.monotonic())
c = start(counter)
time.sleep(0.05)
calls = []
def timed(name, fn, *a, **kw):
    t0 = time.monotonic()
    fn(*a, **kw)
    calls.append((name, t0, time.monotonic()))
timed("control: sum(range())", sum, range(6_000_000))
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
for _ in range(3):
    el = perf.evlist(cpus, perf.thread_map())
    for _ in range(1500 // len(cpus)):
        el.add(perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, freq=0,
                          sample_type=perf.SAMPLE_ID, read_format=perf.FORMAT_ID))
    timed("open", el.open)
    timed("mmap", el.mmap, pages=64)
    timed("mmap again", el.mmap, pages=64)      # re-mapping waits for RCU
    el.close()
    timed("thread_map(uid=0)", perf.thread_map, uid=0)
stop.set()
join_all([c], 5)
def longest_gap(t0, t1):
    inside = [t0] + [t for t in ticks if t0 < t < t1] + [t1]
    return max(b - a for a, b in zip(inside, inside[1:]))
result([(name, t1 - t0, longest_gap(t0, t1)) for name, t0, t1 in calls])
""", timeout=120)
    control, *calls = got
    assert control[1] >= 0.05 and control[2] > 0.5 * control[1], f"the control did not stall: {got}"
    long_calls = [c for c in calls if c[1] >= 0.05]
    assert len(long_calls) >= 3, f"too few calls lasted 50 ms, nothing to judge: {got}"
    stalled = [c for c in long_calls if c[2] > 0.5 * c[1]]
    assert not stalled, f"the ticker stalled for most of these calls (GIL held?): {stalled}"


def test_two_threads_read_two_evlists(run_ok, figures):
    got = run_ok(THREADS + """
def reader(name, out):
    tid = threading.get_native_id()
    el = perf.evlist(cpus, perf.thread_map(-1, tid))
    el.add(perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES,
                      sample_period=1, freq=0,
                      sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU | perf.SAMPLE_TIME))
    el.open(); el.mmap(pages=4)
    n, foreign = 0, set()
    end = time.monotonic() + 2
    while time.monotonic() < end:
        time.sleep(0.0002)           # a context switch of this thread
        el.poll(timeout=0)
        for cpu in cpus:
            while (ev := el.read_on_cpu(cpu)) is not None:
                if isinstance(ev, perf.sample_event):
                    n += 1
                    if ev.sample_tid != tid:
                        foreign.add(ev.sample_tid)
    el.close()
    out[name] = {"samples": n, "foreign": sorted(foreign)}
out = {}
ts = [start(reader, f"r{i}", out) for i in range(4)]
alive = join_all(ts, 30)
result({"out": out, "alive": alive, "errors": errors})
""", timeout=60)
    assert got["errors"] == [] and got["alive"] == [], got
    assert len(got["out"]) == 4, got
    for name, r in got["out"].items():
        assert r["foreign"] == [], f"{name} read another thread's records: {r}"
        assert r["samples"] > 100, got
    figures(samples_per_thread=[r["samples"] for r in got["out"].values()])


def test_close_under_a_polling_reader(run_ok, figures):
    got = run_ok(THREADS + """
el = perf.evlist(cpus, perf.thread_map())       # system-wide: records keep coming
ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES, sample_period=1,
                freq=0, sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU)
el.add(ev)
el.open(); el.mmap(pages=1)
stop = threading.Event()
stats = {"polls": 0, "events": 0, "errors": {}, "cycles": 0}
ALLOWED = (TypeError, ValueError, OSError)
def reader():
    while not stop.is_set():
        try:
            stats["polls"] += 1
            el.poll(timeout=5)
            for cpu in cpus:
                while (e := el.read_on_cpu(cpu)) is not None:
                    stats["events"] += 1
        except ALLOWED as e:
            k = type(e).__name__
            stats["errors"][k] = stats["errors"].get(k, 0) + 1
def closer():
    end = time.monotonic() + 3
    while time.monotonic() < end:
        time.sleep(0.001)
        el.close()
        time.sleep(0.001)
        el.open()
        el.mmap(pages=1)
        if stats["cycles"] % 7 == 3:
            ev.__init__(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES,
                        sample_period=1, freq=0, sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU)
        stats["cycles"] += 1
    stop.set()
ts = [start(reader), start(reader), start(closer)]
alive = join_all(ts, 30)
result({"stats": stats, "alive": alive, "errors": errors})
""", timeout=60)
    assert got["errors"] == [] and got["alive"] == [], got
    s = got["stats"]
    figures(close_cycles=s["cycles"], polls=s["polls"], events=s["events"])
    assert s["cycles"] > 100 and s["events"] > 0, got


def test_reader_finalizers_and_a_poller(run_ok):
    """Finalizers that release the GIL run between reads (gc.collect() each
    round) while another thread polls the same evlist: no lock of the evlist
    may be held across Python code, or the poller would block on it holding
    the GIL."""
    got = run_ok(THREADS + """
import gc
class Slow:
    def __init__(self):
        self.me = self            # a cycle: freed by the collector
    def __del__(self):
        time.sleep(0)             # releases the GIL
el = perf.evlist(cpus, perf.thread_map())
el.add(perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES,
                  sample_period=1, freq=0, sample_type=perf.SAMPLE_TID))
el.open(); el.mmap(pages=16)
stop = threading.Event()
n = [0, 0]
def reader():
    while not stop.is_set():
        for cpu in cpus:
            for _ in range(50):
                if el.read_on_cpu(cpu) is None:
                    break
                Slow()
                n[0] += 1
        gc.collect(0)
        time.sleep(0.0001)
def poller():
    while not stop.is_set():
        el.poll(timeout=0)
        len(el.get_pollfd())
        n[1] += 1
ts = [start(reader), start(poller)]
time.sleep(3)
stop.set()
alive = join_all(ts, 10)
result({"n": n, "alive": alive, "errors": errors})
""", timeout=40)
    assert got["alive"] == [] and got["errors"] == [], got
    assert got["n"][0] > 100 and got["n"][1] > 100, got


def test_two_evlists_sharing_evsels_mapped_concurrently(run_ok):
    """mmap() of evlists [e1, e2] and [e2, e1] from two threads. The evsels
    are left unopened, so every mmap() takes its evsels' locks and fails at
    once (ValueError): the loop hits the window between the two lock
    acquisitions many thousand times a second."""
    got = run_ok(THREADS + """
me = perf.thread_map(os.getpid())
e1, e2 = (perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY) for _ in range(2))
a, b = perf.evlist(cpus, me), perf.evlist(cpus, me)
a.add(e1); a.add(e2)
b.add(e2); b.add(e1)
n = [0, 0]
def loop(el, i):
    for _ in range(400_000):
        try:
            el.mmap(1)
        except ValueError:
            pass
        n[i] += 1
ts = [start(loop, a, 0), start(loop, b, 1)]
alive = join_all(ts, 30)
result({"n": n, "alive": alive, "errors": errors})
""", timeout=90)
    assert got["alive"] == [] and got["errors"] == [], got
    assert got["n"] == [400_000, 400_000], got
