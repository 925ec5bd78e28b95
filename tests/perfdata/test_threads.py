# SPDX-License-Identifier: GPL-2.0-only
"""Python threads reading perf.data files at once: `read_columns()` reads
without the GIL (docs/perfdata.md, "Threads"). Several threads reading the
same and different files, resolved columns included (symbol tables, DSOs,
call chains loaded while other threads read), give every value a
single-threaded read gives; and two threads are really inside the GIL-free
read at the same time, as are two `process_events()` with no callback;
the main thread's GIL-free read still runs the signal handlers."""

import signal
import sys
import threading
import time

import pytest

FILES = ["sw", "callchain", "tp_a", "z"]
RESOLVED = ("sample_time", "sample_pid", "sample_tid", "sample_cpu", "sample_ip", "evsel",
            "dso", "symbol", "callchain_dso", "callchain_symbol", "callchain_offsets", "comm")


def read(perf, path, columns, max_events=None):
    """Every batch of a fresh session, the indexes into the session's
    tables replaced by the names."""
    session = perf.session(perf.data(str(path)))
    out = {}
    while cols := session.read_columns(columns, max_events):
        for k in cols:
            values = list(cols[k])
            if k in ("dso", "symbol", "callchain_dso", "callchain_symbol", "comm"):
                values = [cols.names[v] for v in values]
            elif k == "evsel":
                values = [cols.evsel_names[v] for v in values]
            elif k == "callchain_offsets":
                values = [b - values[0] for b in values[1:]]
            out.setdefault(k, []).append(values)
    return out


def run_threads(jobs):
    """Runs each job in its own thread, all started together; their results
    (an exception is re-raised)."""
    results = [None] * len(jobs)
    start = threading.Barrier(len(jobs))

    def run(i, job):
        start.wait()
        try:
            results[i] = ("ok", job())
        except BaseException as e:  # noqa: BLE001 - handed back to the test
            results[i] = ("error", e)
    threads = [threading.Thread(target=run, args=(i, job)) for i, job in enumerate(jobs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for kind, value in results:
        if kind == "error":
            raise value
    return [value for _, value in results]


def test_threads_read_what_one_thread_reads(perf_ours, record):
    paths = {name: record(name) for name in FILES}
    alone = {name: read(perf_ours, p, RESOLVED) for name, p in paths.items()}
    assert any(any(v != "[unknown]" for b in alone[n]["callchain_symbol"] for v in b)
               for n in FILES), "symbols were resolved"
    # Each file twice (the same file in two threads), all at once, and in
    # batches of another size.
    jobs = [(name, size) for name in FILES for size in (None, 5000)]
    got = run_threads([lambda n=n, s=s: read(perf_ours, paths[n], RESOLVED, s) for n, s in jobs])
    for (name, size), out in zip(jobs, got):
        flat = {k: [v for b in out[k] for v in b] for k in out}
        want = {k: [v for b in alone[name][k] for v in b] for k in alone[name]}
        assert flat == want, (name, size)


@pytest.mark.parametrize("how", ["read_columns", "process_events"])
def test_two_reads_run_at_once(perf_ours, record, how):
    """With no forced switch of the GIL (a switch interval of an hour), a
    thread runs Python code only when the others release the GIL: a third
    thread that sees both readers inside `read_columns()` (or inside a
    `process_events()` with no callback) proves both released it there. Not timed: it looks until it sees it (or 50
    rounds of reading)."""
    path = str(record("big"))
    inside = [0, 0]
    seen = threading.Event()
    stop = threading.Event()

    def reader(k):
        for _ in range(50):
            if seen.is_set():
                return
            session = perf_ours.session(perf_ours.data(path))
            inside[k] = 1
            if how == "read_columns":
                session.read_columns(("sample_time",), max_events=10**9)
            else:
                session.process_events()  # no callback
            inside[k] = 0

    def watcher():
        while not stop.is_set():
            if inside[0] and inside[1]:
                seen.set()
                return
            time.sleep(0.0001)  # releases the GIL

    old = sys.getswitchinterval()
    sys.setswitchinterval(3600)
    try:
        w = threading.Thread(target=watcher)
        w.start()
        run_threads([lambda: reader(0), lambda: reader(1)])
        stop.set()
        w.join()
    finally:
        sys.setswitchinterval(old)
    assert seen.is_set(), "the watcher never saw both readers inside read_columns()"


def test_signals_are_checked_in_the_gil_free_read(perf_ours, record):
    """The main thread's read_columns() takes the GIL now and then to run
    the signal handlers: a 1 ms interval timer's handler runs several times
    during one batch of the whole file (were signals checked only when it
    returns, it would run once), and a KeyboardInterrupt it raises stops the
    read with the samples read before it on the exception."""
    path = str(record("big"))
    runs = []
    inside = [False]
    old = signal.signal(signal.SIGALRM, lambda *a: runs.append(inside[0]))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.001, 0.001)
        inside[0] = True
        cols = perf_ours.session(perf_ours.data(path)).read_columns(("sample_time",), 10**9)
        inside[0] = False
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert runs.count(True) >= 2, runs

    def interrupt(*a):
        raise KeyboardInterrupt
    old = signal.signal(signal.SIGALRM, interrupt)
    try:
        session = perf_ours.session(perf_ours.data(path))
        signal.setitimer(signal.ITIMER_REAL, 0.002)
        with pytest.raises(KeyboardInterrupt) as e:
            session.read_columns(("sample_time",), 10**9)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
    assert len(e.value.columns) < len(cols), "stopped before the end"


def test_threads_built_without_callbacks_are_one_threads(perf_ours, record):
    """process_events() with no callback (read without the GIL) in several
    threads at once builds the threads a single-threaded read builds: every
    sampled thread's comm and ppid, as find_thread() answers afterwards."""
    names = ["comm", "exec", "sw"]
    paths = [str(record(n)) for n in names]

    def threads_of(path):
        session = perf_ours.session(perf_ours.data(path))
        session.process_events()
        cols = perf_ours.session(perf_ours.data(path)).read_columns(
            ("sample_pid", "sample_tid"), 10**9)
        out = []
        for pid, tid in sorted(set(zip(cols["sample_pid"], cols["sample_tid"]))):
            t = session.find_thread(pid, tid)
            out.append((pid, tid, t.ppid, t.comm()) if t is not None else (pid, tid))
        return out
    alone = [threads_of(p) for p in paths]
    assert all(alone)
    got = run_threads([lambda p=p: threads_of(p) for p in paths * 2])
    assert got == alone * 2
