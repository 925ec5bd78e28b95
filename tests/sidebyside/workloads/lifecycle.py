# SPDX-License-Identifier: GPL-2.0-only
# twatch.py's evsel (tools/perf/python/twatch.py) with a richer sample_type, system-wide; a
# child execs /bin/true and exits. Variants (argv[1]): "task" (the default),
# "mmap" (mmap=1), "defaults" (sample_type TID only, freq=1, sample_freq=1234:
# untouched sample_* members), "noid" (sample_id_all=0).
variant = sys.argv[1] if len(sys.argv) > 1 else "task"
kw = dict(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, comm=1, mmap=0, freq=0,
          wakeup_events=1, watermark=1, sample_id_all=1,
          sample_type=perf.SAMPLE_PERIOD | perf.SAMPLE_TID | perf.SAMPLE_CPU | perf.SAMPLE_TIME
          | perf.SAMPLE_ID | perf.SAMPLE_STREAM_ID)
if variant == "mmap":
    kw["mmap"] = 1
elif variant == "defaults":
    kw.update(sample_type=perf.SAMPLE_TID, freq=1, sample_freq=1234)
elif variant == "noid":
    kw.update(sample_id_all=0)

cpus, threads = perf.cpu_map(), perf.thread_map(-1)
evsel = perf.evsel(**kw)
evsel.open(cpus=cpus, threads=threads)
evlist = perf.evlist(cpus, threads)
evlist.add(evsel)
evlist.mmap()

t0 = time.monotonic_ns()
child = spawn(["/bin/true"])
t1 = time.monotonic_ns()


def mine(e):
    return child in (getattr(e, "pid", None), getattr(e, "tid", None))


def exited(kept):
    return any(k["class"] == "task_event" and k["type"] == perf.RECORD_EXIT for k in kept)


events = drain(evlist, cpus, mine, exited)
result({"parent": os.getpid(), "child": child, "events": events, "cpus": list(cpus),
        "t0": t0, "t1": t1})
