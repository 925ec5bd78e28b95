# SPDX-License-Identifier: GPL-2.0-only
"""perf.evsel, side by side with the C module (docs/api.md §5).

The C module (6.1) has no evsel attributes, so what the constructor built is
observed where it lands: the perf_event_attr the kernel receives, as strace
decodes it. Both modules must hand the kernel the same attr for the same
Python call.
"""

import errno
import gc
import os
import tempfile

import pytest

from sidebyside.fdprobe import perf_fds
from sidebyside.harness import needs_root, needs_strace, parse_strace_attr, tracepoint_id

KEYWORDS = ["type", "config", "sample_freq", "sample_period", "sample_type", "read_format",
            "disabled", "inherit", "pinned", "exclusive", "exclude_user", "exclude_kernel",
            "exclude_hv", "exclude_idle", "mmap", "context_switch", "comm", "freq",
            "inherit_stat", "enable_on_exec", "task", "watermark", "precise_ip", "mmap_data",
            "sample_id_all", "wakeup_events", "bp_type", "bp_addr", "bp_len"]
# One value per keyword, in positional order (a dummy software event).
ALL = (1, 9, 0, 0, 0x3FF, 4, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 2, 1, 1, 7, 0,
       0x1234, 8)

# name -> (positional args, keyword args, evsel.open keyword args)
CASES = {
    "defaults": ((), {}, {}),
    "software-dummy": ((), {"type": 1, "config": 9}, {}),
    "positional-type-config": ((1, 9), {}, {}),
    "positional-all": (ALL, {}, {}),
    "keywords-all": ((), dict(zip(KEYWORDS, ALL)), {}),
    "sample_period": ((), {"type": 1, "config": 9, "freq": 0, "sample_period": 12345}, {}),
    "sample_freq": ((), {"type": 1, "config": 9, "sample_freq": 99}, {}),
    "sample_freq-low-32-bits": ((), {"type": 1, "config": 9, "sample_freq": -1}, {}),
    "bitfields-masked": ((), {"type": 1, "config": 9, "disabled": 2, "exclude_user": 3,
                              "precise_ip": 6, "watermark": 5, "wakeup_events": 3}, {}),
    "read_format-low-32-bits": ((), {"type": 1, "config": 9, "read_format": -1}, {}),
    "bools": ((), {"type": True, "config": 9, "task": True, "comm": True,
                   "sample_id_all": False}, {}),
    "inherit-overwritten-by-open": ((), {"type": 1, "config": 9, "inherit": 1}, {}),
    "open-inherit": ((), {"type": 1, "config": 9}, {"inherit": 1, "group": 1}),
    "config-negative": ((), {"type": 1, "config": -1}, {}),
    "type-negative": ((), {"type": -1, "config": 9}, {}),
    "twatch": ((), {"type": 1, "config": 9, "task": 1, "comm": 1, "mmap": 0, "freq": 0,
                    "wakeup_events": 1, "watermark": 1, "sample_id_all": 1,
                    "context_switch": 0, "sample_type": 0x182}, {}),
    "breakpoint": ((), {"type": 5, "bp_type": 3, "bp_addr": 0x1000, "bp_len": 4,
                        "freq": 0, "sample_period": 1}, {}),
    "tracepoint": ((), {"type": 2, "config": "SCHED_SWITCH", "freq": 0, "sample_period": 1,
                        "wakeup_events": 1, "sample_type": 0x586}, {}),
}

# What the C module hands the kernel, for some cases (strace's spelling):
# checks that the comparison itself looks at the right thing.
C_FACTS = {
    "defaults": {"type": "PERF_TYPE_HARDWARE", "config": "PERF_COUNT_HW_CPU_CYCLES",
                 "sample_freq": "0", "sample_type": "PERF_SAMPLE_TID|PERF_SAMPLE_PERIOD",
                 "freq": "1", "sample_id_all": "1", "disabled": "0", "inherit": "0"},
    "positional-type-config": {"type": "PERF_TYPE_SOFTWARE", "config": "PERF_COUNT_SW_DUMMY"},
    "sample_period": {"sample_period": "12345", "freq": "0"},
    "sample_freq-low-32-bits": {"sample_freq": "4294967295", "freq": "1"},
    "bitfields-masked": {"disabled": "0", "exclude_user": "1", "precise_ip": "2",
                         "watermark": "1", "wakeup_watermark": "3"},
    "inherit-overwritten-by-open": {"inherit": "0"},
    "open-inherit": {"inherit": "1"},
    "config-negative": {"config": "0xffffffffffffffff"},
    "type-negative": {"type": "0xffffffff"},
    "bools": {"type": "PERF_TYPE_SOFTWARE", "task": "1", "comm": "1", "sample_id_all": "0"},
}

OPEN_CASE = """
import os
args, kw, open_kw = {args!r}, {kw!r}, {open_kw!r}
if kw.get("config") == "SCHED_SWITCH":
    kw["config"] = {tp_id!r}
try:
    os.chdir("/sbs-marker-evsel")
except OSError:
    pass
ev = perf.evsel(*args, **kw)
outcome = exc(ev.open, cpus=perf.cpu_map("0"), threads=perf.thread_map(os.getpid()), **open_kw)
result({{"outcome": outcome, "pid": os.getpid()}})
"""


_kernel_attrs = {}


def kernel_attr(module, name):
    """The first perf_event_open after the marker (attr, [pid, cpu, group_fd,
    flags] with our pid as SELF), and the outcome of evsel.open()."""
    key = (module.name, name)
    if key not in _kernel_attrs:
        _kernel_attrs[key] = _trace_open(module, name)
    return _kernel_attrs[key]


def _trace_open(module, name):
    args, kw, open_kw = CASES[name]
    tp_id = tracepoint_id("sched", "sched_switch")
    if kw.get("config") == "SCHED_SWITCH" and tp_id is None:
        pytest.skip("needs tracefs")
    with tempfile.NamedTemporaryFile(suffix=".strace") as log:
        wrapper = ["strace", "-f", "-qq", "-v", "-s", "0", "-e", "trace=perf_event_open,chdir",
                   "-e", "signal=none", "-o", log.name]
        run = module.run(OPEN_CASE.format(args=args, kw=kw, open_kw=open_kw, tp_id=tp_id),
                         wrapper=wrapper)
        got = run.check()
        lines = log.read().decode().splitlines()
    marker = next(i for i, line in enumerate(lines) if "/sbs-marker-evsel" in line)
    calls = [line for line in lines[marker:] if "perf_event_open(" in line]
    if not calls:
        return None, None, got["outcome"]
    attr, sysargs, _ = parse_strace_attr(calls[0])
    sysargs = ["SELF" if a == str(got["pid"]) else a for a in sysargs]
    return attr, sysargs, got["outcome"]


@needs_strace
@pytest.mark.parametrize("name", sorted(C_FACTS))
def test_c_module_attr_facts(c_module, name):
    """The comparison below looks at the right thing: known C attrs."""
    attr, sysargs, _ = kernel_attr(c_module, name)
    assert attr is not None, "the C module made no perf_event_open call"
    assert {k: attr.get(k) for k in C_FACTS[name]} == C_FACTS[name]
    assert sysargs == ["SELF", "0", "-1", "PERF_FLAG_FD_CLOEXEC"]


@needs_strace
@pytest.mark.parametrize("name", sorted(CASES))
def test_kernel_gets_the_same_attr(ours, c_module, name):
    c_attr, c_args, c_outcome = kernel_attr(c_module, name)
    o_attr, o_args, o_outcome = kernel_attr(ours, name)
    assert c_attr is not None
    if o_attr is None:
        # Ours may refuse an attr the kernel would refuse, without the
        # syscall: the same exception and errno, then.
        assert o_outcome[0] == c_outcome[0] != "ok" and o_outcome[2] == c_outcome[2], (o_outcome, c_outcome)
        return
    common = (set(c_attr) & set(o_attr)) - {"size"}
    assert {k: o_attr[k] for k in common} == {k: c_attr[k] for k in common}
    # A smaller attr.size is fine: the kernel reads the fields past it as 0.
    beyond = {k: c_attr[k] for k in set(c_attr) - set(o_attr) - {"size"}}
    assert all(v == "0" for v in beyond.values()), f"C sets fields past our attr.size: {beyond}"
    assert o_args == c_args
    assert o_outcome[0] == c_outcome[0], (o_outcome, c_outcome)


def test_keywords_and_positional_order(module):
    """Every keyword is accepted, and positional arguments take the same order:
    the two constructions open the same way (a dummy software event)."""
    got = module.run(f"""
import os
kw = dict(zip({KEYWORDS!r}, {ALL!r}))
cpus, threads = perf.cpu_map("0"), perf.thread_map(os.getpid())
result([exc(perf.evsel(*{ALL!r}).open, cpus, threads),
        exc(perf.evsel(**kw).open, cpus=cpus, threads=threads),
        exc(perf.evsel(1, 9).open, cpus, threads),
        exc(perf.evsel().open, cpus, threads),
        exc(perf.evsel(0, 0).open, cpus, threads)])
""").check()
    assert got[0] == ["ok", "None"] and got[1] == ["ok", "None"] and got[2] == ["ok", "None"]
    # The defaults are HARDWARE/CPU_CYCLES: no hardware PMU on this machine.
    assert got[3][0] == got[4][0] == "FileNotFoundError" and got[3][2] == errno.ENOENT


def test_idx_is_accepted_and_ignored(perf_ours):
    ev = perf_ours.evsel(type=1, config=9, idx=5)
    ev.open(perf_ours.cpu_map("0"), perf_ours.thread_map(os.getpid()))
    perf_ours.evsel(*ALL, 3)


SUBCLASS = """
import os
class Explicit(perf.evsel):
    def __init__(self, **kw):
        perf.evsel.__init__(self, **kw)
        self.note = "explicit"

class Super(perf.evsel):
    def __init__(self, sys_, name):
        super().__init__(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY)
        self.note = sys_ + ":" + name

class Plain(perf.evsel):
    pass

cpus, threads = perf.cpu_map("0"), perf.thread_map(os.getpid())
e, s, p = Explicit(type=1, config=9), Super("a", "b"), Plain(type=1, config=9)
out = [exc(e.open, cpus, threads), exc(s.open, cpus, threads), exc(p.open, cpus, threads),
       e.note, s.note, isinstance(e, perf.evsel), type(s).__mro__[1].__name__]
# re-initialising changes the event: back to the HARDWARE default, then to software
r = perf.evsel(type=1, config=9)
r.__init__()
out.append(exc(r.open, cpus, threads)[0])
r2 = perf.evsel()
r2.__init__(type=1, config=9)
out.append(exc(r2.open, cpus, threads)[0])
result(out)
"""


def test_subclass_and_reinit(module):
    got = module.run(SUBCLASS).check()
    assert got[:3] == [["ok", "None"]] * 3
    assert got[3:7] == ["explicit", "a:b", True, "evsel"]
    assert got[7:] == ["FileNotFoundError", "ok"]


def test_open_without_maps_is_einval(module):
    got = module.run("result(exc(perf.evsel(type=1, config=9).open))").check()
    assert got[0] == "OSError" and got[2] == errno.EINVAL


def test_hardware_event_without_pmu_is_enoent(module):
    got = module.run("""
ev = perf.evsel(type=perf.TYPE_HARDWARE, config=perf.COUNT_HW_CPU_CYCLES)
try:
    ev.open(perf.cpu_map(), perf.thread_map())
except OSError as e:
    result([type(e).__name__, e.errno, isinstance(e, FileNotFoundError), e.strerror])
""").check()
    assert got[:3] == ["FileNotFoundError", errno.ENOENT, True]


def paranoid():
    with open("/proc/sys/kernel/perf_event_paranoid") as f:
        return int(f.read())


@needs_root
@pytest.mark.skipif(paranoid() < 1, reason="perf_event_paranoid < 1 lets anyone open CPU-wide events")
def test_permission_denied_for_unprivileged_cpu_wide_events(module):
    """As nobody, with paranoid >= 1, a CPU-wide event is EACCES: PermissionError."""
    got = module.run("""
ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_CPU_CLOCK, exclude_kernel=0)
try:
    ev.open(perf.cpu_map(), perf.thread_map())
except OSError as e:
    result([type(e).__name__, e.errno, isinstance(e, PermissionError), e.strerror])
""", user=65534, python="/usr/bin/python3").check()
    assert got[:3] == ["PermissionError", errno.EACCES, True]


# Calls that crash the C module.
CRASHERS = {
    "freq-and-period": ("perf.evsel(sample_freq=10, sample_period=5)", (ValueError,)),
    "unknown-keyword": ("perf.evsel(foo=1)", (TypeError,)),
    "type-overflow": ("perf.evsel(type=2**31)", (OverflowError,)),
    "float-config": ("perf.evsel(config=1.0)", (TypeError,)),
    "sample_freq-overflow": ("perf.evsel(sample_freq=2**40)", (OverflowError,)),
    "subclass-freq-and-period": ("""
class E(perf.evsel):
    def __init__(self):
        super().__init__(sample_freq=1, sample_period=1)
E()""", (ValueError,)),
    "open-list-as-cpus": ("perf.evsel(type=1, config=9).open(cpus=[0], threads=None)", (TypeError,)),
    "open-int-as-threads": ("perf.evsel(type=1, config=9).open(cpus=perf.cpu_map(), threads=5)",
                            (TypeError,)),
}


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_c_module_crashes(c_module, name):
    run = c_module.run(CRASHERS[name][0])
    assert run.crashed(), f"expected the C module to crash, rc {run.rc}\n{run.stderr}"


@pytest.mark.parametrize("name", sorted(CRASHERS))
def test_ours_raises_instead_of_crashing(ours, name):
    code, expected = CRASHERS[name]
    names = [e.__name__ for e in expected]
    got = ours.run(f"""
try:
{''.join('    ' + line + chr(10) for line in code.strip().splitlines())}
    result(["no exception"])
except {'(' + ', '.join(names) + ',)'} as e:
    result(["raised", type(e).__name__, str(e)])
""").check()
    assert got[0] == "raised", got
    assert got[2], "the exception should say what is wrong"


def test_ours_freq_and_period_message(perf_ours):
    with pytest.raises(ValueError) as e:
        perf_ours.evsel(sample_freq=10, sample_period=5)
    assert "sample_freq" in str(e.value) and "sample_period" in str(e.value)


def test_fds_closed_when_freed(perf_ours):
    """Ours closes an evsel's fds when it is freed. Only perf_event fds are
    counted, after a collection on both sides: the test process's other fds
    come and go with other threads (CI saw six more between two counts), and
    an earlier test's garbage may be freed by this test's collection."""
    gc.collect()
    before = perf_fds()
    ev = perf_ours.evsel(type=1, config=9)
    # thread_map(pid) is every task of the process, as perf's: threads
    # that earlier tests left running count.
    cpus, threads = perf_ours.cpu_map(), perf_ours.thread_map(os.getpid())
    ev.open(cpus, threads)
    assert perf_fds() == before + len(cpus) * len(threads)
    del ev
    gc.collect()
    assert perf_fds() == before
