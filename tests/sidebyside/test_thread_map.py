# SPDX-License-Identifier: GPL-2.0-only
"""perf.thread_map, side by side with the C module (docs/api.md §4)."""

import errno
import os

import pytest


def pid_max():
    with open("/proc/sys/kernel/pid_max") as f:
        return int(f.read())


def test_any_thread(module):
    got = module.run("""
result([list(perf.thread_map()), list(perf.thread_map(-1)), list(perf.thread_map(pid=-1)),
        list(perf.thread_map(uid=-1)), len(perf.thread_map())])
""").check()
    assert got == [[-1], [-1], [-1], [-1], 1]


def test_tid_is_taken_as_given(module):
    got = module.run("result([list(perf.thread_map(tid=1234567)), list(perf.thread_map(-1, 5)),"
                     " list(perf.thread_map(pid=-1, tid=5))])").check()
    assert got == [[1234567], [5], [5]]


def test_pid_lists_the_threads_of_the_process(module):
    got = module.run("""
import os, threading
ready, stop = threading.Event(), threading.Event()
def worker():
    ready.set()
    stop.wait()
t = threading.Thread(target=worker)
t.start()
ready.wait()
tids = list(perf.thread_map(os.getpid()))
kw = list(perf.thread_map(pid=os.getpid()))
task = sorted(int(x) for x in os.listdir("/proc/self/task"))
stop.set()
t.join()
result({"tids": tids, "kw": kw, "task": task, "pid": os.getpid(), "worker": t.native_id})
""").check()
    assert sorted(got["tids"]) == got["task"]
    assert sorted(got["kw"]) == got["task"]
    assert got["pid"] in got["tids"] and got["worker"] in got["tids"]
    assert len(got["tids"]) >= 2


def test_uid(module):
    """Every task of uid 0 (we are root). The C module gives up on the whole
    map (SystemError) when a process of the uid exits between its stat() and
    its scandir() of /proc/<pid>/task, which other work on the machine can
    make happen: it gets three tries; ours skips a vanished process."""
    got = module.run("""
import os
for attempt in range(3 if _which == "c" else 1):
    try:
        m = list(perf.thread_map(uid=0))
        break
    except SystemError:
        if attempt == 2:
            raise
result({"map": m, "self": os.getpid()})
""").check()
    assert 1 in got["map"] and got["self"] in got["map"]
    assert all(isinstance(t, int) and t > 0 for t in got["map"])


def test_no_such_process_is_process_lookup_error(perf_ours):
    with pytest.raises(ProcessLookupError) as e:
        perf_ours.thread_map(pid_max())
    assert isinstance(e.value, OSError)
    assert e.value.errno == errno.ESRCH


def test_c_module_no_such_process_gives_system_error(c_module):
    got = c_module.run(f"result(exc(perf.thread_map, {pid_max()}))").check()
    assert got == ["SystemError", "<class 'perf.thread_map'> returned NULL without setting an exception", None]


def test_argument_errors(module):
    got = module.run("result([exc(perf.thread_map, '1'), exc(perf.thread_map, 2**31),"
                     " exc(perf.thread_map, 1.0), exc(perf.thread_map, foo=1)])").check()
    assert [g[0] for g in got] == ["TypeError", "OverflowError", "TypeError", "TypeError"]


def test_len_indexing_iteration(module):
    got = module.run("""
m = perf.thread_map(tid=42)
result([len(m), m[0], m[-1], list(m), 42 in m, 7 in m, type(iter(m)).__name__,
        exc(lambda: m[0:1]), [hasattr(perf.thread_map, n) for n in ("__iter__", "__contains__")]])
""").check()
    assert got[:7] == [1, 42, 42, [42], True, False, "iterator"]
    assert got[7] == ["TypeError", "sequence index must be integer, not 'slice'", None]
    assert got[8] == [module.name == "ours", False]  # __iter__: ours (7.3 stub), not C's


def test_index_out_of_range_is_an_index_error(perf_ours):
    m = perf_ours.thread_map()
    for i in (1, -2, 2**70):
        with pytest.raises(IndexError):
            m[i]


def test_c_module_index_out_of_range_gives_system_error(c_module):
    got = c_module.run("m = perf.thread_map(); result(exc(lambda: m[1]))").check()
    assert got == ["SystemError", "error return without exception set", None]


def test_type_identity_and_doc(module):
    got = module.run("""
m = perf.thread_map()
result([perf.thread_map.__name__, perf.thread_map.__module__, repr(perf.thread_map),
        perf.thread_map.__doc__, repr(m).split(" at 0x")[0], exc(setattr, m, "foo", 1)[0]])
""").check()
    assert got == ["thread_map", "perf", "<class 'perf.thread_map'>", "thread map object.",
                   "<perf.thread_map object", "AttributeError"]


def test_own_pid_from_this_process(perf_ours):
    assert os.getpid() in list(perf_ours.thread_map(os.getpid()))
