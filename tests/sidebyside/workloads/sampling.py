# SPDX-License-Identifier: GPL-2.0-only
# cpu-clock sampling of a busy child pinned to one CPU, per thread. Variants
# (argv[1]): "cpu-clock" (period 100 us, default ring), "lost" (a one-page
# ring, the fastest period, and a reader that starts once the child has made
# far more samples than the ring holds: the kernel must report lost records)
# and "throttle" (the fastest period, run by a test that has lowered
# kernel.perf_event_max_sample_rate below it: throttle records).
variant = sys.argv[1] if len(sys.argv) > 1 else "cpu-clock"
lost = variant == "lost"
period = 100000 if variant == "cpu-clock" else 10000
# The child spins for this much of its own CPU time (not wall time: on a busy
# machine it gets a fraction of a CPU), so the number of samples the kernel
# takes does not depend on the load.
cpu_seconds = 0.6 if lost else 0.3
# The lost variant's reader starts once the child has spun this long: ~15000
# samples at 10 us (fewer if the kernel throttles), where the one-page ring
# holds 85, so the kernel has had to drop samples and owes a lost record.
head_start = 0.15
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
    start = time.process_time()
    told = not lost
    while (spun := time.process_time() - start) < cpu_seconds:
        if not told and spun >= head_start:
            os.write(ready_w, b"h")
            told = True
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
    os.read(ready_r, 1)

counts, samples, others = {}, [], []
# Every sample is checked, not just the kept ones: with the one-page ring
# most records cross its end at some point.
bad, last_time, backwards = [], 0, 0
exited = False
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    evlist.poll(timeout=50)
    got = False
    for c in cpus:
        while True:
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
result({"child": child, "cpu": cpu, "period": period, "counts": counts, "samples": samples,
        "others": others, "bad": bad, "backwards": backwards})
