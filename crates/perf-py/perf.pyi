# SPDX-License-Identifier: GPL-2.0-only
"""Type stubs for `perf`, the Rust re-implementation of the kernel's perf
Python extension (tools/perf/util/python.c).

The classic API (6.1), the 6.14-6.18 additions (parse_events, evsel
attributes, evsel.read, counts_values, pmus), the perf.data API of 7.3 and
the series after it (data, session, thread, stat events; docs/perfdata.md)
and this module's own additions (evlist.read_all, set_abi_policy, __build__, evsel.fallbacks,
keyword-only perf_event_attr fields). docs/api.md describes each item and
what differs from the C module. tests/modern/test_stubs.py checks this file
against the module both ways and runs mypy on it.

loader/perf/__init__.pyi is a link to this file: `import perf` goes through
the loader package, which the extension replaces in sys.modules.
"""

import io
from array import array
from collections.abc import Callable, Iterable, KeysView
from typing import Any, Final, Iterator, Literal, Self, SupportsIndex, TypedDict, final

from typing_extensions import CapsuleType, disjoint_base

# -- module data -------------------------------------------------------------

class _BuildInfo(TypedDict):
    build: Literal["per-abi", "wheel"]
    kernel_release: str | None
    abi: str | None
    flavour: str | None
    kernel_version: str | None
    attr_size: int
    build_version: str
    python_abi: str

class _LoadedBy(TypedDict):
    path: str
    reason: str
    step: str
    release: str

__version__: str
"""This build's version (the perf-py crate's)."""
__build__: _BuildInfo
"""What this build is: a per-ABI build (the kernel release, ABI, flavour, attr
size it targets) or the wheel (no release: one build for every kernel)."""
__loaded_by__: _LoadedBy
"""Set by the loader package or the wheel's package: which file it loaded and why."""

# The extension's __all__ (what `from perf import *` takes).
__all__ = [
    "evlist", "evsel", "mmap_event", "lost_event", "comm_event", "task_event",
    "throttle_event", "read_event", "sample_event", "tracepoint_sample_event",
    "switch_event", "mmap2_event", "stat_event", "stat_round_event", "event_iterator", "sample_columns", "thread_map", "cpu_map",
    "TYPE_HARDWARE", "TYPE_SOFTWARE", "TYPE_TRACEPOINT", "TYPE_HW_CACHE", "TYPE_RAW",
    "TYPE_BREAKPOINT", "COUNT_HW_CPU_CYCLES", "COUNT_HW_REF_CPU_CYCLES",
    "COUNT_HW_INSTRUCTIONS", "COUNT_HW_CACHE_REFERENCES", "COUNT_HW_CACHE_MISSES",
    "COUNT_HW_BRANCH_INSTRUCTIONS", "COUNT_HW_BRANCH_MISSES", "COUNT_HW_BUS_CYCLES",
    "COUNT_HW_CACHE_L1D", "COUNT_HW_CACHE_L1I", "COUNT_HW_CACHE_LL",
    "COUNT_HW_CACHE_DTLB", "COUNT_HW_CACHE_ITLB", "COUNT_HW_CACHE_BPU",
    "COUNT_HW_CACHE_OP_READ", "COUNT_HW_CACHE_OP_WRITE", "COUNT_HW_CACHE_OP_PREFETCH",
    "COUNT_HW_CACHE_RESULT_ACCESS", "COUNT_HW_CACHE_RESULT_MISS",
    "COUNT_HW_STALLED_CYCLES_FRONTEND", "COUNT_HW_STALLED_CYCLES_BACKEND",
    "COUNT_SW_CPU_CLOCK", "COUNT_SW_TASK_CLOCK", "COUNT_SW_PAGE_FAULTS",
    "COUNT_SW_CONTEXT_SWITCHES", "COUNT_SW_CPU_MIGRATIONS", "COUNT_SW_PAGE_FAULTS_MIN",
    "COUNT_SW_PAGE_FAULTS_MAJ", "COUNT_SW_ALIGNMENT_FAULTS",
    "COUNT_SW_EMULATION_FAULTS", "COUNT_SW_DUMMY", "SAMPLE_IP", "SAMPLE_TID",
    "SAMPLE_TIME", "SAMPLE_ADDR", "SAMPLE_READ", "SAMPLE_CALLCHAIN", "SAMPLE_ID",
    "SAMPLE_CPU", "SAMPLE_PERIOD", "SAMPLE_STREAM_ID", "SAMPLE_RAW",
    "FORMAT_TOTAL_TIME_ENABLED", "FORMAT_TOTAL_TIME_RUNNING", "FORMAT_ID",
    "FORMAT_GROUP", "RECORD_MMAP", "RECORD_LOST", "RECORD_COMM", "RECORD_EXIT",
    "RECORD_THROTTLE", "RECORD_UNTHROTTLE", "RECORD_FORK", "RECORD_READ",
    "RECORD_SAMPLE", "RECORD_MMAP2", "RECORD_AUX", "RECORD_ITRACE_START",
    "RECORD_LOST_SAMPLES", "RECORD_SWITCH", "RECORD_SWITCH_CPU_WIDE", "RECORD_STAT",
    "RECORD_STAT_ROUND", "RECORD_MISC_SWITCH_OUT", "CALL_RETURN_NO_CALL",
    "CALL_RETURN_NO_RETURN", "CALL_RETURN_NON_CALL", "tracepoint", "set_abi_policy",
    "parse_events", "parse_metrics", "metrics", "pmus", "syscall_name", "syscall_id", "arch_strerrno", "config_get",
    "counts_values", "pmu", "data", "DataWarning", "session", "thread", "call_return", "callchain",
    "callchain_node",
    "branch_stack", "branch_entry", "__version__", "__build__",
]

# -- functions ---------------------------------------------------------------

def tracepoint(sys: str | None = None, name: str | None = None) -> int:
    """The id of tracepoint `sys:name` (from tracefs), or -1."""

def parse_events(
    event_string: str,
    cpus: cpu_map | None = None,
    threads: thread_map | None = None,
    /,
) -> evlist:
    """A new evlist from perf's event syntax ("cycles,task-clock",
    "sched:sched_*", "{a,b}:S", "pmu/config=1/", ...). The tool events
    duration_time, user_time and system_time are counted without the kernel
    (type 0xfffffffe). Bad strings raise ValueError pointing at the
    offending position."""

def parse_metrics(
    metrics_string: str,
    pmu: str | None = None,
    cpus: cpu_map | None = None,
    threads: thread_map | None = None,
    /,
) -> evlist:
    """A new evlist counting the events of perf's metrics: metric or group
    names, comma-separated ("CPUs_utilized", "Default"), of PMU `pmu` (None:
    any), counted system-wide unless maps are given. An unknown name, a
    malformed expression or an event this machine lacks raise OSError(EINVAL)
    naming it."""

def pmus() -> Iterator[pmu]:
    """The PMUs of /sys/bus/event_source/devices."""

_Metric = TypedDict(
    "_Metric",
    {
        "MetricGroup": list[str],
        "MetricName": str,
        "PMU": str,
        "MetricExpr": str,
        "MetricThreshold": str,
        "ScaleUnit": str,
        "Compat": str,
        "BriefDescription": str,
        "PublicDescription": str,
    },
    total=False,
)

def metrics() -> list[_Metric]:
    """Returns a list of metrics."""

def set_abi_policy(mode: Literal["default", "strict", "lenient"]) -> None:
    """What open() does when the kernel lacks an attr feature."""

def syscall_name(id: int, elf_machine: int | None = None) -> str | None:
    """The name of system call `id` on machine `elf_machine` (an ELF
    e_machine: 62 x86_64, 3 i386, 183 aarch64, 40 arm, 243 riscv64,
    21 powerpc64, 22 s390x; None, <= 0 or > 65535: this host), or None."""

def syscall_id(name: str, elf_machine: int | None = None) -> int:
    """The number of system call `name` on machine `elf_machine`;
    ValueError("Failed to find syscall <name>") if it has none."""

def arch_strerrno(err: int, elf_machine: int | None = None) -> str | None:
    """The name of errno `err` (or -err) on machine `elf_machine`, e.g.
    "ENOENT", or None."""

def config_get(name: str, /) -> str | None:
    """The value of "section.key" in perf's config files ($PERF_CONFIG, or
    /etc/perfconfig then ~/.perfconfig), or None."""

# -- maps --------------------------------------------------------------------

@disjoint_base
class cpu_map:
    """cpu map object: a sequence of CPU numbers."""
    def __new__(cls, cpustr: str | None = None) -> Self: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: SupportsIndex, /) -> int: ...
    # CPython's sequence iterator over __getitem__ (as 7.3's stub declares;
    # the C types have no __iter__ attribute and iterate the same way).
    def __iter__(self) -> Iterator[int]: ...

@disjoint_base
class thread_map:
    """thread map object: a sequence of thread ids."""
    def __new__(cls, pid: int = -1, tid: int = -1, uid: int = -1) -> Self: ...
    def __len__(self) -> int: ...
    def __getitem__(self, index: SupportsIndex, /) -> int: ...
    # CPython's sequence iterator over __getitem__ (as 7.3's stub declares;
    # the C types have no __iter__ attribute and iterate the same way).
    def __iter__(self) -> Iterator[int]: ...

# -- counters ----------------------------------------------------------------

@disjoint_base
class counts_values:
    """perf counts values object: one evsel.read()."""
    val: int
    """Value of event"""
    ena: int
    """Time for which enabled"""
    run: int
    """Time for which running"""
    id: int
    """Unique ID for an event"""
    lost: int
    """Num of lost samples"""
    @property
    def values(self) -> list[int]:
        """[val, ena, run, id, lost]"""
    @values.setter
    def values(self, v: list[int], /) -> None: ...
    def __new__(cls) -> Self: ...

@disjoint_base
class evsel:
    """perf event selector list object (sic: the C module's text)."""
    # tp_new accepts anything, so that subclasses may have their own
    # __init__ signature; __init__ parses the arguments (and may run again).
    def __new__(cls, *args: Any, **kwargs: Any) -> Self: ...
    def __init__(
        self,
        type: int = 0,
        config: int = 0,
        sample_freq: int = 0,
        sample_period: int = 0,
        sample_type: int = 258,
        read_format: int = 0,
        disabled: int = 0,
        inherit: int = 0,
        pinned: int = 0,
        exclusive: int = 0,
        exclude_user: int = 0,
        exclude_kernel: int = 0,
        exclude_hv: int = 0,
        exclude_idle: int = 0,
        mmap: int = 0,
        context_switch: int = 0,
        comm: int = 0,
        freq: int = 1,
        inherit_stat: int = 0,
        enable_on_exec: int = 0,
        task: int = 0,
        watermark: int = 0,
        precise_ip: int = 0,
        mmap_data: int = 0,
        sample_id_all: int = 1,
        wakeup_events: int = 0,
        bp_type: int = 0,
        bp_addr: int = 0,
        bp_len: int = 0,
        idx: int = 0,
        *,
        # Beyond the C module: every other perf_event_attr flag and field.
        exclude_host: int = 0,
        exclude_guest: int = 0,
        exclude_callchain_kernel: int = 0,
        exclude_callchain_user: int = 0,
        mmap2: int = 0,
        comm_exec: int = 0,
        use_clockid: int = 0,
        write_backward: int = 0,
        namespaces: int = 0,
        ksymbol: int = 0,
        bpf_event: int = 0,
        aux_output: int = 0,
        cgroup: int = 0,
        text_poke: int = 0,
        build_id: int = 0,
        inherit_thread: int = 0,
        remove_on_exec: int = 0,
        sigtrap: int = 0,
        defer_callchain: int = 0,
        defer_output: int = 0,
        config1: int = 0,
        config2: int = 0,
        config3: int = 0,
        config4: int = 0,
        branch_sample_type: int = 0,
        sample_regs_user: int = 0,
        sample_stack_user: int = 0,
        clockid: int = 0,
        sample_regs_intr: int = 0,
        aux_watermark: int = 0,
        sample_max_stack: int = 0,
        aux_sample_size: int = 0,
        aux_action: int = 0,
        aux_start_paused: int = 0,
        aux_pause: int = 0,
        aux_resume: int = 0,
        sig_data: int = 0,
        wakeup_watermark: int = 0,
        size: int = 0,
    ) -> None: ...
    def open(
        self,
        cpus: cpu_map | None = None,
        threads: thread_map | None = None,
        group: int = 0,
        inherit: int = 0,
    ) -> None:
        """open the event selector file descriptor table."""
    def cpus(self) -> cpu_map:
        """CPUs the event is to be used with."""
    def threads(self) -> thread_map:
        """threads the event is to be used with."""
    def read(self, cpu: int, thread: int, /) -> counts_values:
        """The counter of (CPU number, thread id) since the previous read
        (a tool event: its ns, with ena = run = val)."""
    tracking: bool
    """tracking event."""
    type: int
    """attribute type."""
    size: int
    """attribute size."""
    config: int
    """attribute config."""
    sample_period: int
    """attribute sample_period."""
    sample_type: int
    """attribute sample_type."""
    read_format: int
    """attribute read_format."""
    wakeup_events: int
    """attribute wakeup_events."""
    @property
    def ids(self) -> list[int]:
        """event IDs."""
    @property
    def fallbacks(self) -> list[tuple[str, Literal["kernel", "build target", "pmu"]]]:
        """What the last open() dropped, as (name, reason); a replaced value is
        named "old -> new" ("clockid=2 -> clockid=1")."""

# -- events ------------------------------------------------------------------

@disjoint_base
class mmap_event:
    """perf mmap event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    misc: int
    pid: int
    tid: int
    start: int
    len: int
    pgoff: int
    @property
    def filename(self) -> str: ...
    def __new__(cls) -> Self: ...

@disjoint_base
class mmap2_event:
    """perf mmap2 event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    misc: int
    pid: int
    tid: int
    start: int
    len: int
    pgoff: int
    prot: int
    flags: int
    @property
    def filename(self) -> str: ...
    @property
    def maj(self) -> int | None: ...
    @property
    def min(self) -> int | None: ...
    @property
    def ino(self) -> int | None: ...
    @property
    def ino_generation(self) -> int | None: ...
    @property
    def build_id(self) -> bytes | None: ...
    def __new__(cls) -> Self: ...

@disjoint_base
class lost_event:
    """perf lost event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    id: int
    lost: int
    def __new__(cls) -> Self: ...

@disjoint_base
class comm_event:
    """perf comm event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    pid: int
    tid: int
    @property
    def comm(self) -> str: ...
    def __new__(cls) -> Self: ...

@disjoint_base
class task_event:
    """perf task (fork/exit) event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    pid: int
    ppid: int
    tid: int
    ptid: int
    time: int
    def __new__(cls) -> Self: ...

@disjoint_base
class throttle_event:
    """perf throttle event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    time: int
    id: int
    stream_id: int
    def __new__(cls) -> Self: ...

@disjoint_base
class read_event:
    """perf read event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    pid: int
    tid: int
    @property
    def values(self) -> list[int]:
        """counter values"""
    def __new__(cls) -> Self: ...

@disjoint_base
class sample_event:
    """perf sample event object."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    sample_phys_addr: int
    sample_weight: int
    sample_data_src: int
    sample_insn_count: int
    """0: perf counts instructions only in samples it makes from AUX traces."""
    sample_cyc_count: int
    """0: perf counts cycles only in samples it makes from AUX traces."""
    type: int
    @property
    def raw_buf(self) -> bytes:
        """The PERF_SAMPLE_RAW payload, or b''."""
    @property
    def evsel(self) -> evsel | None:
        """The evsel the sample belongs to."""
    # Symbols: samples read from a perf.data file, and live samples of an
    # evlist that tracks mmaps (evlist.config() on a tracking evsel, or
    # mmap=1), resolve them at the first read; None when unresolved.
    @property
    def dso(self) -> str | None:
        """The DSO's name (a path, or [kernel.kallsyms])."""
    @property
    def dso_long_name(self) -> str | None:
        """The DSO's long name."""
    @property
    def dso_bid(self) -> str | None:
        """The DSO's build id, in hex."""
    @property
    def map_start(self) -> int | None:
        """The map's first address."""
    @property
    def map_end(self) -> int | None:
        """The map's end."""
    @property
    def map_pgoff(self) -> int | None:
        """The map's file offset."""
    @property
    def symbol(self) -> str | None:
        """The symbol's (demangled) name."""
    @property
    def sym_start(self) -> int | None:
        """The symbol's start, in the DSO's address space."""
    @property
    def sym_end(self) -> int | None:
        """The symbol's end."""
    @property
    def sym_offset(self) -> int | None:
        """The ip's offset into its symbol, as perf script's sym+0x...;
        None without a symbol (as upstream's getter)."""
    @property
    def callchain(self) -> callchain | None:
        """The call chain, leaf first; None without PERF_SAMPLE_CALLCHAIN."""
    @property
    def brstack(self) -> branch_stack | None:
        """The branch stack; None without PERF_SAMPLE_BRANCH_STACK."""
    def srccode(self, addr: int | None = None) -> tuple[str, int, str | None] | tuple[None, int, None] | None:
        """(file, line, text) of addr (default: the sample's ip) from DWARF;
        text None when the source file cannot be read. (None, 0, None) when
        addr has no map or no source line, as upstream; None when the sample
        is not resolved (a live sample of an evlist that tracks no mmaps)."""
    def insn(self) -> bytes | None:
        """The instruction bytes at the sample's ip, read from its binary."""
    def __new__(cls) -> Self: ...
    # Samples of tracepoint evsels are tracepoint_sample_event instances,
    # whose fields (int, str or bytearray, by the format) read as
    # attributes; declared here so that the usual
    # `isinstance(event, perf.sample_event)` narrowing allows them. Other
    # samples raise AttributeError.
    def __getattr__(self, name: str) -> Any: ...

class tracepoint_sample_event(sample_event):
    """A sample of a tracepoint evsel (its class prints as sample_event).

    Samples are instances of a subclass made per tracepoint format whose
    fields are attributes (sample_event.__getattr__ types them)."""

@disjoint_base
class switch_event:
    """perf context_switch event object (__name__ 'context_switch_event')."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """The evsel the record belongs to (None when it matched none)."""
    misc: int
    next_prev_pid: int
    next_prev_tid: int
    def __new__(cls) -> Self: ...

@disjoint_base
class stat_event:
    """perf stat event object: a PERF_RECORD_STAT of `perf stat record`."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """None: upstream builds stat records without their evsel (the
        stat callback gets its name instead)."""
    id: int
    cpu: int
    thread: int
    val: int
    ena: int
    run: int
    def __new__(cls) -> Self: ...

@disjoint_base
class stat_round_event:
    """perf stat round event object: a PERF_RECORD_STAT_ROUND."""
    sample_ip: int
    sample_pid: int
    sample_tid: int
    sample_time: int
    sample_addr: int
    sample_id: int
    sample_stream_id: int
    sample_period: int
    sample_cpu: int
    type: int
    @property
    def evsel(self) -> evsel | None:
        """None: upstream builds stat records without their evsel (the
        stat callback gets its name instead)."""
    stat_round_type: int
    time: int
    def __new__(cls) -> Self: ...

_Event = (
    mmap_event
    | mmap2_event
    | lost_event
    | comm_event
    | task_event
    | throttle_event
    | read_event
    | sample_event
    | switch_event
)

@final
class event_iterator:
    """Iterator over the events in an evlist's rings (evlist.read_all())."""
    def __iter__(self) -> event_iterator: ...
    def __next__(self) -> _Event: ...

@final
class sample_columns:
    """What evlist.read_columns() returns: the samples' members as
    array.array columns (cols["sample_time"]), the other records as event
    objects (cols.others)."""
    def __len__(self) -> int:
        """Number of samples."""
    def __getitem__(self, name: str, /) -> array[int]: ...
    def __contains__(self, name: object, /) -> bool: ...
    def __iter__(self) -> Iterator[str]: ...
    def keys(self) -> KeysView[str]:
        """The names of the columns read."""
    @property
    def others(self) -> list[_Event]:
        """The records that were not samples, as event objects, in order."""
    @property
    def evsel_names(self) -> list[str] | None:
        """A file's batches: the evsels' names by the evsel column's index."""
    @property
    def names(self) -> list[str] | None:
        """A file's batches: the session's names table of the dso, symbol,
        callchain_dso, callchain_symbol and comm columns (index 0:
        [unknown])."""
    @property
    def callchains(self) -> list[tuple[array[int], array[int]]] | None:
        """A file's batches with the callchain column: the session's
        distinct call chains, each a (dsos, symbols) pair of names indexes,
        leaf first (index 0: the empty chain)."""
    def __arrow_c_schema__(self) -> CapsuleType:
        """The Arrow PyCapsule interface: an arrow_schema capsule of the
        columns as a struct (numeric columns uint64/uint32/int32; dso,
        symbol, comm dictionaries of names; per-frame columns large
        lists over callchain_offsets)."""
    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[CapsuleType, CapsuleType]:
        """The (arrow_schema, arrow_array) capsules of the columns as one
        struct array; numeric columns share the arrays' memory."""
    def __arrow_c_stream__(self, requested_schema: object | None = None) -> CapsuleType:
        """An arrow_array_stream capsule of one record batch."""

# -- evlist ------------------------------------------------------------------

@disjoint_base
class evlist:
    """perf event selector list object."""
    def __new__(cls, cpus: cpu_map | None, threads: thread_map | None, /) -> Self: ...
    def add(self, evsel: evsel) -> int:
        """adds an event selector to the list; the new length."""
    def open(self, *args: object, **kwargs: object) -> None:
        """open the file descriptors (arguments are accepted and ignored).
        Without maps, all online CPUs and any thread."""
    def close(self) -> None:
        """close the file descriptors."""
    def mmap(self, pages: int = 128, overwrite: int = 0) -> None:
        """mmap the file descriptor table (`overwrite` is ignored; tool
        events have no fd and get no ring)."""
    def poll(self, timeout: int = -1) -> int:
        """poll the file descriptor table; the number of ready fds."""
    def get_pollfd(self, *args: object, **kwargs: object) -> list[io.TextIOWrapper]:
        """get the poll file descriptor table (file objects, closefd=False)."""
    def read_on_cpu(self, cpu: int, sample_id_all: int = 1) -> _Event | None:
        """reads an event from the ring of CPU number `cpu`, or None."""
    def read_all(self, max_events: int | None = None) -> event_iterator:
        """Every event now in every ring, at most max_events."""
    def read_columns(self, columns: Iterable[str] | None = None,
                     max_events: int | None = None) -> sample_columns:
        """Drains every ring (at most max_events records) into columns: the
        samples' members as array.array columns (all, or those named in
        columns: type, sample_ip, sample_pid, sample_tid, sample_time,
        sample_addr, sample_id, sample_stream_id, sample_cpu, sample_period,
        evsel), the other records as event objects in .others."""
    def all_cpus(self) -> cpu_map:
        """CPU map union of all evsel CPU maps."""
    def metrics(self) -> list[str]:
        """List of metric names within the evlist (parse_metrics)."""
    def compute_metric(self, metric: str, cpu: int, thread: int, /) -> float:
        """compute metric for given name, cpu and thread: from each event's
        change since its last evsel.read(); TypeError for a metric the
        evlist lacks on that CPU and thread."""
    def config(self) -> None:
        """Apply default record options to the evlist."""
    def enable(self) -> None:
        """Enable the evsels in the evlist."""
    def disable(self) -> None:
        """Disable the evsels in the evlist."""
    @property
    def unmatched(self) -> int:
        """Records read_on_cpu consumed because they matched no evsel."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: SupportsIndex, /) -> evsel: ...
    # CPython's sequence iterator over __getitem__ (as 7.3's stub declares;
    # the C types have no __iter__ attribute and iterate the same way).
    def __iter__(self) -> Iterator[evsel]: ...

# -- PMUs --------------------------------------------------------------------

# Keys present when perf knows them; one key is named `str`, hence the
# functional form.
# One entry of pmu.events(): a key is present only where perf sets it (software
# and tool events: name, scale_unit, desc, long_desc, encoding_desc, topic,
# event_type_desc, str; tracepoints: name, long_desc, encoding_desc,
# event_type_desc; sysfs aliases: docs/api.md section 9).
_PmuEvent = TypedDict(
    "_PmuEvent",
    {
        "name": str,
        "alias": str,
        "scale_unit": str,
        "desc": str,
        "long_desc": str,
        "encoding_desc": str,
        "topic": str,
        "event_type_desc": str,
        "str": str,
        "deprecated": str,
    },
    total=False,
)

@final
class pmu:
    """perf Performance Monitoring Unit (PMU) object."""
    def name(self) -> str:
        """Name of the PMU including suffixes."""
    def events(self) -> list[_PmuEvent]:
        """Returns a sequence of events encoded as a dictionaries."""
    @property
    def type(self) -> int:
        """The PMU's perf_event_attr.type."""

# -- perf.data files (docs/perfdata.md) ---------------------------------------

class _HeaderEvent(TypedDict):
    name: str
    type: int
    config: int
    sample_type: int
    read_format: int
    sample_period: int
    freq: bool
    ids: list[int]

class _HeaderBuildId(TypedDict):
    filename: str
    build_id: str
    pid: int
    misc: int

class _HeaderCompressed(TypedDict):
    type: int
    level: int
    ratio: int
    mmap_len: int

class _HeaderClockReference(TypedDict):
    tod_ns: int
    clockid_ns: int

class _Header(TypedDict):
    hostname: str | None
    os_release: str | None
    perf_version: str | None
    arch: str | None
    nr_cpus_online: int | None
    nr_cpus_avail: int | None
    cpu_desc: str | None
    cpuid: str | None
    total_mem: int | None
    cmdline: list[str] | None
    events: list[_HeaderEvent]
    build_ids: list[_HeaderBuildId]
    pmu_mappings: dict[str, int]
    sample_time: tuple[int, int] | None
    clockid: int | None
    clock_reference: _HeaderClockReference | None
    clockid_res_ns: int | None
    compressed: _HeaderCompressed | None
    features: tuple[str, ...]
    # Feature sections that could not be read (name: why); each is also a
    # perf.DataWarning when the header is read.
    unreadable_features: dict[str, str]
    pipe: bool

class DataWarning(UserWarning):
    """A perf.data file is damaged where perf only warns: its samples are
    read, some metadata (a feature section) is not."""

@disjoint_base
class data:
    """perf data file object: a perf.data file, a `perf record --threads`
    directory, "-" (stdin) or, with fd, the read end of a pipe."""
    def __new__(cls, path: str = "perf.data", fd: int = -1) -> Self: ...
    @property
    def header(self) -> _Header:
        """The header's features as plain values (None where the file has
        none)."""

@disjoint_base
class call_return:
    """perf call_return object: an entry perf's thread stacks flushed (with
    no AUX data: each thread's stack bottom, flagged NO_CALL | NO_RETURN)."""
    @property
    def db_id(self) -> int:
        """Unique identifier of this call return."""
    @property
    def parent_id(self) -> int:
        """db_id of the calling call return, 0 if there is none."""
    @property
    def insn_count(self) -> int:
        """Instructions executed between the call and the return."""
    @property
    def cyc_count(self) -> int:
        """Cycles elapsed between the call and the return."""
    @property
    def comm(self) -> str | None:
        """Thread comm at the time of the call/return, or None."""
    @property
    def machine_pid(self) -> int:
        """Machine PID (perf's host machine: -1)."""
    @property
    def pid(self) -> int | None:
        """Process ID of the thread, or None."""
    @property
    def tid(self) -> int | None:
        """Thread identifier, None if unknown."""
    @property
    def call_time(self) -> int:
        """Timestamp of the call."""
    @property
    def return_time(self) -> int:
        """Timestamp of the return."""
    @property
    def branch_count(self) -> int:
        """Branches taken between the call and the return."""
    @property
    def call_ref(self) -> int:
        """Reference to the sample of the call."""
    @property
    def return_ref(self) -> int:
        """Reference to the sample of the return."""
    @property
    def flags(self) -> int:
        """Bitmask of perf.CALL_RETURN_* values."""
    @property
    def call_path(self) -> callchain:
        """perf.callchain from outermost caller to callee."""

@final
class thread:
    """perf thread object: a thread as session.find_thread() found it."""
    def comm(self) -> str:
        """Comm(and) associated with this thread."""
    @property
    def pid(self) -> int:
        """process ID"""
    @property
    def tid(self) -> int:
        """thread ID"""
    @property
    def ppid(self) -> int:
        """parent process ID"""
    @property
    def cpu(self) -> int:
        """cpu number"""

@final
class callchain:
    """perf callchain object: the frames of a sample, leaf first."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> callchain_node: ...
    def __iter__(self) -> Iterator[callchain_node]: ...

@final
class callchain_node:
    """perf callchain node object."""
    @property
    def ip(self) -> int: ...
    @property
    def sym_offset(self) -> int | None:
        """The frame's offset into its symbol, as perf script's sym+0x...;
        None without a symbol (as upstream's getter)."""
    @property
    def symbol(self) -> str:
        """The function's name, or "[unknown]"."""
    @property
    def dso(self) -> str:
        """The object's long name, or "[unknown]"."""
    @property
    def inlined(self) -> bool:
        """Ours: True for a frame perf script prints "(inlined)" (only with
        perf.session(..., inline=True))."""

@final
class branch_stack:
    """perf branch stack object."""
    def __len__(self) -> int: ...
    def __getitem__(self, index: int, /) -> branch_entry: ...

@final
class branch_entry:
    """perf branch entry object."""
    @property
    def from_ip(self) -> int: ...
    @property
    def to_ip(self) -> int: ...
    @property
    def mispred(self) -> bool: ...
    @property
    def predicted(self) -> bool: ...
    @property
    def in_tx(self) -> bool: ...
    @property
    def abort(self) -> bool: ...
    @property
    def cycles(self) -> int: ...
    @property
    def type(self) -> int: ...

@disjoint_base
class session:
    """perf session object: reads a perf.data input in time order."""
    def __new__(
        cls,
        data: data,
        sample: Callable[[sample_event], object] | None = None,
        stat: Callable[[stat_event | stat_round_event, str | None], object] | None = None,
        context_switch: Callable[[switch_event], object] | None = None,
        call_return: Callable[[call_return], object] | None = None,
        itrace: str | None = None,
        vmlinux: str | None = None,
        kallsyms: str | None = None,
        symfs: str | None = None,
        *,
        inline: bool = False,
    ) -> Self:
        """inline=True (ours): unwound (--call-graph dwarf) call chains get
        perf script's frames for inlined functions; upstream's session, and
        ours by default, gives perf script --no-inline's."""
    def process_events(self) -> None:
        """Iterate and process events."""
    def read_columns(self, columns: Iterable[str] | None = None,
                     max_events: int | None = None) -> sample_columns:
        """The next batch of at most max_events samples (default 65536), in
        time order, as array.array columns (all of evlist.read_columns()'s,
        callchain_offsets and callchain_ips; dso, symbol, callchain_dso,
        callchain_symbol, comm, callchain when named); empty at the end.
        Calls no callback."""
    def find_thread(self, pid: int, tid: int = -1, /) -> thread | None:
        """Returns the thread associated with a pid (and tid), or None."""
    @property
    def e_machine(self) -> int:
        """The ELF machine (EM_*) the file was recorded on."""
    @property
    def is_64_bit(self) -> bool:
        """Whether the recorded kernel is 64-bit."""

# -- constants (values of include/uapi/linux/perf_event.h) --------------------

TYPE_HARDWARE: Final = 0
TYPE_SOFTWARE: Final = 1
TYPE_TRACEPOINT: Final = 2
TYPE_HW_CACHE: Final = 3
TYPE_RAW: Final = 4
TYPE_BREAKPOINT: Final = 5

COUNT_HW_CPU_CYCLES: Final = 0
COUNT_HW_REF_CPU_CYCLES: Final = 9
COUNT_HW_INSTRUCTIONS: Final = 1
COUNT_HW_CACHE_REFERENCES: Final = 2
COUNT_HW_CACHE_MISSES: Final = 3
COUNT_HW_BRANCH_INSTRUCTIONS: Final = 4
COUNT_HW_BRANCH_MISSES: Final = 5
COUNT_HW_BUS_CYCLES: Final = 6
COUNT_HW_CACHE_L1D: Final = 0
COUNT_HW_CACHE_L1I: Final = 1
COUNT_HW_CACHE_LL: Final = 2
COUNT_HW_CACHE_DTLB: Final = 3
COUNT_HW_CACHE_ITLB: Final = 4
COUNT_HW_CACHE_BPU: Final = 5
COUNT_HW_CACHE_OP_READ: Final = 0
COUNT_HW_CACHE_OP_WRITE: Final = 1
COUNT_HW_CACHE_OP_PREFETCH: Final = 2
COUNT_HW_CACHE_RESULT_ACCESS: Final = 0
COUNT_HW_CACHE_RESULT_MISS: Final = 1
COUNT_HW_STALLED_CYCLES_FRONTEND: Final = 7
COUNT_HW_STALLED_CYCLES_BACKEND: Final = 8

COUNT_SW_CPU_CLOCK: Final = 0
COUNT_SW_TASK_CLOCK: Final = 1
COUNT_SW_PAGE_FAULTS: Final = 2
COUNT_SW_CONTEXT_SWITCHES: Final = 3
COUNT_SW_CPU_MIGRATIONS: Final = 4
COUNT_SW_PAGE_FAULTS_MIN: Final = 5
COUNT_SW_PAGE_FAULTS_MAJ: Final = 6
COUNT_SW_ALIGNMENT_FAULTS: Final = 7
COUNT_SW_EMULATION_FAULTS: Final = 8
COUNT_SW_DUMMY: Final = 9

SAMPLE_IP: Final = 1
SAMPLE_TID: Final = 2
SAMPLE_TIME: Final = 4
SAMPLE_ADDR: Final = 8
SAMPLE_READ: Final = 16
SAMPLE_CALLCHAIN: Final = 32
SAMPLE_ID: Final = 64
SAMPLE_CPU: Final = 128
SAMPLE_PERIOD: Final = 256
SAMPLE_STREAM_ID: Final = 512
SAMPLE_RAW: Final = 1024

FORMAT_TOTAL_TIME_ENABLED: Final = 1
FORMAT_TOTAL_TIME_RUNNING: Final = 2
FORMAT_ID: Final = 4
FORMAT_GROUP: Final = 8

RECORD_MMAP: Final = 1
RECORD_LOST: Final = 2
RECORD_COMM: Final = 3
RECORD_EXIT: Final = 4
RECORD_THROTTLE: Final = 5
RECORD_UNTHROTTLE: Final = 6
RECORD_FORK: Final = 7
RECORD_READ: Final = 8
RECORD_SAMPLE: Final = 9
RECORD_MMAP2: Final = 10
RECORD_AUX: Final = 11
RECORD_ITRACE_START: Final = 12
RECORD_LOST_SAMPLES: Final = 13
RECORD_SWITCH: Final = 14
RECORD_SWITCH_CPU_WIDE: Final = 15
RECORD_STAT: Final = 76
RECORD_STAT_ROUND: Final = 77
RECORD_MISC_SWITCH_OUT: Final = 8192

# perf's thread-stack.h (the series after 7.3): perf.call_return flags.
CALL_RETURN_NO_CALL: Final = 1
CALL_RETURN_NO_RETURN: Final = 2
CALL_RETURN_NON_CALL: Final = 4
