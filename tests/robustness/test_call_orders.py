# SPDX-License-Identifier: GPL-2.0-only
"""Python API fuzzing (docs/reliability.md): the call orders the fuzzer
explores, written out one by one: each must give a value or an ordinary exception, in a subprocess so a
crash or a hang fails only its test."""

from sidebyside.harness import online_cpus

SETUP = """
import os, signal
cpus, me = perf.cpu_map(), perf.thread_map(os.getpid())
def dummy(**kw):
    # SAMPLE_ID + FORMAT_ID: records find their evsel when there are several.
    args = dict(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, comm=1, freq=0,
                sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU | perf.SAMPLE_ID,
                read_format=perf.FORMAT_ID)
    args.update(kw)
    return perf.evsel(**args)
def evlist(*evsels):
    el = perf.evlist(cpus, me)
    for ev in evsels:
        el.add(ev)
    return el
def fork_true():
    pid = os.fork()
    if pid == 0:
        os.execv("/bin/true", ["true"])
    os.waitpid(pid, 0)
def drain(el):
    got = []
    for cpu in cpus:
        while (ev := el.read_on_cpu(cpu)) is not None:
            got.append(type(ev).__name__)
    return got
"""


def test_read_before_mmap(run_ok):
    got = run_ok(SETUP + """
el = evlist(dummy())
before_open = exc(el.read_on_cpu, 0)
el.open()
result([before_open, exc(el.read_on_cpu, 0), exc(el.poll, 0), exc(el.get_pollfd)])
""")
    assert got[0][:2] == ["TypeError", "Unknown CPU '0'"]
    assert got[1][:2] == ["TypeError", "Unknown CPU '0'"]
    assert got[2] == ["ok", "0"]          # no fds to poll yet
    assert got[3] == ["ok", "[]"]


def test_add_after_open_then_mmap(run_ok):
    got = run_ok(SETUP + """
el = evlist(dummy())
el.open()
late = dummy()
n = el.add(late)
mm = exc(el.mmap, 1)     # `late` has no fds: refused, nothing half-mapped
el.open()                # opening again opens both
mm2 = exc(el.mmap, 1)
fork_true()
result([n, mm, mm2, drain(el).count("task_event") > 0])
""")
    assert got[0] == 2
    assert got[1][0] in ("ValueError", "OSError"), got
    assert got[2] == ["ok", "None"]
    assert got[3] is True


def test_close_twice_and_use_after_close(run_ok):
    got = run_ok(SETUP + """
el = evlist(dummy())
el.open(); el.mmap(1)
out = [exc(el.close), exc(el.close)]
out += [exc(el.read_on_cpu, 0), exc(el.poll, 0), exc(el.get_pollfd), exc(el.enable),
        exc(el.disable), exc(len, el), exc(repr, el)]
out += [exc(el.mmap, 1)]          # fds closed: refused
out += [exc(el.open), exc(el.mmap, 1)]   # and usable again after open
fork_true()
out.append(drain(el).count("task_event") > 0)
result(out)
""")
    assert got[0] == ["ok", "None"] and got[1] == ["ok", "None"]
    assert got[2][:2] == ["TypeError", "Unknown CPU '0'"]
    assert got[3] == ["ok", "0"]
    assert got[4] == ["ok", "[]"]
    assert got[5] == ["ok", "None"] and got[6] == ["ok", "None"]
    assert got[7] == ["ok", "1"]
    assert got[9][0] in ("ValueError", "OSError"), got
    assert got[10] == ["ok", "None"] and got[11] == ["ok", "None"]
    assert got[12] is True


def test_poll_forever_after_close_is_interruptible(run_ok):
    """poll(-1) with no fds blocks, as the C module's poll(NULL, 0, -1) does;
    it must stay interruptible (GIL released, EINTR runs the handler)."""
    got = run_ok(SETUP + """
class Alarm(Exception):
    pass
def on_alarm(*a):
    raise Alarm()
signal.signal(signal.SIGALRM, on_alarm)
el = evlist(dummy())
el.open(); el.mmap(1); el.close()
signal.setitimer(signal.ITIMER_REAL, 0.3)
result(exc(el.poll, -1))
""", timeout=20)
    assert got[0] == "Alarm"


def test_mmap_twice(run_ok):
    got = run_ok(SETUP + """
el = evlist(dummy())
el.open()
el.mmap(1)
fork_true()
first = drain(el)
out = [exc(el.mmap, 2), exc(el.mmap, 4), len(el.get_pollfd())]
fork_true()
out.append(drain(el).count("task_event") > 0)
out.append(first.count("task_event") > 0)
result(out)
""")
    assert got[0] == ["ok", "None"] and got[1] == ["ok", "None"]
    assert got[2] == len(online_cpus())   # one ring per CPU, not one per mmap() call
    assert got[3] is True and got[4] is True


def test_reinit_evsel_inside_mapped_evlist(run_ok):
    got = run_ok(SETUP + """
ev = dummy()
el = evlist(ev)
el.open(); el.mmap(1)
fork_true()
out = [exc(ev.__init__, type=1, config=9, task=1, freq=0)]     # closes its fds
fork_true()
out += [exc(el.poll, 0), exc(drain, el), exc(el.enable), exc(el.mmap, 1)]
out += [exc(el.open), exc(el.mmap, 1)]
fork_true()
out.append(exc(drain, el))
out.append(exc(ev.__init__, foo=1))      # junk: TypeError, evsel unchanged
result(out)
""")
    assert got[0] == ["ok", "None"]
    assert got[1][0] == "ok" and got[2][0] == "ok" and got[3][0] == "ok"
    assert got[4][0] in ("ValueError", "OSError")
    assert got[5] == ["ok", "None"] and got[6] == ["ok", "None"]
    assert got[7][0] == "ok" and "task_event" in got[7][1]
    assert got[8][0] == "TypeError"


def test_evsel_open_twice_keeps_one_fd_table(run_ok):
    got = run_ok(SETUP + """
n0 = len(os.listdir('/proc/self/fd'))
ev = dummy()
ev.open(cpus=cpus, threads=me)
n1 = len(os.listdir('/proc/self/fd'))
ev.open(cpus=cpus, threads=me)
ev.open(cpus=perf.cpu_map("0"), threads=me)
n2 = len(os.listdir('/proc/self/fd'))
del ev
result([n1 - n0, n2 - n0, len(os.listdir('/proc/self/fd')) - n0])
""")
    assert got == [len(online_cpus()), 1, 0]


def test_evsel_in_two_evlists(run_ok):
    got = run_ok(SETUP + """
ev = dummy()
a, b = evlist(ev), evlist(ev)
a.open(); a.mmap(1); b.mmap(1)
fork_true()
ra, rb = drain(a), drain(b)
a.close()
result([ra.count("task_event") + rb.count("task_event") > 0, exc(b.poll, 0)[0],
        exc(drain, b)[0], exc(b.close)])
""")
    assert got[0] is True
    assert got[1] == "ok" and got[2] == "ok" and got[3] == ["ok", "None"]


def test_same_evsel_added_twice(ours):
    r = ours.run(SETUP + """
ev = dummy()
el = evlist(ev)
n = el.add(ev)
el.open()
result([n, exc(el.mmap, 1)[0], exc(el.enable)[0]])
""", timeout=15)
    assert r.rc == 0 and r.result[0] == 2 and r.result[1] in ("ok", "ValueError", "OSError")
