# SPDX-License-Identifier: GPL-2.0-only
"""perf.evlist, side by side with the C module (docs/api.md §6)."""

import errno
import gc
import os

import pytest

from sidebyside.fdprobe import perf_fds, perf_maps
from sidebyside.harness import online_cpus

# A per-thread dummy evsel on this process: task/comm records arrive only
# when the test itself forks, whatever else runs on the machine.
SETUP = """
import gc, os
cpus, threads = perf.cpu_map(), perf.thread_map(os.getpid())
def dummy(**kw):
    ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, comm=1,
                    freq=0, wakeup_events=1, watermark=1,
                    sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU | perf.SAMPLE_TIME, **kw)
    ev.open(cpus=cpus, threads=threads)
    return ev
def fork_true():
    pid = os.fork()
    if pid == 0:
        os.execv("/bin/true", ["true"])
    os.waitpid(pid, 0)
    return pid
"""


def test_positional_only(module):
    got = module.run("""
c, t = perf.cpu_map(), perf.thread_map()
result([exc(perf.evlist, cpus=c, threads=t), exc(perf.evlist, c), exc(perf.evlist),
        exc(lambda: len(perf.evlist(c, t)))])
""").check()
    assert [g[0] for g in got[:3]] == ["TypeError"] * 3
    assert got[3] == ["ok", "0"]


def test_add_len_index_iterate(module):
    got = module.run(SETUP + """
class Sub(perf.evsel):
    pass
el = perf.evlist(cpus, threads)
a = dummy()
b = Sub(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY)
n1, n2 = el.add(a), el.add(b)
result([n1, n2, len(el), el[0] is a, el[1] is b, el[-1] is b, el[-2] is a,
        type(el[1]).__name__, [x is y for x, y in zip(el, [a, b])], list(el) == [a, b],
        exc(lambda: el[0:1])])
""").check()
    assert got[:10] == [1, 2, 2, True, True, True, True, "Sub", [True, True], True]
    assert got[10] == ["TypeError", "sequence index must be integer, not 'slice'", None]


def test_index_out_of_range_is_an_index_error(perf_ours):
    el = perf_ours.evlist(perf_ours.cpu_map(), perf_ours.thread_map())
    with pytest.raises(IndexError, match="Index out of range"):
        el[0]
    el.add(perf_ours.evsel(type=1, config=9))
    for i in (1, -2, 2**70):
        with pytest.raises(IndexError):
            el[i]


def test_c_module_index_out_of_range_gives_system_error(c_module):
    got = c_module.run("""
el = perf.evlist(perf.cpu_map(), perf.thread_map())
el.add(perf.evsel(type=1, config=9))
result(exc(lambda: el[1]))
""").check()
    assert got == ["SystemError", "error return without exception set", None]


CRASHERS = {
    "add-int": ("el = perf.evlist(perf.cpu_map(), perf.thread_map()); el.add(5)", TypeError),
    "list-as-cpus": ("perf.evlist([0, 1], perf.thread_map())", TypeError),
}


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_c_module_crashes(c_module, name):
    run = c_module.run(CRASHERS[name][0])
    assert run.crashed(), f"expected the C module to crash, rc {run.rc}\n{run.stderr}"


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_ours_raises_instead_of_crashing(ours, name):
    code, expected = CRASHERS[name]
    got = ours.run(f"result(exc(lambda: exec({code!r})))").check()
    assert got[0] == expected.__name__, got


def test_ours_rejects_non_maps(perf_ours):
    c, t = perf_ours.cpu_map(), perf_ours.thread_map()
    for args in ((c, 5), (t, c), (c, [0]), ([0], t)):
        with pytest.raises(TypeError):
            perf_ours.evlist(*args)
    with pytest.raises(TypeError):
        perf_ours.evlist(c, t).add("evsel")


def test_mmap_pages_must_be_a_power_of_two(module):
    got = module.run(SETUP + """
out = []
for pages in (3, 0):
    el = perf.evlist(cpus, threads)
    el.add(dummy())
    out.append(exc(el.mmap, pages=pages))
el = perf.evlist(cpus, threads)
el.add(dummy())
out.append(exc(el.mmap, pages=4))
el = perf.evlist(cpus, threads)
el.add(dummy())
out.append(exc(el.mmap, 1, False))
el = perf.evlist(cpus, threads)
el.add(dummy())
out.append(exc(el.mmap, pages=8, overwrite=True))
result(out)
""").check()
    assert [g[0] for g in got[:2]] == ["OSError", "OSError"]
    assert [g[2] for g in got[:2]] == [errno.EINVAL, errno.EINVAL]
    assert got[2:] == [["ok", "None"]] * 3


def test_mmap_of_an_empty_evlist(module):
    got = module.run("""
el = perf.evlist(perf.cpu_map(), perf.thread_map())
result([exc(el.mmap), exc(el.poll, 0), el.get_pollfd()])
""").check()
    assert got == [["ok", "None"], ["ok", "0"], []]


POLLFD = SETUP + """
el = perf.evlist(cpus, threads)
el.add(dummy())
before = el.get_pollfd()
el.mmap()
fds = el.get_pollfd()
info = [[type(f).__name__, f.name, f.mode, f.buffer.raw.closefd, f.fileno() == f.name] for f in fds]
names = [f.name for f in fds]
del fds
gc.collect()
still_open = []
for n in names:
    try:
        os.fstat(n)
        still_open.append(True)
    except OSError:
        still_open.append(False)
again = [f.name for f in el.get_pollfd()]
result({"before": before, "info": info, "still_open": still_open, "again": again})
"""


def test_get_pollfd(module):
    got = module.run(POLLFD).check()
    assert got["before"] == []
    assert len(got["info"]) == len(online_cpus())
    for kind, name, mode, closefd, same in got["info"]:
        assert (kind, mode, closefd, same) == ("TextIOWrapper", "r", False, True)
        assert isinstance(name, int) and name > 2
    assert got["still_open"] == [True] * len(got["info"])
    assert got["again"] == [i[1] for i in got["info"]]


def test_poll_and_read_on_cpu(module):
    got = module.run(SETUP + """
el = perf.evlist(cpus, threads)
el.add(dummy())
el.mmap()
idle = [el.poll(0), el.poll(timeout=0), [el.read_on_cpu(c) for c in cpus]]
child = fork_true()
ready = el.poll(timeout=100)
with open("/proc/self/comm", "w") as f:   # a COMM record for this thread
    f.write("sbs-renamed")
events = []
for _ in range(50):
    for c in cpus:
        e = el.read_on_cpu(c)
        if e is not None:
            events.append([type(e).__name__, e.type, e.pid, e.tid] +
                          ([e.comm] if isinstance(e, perf.comm_event) else []))
    if len(events) >= 2:
        break
    el.poll(timeout=100)
kw = exc(el.read_on_cpu, cpu=cpus[0], sample_id_all=0)
result({"idle": idle, "ready": ready, "events": events, "child": child, "kw": kw,
        "self": os.getpid()})
""").check()
    assert got["idle"] == [0, 0, [None] * len(online_cpus())]
    assert got["ready"] > 0
    child = got["child"]
    assert ["task_event", 7, child, child] in got["events"]
    me = got["self"]
    assert ["comm_event", 3, me, me, "sbs-renamed"] in got["events"]
    assert got["kw"] == ["ok", "None"]


def test_poll_blocks_for_the_timeout(module):
    got = module.run(SETUP + """
import time
el = perf.evlist(cpus, threads)
el.add(dummy())
el.mmap()
t = time.monotonic()
n = el.poll(timeout=200)
result([n, time.monotonic() - t])
""").check()
    assert got[0] == 0
    # At least the timeout (the kernel's promise); the upper bound only
    # tells milliseconds from seconds, so a busy machine cannot reach it.
    assert 0.15 < got[1] < 20


def test_read_on_cpu_unknown_cpu_is_a_type_error(perf_ours):
    el = perf_ours.evlist(perf_ours.cpu_map(), perf_ours.thread_map(os.getpid()))
    ev = perf_ours.evsel(type=1, config=9, task=1)
    ev.open(perf_ours.cpu_map(), perf_ours.thread_map(os.getpid()))
    el.add(ev)
    with pytest.raises(TypeError, match=r"^Unknown CPU '0'$"):
        el.read_on_cpu(0)  # before mmap()
    el.mmap()
    with pytest.raises(TypeError, match=r"^Unknown CPU '99'$"):
        el.read_on_cpu(99)
    assert el.read_on_cpu(0) is None


def test_c_module_read_on_cpu_unknown_cpu_gives_system_error(c_module):
    got = c_module.run(SETUP + """
el = perf.evlist(cpus, threads)
el.add(dummy())
out = [exc(el.read_on_cpu, 0)]
el.mmap()
out.append(exc(el.read_on_cpu, 99))
result(out)
""").check()
    for outcome in got:
        assert outcome[0] == "SystemError"
        assert "read_on_cpu" in outcome[1] and "returned NULL without setting an exception" in outcome[1]


def test_user_closed_fds_are_not_closed_again(module):
    """tuned closes the poll fds itself (os.close(fd.name)); freeing the
    evlist and evsel afterwards must not close whatever reused those numbers."""
    got = module.run(SETUP + """
el = perf.evlist(cpus, threads)
ev = dummy()
el.add(ev)
el.mmap()
for f in el.get_pollfd():
    os.close(f.name)
reused = [os.open("/dev/null", os.O_RDONLY) for _ in cpus]
del el, ev, f
gc.collect()
ok = []
for fd in reused:
    try:
        os.fstat(fd)
        ok.append(True)
    except OSError:
        ok.append(False)
result(ok)
""").check()
    assert got == [True] * len(online_cpus())


# poll() on a child that exits when a byte arrives on a pipe; a second thread
# writes the byte once the kernel shows the main thread blocked in poll. That
# thread needs the GIL: it can run (and the child's exit end the poll early)
# only if poll() released it; otherwise poll sleeps its whole timeout.
GIL = SETUP + """
import threading, time
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.read(r, 1)
    os._exit(0)
threads = perf.thread_map(child)     # what dummy() opens on
el = perf.evlist(cpus, threads)
el.add(dummy())
el.mmap()
me, state = threading.get_native_id(), {"polling": True, "saw_poll": False}
def release_when_polling():
    while state["polling"]:
        with open(f"/proc/self/task/{me}/wchan") as f:
            if "poll" in f.read():
                state["saw_poll"] = True
                os.write(w, b"x")
                return
        time.sleep(0.001)
t = threading.Thread(target=release_when_polling)
t.start()
t0 = time.monotonic()
ready = el.poll(timeout=TIMEOUT)
elapsed = time.monotonic() - t0
state["polling"] = False
t.join()
os.write(w, b"x")
os.waitpid(child, 0)
result([ready, elapsed, state["saw_poll"]])
"""


def test_poll_releases_the_gil(ours):
    """Ours lets other threads run while poll() blocks. (The old
    check compared a spinning thread's progress during poll with its
    progress during a sleep: the machine's load, not the GIL, could decide
    it.)"""
    ready, elapsed, saw_poll = ours.run("TIMEOUT = 20000\n" + GIL).check()
    assert saw_poll and ready >= 1 and elapsed < 19, (ready, elapsed, saw_poll)


def test_c_module_poll_holds_the_gil(c_module):
    """docs/api.md §8: the C module blocks in poll() holding the GIL: the other
    thread cannot run, so poll sleeps its whole 3 s, and no byte wakes the
    child whose exit would end it early (ready == 0). Whether the thread saw
    poll in the wchan is not asserted: it may have read the file in a read()
    it released the GIL for just as poll() began; it then waits for the GIL
    until poll() returns."""
    ready, elapsed, _ = c_module.run("TIMEOUT = 3000\n" + GIL).check()
    assert ready == 0 and elapsed >= 2.9, (ready, elapsed)


def test_fds_closed_when_the_evlist_is_freed(perf_ours):
    """Freeing an evlist and its evsel closes their perf_event fds and unmaps
    their rings. Only those are counted, after a collection on both sides:
    the pytest process's other fds (and garbage earlier tests left for the
    next collection) come and go."""
    gc.collect()
    before = perf_fds(), perf_maps()
    cpus, threads = perf_ours.cpu_map(), perf_ours.thread_map(os.getpid())
    ev = perf_ours.evsel(type=1, config=9, task=1)
    ev.open(cpus, threads)
    el = perf_ours.evlist(cpus, threads)
    el.add(ev)
    el.mmap()
    # One fd per (cpu, thread), one ring per CPU (the per-thread fds are
    # redirected into it).
    assert (perf_fds(), perf_maps()) == (before[0] + len(cpus) * len(threads), before[1] + len(cpus))
    del el, ev
    gc.collect()
    assert (perf_fds(), perf_maps()) == before
