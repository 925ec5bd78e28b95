# SPDX-License-Identifier: GPL-2.0-only
"""Hypothesis fuzzing of the perf module's Python API, run as a script in a
subprocess (tests/robustness/test_api_fuzz.py, `make fuzz`), so that a crash
is a dead child with a signal, not a dead pytest.

    python3 api_fuzzer.py [--calls N] [--orders N] [--steps K] [--random]

Two hypothesis tests:

* calls: one constructor or method of the module, with random positional
  and keyword arguments of random types and values (ints at every C
  boundary, floats, strings, bytes, None, containers, objects whose
  __index__ lies or raises, other perf objects, the real keyword names
  with junk values, unknown keywords).
* orders: a state machine that creates cpu_maps, thread_maps, evsels and
  evlists and calls their methods in random orders (read before mmap, add
  after open, close twice, use after close, mmap twice, re-init an evsel
  that sits in an mmapped evlist, ...), reading and poking whatever events
  come out of the rings.
* perf.data (with PERF_FUZZ_PERF_DATA=<dir of small real perf.data files>):
  each example reads one of the files or a corrupted copy of it (bytes
  flipped, zeroed, cut off, repeated) through perf.data, data.header and
  perf.session with callbacks that read every attribute of the events and
  call find_thread; the calls fuzz also gets perf.data, perf.session,
  session.process_events and session.find_thread with random arguments.

Allowed outcomes of every call: a return value or TypeError, ValueError,
IndexError, OverflowError, OSError (and subclasses); AttributeError only
where attribute access is what is being fuzzed; an exception raised by our
own __index__ objects. Anything else (SystemError, PanicException, a crash,
a hang) fails: a call that does not return within CALL_LIMIT seconds is a
hang, except poll() with a timeout beyond it, which must then be interrupted
by the SIGALRM (so EINTR is handled and signals are run).

At the end it prints one line `fuzz: {...}` with the counts (JSON) and, if
PERF_TEST_RESULT_FD is set, writes the same JSON there.
"""

import argparse
import collections
import faulthandler
import gc
import glob
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import perf
from hypothesis import HealthCheck, Phase, given, settings, strategies as st
from hypothesis.stateful import (Bundle, RuleBasedStateMachine, initialize, invariant, rule,
                                 run_state_machine_as_test)

ALLOWED = (TypeError, ValueError, IndexError, OverflowError, OSError)
CALL_LIMIT = 15.0   # a hang never returns; a busy machine makes slow calls slower
BLOCK_LIMIT = 0.3

COUNTS = collections.Counter()
OUTCOMES = collections.Counter()


class Hang(BaseException):
    """Raised by SIGALRM when a call overruns CALL_LIMIT."""


class UserIndexError(Exception):
    """What our lying __index__ objects raise: must propagate unchanged."""


def _alarm(signum, frame):
    raise Hang()


faulthandler.enable()
faulthandler.register(signal.SIGUSR1, all_threads=True)  # kill -USR1: where is it?
signal.signal(signal.SIGALRM, _alarm)
# An event with sigtrap=1 sends SIGTRAP on overflow: asked for, not a crash.
signal.signal(signal.SIGTRAP, signal.SIG_IGN)


def short(v):
    """A cheap description of an argument (no repr of module objects: that
    is a fuzzed call itself, and must not be run by the logger)."""
    if v is None or isinstance(v, (bool, int, float, str, bytes)):
        text = repr(v)
        return text if len(text) < 40 else text[:37] + "..."
    return f"<{type(v).__name__}@{id(v):x}>"


LOG = collections.deque(maxlen=40)  # the current example's recent calls
CURRENT = [None, 0.0]  # description of the running call, when it started


def watchdog():
    """Reports a call that never returns (a deadlock with the GIL released)
    with the calls that led to it, then ends the process (rc 70). A deadlock
    that holds the GIL stops this thread too; faulthandler covers that."""
    while True:
        time.sleep(0.5)
        what, started = CURRENT
        if what is not None and time.monotonic() - started > CALL_LIMIT + 3:
            sys.stderr.write(f"HANG: {what} did not return in {CALL_LIMIT + 3}s; "
                             "this example's calls so far:\n")
            for line in LOG:
                sys.stderr.write(f"    {line}\n")
            sys.stderr.flush()
            os._exit(70)


def new_example():
    COUNTS["examples"] += 1
    LOG.clear()


def call(what, fn, *args, may_block=False, attribute=False, log=True, **kwargs):
    """Runs fn under the rules above; returns (ok, value or exception).
    may_block: a blocking poll, interrupted after BLOCK_LIMIT; log: keep it
    in the example's call log (reads while draining are not)."""
    COUNTS["calls"] += 1
    receiver = getattr(fn, "__self__", None)
    on = f"[{short(receiver)}]" if receiver is not None and receiver is not perf else ""
    desc = (f"{what}{on}("
            f"{', '.join([short(a) for a in args] + [f'{k}={short(v)}' for k, v in kwargs.items()])})")
    if log:
        LOG.append(desc)
    CURRENT[:] = [desc, time.monotonic()]
    # A deadlock in native code never returns to the interpreter, so the
    # SIGALRM handler cannot run: faulthandler's watchdog thread then dumps
    # every thread's stack and exits the process (rc 1).
    faulthandler.dump_traceback_later(CALL_LIMIT + 10, exit=True)
    signal.setitimer(signal.ITIMER_REAL, BLOCK_LIMIT if may_block else CALL_LIMIT)
    try:
        value = fn(*args, **kwargs)
    except Hang:
        if may_block:
            OUTCOMES[f"{what}: interrupted"] += 1
            return False, None
        raise AssertionError(f"{what}{args!r}{kwargs!r}: no return within {CALL_LIMIT}s (hang)")
    except ALLOWED as e:
        OUTCOMES[f"{what}: {type(e).__name__}"] += 1
        return False, e
    except UserIndexError as e:
        OUTCOMES[f"{what}: user __index__ error"] += 1
        return False, e
    except AttributeError as e:
        if not attribute:
            raise
        OUTCOMES[f"{what}: AttributeError"] += 1
        return False, e
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        CURRENT[0] = None
    OUTCOMES[f"{what}: ok"] += 1
    return True, value


# --- values ---------------------------------------------------------------

BOUNDARY_INTS = [0, 1, -1, 2, 3, 4, 7, 8, 9, 10, 63, 64, 128, 255, 256, 4095, 4096, 2**15,
                 2**16, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**32 - 1, 2**32, 2**63 - 1,
                 2**63, -2**63, -2**63 - 1, 2**64 - 1, 2**64, 2**100, -2**100]


class Index:
    """An object with __index__ (accepted where an int is)."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value

    def __repr__(self):
        return f"Index({self.value!r})"


class BadIndex:
    """__index__ raises."""

    def __index__(self):
        raise UserIndexError("lying __index__")

    def __repr__(self):
        return "BadIndex()"


class WrongIndex:
    """__index__ returns a str (CPython raises TypeError)."""

    def __index__(self):
        return "3"

    def __repr__(self):
        return "WrongIndex()"


class IntSub(int):
    """An int subclass."""


ints = st.one_of(st.sampled_from(BOUNDARY_INTS), st.integers(), st.integers(-300, 300))
small_ints = st.one_of(st.sampled_from([-1, 0, 1, 2, 3, 8, 10**6]), st.integers(-5, 100))
texts = st.one_of(
    st.sampled_from(["", "0", "1", "0-1", "1,0", "0,0", "2-1", "abc", " 1", "-1", "0x1", "010",
                     "0-2147483647", "0-65535", "1,", ",", "-", "0--1", "\x00", "0\x001",
                     "\ud800", "sched", "sched_switch", "default", "strict", "lenient", "é",
                     "0-1,5", "4294967296", "99999999999999999999", "1-", "0-0"]),
    st.from_regex(r"[0-9,\- x]{0,10}", fullmatch=True),
    st.text(max_size=24))


def scalars():
    return st.one_of(
        ints, st.booleans(), st.none(),
        st.floats(allow_nan=True, allow_infinity=True), texts,
        st.binary(max_size=16), st.builds(bytearray, st.binary(max_size=8)),
        st.builds(Index, ints), st.just(BadIndex()), st.just(WrongIndex()),
        st.builds(IntSub, ints), st.complex_numbers(max_magnitude=10),
        st.just(object()), st.just(Ellipsis), st.just(NotImplemented),
        st.just(perf.evsel), st.just(len), st.builds(slice, small_ints, small_ints))


# Small real perf.data files (test_api_fuzz.py records them), and a scratch
# directory for corrupted copies.
PERF_DATA_DIR = os.environ.get("PERF_FUZZ_PERF_DATA")
PERF_DATA_FILES = sorted(glob.glob(os.path.join(PERF_DATA_DIR, "*.data"))) if PERF_DATA_DIR else []
SCRATCH = tempfile.mkdtemp(prefix="perf-fuzz-") if PERF_DATA_FILES else None


def perf_data_objects():
    return [st.builds(lambda f: perf.data(f), st.sampled_from(PERF_DATA_FILES))] \
        if PERF_DATA_FILES else []


def perf_objects():
    """Module objects, fresh each draw."""
    return st.one_of(*perf_data_objects(),
        st.builds(lambda: perf.cpu_map("0")), st.builds(lambda: perf.cpu_map("")),
        st.builds(perf.cpu_map), st.builds(perf.thread_map),
        st.builds(lambda: perf.thread_map(os.getpid())),
        st.builds(lambda: perf.evsel(type=1, config=9)),
        st.builds(lambda: perf.evlist(perf.cpu_map(), perf.thread_map())),
        st.builds(perf.sample_event), st.builds(perf.lost_event))


values = st.deferred(lambda: st.one_of(
    scalars(), perf_objects(),
    st.lists(scalars(), max_size=3), st.tuples(scalars()),
    st.dictionaries(st.text(max_size=5), scalars(), max_size=2)))

# --- the surface ----------------------------------------------------------

EVSEL_CLASSIC = ["type", "config", "sample_freq", "sample_period", "sample_type", "read_format",
                 "disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
                 "exclude_hv", "exclude_idle", "mmap", "context_switch", "comm", "freq",
                 "inherit_stat", "enable_on_exec", "task", "watermark", "precise_ip",
                 "mmap_data", "sample_id_all", "wakeup_events", "bp_type", "bp_addr", "bp_len",
                 "idx"]
EVSEL_FLAGS = ["exclude_host", "exclude_guest", "exclude_callchain_kernel",
               "exclude_callchain_user", "mmap2", "comm_exec", "use_clockid", "write_backward",
               "namespaces", "ksymbol", "bpf_event", "aux_output", "cgroup", "text_poke",
               "build_id", "inherit_thread", "remove_on_exec", "sigtrap", "defer_callchain",
               "defer_output"]
EVSEL_FIELDS = ["config1", "config2", "config3", "config4", "branch_sample_type",
                "sample_regs_user", "sample_stack_user", "clockid", "sample_regs_intr",
                "aux_watermark", "sample_max_stack", "aux_sample_size", "aux_action",
                "aux_start_paused", "aux_pause", "aux_resume", "sig_data", "wakeup_watermark",
                "size"]
EVSEL_KEYWORDS = EVSEL_CLASSIC + EVSEL_FLAGS + EVSEL_FIELDS
EVSEL_SETTABLE = ["type", "size", "config", "sample_period", "sample_type", "read_format",
                  "wakeup_events", "tracking"]
EVENT_CLASSES = ["mmap_event", "lost_event", "comm_event", "task_event", "throttle_event",
                 "read_event", "sample_event", "switch_event", "mmap2_event", "stat_event",
                 "stat_round_event"]
EVENT_ATTRS = ["type", "misc", "pid", "ppid", "tid", "ptid", "time", "comm", "start", "len",
               "pgoff", "filename", "id", "lost", "stream_id", "next_prev_pid", "next_prev_tid",
               "sample_ip", "sample_pid", "sample_tid", "sample_time", "sample_addr",
               "sample_id", "sample_stream_id", "sample_period", "sample_cpu", "values",
               "raw_buf", "evsel", "prot", "flags", "maj", "min", "ino", "ino_generation",
               "build_id", "prev_comm", "next_comm", "prev_pid", "common_pid", "nonexistent",
               "val", "ena", "run", "cpu", "thread", "stat_round_type", "sample_phys_addr",
               "sample_weight", "sample_data_src", "sample_insn_count", "sample_cyc_count",
               "id", "ret", "count", "fd", "__syscall_nr", "args"]

# Software events that are safe to open on a 2-CPU VM at any period.
SW_CONFIGS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
SAMPLE_BITS = 25
FORMAT_BITS = 5
SANE_TP = perf.tracepoint("sched", "sched_switch")
ONLINE = list(perf.cpu_map())


# sample_type bits a software event or tracepoint accepts.
SAFE_SAMPLE_BITS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 14, 15, 16, 17, 19, 21, 22, 23, 24]
SAFE_FLAGS = ["disabled", "exclude_user", "exclude_kernel", "exclude_hv", "exclude_idle", "mmap",
              "context_switch", "comm", "task", "watermark", "mmap_data", "sample_id_all",
              "mmap2", "comm_exec", "write_backward", "namespaces", "ksymbol", "cgroup",
              "enable_on_exec", "build_id", "exclude_guest", "exclude_host"]


def sane_evsel_kwargs():
    """Keywords of an evsel the kernel will usually open (software or
    sched_switch), with random sample_type/read_format/flags."""
    sample_type = st.one_of(
        st.lists(st.sampled_from(SAFE_SAMPLE_BITS), max_size=8).map(
            lambda bits: sum({1 << b for b in bits})),
        st.integers(0, 2**SAMPLE_BITS - 1))
    flags = st.dictionaries(st.sampled_from(SAFE_FLAGS), st.sampled_from([1, 1, 1, 0, 2, 3]),
                            max_size=4)
    base = st.fixed_dictionaries({
        "type": st.sampled_from([1, 1, 1, 2] if SANE_TP >= 0 else [1]),
        "config": st.sampled_from(SW_CONFIGS),
        "sample_period": st.sampled_from([1, 1000, 100000, 10**6]),
        "freq": st.just(0),
        "sample_type": sample_type,
        "read_format": st.integers(0, 2**FORMAT_BITS - 1),
        "wakeup_events": st.integers(0, 4),
    })

    def fix(d):
        base_d, extra = d
        base_d.update(extra)
        if base_d["type"] == 2:
            base_d["config"] = SANE_TP
        elif base_d["config"] in (0, 1):  # cpu-clock, task-clock: period in ns
            base_d["sample_period"] = max(base_d["sample_period"], 100000)
        return base_d
    return st.tuples(base, flags).map(fix)


def junk_kwargs(names):
    """Real keyword names with any values, plus sometimes an unknown one."""
    return st.dictionaries(st.one_of(st.sampled_from(names), st.sampled_from(["foo", "", "cpus "])),
                           values, max_size=4)


def junk_args():
    return st.lists(values, max_size=4)


def sanitize(kwargs):
    """No sigtrap signals, no kernel buffers beyond a few MB."""
    kwargs = dict(kwargs)
    if "sigtrap" in kwargs:
        kwargs["sigtrap"] = 0
    return kwargs


def safe_pages(v):
    """mmap(pages=v) with v a big power of two would pin gigabytes as root."""
    try:
        n = v.__index__()
    except BaseException:  # noqa: BLE001 - junk stays junk
        return v
    if isinstance(n, int) and n > 256 and n & (n - 1) == 0:
        return 256
    return v


def blocking_timeout(args, kwargs):
    """True if poll(*args, **kwargs) may legitimately block past BLOCK_LIMIT."""
    t = args[0] if args else kwargs.get("timeout", -1)
    try:
        t = t.__index__()
    except BaseException:  # noqa: BLE001 - junk: poll must reject it at once
        return False
    if not isinstance(t, int):
        return False         # __index__ returned junk: TypeError at once
    return t < 0 or t >= BLOCK_LIMIT * 1000 / 2


def fd_targets():
    """What each fd of this process points at, as a multiset. The fuzzer runs
    alone in its process (its watchdog thread opens nothing), so every fd it
    gains is one the module, or a call the fuzzer made, left open."""
    targets = collections.Counter()
    for fd in os.listdir("/proc/self/fd"):
        try:
            targets[os.readlink(f"/proc/self/fd/{fd}")] += 1
        except OSError:
            pass    # the listing's own fd, closed by now
    return targets


# --- calls: one call with random arguments --------------------------------

def make_target(data, name):
    """A receiver for method `name` in a random (possibly odd) state."""
    if name.startswith("session."):
        path = data.draw(st.sampled_from(PERF_DATA_FILES), label="file")
        session = perf.session(perf.data(path), sample=lambda e: poke_file_event(e, session),
                               stat=lambda e, n: poke_file_event(e, None))
        if data.draw(st.booleans(), label="processed"):
            call("session.process_events(setup)", session.process_events)
        return session
    cpus = perf.cpu_map()
    threads = perf.thread_map(os.getpid())
    if name.startswith("evsel."):
        ev = perf.evsel(type=1, config=9, sample_period=1, freq=0)
        if data.draw(st.booleans(), label="evsel opened"):
            call("evsel.open(setup)", ev.open, cpus=cpus, threads=threads)
        return ev
    if name.endswith("metric") and hasattr(perf, "parse_metrics") \
            and data.draw(st.booleans(), label="metric evlist"):
        el = perf.parse_metrics(data.draw(st.sampled_from(METRIC_STRINGS[:3]), label="metrics"))
        if data.draw(st.booleans(), label="metrics opened"):
            call("evlist.open(setup)", el.open)
        return el
    el = perf.evlist(cpus, threads)
    state = data.draw(st.sampled_from(["empty", "added", "opened", "mmapped", "closed"]),
                      label="evlist state")
    if state != "empty":
        el.add(perf.evsel(type=1, config=9, sample_period=1, freq=0, task=1, comm=1,
                          sample_type=perf.SAMPLE_TID | perf.SAMPLE_CPU))
    if state in ("opened", "mmapped", "closed"):
        call("evlist.open(setup)", el.open)
    if state in ("mmapped", "closed"):
        call("evlist.mmap(setup)", el.mmap, pages=1)
    if state == "closed":
        el.close()
    return el


CALLS = {
    "cpu_map": (lambda _: perf.cpu_map, ["cpustr"]),
    "thread_map": (lambda _: perf.thread_map, ["pid", "tid", "uid"]),
    "evsel": (lambda _: perf.evsel, EVSEL_KEYWORDS),
    "evlist": (lambda _: perf.evlist, ["cpus", "threads"]),
    "tracepoint": (lambda _: perf.tracepoint, ["sys", "name"]),
    "set_abi_policy": (lambda _: perf.set_abi_policy, ["mode"]),
    "evsel.open": (lambda t: t.open, ["cpus", "threads", "group", "inherit"]),
    "evsel.__init__": (lambda t: t.__init__, EVSEL_KEYWORDS),
    "evlist.add": (lambda t: t.add, ["evsel"]),
    "evlist.open": (lambda t: t.open, ["group"]),
    "evlist.close": (lambda t: t.close, []),
    "evlist.mmap": (lambda t: t.mmap, ["pages", "overwrite"]),
    "evlist.poll": (lambda t: t.poll, ["timeout"]),
    "evlist.get_pollfd": (lambda t: t.get_pollfd, []),
    "evlist.read_on_cpu": (lambda t: t.read_on_cpu, ["cpu", "sample_id_all"]),
    "evlist.enable": (lambda t: t.enable, []),
    "evlist.disable": (lambda t: t.disable, []),
    "evlist.__getitem__": (lambda t: t.__getitem__, []),
    "cpu_map.__getitem__": (lambda _: perf.cpu_map().__getitem__, []),
    "thread_map.__getitem__": (lambda _: perf.thread_map().__getitem__, []),
}
# Newer API (6.14+ in the C module), fuzzed when this module has it.
NEWER = {
    "parse_events": (lambda _: perf.parse_events, ["event_string", "cpus", "threads"]),
    "pmus": (lambda _: perf.pmus, []),
    "counts_values": (lambda _: perf.counts_values, []),
    "evsel.read": (lambda t: t.read, ["cpu", "thread"]),
    "evsel.cpus": (lambda t: t.cpus, []),
    "evsel.threads": (lambda t: t.threads, []),
    "evlist.config": (lambda t: t.config, []),
    "evlist.all_cpus": (lambda t: t.all_cpus, []),
    "evlist.read_all": (lambda t: t.read_all, ["max_events"]),
    "evlist.read_columns": (lambda t: t.read_columns, ["columns", "max_events"]),
    "syscall_name": (lambda _: perf.syscall_name, ["id", "elf_machine"]),
    "syscall_id": (lambda _: perf.syscall_id, ["name", "elf_machine"]),
    "arch_strerrno": (lambda _: perf.arch_strerrno, ["err", "elf_machine"]),
    "config_get": (lambda _: perf.config_get, ["name"]),
    "parse_metrics": (lambda _: perf.parse_metrics, ["metrics_string", "pmu", "cpus", "threads"]),
    "evlist.metrics": (lambda t: t.metrics, []),
    "evlist.compute_metric": (lambda t: t.compute_metric, ["metric", "cpu", "thread"]),
}
for _name, (_get, _kw) in NEWER.items():
    _owner, _, _attr = _name.rpartition(".")
    if hasattr(getattr(perf, _owner) if _owner else perf, _attr):
        CALLS[_name] = (_get, _kw)
if PERF_DATA_FILES:
    CALLS.update({
        "data": (lambda _: perf.data, ["path", "fd"]),
        "session": (lambda _: perf.session, ["data", "sample", "stat", "context_switch"]),
        "session.process_events": (lambda t: t.process_events, []),
        "session.find_thread": (lambda t: t.find_thread, []),
    })
EVENT_STRINGS = ["cpu-clock", "task-clock:u", "dummy", "cpu-clock,task-clock",
                 "{cpu-clock,task-clock}", "sched:sched_switch", "context-switches/period=1/",
                 "cycles", "nosuch", "", ",", "{", "cpu-clock:k:u:p", "software/cpu-clock/",
                 "tracepoint/nosuch/", "syscalls:sys_enter_getppid"]
METRIC_STRINGS = ["CPUs_utilized", "Default", "cs_per_second,page_faults_per_second", "all",
                  "nosuch", "", ",", "CPUs_utilized,", "Default,nosuch"]


@given(data=st.data())
def fuzz_calls(data):
    new_example()
    name = data.draw(st.sampled_from(sorted(CALLS)), label="target")
    get, names = CALLS[name]
    target = make_target(data, name) if "." in name and not name.endswith("map.__getitem__") else None
    fn = get(target)
    if name == "evsel" and data.draw(st.booleans(), label="sane keywords"):
        args, kwargs = [], data.draw(sane_evsel_kwargs(), label="kwargs")
    elif name == "parse_metrics" and data.draw(st.booleans(), label="sane string"):
        args = [data.draw(st.sampled_from(METRIC_STRINGS), label="metrics string")]
        args += data.draw(st.sampled_from([[], [None, perf.cpu_map()], ["all"],
                                           [None, None, perf.thread_map(os.getpid())]]),
                          label="pmu and maps")
        kwargs = {}
    elif name == "evlist.compute_metric" and data.draw(st.booleans(), label="sane metric"):
        cpu = data.draw(st.sampled_from([-1, 0, 1, 1 << 20]), label="cpu")
        args = [data.draw(st.sampled_from(["CPUs_utilized", "cs_per_second", "x"]), label="metric"),
                cpu, data.draw(st.sampled_from([-1, 0, os.getpid()]), label="thread")]
        kwargs = {}
    elif name == "parse_events" and data.draw(st.booleans(), label="sane string"):
        args = [data.draw(st.sampled_from(EVENT_STRINGS), label="event string")]
        args += data.draw(st.sampled_from([[], [perf.cpu_map()], [None, perf.thread_map()],
                                           [perf.cpu_map(), perf.thread_map(os.getpid())]]),
                          label="maps")
        kwargs = {}
    else:
        args = data.draw(junk_args(), label="args")
        kwargs = data.draw(junk_kwargs(names), label="kwargs") if names else {}
    kwargs = sanitize(kwargs)
    if name == "evlist.mmap":
        args = [safe_pages(a) if i == 0 else a for i, a in enumerate(args)]
        if "pages" in kwargs:
            kwargs["pages"] = safe_pages(kwargs["pages"])
    may_block = name == "evlist.poll" and blocking_timeout(args, kwargs)
    ok, value = call(name, fn, *args, may_block=may_block, **kwargs)
    if ok:
        poke(value, data)
    if name == "set_abi_policy":
        perf.set_abi_policy("default")


FILE_READ_ERRORS = ALLOWED + (AttributeError,)


def poke_file_event(ev, session):
    """Reads everything of an event a session hands to a callback (no
    call(): this runs inside process_events, under its alarm)."""
    COUNTS["file events"] += 1
    COUNTS[f"class {type(ev).__name__}"] += 1
    repr(ev)
    for attr in EVENT_ATTRS:
        try:
            getattr(ev, attr)
        except FILE_READ_ERRORS as e:
            OUTCOMES[f"file event.get: {type(e).__name__}"] += 1
    if session is not None:
        for args in ((ev.sample_pid, ev.sample_tid), (ev.sample_pid,), (-1, -1)):
            t = session.find_thread(*args)
            if t is not None:
                (t.pid, t.tid, t.ppid, t.cpu, t.comm())
        session.e_machine, session.is_64_bit


def read_perf_data(path):
    """perf.data, data.header, perf.session and process_events on `path`."""
    ok, d = call("perf.data", perf.data, path)
    if not ok:
        return
    call("data.header", getattr, d, "header")
    call("data.str", str, d)
    session = None
    ok, session = call("perf.session", perf.session, d,
                       sample=lambda e: poke_file_event(e, session),
                       stat=lambda e, n: poke_file_event(e, None),
                       context_switch=lambda e: poke_file_event(e, None))
    if ok:
        call("session.process_events", session.process_events)
        call("session.find_thread", session.find_thread, 1)


def corrupt(original, data):
    """A corrupted copy of `original` (a file or a --threads directory)."""
    src = original if os.path.isfile(original) else os.path.join(original, "data")
    raw = bytearray(open(src, "rb").read())
    how = data.draw(st.sampled_from(["flip", "zero", "cut", "repeat", "none"]), label="corruption")
    if how == "flip":
        for _ in range(data.draw(st.integers(1, 8), label="flips")):
            at = data.draw(st.integers(0, len(raw) - 1), label="at")
            raw[at] ^= data.draw(st.integers(1, 255), label="xor")
    elif how == "zero":
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[at:at + data.draw(st.integers(1, 64), label="len")] = bytes(64)[:len(raw[at:at + 64])]
    elif how == "cut":
        del raw[data.draw(st.integers(0, len(raw)), label="at"):]
    elif how == "repeat":
        at = data.draw(st.integers(0, len(raw) - 1), label="at")
        raw[at:at] = raw[at:at + data.draw(st.integers(1, 256), label="len")]
    dst = os.path.join(SCRATCH, "copy.data")
    with open(dst, "wb") as f:
        f.write(raw)
    return dst


@given(data=st.data())
def fuzz_perf_data(data):
    new_example()
    COUNTS["perf.data examples"] += 1
    original = data.draw(st.sampled_from(PERF_DATA_FILES), label="file")
    path = original if data.draw(st.integers(0, 4), label="intact") == 0 else corrupt(original, data)
    read_perf_data(path)


def poke(value, data):
    """Uses what a call returned: len, items, repr, attributes."""
    call("repr", repr, value)
    if hasattr(value, "__next__"):
        call("iterate", lambda: [repr(x) for _, x in zip(range(50), value)])
    if isinstance(value, (perf.cpu_map, perf.thread_map, perf.evlist)):
        call("len", len, value)
        call("list", list, value)
        call("index", value.__getitem__, data.draw(values, label="index"))
    elif isinstance(value, perf.evsel):
        for attr in EVSEL_SETTABLE + ["fallbacks", "ids"]:
            call("evsel.get", getattr, value, attr)
        attr = data.draw(st.sampled_from(EVSEL_SETTABLE + ["ids", "fallbacks"]), label="set")
        call("evsel.set", setattr, value, attr, data.draw(values, label="value"), attribute=True)


# --- orders: a state machine over objects and calls -----------------------

class Orders(RuleBasedStateMachine):
    """Random call orders on a handful of live objects."""

    cpu_maps = Bundle("cpu_maps")
    thread_maps = Bundle("thread_maps")
    evsels = Bundle("evsels")
    evlists = Bundle("evlists")
    events = Bundle("events")

    def __init__(self):
        super().__init__()
        new_example()
        self.seen = []

    @initialize(target=cpu_maps)
    def online(self):
        return perf.cpu_map()

    @initialize(target=thread_maps)
    def me(self):
        return perf.thread_map(os.getpid())

    @rule(target=cpu_maps, cpustr=st.one_of(st.none(), st.sampled_from(["0", "1", "0-1", "", "0,1"])))
    def new_cpu_map(self, cpustr):
        ok, m = call("cpu_map", perf.cpu_map, cpustr)
        return m if ok else perf.cpu_map("0")

    @rule(target=thread_maps, which=st.sampled_from(["any", "me", "init"]))
    def new_thread_map(self, which):
        pid = {"any": -1, "me": os.getpid(), "init": 1}[which]
        ok, m = call("thread_map", perf.thread_map, pid)
        return m if ok else perf.thread_map()

    @rule(target=evsels, kwargs=st.one_of(sane_evsel_kwargs(), junk_kwargs(EVSEL_KEYWORDS)))
    def new_evsel(self, kwargs):
        ok, ev = call("evsel", perf.evsel, **sanitize(kwargs))
        return ev if ok else perf.evsel(type=1, config=9)

    @rule(target=evlists, cpus=cpu_maps, threads=thread_maps)
    def new_evlist(self, cpus, threads):
        return perf.evlist(cpus, threads)

    @rule(target=evlists, kwargs=sane_evsel_kwargs(), system_wide=st.booleans(),
          pages=st.sampled_from([1, 2, 4]))
    def ready(self, kwargs, system_wide, pages):
        """An evlist that is opened and mapped, with records in its rings."""
        threads = perf.thread_map() if system_wide else perf.thread_map(os.getpid())
        el = perf.evlist(perf.cpu_map(), threads)
        if kwargs["type"] == 1 and not system_wide:
            kwargs.update(task=1, comm=1)
        ok, ev = call("evsel", perf.evsel, **sanitize(kwargs))
        if ok:
            call("evlist.add", el.add, ev)
        ok, _ = call("evlist.open", el.open)
        if ok:
            ok, _ = call("evlist.mmap", el.mmap, pages)
        if ok:
            COUNTS["ready"] += 1
            self.activity()
            self.drain(el, 200)
        return el

    def drain(self, el, n):
        """Reads up to n records per online CPU into self.seen; pokes every
        member of the first few."""
        for c in ONLINE:
            for i in range(n):
                ok, ev = call("evlist.read_on_cpu", el.read_on_cpu, c, log=i == 0)
                if not ok or ev is None:
                    break
                COUNTS["events"] += 1
                COUNTS[f"class {type(ev).__name__}"] += 1
                call("event.repr", repr, ev, log=False)
                for attr in EVENT_ATTRS if i < 5 else ():
                    call("event.get", getattr, ev, attr, attribute=True, log=False)
                self.seen.append(ev)
                del self.seen[:-20]

    @rule()
    def activity(self):
        """Forks, execs and sleeps, so the rings get records."""
        LOG.append("(fork+exec /bin/true, sleep 2 ms)")
        pid = os.fork()
        if pid == 0:
            try:
                os.execv("/bin/true", ["true"])
            finally:
                os._exit(127)
        os.waitpid(pid, 0)
        time.sleep(0.002)

    @rule(el=evlists, ev=evsels)
    def add(self, el, ev):
        call("evlist.add", el.add, ev)

    @rule(el=evlists)
    def add_again(self, el):
        """The last evsel of the list added once more."""
        if len(el):
            call("evlist.add", el.add, el[len(el) - 1])

    @rule(el=evlists)
    def open(self, el):
        call("evlist.open", el.open)

    @rule(ev=evsels, cpus=st.one_of(st.none(), cpu_maps), threads=st.one_of(st.none(), thread_maps),
          inherit=st.integers(0, 1))
    def evsel_open(self, ev, cpus, threads, inherit):
        call("evsel.open", ev.open, cpus=cpus, threads=threads, inherit=inherit)

    @rule(ev=evsels, kwargs=st.one_of(sane_evsel_kwargs(), junk_kwargs(EVSEL_KEYWORDS)))
    def reinit(self, ev, kwargs):
        call("evsel.__init__", ev.__init__, **sanitize(kwargs))

    @rule(ev=evsels, attr=st.sampled_from(EVSEL_SETTABLE), value=values)
    def set_attr(self, ev, attr, value):
        call("evsel.set", setattr, ev, attr, value, attribute=True)

    @rule(el=evlists, pages=st.one_of(st.sampled_from([1, 2, 4, 8, 0, 3, -1, 2**31 - 1]), values))
    def mmap(self, el, pages):
        call("evlist.mmap", el.mmap, safe_pages(pages))

    @rule(el=evlists, timeout=st.sampled_from([0, 0, 1, 10, 50, -1, 2**31 - 1]))
    def poll(self, el, timeout):
        call("evlist.poll", el.poll, timeout=timeout, may_block=blocking_timeout([timeout], {}))

    @rule(el=evlists)
    def get_pollfd(self, el):
        ok, files = call("evlist.get_pollfd", el.get_pollfd)
        if ok:
            for f in files:
                call("pollfd.fileno", f.fileno)

    @rule(target=events, el=evlists, cpu=st.one_of(st.sampled_from([-1, 2]), ints),
          n=st.integers(1, 50))
    def read(self, el, cpu, n):
        """Reads up to n records from every online CPU, then one odd CPU."""
        got = []
        for c in ONLINE + [cpu]:
            for i in range(n):
                ok, ev = call("evlist.read_on_cpu", el.read_on_cpu, c, log=i == 0)
                if not ok or ev is None:
                    break
                COUNTS["events"] += 1
                got.append(ev)
        self.seen.extend(got[-5:])
        return got[-1] if got else perf.sample_event()

    @rule(ev=events, data=st.data(), attr=st.sampled_from(EVENT_ATTRS),
          value=st.one_of(st.none(), values))
    def event_attr(self, ev, data, attr, value):
        # Draw the same way whether or not reads found events (that depends
        # on timing): hypothesis checks that each example draws alike.
        pick = data.draw(st.booleans(), label="a read event")
        which = data.draw(st.integers(0, 1 << 16), label="event")
        if pick and self.seen:
            ev = self.seen[which % len(self.seen)]
        call("event.get", getattr, ev, attr, attribute=True)
        call("event.repr", repr, ev)
        if value is not None:
            call("event.set", setattr, ev, attr, value, attribute=True)

    @rule(target=events, cls=st.sampled_from(EVENT_CLASSES), args=junk_args())
    def new_event(self, cls, args):
        ok, ev = call(f"{cls}()", getattr(perf, cls), *args)
        return ev if ok else perf.sample_event()

    @rule(target=evlists, text=st.sampled_from(EVENT_STRINGS),
          per_task=st.booleans())
    def parsed(self, text, per_task):
        """An evlist from parse_events (when the module has it)."""
        if not hasattr(perf, "parse_events"):
            return perf.evlist(perf.cpu_map(), perf.thread_map())
        threads = perf.thread_map(os.getpid()) if per_task else perf.thread_map()
        ok, el = call("parse_events", perf.parse_events, text, perf.cpu_map(), threads)
        return el if ok else perf.evlist(perf.cpu_map(), perf.thread_map())

    @rule(el=evlists, which=st.sampled_from(["config", "all_cpus", "read_all", "read_columns"]),
          n=st.one_of(st.none(), st.integers(-2, 50)))
    def newer(self, el, which, n):
        if not hasattr(el, which):
            return
        if which == "read_columns":
            # Bounded like read_all's 100 below: draining everything would
            # change what later steps read (hypothesis wants the same draws).
            ok, cols = call("evlist.read_columns", el.read_columns, None, 100 if n is None else n)
            if ok:
                call("read_columns use", lambda: [repr(cols), len(cols), [list(cols[k]) for k in cols],
                                                  [repr(e) for e in cols.others]])
        elif which == "read_all":
            ok, it = call("evlist.read_all", el.read_all, n)
            if ok:
                call("read_all iterate", lambda: [repr(x) for _, x in zip(range(100), it)])
        else:
            call(f"evlist.{which}", getattr(el, which))

    @rule(ev=evsels, cpu=st.one_of(st.sampled_from([-1, 0, 1, 2]), ints),
          thread=st.one_of(st.sampled_from([-1, 0, 1]), ints))
    def evsel_read(self, ev, cpu, thread):
        if hasattr(ev, "read"):
            ok, v = call("evsel.read", ev.read, cpu, thread)
            if ok:
                call("counts repr", repr, v)
                call("counts values", getattr, v, "values")
            call("evsel.cpus", ev.cpus)
            call("evsel.threads", ev.threads)

    @rule(el=evlists)
    def close(self, el):
        call("evlist.close", el.close)

    @rule(el=evlists, which=st.sampled_from(["enable", "disable"]))
    def toggle(self, el, which):
        call(f"evlist.{which}", getattr(el, which))

    @rule(el=evlists, i=st.one_of(small_ints, values))
    def index(self, el, i):
        call("evlist.__getitem__", el.__getitem__, i)
        call("evlist.repr", repr, el)
        call("evlist.len", len, el)

    @rule(ev=evsels)
    def evsel_state(self, ev):
        call("evsel.repr", repr, ev)
        call("evsel.ids", getattr, ev, "ids")
        call("evsel.fallbacks", getattr, ev, "fallbacks")

    @rule()
    def collect(self):
        call("gc", gc.collect)

    @invariant()
    def counted(self):
        COUNTS["steps"] += 1


def settings_for(n, randomize, steps):
    return settings(max_examples=n, deadline=None, database=None, derandomize=not randomize,
                    stateful_step_count=steps, phases=[Phase.generate],
                    suppress_health_check=list(HealthCheck), print_blob=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--calls", type=int, default=200, help="examples of single calls")
    p.add_argument("--orders", type=int, default=50, help="examples of call orders")
    p.add_argument("--steps", type=int, default=30, help="most steps per call-order example")
    p.add_argument("--perf-data", type=int, default=100,
                   help="examples of (corrupted) perf.data files (with PERF_FUZZ_PERF_DATA)")
    p.add_argument("--random", action="store_true",
                   help="new random examples (default: hypothesis' fixed derandomized sequence)")
    p.add_argument("--outcomes", action="store_true", help="print the outcome counts")
    a = p.parse_args()
    threading.Thread(target=watchdog, daemon=True).start()
    gc.collect()
    fds_before = fd_targets()
    t0 = time.monotonic()
    if a.calls:
        settings_for(a.calls, a.random, a.steps)(fuzz_calls)()
    calls_examples = COUNTS["examples"]
    if a.orders:
        run_state_machine_as_test(Orders, settings=settings_for(a.orders, a.random, a.steps))
    order_examples = COUNTS["examples"] - calls_examples
    if a.perf_data and PERF_DATA_FILES:
        settings_for(a.perf_data, a.random, a.steps)(fuzz_perf_data)()
        shutil.rmtree(SCRATCH, ignore_errors=True)
    gc.collect()
    summary = {
        "call_examples": calls_examples,
        "order_examples": order_examples,
        "perf_data_examples": COUNTS["perf.data examples"],
        "perf_data_events": COUNTS["file events"],
        "order_steps": COUNTS["steps"],
        "calls": COUNTS["calls"],
        "events_read": COUNTS["events"],
        "mapped_evlists": COUNTS["ready"],
        "event_classes": {k[6:]: v for k, v in COUNTS.items() if k.startswith("class ")},
        "fds": sum(fds_before.values()),
        "leaked_fds": sorted((fd_targets() - fds_before).elements()),
        "seconds": round(time.monotonic() - t0, 1),
        "outcomes": dict(sorted(OUTCOMES.items())),
    }
    print("fuzz: " + json.dumps({k: v for k, v in summary.items() if k != "outcomes"}))
    if a.outcomes:
        for k, v in summary["outcomes"].items():
            print(f"  {v:7} {k}")
    fd = os.environ.get("PERF_TEST_RESULT_FD")
    if fd:
        with open(int(fd), "w", closefd=False) as f:
            json.dump(summary, f, sort_keys=True)


if __name__ == "__main__":
    main()
