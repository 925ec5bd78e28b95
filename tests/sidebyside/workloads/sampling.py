# SPDX-License-Identifier: GPL-2.0-only
# cpu-clock sampling of a busy child pinned to one CPU, per thread. Variants
# (argv[1]): "cpu-clock" (period 100 us, default ring), "lost" (a one-page
# ring, a 50 us period, and a child that spins in bursts of far more
# samples than the ring holds, the first before the reader starts: the kernel
# must report lost records, and every burst leaves a ring's worth to read,
# see Bursts in common.py) and "throttle" (the fastest period, run by a test
# that has lowered kernel.perf_event_max_sample_rate below it: throttle
# records).
variant = sys.argv[1] if len(sys.argv) > 1 else "cpu-clock"
lost = variant == "lost"
# Not the fastest period (10 us) for "lost": where a timer interrupt costs
# about that much (this VM's 6.18 under load), the timer keeps the child in
# the kernel for seconds while its own CPU time hardly advances, and the
# bursts never end.
period = {"cpu-clock": 100000, "lost": 50000}.get(variant, 10000)
# The child spins for this much of its own CPU time (not wall time: on a busy
# machine it gets a fraction of a CPU), so the number of samples the kernel
# takes does not depend on the load: in one burst, or for the lost variant in
# 30 bursts of 20 ms, ~400 samples each at 50 us (~200 even if the kernel
# has lowered perf_event_max_sample_rate to 10000), where the one-page ring
# holds 85.
bursts_of = [0.02] * 30 if lost else [0.3]
bursts = Bursts()
cpu = list(perf.cpu_map())[-1]

# The child is pinned (and says so) before the evsel is opened: every sample
# is taken on `cpu`.
ready_r, ready_w = os.pipe()
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(w)
    os.sched_setaffinity(0, {cpu})
    os.write(ready_w, b"r")
    os.read(r, 1)
    for seconds in bursts_of:
        start = time.process_time()
        while time.process_time() - start < seconds:
            pass
        if lost:
            bursts.end()
    os._exit(0)
os.close(r)
os.read(ready_r, 1)

cpus, threads = perf.cpu_map(), perf.thread_map(child)
evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CPU_CLOCK, sample_period=period,
                   freq=0, wakeup_events=1 if lost else 0,
                   sample_type=perf.SAMPLE_IP | perf.SAMPLE_TID | perf.SAMPLE_TIME
                   | perf.SAMPLE_CPU | perf.SAMPLE_PERIOD)
evsel.open(cpus=cpus, threads=threads)
evlist = perf.evlist(cpus, threads)
evlist.add(evsel)
evlist.mmap(pages=1) if lost else evlist.mmap()
os.write(w, b"go")
if lost:
    bursts.first()

# A pass reads at most this many records per CPU: far more than the one-page
# ring holds (85 samples), so a pass still reads all that a burst left.
# Where samples arrive about as fast as Python reads them (a timer storm, see
# `period`), an unbounded pass would last as long as they do, and the child
# waits in Bursts.end() for the pass to end.
PASS_LIMIT = 1024

counts, samples, others = {}, [], []
# Every sample is checked, not just the kept ones: with the one-page ring
# most records cross its end at some point.
bad, last_time, backwards = [], 0, 0
exited = False
deadline = time.monotonic() + 60
while time.monotonic() < deadline:
    evlist.poll(timeout=50)
    got = False
    for c in cpus:
        for _ in range(PASS_LIMIT):
            event = evlist.read_on_cpu(c)
            if event is None:
                break
            got = True
            name = type(event).__name__
            counts[name] = counts.get(name, 0) + 1
            if name == "sample_event":
                if len(samples) < 50:
                    samples.append(dump(event))
                fields = [event.sample_pid, event.sample_tid, event.sample_cpu, event.sample_period]
                if fields != [child, child, cpu, period] or event.sample_ip == 0:
                    bad.append(dump(event)) if len(bad) < 5 else None
                backwards += event.sample_time < last_time
                last_time = event.sample_time
            elif len(others) < 200:
                others.append(dump(event))
    if not exited:
        exited = os.waitpid(child, os.WNOHANG)[0] == child
    elif not got:
        break
    if lost:
        bursts.after_pass()
if lost:
    bursts.release()
# A child the loop did not see exit (the deadline passed) is killed and
# reaped: it holds this process's stdout, which the test harness reads to
# the end.
if not exited:
    os.kill(child, 9)
    os.waitpid(child, 0)
result({"finished": exited, "child": child, "cpu": cpu, "period": period, "counts": counts,
        "samples": samples, "others": others, "bad": bad, "backwards": backwards, "bursts": bursts.count})
