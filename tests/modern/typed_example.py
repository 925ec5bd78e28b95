# SPDX-License-Identifier: GPL-2.0-only
"""A typed program using the perf API, for tests/modern/test_stubs.py:
`mypy --strict` checks it against perf.pyi, and the test runs it under our
module (it prints one JSON object)."""

import json
import os
import select
import time
from collections import Counter

import perf

# What read_on_cpu() and read_all() hand out.
Event = (perf.mmap_event | perf.mmap2_event | perf.lost_event | perf.comm_event | perf.task_event
         | perf.throttle_event | perf.read_event | perf.sample_event | perf.switch_event)


def count(event_string: str, loops: int) -> dict[str, int]:
    """Counts event_string for this process around a loop, counting.py's way."""
    pid = os.getpid()
    evlist = perf.parse_events(event_string, perf.cpu_map(""), perf.thread_map(pid))
    for evsel in evlist:
        evsel.read_format = perf.FORMAT_TOTAL_TIME_ENABLED | perf.FORMAT_TOTAL_TIME_RUNNING
    evlist.open()
    evlist.enable()
    total = 0
    for i in range(loops):
        total += i
    evlist.disable()
    out: dict[str, int] = {}
    for evsel in evlist:
        for cpu in evsel.cpus():
            for thread in evsel.threads():
                counts: perf.counts_values = evsel.read(cpu, thread)
                assert counts.values[:3] == [counts.val, counts.ena, counts.run]
                out[str(evsel)] = out.get(str(evsel), 0) + counts.val
    evlist.close()
    return out


def describe(event: Event) -> str:
    """A short name for an event, by its class."""
    if isinstance(event, perf.sample_event):
        owner = event.evsel
        return f"sample of {owner}" if owner is not None else "sample"
    if isinstance(event, perf.comm_event):
        return "comm " + event.comm
    if isinstance(event, perf.task_event):
        return "exit" if event.type == perf.RECORD_EXIT else "fork"
    if isinstance(event, (perf.mmap_event, perf.mmap2_event)):
        return "mmap " + os.path.basename(event.filename)
    if isinstance(event, perf.lost_event):
        return f"lost {event.lost}"
    return type(event).__name__


def sample_switches(sleeps: int) -> Counter[str]:
    """Context switches of this process, sampled with a classic evsel and
    read with poll() + read_on_cpu(), then with read_all()."""
    cpus = perf.cpu_map()
    threads = perf.thread_map(os.getpid())
    evsel = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CONTEXT_SWITCHES,
                       sample_period=1, freq=0, wakeup_events=1, comm=1, task=1,
                       sample_type=perf.SAMPLE_TID | perf.SAMPLE_TIME | perf.SAMPLE_CPU | perf.SAMPLE_PERIOD)
    evsel.open(cpus=cpus, threads=threads)
    evlist = perf.evlist(cpus, threads)
    assert evlist.add(evsel) == len(evlist) == 1 and evlist[0] is evsel
    evlist.mmap(pages=16)
    for _ in range(sleeps):
        time.sleep(0.001)
    kinds: Counter[str] = Counter()
    ready, _, _ = select.select([f.fileno() for f in evlist.get_pollfd()], [], [], 1.0)
    if ready and evlist.poll(timeout=0) > 0:
        for cpu in cpus:
            event = evlist.read_on_cpu(cpu)
            if event is not None:
                kinds[describe(event)] += 1
    for event in evlist.read_all(max_events=100_000):
        kinds[describe(event)] += 1
    return kinds


def tracepoint_comms() -> list[str]:
    """prev_comm of this process' sched_switch samples, tracepoint.py's way."""
    if perf.tracepoint("sched", "sched_switch") < 0:
        return []
    evlist = perf.parse_events("sched:sched_switch", perf.cpu_map(), perf.thread_map(os.getpid()))
    for ev in evlist:
        ev.tracking = False
    evlist.config()
    for ev in evlist:
        ev.sample_type = ev.sample_type & ~perf.SAMPLE_IP
        ev.read_format = 0
    evlist.open()
    evlist.mmap()
    evlist.enable()
    for _ in range(3):
        time.sleep(0.002)
    comms: list[str] = []
    for event in evlist.read_all():
        if isinstance(event, perf.sample_event):
            prev_comm: str = event.prev_comm
            comms.append(prev_comm)
    return comms


def pmu_table() -> dict[str, tuple[int, list[str]]]:
    """PMU name -> (its type, its event aliases)."""
    table: dict[str, tuple[int, list[str]]] = {}
    for pmu in perf.pmus():
        aliases = [e["alias"] for e in pmu.events() if "alias" in e]
        table[pmu.name()] = (pmu.type, aliases)
    return table


def main() -> None:
    perf.set_abi_policy("default")
    attr_size: int = perf.__build__["attr_size"]
    step: str = perf.__loaded_by__["step"]
    fallbacks = [name for evsel in perf.parse_events("dummy") for name, _ in evsel.fallbacks]
    print(json.dumps({
        "count": count("task-clock,page-faults", 100_000),
        "switches": sample_switches(20),
        "tracepoint": tracepoint_comms(),
        "pmus": pmu_table(),
        "attr_size": attr_size,
        "step": step,
        "version": perf.__version__,
        "fallbacks": fallbacks,
        "cpus": list(perf.cpu_map()),
    }))


if __name__ == "__main__":
    main()
