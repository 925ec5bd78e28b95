# SPDX-License-Identifier: GPL-2.0-only
"""Overload: tiny rings (mmap(pages=1), 4 KiB of data) under events
far faster than Python can read. What the kernel could not write must show
up as lost_event records with the right counts, the ring must wrap around
thousands of times, and every record that survives must parse with sane
values.

The children write in bursts, each far bigger than a ring, and wait after
each until the reader has read what it left (the reader reads during the
bursts too, but starts only after the first). So, on any schedule, the
first burst overflows a ring (a loss the kernel must report), and every
burst leaves at least a ring's worth to read: the wrap and sample counts
asserted below follow from the burst counts, not from how fast the reader
happened to be."""

import pytest

from sidebyside.harness import needs_root, needs_tracefs, tracepoint_id
from sidebyside.records import WORKLOADS

# Runs after the prelude and the workloads' common code (Bursts: the
# handshake between a writer's bursts and the reader). `child(body)` forks a
# process that waits for a byte on a pipe, runs body, and exits; `go()`
# releases it. `pump()` polls and reads every CPU's ring until the child is
# gone and the rings are dry, and returns per-class tallies, checking each
# record as it goes.
WORKLOAD = (WORKLOADS / "common.py").read_text() + r"""
import os, time
PAGE = os.sysconf("SC_PAGE_SIZE")
cpus = perf.cpu_map()
online = set(cpus)

def child(body):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        try:
            body()
        finally:
            os._exit(0)
    os.close(r)
    def go():
        os.write(w, b"x")
        os.close(w)
    return pid, go

def record_size(ev, sample_words):
    # header + the fixed u64 words + the raw block (u32 size + data, padded).
    if isinstance(ev, perf.sample_event):
        raw = len(ev.raw_buf)
        return 8 + 8 * sample_words + ((4 + raw + 7) // 8 * 8 if raw else 0)
    if isinstance(ev, perf.lost_event):
        return 8 + 16 + 8 * trailer_words
    return 8 + 24 + 8 * trailer_words   # throttle/unthrottle

# A pass reads at most this many records per ring (each holds fewer than 100):
# records that keep arriving as fast as they are read cannot hold a pass, and
# so a writer waiting in Bursts.end() for it, for ever.
PASS_LIMIT = 1024

def pump(el, pid, check, sample_words, budget=120.0, bursts=None):
    # Until the child has exited and a pass over the rings finds nothing; a
    # child still running at the deadline is killed ("finished" is False).
    t = {"samples": 0, "lost_records": 0, "lost": 0, "throttle": 0, "other": [],
         "bytes": 0, "bad": []}
    exited = False
    if bursts is not None:
        bursts.first()
    deadline = time.monotonic() + budget
    while time.monotonic() < deadline:
        if not exited:
            exited = os.waitpid(pid, os.WNOHANG)[0] == pid
        el.poll(timeout=10)
        got = 0
        for cpu in cpus:
            for _ in range(PASS_LIMIT):
                ev = el.read_on_cpu(cpu)
                if ev is None:
                    break
                got += 1
                t["bytes"] += record_size(ev, sample_words)
                if isinstance(ev, perf.sample_event):
                    t["samples"] += 1
                    why = check(ev, cpu)
                    if why and len(t["bad"]) < 10:
                        t["bad"].append(f"{why}: {ev!r}")
                elif isinstance(ev, perf.lost_event):
                    t["lost_records"] += 1
                    t["lost"] += ev.lost
                    if ev.lost <= 0 or ev.type != perf.RECORD_LOST:
                        t["bad"].append(f"lost_event {ev!r}")
                elif isinstance(ev, perf.throttle_event):
                    t["throttle"] += 1
                else:
                    t["other"].append(repr(ev))
        if exited and got == 0:
            break
        if bursts is not None:
            bursts.after_pass()
    if not exited:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    t["finished"] = exited
    t["unmatched"] = el.unmatched
    t["bursts"] = bursts.count if bursts is not None else 0
    if bursts is not None:
        bursts.release()
    return t
"""


@needs_root
@needs_tracefs
@pytest.mark.skipif(tracepoint_id("syscalls", "sys_enter_getppid") is None,
                    reason="needs the syscalls:sys_enter_getppid tracepoint")
def test_lost_counts_add_up_exactly(run_ok, figures):
    """A child makes exactly N getppid() calls in bursts; a per-task sys_enter_getppid
    evsel with sample_period=1 writes one sample per call into 4 KiB rings.
    Samples read + the `lost` of every lost_event must be exactly N.

    The kernel reports lost records in a LOST record written before the next
    record that fits into that CPU's ring, so losses at the very end of a
    burst stay pending until the ring is written again: after the last burst
    the child waits until the rings are drained and makes one more call on
    every CPU, whose samples flush them. N counts those calls."""
    n = 600_000
    got = run_ok(WORKLOAD + f"""
N = {n}
trailer_words = 3      # sample_id_all: TID, TIME, CPU
bursts = Bursts()
def body():
    # Bursts of 500 on one CPU (7 rings' worth: each overflows the ring).
    os.sched_setaffinity(0, {{min(online)}})
    for i in range(N - len(online)):
        os.getppid()
        if i % 500 == 499:
            bursts.end()
    bursts.end()
    for cpu in sorted(online):
        os.sched_setaffinity(0, {{cpu}})
        os.getppid()
pid, go = child(body)
tp = perf.tracepoint("syscalls", "sys_enter_getppid")
ev = perf.evsel(type=perf.TYPE_TRACEPOINT, config=tp, sample_period=1, freq=0,
                sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU |
                perf.SAMPLE_RAW, wakeup_events=1)
el = perf.evlist(cpus, perf.thread_map(pid))
el.add(ev)
el.open()
el.mmap(pages=1)
def check(ev, cpu):
    if (ev.sample_pid, ev.sample_tid) != (pid, pid):
        return "pid"
    if ev.sample_cpu != cpu or cpu not in online:
        return "cpu"
    if ev.common_pid != pid or ev.__syscall_nr != 110:
        return "payload"
go()
t = pump(el, pid, check, sample_words=3, bursts=bursts)
t["N"] = N
t["cpus"] = len(online)
t["ring"] = PAGE
result(t)
""", timeout=300)
    wraps = got["bytes"] // got["ring"]
    figures(generated=got["N"], read=got["samples"], lost=got["lost"],
            lost_records=got["lost_records"], ring_bytes=got["ring"], wraps=wraps)
    assert got["finished"], f"the writer was still running at pump()'s deadline: {got}"
    assert got["bad"] == [] and got["other"] == [], got
    assert got["unmatched"] == 0
    assert got["bursts"] == (n - got["cpus"]) // 500 + 1, got     # every handshake made
    assert got["lost_records"] > 0 and got["lost"] > 0, got
    assert got["samples"] + got["lost"] == got["N"], got
    # Each of the ~1200 bursts of 500 left at least a ring less one record.
    assert wraps >= 1000, got


@needs_root
def test_cpu_clock_overload(run_ok, figures):
    """cpu-clock every 50 µs on a busy child: lost (and, if the kernel
    throttles it, throttle) records come through as their classes, every
    sample is the child's, times never go backwards on a CPU. The child
    spins in 25 bursts of 20 ms of its own CPU time (~400 samples each, ~200
    even if the kernel has lowered perf_event_max_sample_rate to 10000), on
    one CPU, into a ring of 73. Not every 10 µs: where a timer interrupt
    costs about that much (this VM under load), the timer keeps the child in
    the kernel while its own CPU time hardly advances (see
    workloads/sampling.py)."""
    got = run_ok(WORKLOAD + """
trailer_words = 4      # sample_id_all: TID, TIME, ID, CPU
bursts = Bursts()
def body():
    os.sched_setaffinity(0, {max(online)})
    for _ in range(25):
        start = time.process_time()
        while time.process_time() - start < 0.02:
            pass
        bursts.end()
pid, go = child(body)
ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CPU_CLOCK, sample_period=50000,
                freq=0, sample_type=perf.SAMPLE_IP | perf.SAMPLE_TID | perf.SAMPLE_TIME |
                perf.SAMPLE_ID | perf.SAMPLE_CPU | perf.SAMPLE_PERIOD)
el = perf.evlist(cpus, perf.thread_map(pid))
el.add(ev)
el.open()
el.mmap(pages=1)
last = {}
def check(ev, cpu):
    if (ev.sample_pid, ev.sample_tid) != (pid, pid):
        return "pid"
    if ev.sample_cpu != cpu:
        return "cpu"
    if ev.sample_period != 50000:
        return "period"
    if ev.sample_time < last.get(cpu, 0):
        return "time went back"
    last[cpu] = ev.sample_time
go()
t = pump(el, pid, check, sample_words=6, bursts=bursts)
t["ring"] = PAGE
result(t)
""", timeout=180)
    wraps = got["bytes"] // got["ring"]
    figures(read=got["samples"], lost=got["lost"], lost_records=got["lost_records"],
            throttle=got["throttle"], wraps=wraps)
    assert got["finished"], f"the writer was still running at pump()'s deadline: {got}"
    assert got["bad"] == [] and got["other"] == [], got
    assert got["bursts"] == 25, got
    # At least a ring's worth (73 records, a few of them lost or throttle
    # records) after each burst.
    assert got["samples"] > 1000, got
    assert got["lost_records"] > 0 and got["lost"] > 0, got


@needs_root
@needs_tracefs
def test_sched_switch_overload(run_ok, figures):
    """System-wide sched_switch with two processes ping-ponging a byte over
    pipes: every sample decodes its tracepoint fields. The ping-pong goes
    in 1250 bursts of 200 round trips: at least one of the two blocks in
    each round trip, so a burst makes at least 200 switches, 100 on some
    CPU, whose 4 KiB ring holds 39."""
    tp = tracepoint_id("sched", "sched_switch")
    got = run_ok(WORKLOAD + f"""
trailer_words = 3
a, b = os.pipe(), os.pipe()
def body():
    for _ in range(250000):
        os.read(a[0], 1)
        os.write(b[1], b"y")
pid, go = child(body)
ev = perf.evsel(type=perf.TYPE_TRACEPOINT, config={tp}, sample_period=1, freq=0,
                sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU |
                perf.SAMPLE_RAW, wakeup_events=1)
el = perf.evlist(cpus, perf.thread_map())
el.add(ev)
el.open()
el.mmap(pages=1)
def check(ev, cpu):
    if ev.sample_cpu != cpu:
        return "cpu"
    if not isinstance(ev.prev_comm, str) or not isinstance(ev.next_comm, str):
        return "comm"
    if ev.prev_pid < 0 or ev.next_pid < 0:
        return "pid"
bursts = Bursts()
go()
ping = os.fork()
if ping == 0:
    for i in range(250000):
        os.write(a[1], b"x")
        os.read(b[0], 1)
        if i % 200 == 199:
            bursts.end()
    os._exit(0)
t = pump(el, pid, check, sample_words=3, bursts=bursts)
if not t["finished"]:
    os.kill(ping, 9)
os.waitpid(ping, 0)
t["ring"] = PAGE
result(t)
""", timeout=300)
    wraps = got["bytes"] // got["ring"]
    figures(read=got["samples"], lost=got["lost"], lost_records=got["lost_records"], wraps=wraps)
    assert got["finished"], f"the writer was still running at pump()'s deadline: {got}"
    assert got["bad"] == [] and got["other"] == [], got
    assert got["bursts"] >= 1249, got   # the last may end after the reader stopped
    assert got["samples"] > 10000, got
    assert got["lost_records"] > 0 and got["lost"] > 0, got
    assert wraps >= 1000, got
