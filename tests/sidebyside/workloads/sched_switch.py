# SPDX-License-Identifier: GPL-2.0-only
# tracepoint.py (6.1, tools/perf/python/tracepoint.py): an evsel subclass on sched:sched_switch,
# evlist.open(), SAMPLE_RAW, fields read as attributes. Variants (argv[1]):
# "tracepoint" (config from perf.tracepoint(), as the script does) and
# "tracefs-id" (config read from tracefs, perf.tracepoint() never called).
variant = sys.argv[1] if len(sys.argv) > 1 else "tracepoint"
FIELDS = ["prev_comm", "prev_pid", "prev_prio", "prev_state", "next_comm", "next_pid",
          "next_prio", "common_type", "common_pid", "common_flags", "common_preempt_count"]
COMM = "sbs-switcher"


def tracefs_id(system, name):
    for root in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        try:
            with open(f"{root}/events/{system}/{name}/id") as f:
                return int(f.read())
        except OSError:
            pass
    raise SystemExit("no tracefs")


class tracepoint(perf.evsel):
    def __init__(self, config):
        perf.evsel.__init__(self, type=perf.TYPE_TRACEPOINT, config=config, freq=0,
                            sample_period=1, wakeup_events=1,
                            sample_type=perf.SAMPLE_PERIOD | perf.SAMPLE_TID | perf.SAMPLE_CPU
                            | perf.SAMPLE_RAW | perf.SAMPLE_TIME)


file_id = tracefs_id("sched", "sched_switch")
if variant == "tracepoint":
    config = perf.tracepoint("sched", "sched_switch")
    checks = {"tracepoint": config, "unknown": perf.tracepoint("nosuchsys", "nosuch"),
              "none": perf.tracepoint(), "one": perf.tracepoint("sched"),
              "kw": perf.tracepoint(sys="sched", name="sched_switch"),
              "int": exc(perf.tracepoint, 1, 2)}
else:
    config = file_id
    checks = {}

# The child renames itself before the tracepoint is opened, so every
# sched_switch record it causes carries its new name. It sleeps 5 ms at a
# time until it is killed once the reader has five of its switches (or for
# 60 s, should the reader die first): the rings are system-wide, and where
# other tasks switch faster than they are read (a pipe ping-pong elsewhere
# on the machine) a full ring drops the child's records with theirs; reading
# frees room, and the child's next switches land, on any schedule.
ready_r, ready_w = os.pipe()
r, w = os.pipe()
child = os.fork()
if child == 0:
    os.close(w)
    set_comm(COMM)
    os.write(ready_w, b"r")
    os.read(r, 1)
    end = time.monotonic() + 60
    while time.monotonic() < end:
        time.sleep(0.005)
    os._exit(0)
os.close(r)
os.read(ready_r, 1)

tp = tracepoint(config)
cpus, threads = perf.cpu_map(), perf.thread_map(-1)
evlist = perf.evlist(cpus, threads)
evlist.add(tp)
evlist.open()
evlist.mmap()
os.write(w, b"go")

unknown = []


def mine(e):
    if not isinstance(e, perf.sample_event) or e.sample_pid != child:
        return False
    if not unknown:
        unknown.append(exc(getattr, e, "nosuchfield"))
    return True


def enough(kept):
    return len(kept) >= 5


# The timeout only bounds a failure: drain returns at the fifth switch.
try:
    events = drain(evlist, cpus, mine, enough, timeout=60, extra=FIELDS, eager=True)
finally:
    os.kill(child, 9)
    os.waitpid(child, 0)
result({"child": child, "comm": COMM, "file_id": file_id, "checks": checks, "events": events,
        "unknown": unknown})
