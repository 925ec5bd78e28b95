# SPDX-License-Identifier: GPL-2.0-only
"""Wrong uses of the perf API that perf.pyi must make mypy reject: each line
marked `# E: <code>` must get exactly that error, and no other line any
(tests/modern/test_stubs.py). Never run."""

import perf

perf.parse_events("task-clock", cpus=None)  # E: call-arg
perf.parse_events("task-clock", "0")  # E: arg-type
perf.parse_events(b"task-clock")  # E: arg-type
perf.cpu_map(0)  # E: arg-type
perf.thread_map("1")  # E: arg-type
perf.set_abi_policy("loose")  # E: arg-type
perf.tracepoint("sched", 1)  # E: arg-type
perf.pmus()[0]  # E: index
perf.TYPE_SOFTWARE = 3  # E: misc

ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_TASK_CLOCK)
perf.evsel(nosuch=1)  # E: call-arg
perf.evsel(config=1.5)  # E: arg-type
ev.tracking = 1  # E: assignment
ev.ids = [1]  # E: misc
ev.read(cpu=0, thread=0)  # E: call-arg
ev.open(cpus="0")  # E: arg-type
name: int = str(ev)  # E: assignment

evlist = perf.evlist(perf.cpu_map(), perf.thread_map())
evlist.add("task-clock")  # E: arg-type
evlist.read_all(max_events="3")  # E: arg-type
first: str = evlist[0]  # E: assignment
evlist.unmatched = 0  # E: misc

event = evlist.read_on_cpu(0)
event.sample_cpu  # E: union-attr
if event is not None:
    event.pid  # E: union-attr
    if isinstance(event, perf.comm_event):
        event.comm = "x"  # E: misc

values: list[str] = perf.counts_values().values  # E: assignment
for pmu in perf.pmus():
    pmu.name + "x"  # E: operator
    pmu.events()[0]["nosuch"]  # E: typeddict-item
