# SPDX-License-Identifier: GPL-2.0-only
"""evlist.read_all(max_events=None), the batch reader: the same events as
draining with read_on_cpu, max_events honoured, and events the caller keeps
are never refilled by later reads (the reader reuses only objects nobody
else holds).

The workload is a child that execs python3 and makes K1 getppid() and K2
getpid() calls; two evlists with the same evsels (the two syscall
tracepoints, the first one tracking task/comm/mmap) are opened on it, one
drained with read_all(), the other with read_on_cpu()."""


from sidebyside.harness import needs_root, needs_tracefs

pytestmark = [needs_root, needs_tracefs]

K1, K2 = 700, 300

SETUP = """
import collections, os, subprocess, sys

K1, K2 = {k1}, {k2}
WORK = ("import os\\n"
        "for _ in range(%d): os.getppid()\\n"
        "for _ in range(%d): os.getpid()\\n" % (K1, K2))

def workload_evlists(n):
    \"\"\"n evlists opened on a child that has not started its work yet,
    and a function that runs the work to the child's exit.\"\"\"
    child = subprocess.Popen(["/bin/sh", "-c", 'read go; exec "$0" -c "$1"', sys.executable, WORK],
                             stdin=subprocess.PIPE)
    cpus, threads = perf.cpu_map(), perf.thread_map(child.pid)
    evlists = []
    for _ in range(n):
        evlist = perf.parse_events("syscalls:sys_enter_getppid,syscalls:sys_enter_getpid", cpus, threads)
        evlist.config()
        evlist.open()
        evlist.mmap(pages=1024)
        evlists.append(evlist)
    def run():
        child.stdin.write(b"go\\n")
        child.stdin.close()
        assert child.wait(60) == 0
    return cpus, evlists, run, child.pid

def key(ev):
    \"\"\"What an event is: class, record type and, for samples, the evsel.\"\"\"
    evsel = str(ev.evsel) if isinstance(ev, perf.sample_event) else None
    return f"{{type(ev).__name__}}/{{ev.type}}/{{evsel}}"

def drain_classic(evlist, cpus):
    out = []
    for cpu in cpus:
        while True:
            ev = evlist.read_on_cpu(cpu)
            if ev is None:
                break
            out.append(ev)
    return out

SAMPLE_FIELDS = ("common_pid", "common_type", "__syscall_nr")

def snapshot(ev):
    \"\"\"Every value an event answers, as JSON-able data.\"\"\"
    d = {{}}
    for name in dir(ev):
        if name.startswith("_"):
            continue
        v = getattr(ev, name)
        d[name] = str(v) if isinstance(v, perf.evsel) else v.hex() if isinstance(v, bytes) else v
    if isinstance(ev, perf.tracepoint_sample_event):
        for name in SAMPLE_FIELDS:
            d[name] = getattr(ev, name)
    return d
"""


def setup(**kw):
    return SETUP.format(k1=K1, k2=K2, **kw)


def test_read_all_gives_the_same_events_as_read_on_cpu(ours):
    got = ours.run(setup() + """
cpus, (batch, classic), run, pid = workload_evlists(2)
run()
a = list(batch.read_all())
b = drain_classic(classic, cpus)
result({"batch": collections.Counter(map(key, a)), "classic": collections.Counter(map(key, b)),
        "unmatched": [batch.unmatched, classic.unmatched],
        "sample_pids": sorted({ev.sample_pid for ev in a if isinstance(ev, perf.sample_event)}),
        "again": [len(list(batch.read_all())), len(drain_classic(classic, cpus))], "pid": pid})
""").check()
    assert got["batch"] == got["classic"]
    counts = got["batch"]
    getppid = counts.get("sample_event/9/evsel(syscalls:sys_enter_getppid)", 0)
    getpid = counts.get("sample_event/9/evsel(syscalls:sys_enter_getpid)", 0)
    # The interpreter's start-up makes no getppid() call but may make a
    # few getpid() calls.
    assert getppid == K1 and K2 <= getpid <= K2 + 20, counts
    # Tracking (the first evsel): the exec's comm, the interpreter's
    # mappings, its exit.
    assert counts.get("comm_event/3/None") == 1, counts
    assert counts.get("task_event/4/None") == 1, counts
    assert counts.get("mmap2_event/10/None", 0) > 5, counts
    assert not any(k.startswith("lost_event") for k in counts), counts
    assert got["unmatched"] == [0, 0]
    assert got["sample_pids"] == [got["pid"]]
    # Both drained everything.
    assert got["again"] == [0, 0]


def test_max_events(ours):
    got = ours.run(setup() + """
cpus, (batch, classic), run, pid = workload_evlists(2)
run()
total = len(drain_classic(classic, cpus))
it = batch.read_all(max_events=5)
first = list(it)
exhausted = [exc(next, it), list(it)]
none = list(batch.read_all(max_events=0))
second = list(batch.read_all(max_events=total))
rest = list(batch.read_all())
result({"total": total, "first": len(first), "exhausted": exhausted, "none": len(none),
        "second": len(second), "rest": len(rest), "it_is_iter": iter(it) is it})
""").check()
    assert got["total"] > K1 + K2
    assert got["first"] == 5
    assert got["exhausted"] == [["StopIteration", "", None], []]
    assert got["none"] == 0
    # Bounded reads resume where the previous one stopped: nothing is lost
    # or read twice.
    assert got["second"] == got["total"] - 5
    assert got["rest"] == 0
    assert got["it_is_iter"]


def test_kept_events_are_never_overwritten(ours):
    """Events the caller holds (every third of a read_all(), every third of a
    read_on_cpu() loop, and ones kept only inside a dict) keep their values
    while the reader goes on and builds thousands more."""
    got = ours.run(setup() + """
cpus, (batch, classic), run, pid = workload_evlists(2)
run()
held, saved = [], []
for i, ev in enumerate(batch.read_all()):
    if i % 3 == 0:
        held.append(ev)
        saved.append(snapshot(ev))
kept_in_dict = {}
i = 0
for cpu in cpus:
    while True:
        ev = classic.read_on_cpu(cpu)
        if ev is None:
            break
        if i % 3 == 0:
            held.append(ev)
            saved.append(snapshot(ev))
        if i % 101 == 0:
            kept_in_dict[i] = ev
        i += 1
dict_saved = {k: snapshot(v) for k, v in kept_in_dict.items()}
# More work and more reads, on the same evlists (the reader's objects are
# reused for these).
cpus2, (batch2, classic2), run2, _ = workload_evlists(2)
run2()
more = 0
for _ in range(3):
    for ev in batch2.read_all():
        more += 1
    for ev in drain_classic(classic2, cpus2):
        more += 1
result({"held": len(held), "distinct": len({id(e) for e in held}), "more": more,
        "changed": [i for i, (ev, s) in enumerate(zip(held, saved)) if snapshot(ev) != s],
        "dict_changed": [k for k, v in kept_in_dict.items() if snapshot(v) != dict_saved[k]],
        "samples": sum(isinstance(e, perf.sample_event) for e in held)})
""").check()
    assert got["held"] > (K1 + K2) * 2 // 3
    assert got["samples"] > (K1 + K2) // 2
    assert got["distinct"] == got["held"]
    assert got["more"] > K1 + K2
    assert got["changed"] == []
    assert got["dict_changed"] == []


def test_read_all_before_mmap_and_after_close(ours):
    got = ours.run("""
import os
evlist = perf.parse_events("task-clock", perf.cpu_map("0"), perf.thread_map(os.getpid()))
before_open = exc(list, evlist.read_all())
evlist.open()
before_mmap = exc(list, evlist.read_all())
evlist.mmap()
evlist.close()
after_close = exc(list, evlist.read_all())
result([before_open, before_mmap, after_close])
""").check()
    assert got == [["ok", "[]"]] * 3
