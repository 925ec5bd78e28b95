# SPDX-License-Identifier: GPL-2.0-only
# twatch.py's main(context_switch=1, thread=<pid>) on a child that sleeps ten
# times: PERF_RECORD_SWITCH records (per-thread monitoring).
ready_r, ready_w = os.pipe()
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(w)
    os.write(ready_w, b"r")
    os.read(r, 1)
    for _ in range(10):
        time.sleep(0.005)
    os._exit(0)
os.close(r)
os.read(ready_r, 1)

cpus, threads = perf.cpu_map(), perf.thread_map(child)
evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, task=1, comm=1, mmap=0,
                   freq=0, wakeup_events=1, watermark=1, sample_id_all=1, context_switch=1,
                   sample_type=perf.SAMPLE_PERIOD | perf.SAMPLE_TID | perf.SAMPLE_CPU)
evsel.open(cpus=cpus, threads=threads)
evlist = perf.evlist(cpus, threads)
evlist.add(evsel)
evlist.mmap()
os.write(w, b"go")
os.waitpid(child, 0)


def done(kept):
    return any(k["class"] == "task_event" and k["type"] == perf.RECORD_EXIT for k in kept)


events = drain(evlist, cpus, lambda e: True, done)
result({"child": child, "events": events})
