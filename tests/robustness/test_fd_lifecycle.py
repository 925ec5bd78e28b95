# SPDX-License-Identifier: GPL-2.0-only
"""File descriptors and memory. Thousands of open/mmap/close
cycles leave the fd count and RSS flat; dropping objects without close()
releases their fds and ring mappings; running out of fds is a clear
OSError(EMFILE) that leaves nothing behind; and tuned's habit of closing
the poll fds itself never makes us close a file that reused the number."""

import errno

from sidebyside.harness import online_cpus

# perf_fds() and perf_maps() come with the prelude (tests/sidebyside/fdprobe.py).
# fds() counts every fd: these snippets run alone in a fresh process, where
# nothing else opens one.
PROBES = r"""
import gc, os, resource
def fds():
    return len(os.listdir("/proc/self/fd"))
def rss_kb():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
cpus, me = perf.cpu_map(), perf.thread_map(os.getpid())
def dummy(**kw):
    return perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, freq=0,
                      sample_type=perf.SAMPLE_TID, **kw)
"""


def test_ten_thousand_cycles_leave_fds_and_rss_flat(run_ok, figures):
    cycles = 10_000
    got = run_ok(PROBES + f"""
def cycle(i):
    kind = i % 4
    if kind == 0:                     # evlist: open, mmap, close explicitly
        el = perf.evlist(cpus, me)
        el.add(dummy())
        el.open(); el.mmap(pages=1); el.close()
    elif kind == 1:                   # evlist dropped while mapped
        el = perf.evlist(cpus, me)
        el.add(dummy()); el.add(dummy())
        el.open(); el.mmap(pages=2)
        el.get_pollfd()
    elif kind == 2:                   # evsel opened and dropped
        ev = dummy()
        ev.open(cpus=cpus, threads=me)
    else:                             # evsel re-opened, then re-initialised
        ev = dummy()
        ev.open(cpus=cpus, threads=me)
        ev.open(cpus=cpus, threads=me)
        ev.__init__(type=1, config=9)
base_fds = fds()
for i in range(1000):                 # warm up allocators and caches
    cycle(i)
gc.collect()
fds0, rss0 = fds(), rss_kb()
for i in range({cycles}):
    cycle(i)
gc.collect()
result({{"base_fds": base_fds, "fds0": fds0, "fds1": fds(), "rss0": rss0, "rss1": rss_kb(),
        "perf_fds": perf_fds(), "perf_maps": perf_maps()}})
""", timeout=300)
    growth = got["rss1"] - got["rss0"]
    figures(cycles=cycles, fds_before=got["fds0"], fds_after=got["fds1"], rss_kb_before=got["rss0"],
            rss_kb_after=got["rss1"], rss_growth_kb=growth)
    assert got["fds1"] == got["fds0"] == got["base_fds"], got
    assert got["perf_fds"] == 0 and got["perf_maps"] == 0, got
    # Noise allowance: 1 MiB over 10 000 cycles (a leak of 100 bytes per
    # cycle would show).
    assert growth < 1024, got


def test_reading_many_records_keeps_rss_flat(run_ok, figures):
    got = run_ok(PROBES + """
el = perf.evlist(cpus, me)
el.add(perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, comm=1,
                  freq=0, sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU))
el.open(); el.mmap(pages=8)
def burst():
    n = 0
    for _ in range(100):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    for cpu in cpus:
        while (ev := el.read_on_cpu(cpu)) is not None:
            repr(ev); ev.sample_pid; ev.pid
            n += 1
    return n
for _ in range(5):
    burst()
gc.collect()
rss0, n = rss_kb(), 0
for _ in range(100):
    n += burst()
gc.collect()
result({"records": n, "rss0": rss0, "rss1": rss_kb()})
""", timeout=300)
    figures(records=got["records"], rss_growth_kb=got["rss1"] - got["rss0"])
    assert got["records"] >= 10_000, got
    assert got["rss1"] - got["rss0"] < 1024, got


def test_drop_without_close_releases_fds_and_mappings(run_ok):
    got = run_ok(PROBES + """
before = (perf_fds(), perf_maps())
evsels = [dummy() for _ in range(3)]
el = perf.evlist(cpus, me)
for ev in evsels:
    el.add(ev)
el.open(); el.mmap(pages=4)
lone = dummy()
lone.open(cpus=cpus, threads=me)
during = (perf_fds(), perf_maps())
del el                      # the evsels are still referenced: their fds stay
mid = (perf_fds(), perf_maps())
del evsels, ev, lone
gc.collect()
result([before, during, mid, (perf_fds(), perf_maps())])
""")
    ncpu = len(online_cpus())
    before, during, mid, after = got
    assert before == [0, 0]
    assert during == [4 * ncpu, ncpu], got       # one ring per CPU
    assert mid == [4 * ncpu, 0], got             # rings unmapped with the evlist
    assert after == [0, 0], got


def test_emfile_is_a_clear_oserror(run_ok):
    got = run_ok(PROBES + """
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
def starved(free, fn, *args, **kw):
    # Runs fn with exactly `free` fd numbers left under RLIMIT_NOFILE; returns
    # its outcome and how many fds it left open (counted with the limit back).
    base = fds()
    highest = max(int(fd) for fd in os.listdir("/proc/self/fd"))
    limit = highest + 1 + free
    pad = [os.open("/dev/null", os.O_RDONLY) for _ in range(limit - free - (base - 1))]
    resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))
    try:
        outcome = exc(fn, *args, **kw)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        for fd in pad:
            os.close(fd)
    return outcome, fds() - base
el = perf.evlist(cpus, me)
for _ in range(3):
    el.add(dummy())
out = list(starved(3 * len(cpus) - 1, el.open))       # one fd short
ev = dummy()
out += starved(len(cpus) - 1, ev.open, cpus=cpus, threads=me)
out.append(exc(el.open))
out.append(exc(el.mmap, 1))
out.append(perf_fds())
result(out)
""")
    (kind, text, err), left, ev_outcome, ev_left, reopen, remap, perf_fds = got
    assert kind == "OSError" and err == errno.EMFILE, got
    assert "Too many open files" in text, got
    assert left == 0, f"a failed evlist.open() left {left} fds open"
    assert ev_outcome[0] == "OSError" and ev_outcome[2] == errno.EMFILE, got
    assert ev_left == 0, f"a failed evsel.open() left {ev_left} fds open"
    assert reopen == ["ok", "None"] and remap == ["ok", "None"], got
    assert perf_fds == 3 * len(online_cpus())


def test_tuned_closing_pollfds_never_closes_a_reused_number(run_ok):
    """tuned does `for fd in evlist.get_pollfd(): os.close(fd.name)` and
    later drops the evlist: the numbers it freed may by then belong to other
    files, which our drop must leave alone."""
    got = run_ok(PROBES + """
import tempfile
el = perf.evlist(cpus, me)
ev = dummy()
el.add(ev)
el.open(); el.mmap(pages=1)
files = el.get_pollfd()
numbers = sorted(f.name for f in files)
for f in files:
    os.close(f.name)
del files
# New files take the freed numbers (lowest first).
tmp = tempfile.TemporaryDirectory()
reused = {}
for i in range(len(numbers)):
    path = os.path.join(tmp.name, f"f{i}")
    with open(path, "w") as f:
        f.write(f"file {i}")
    fd = os.open(path, os.O_RDONLY)
    reused[fd] = f"file {i}"
taken = sorted(reused)
el.close()
del el, ev
gc.collect()
still = {}
for fd, text in reused.items():
    try:
        os.lseek(fd, 0, 0)
        still[fd] = os.read(fd, 100).decode() == text
    except OSError as e:
        still[fd] = f"closed: {e}"
result([numbers, taken, still, perf_fds()])
""")
    numbers, taken, still, leftover = got
    assert taken == numbers, "the files did not reuse the poll fd numbers"
    assert all(v is True for v in still.values()), still
    assert leftover == 0


def test_reference_cycles_are_collected(run_ok):
    """A monitor object that owns an evlist whose evsel subclass points back
    at the monitor (or at the evlist, or keeps the last sample or side-band
    event it read, which points at the evsel) is garbage once dropped:
    gc.collect() must free it and close its fds."""
    got = run_ok(PROBES + """
import weakref
class Mine(perf.evsel):
    pass
class Monitor:
    def __init__(self):
        self.evlist = perf.evlist(cpus, me)
        self.ev = Mine(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, freq=0,
                       sample_type=perf.SAMPLE_TID)
        self.ev.owner = self                    # monitor -> evlist -> evsel -> monitor
        self.evlist.add(self.ev)
        self.evlist.open(); self.evlist.mmap(pages=1)
out = {}
m = Monitor()
alive = weakref.ref(m)
del m
gc.collect()
out["monitor"] = [alive() is None, perf_fds(), perf_maps()]
base = (perf_fds(), perf_maps())
ev = Mine(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES, sample_period=1,
          freq=0, sample_type=perf.SAMPLE_TID)
el = perf.evlist(cpus, me)
el.add(ev)
el.open(); el.mmap(pages=1)
import time
for _ in range(5):
    time.sleep(0.001)
for cpu in cpus:
    while (e := el.read_on_cpu(cpu)) is not None:
        if isinstance(e, perf.sample_event):
            ev.last = e                         # evsel -> sample_event -> evsel
out["sampled"] = hasattr(ev, "last")
del el, ev, e
gc.collect()
out["event"] = [perf_fds() - base[0], perf_maps() - base[1]]
# The same through a side-band event: evsel -> comm_event -> evsel.
ev = Mine(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, comm=1, sample_period=1, freq=0,
          sample_id_all=1, sample_type=perf.SAMPLE_TID)
el = perf.evlist(cpus, me)
el.add(ev)
el.open(); el.mmap(pages=1)
with open("/proc/self/comm", "w") as f:
    f.write("cycle-test")
for cpu in cpus:
    while (e := el.read_on_cpu(cpu)) is not None:
        if isinstance(e, perf.comm_event) and e.evsel is ev:
            ev.last = e
out["side_band"] = hasattr(ev, "last")
del el, ev, e
gc.collect()
out["side_band_left"] = [perf_fds() - base[0], perf_maps() - base[1]]
result(out)
""")
    assert got["monitor"] == [True, 0, 0], got
    assert got["sampled"] is True
    assert got["event"] == [0, 0], got
    assert got["side_band"] is True
    assert got["side_band_left"] == [0, 0], got
