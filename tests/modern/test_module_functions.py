# SPDX-License-Identifier: GPL-2.0-only
"""perf.syscall_name(), syscall_id(), arch_strerrno() and config_get() (7.3
and the series after it) against real oracles:

* the syscall tables, entry by entry, against each architecture's uapi
  headers (Linux 6.1: the host's linux-libc-dev for x86_64 and i386, Debian's
  linux-libc-dev-<arch>-cross for the others), and against the running
  kernel: the `id` raw_syscalls:sys_enter reports for a child's os.getppid()
  calls, and that every call the child makes has a name;
* the errno names against the same headers read as perf's
  arch_errno_names.sh reads them, and against Python's errno module;
* config_get() against perf 6.1's own `perf config -l` on the same files:
  syntax cases (one file as $PERF_CONFIG), and the rules between
  /etc/perfconfig (put in place in a private mount namespace) and
  ~/.perfconfig;
* bad arguments raise TypeError, ValueError or OverflowError.
"""

import errno
import os

import pytest

from modern import kernel_headers
from sidebyside import harness
from sidebyside.harness import needs_root, needs_tracefs

MACHINES = {62: "x86_64", 3: "i386", 40: "arm", 183: "aarch64", 243: "riscv64",
            21: "powerpc64", 22: "s390x"}
# Calls added after Linux 6.1 below its last number (6.1's tables end at 450).
NEWER_BELOW_450 = {62: {335: "uretprobe", 336: "uprobe"}, 243: {258: "riscv_hwprobe"},
                   22: {447: "memfd_secret"}}


def headers(fn, machine):
    try:
        return fn(machine)
    except kernel_headers.Unavailable as e:
        pytest.skip(str(e))


# -- syscall tables ----------------------------------------------------------

@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the host is not x86_64")
def test_host_default_is_x86_64(perf_ours):
    for number in range(600):
        expected = perf_ours.syscall_name(number, 62)
        for machine in (None, 0, -1, -(2 ** 40), 65536, 2 ** 40):
            assert perf_ours.syscall_name(number, machine) == expected, (number, machine)
        assert perf_ours.syscall_name(number) == expected
        assert perf_ours.syscall_name(number, elf_machine=None) == expected
        assert perf_ours.syscall_name(id=number) == expected
    assert perf_ours.syscall_id("getppid") == 110
    assert perf_ours.syscall_id("getppid", None) == perf_ours.syscall_id(name="getppid", elf_machine=62)


def test_getppid_on_every_machine(perf_ours):
    expected = {62: 110, 3: 64, 40: 64, 183: 173, 243: 173, 21: 64, 22: 64}
    for machine, number in expected.items():
        assert perf_ours.syscall_id("getppid", machine) == number
        assert perf_ours.syscall_id("getppid", elf_machine=machine) == number
        assert perf_ours.syscall_name(number, machine) == "getppid"


@pytest.mark.parametrize("machine", MACHINES, ids=MACHINES.values())
def test_table_matches_the_kernel_headers(perf_ours, machine):
    """Every call of the architecture's uapi header has its name and number
    here, and no other number up to the header's last has a name, but for
    calls newer than the header."""
    oracle = headers(kernel_headers.syscalls, machine)
    last = max(oracle)
    for number, name in oracle.items():
        assert perf_ours.syscall_name(number, machine) == name, number
        assert perf_ours.syscall_id(name, machine) == number, name
    extra = {n: perf_ours.syscall_name(n, machine) for n in range(last + 1) if n not in oracle}
    extra = {n: name for n, name in extra.items() if name is not None}
    newer = NEWER_BELOW_450.get(machine, {})
    assert extra.items() <= newer.items()
    if last == 450:  # Linux 6.1's headers (Debian 12): exactly the newer calls
        assert extra == newer
    # Calls after 6.1 (cachestat 451 ...) are here too, shared by all seven.
    assert perf_ours.syscall_name(451, machine) == "cachestat"
    assert perf_ours.syscall_name(462, machine) == "mseal"


@needs_root
@needs_tracefs
@pytest.mark.skipif(harness.tracepoint_id("raw_syscalls", "sys_enter") is None,
                    reason="needs the raw_syscalls tracepoints")
def test_getppid_number_from_the_running_kernel(ours):
    """raw_syscalls:sys_enter's `id` for a child that calls os.getppid() K
    times: syscall_id("getppid") is an id seen at least K times, the one whose
    sys_exit returned our pid, and every id the child used has a name."""
    code = """
import os, subprocess, sys, collections
K = 500
child = subprocess.Popen(["/bin/sh", "-c", 'read go; exec "$0" -c "$1"', sys.executable,
                          "import os\\nfor _ in range(%d): os.getppid()\\n" % K], stdin=subprocess.PIPE)
evlist = perf.parse_events("raw_syscalls:sys_enter,raw_syscalls:sys_exit",
                           perf.cpu_map(), perf.thread_map(child.pid))
evlist.config()
evlist.open()
evlist.mmap(pages=2048)
child.stdin.write(b"go\\n"); child.stdin.close()
assert child.wait(60) == 0
enter, exit_ppid = collections.Counter(), collections.Counter()
for ev in evlist.read_all():
    if not isinstance(ev, perf.sample_event) or ev.sample_pid != child.pid:
        continue
    if str(ev.evsel) == "evsel(raw_syscalls:sys_enter)":
        enter[ev.id] += 1
    elif ev.ret == os.getpid():
        exit_ppid[ev.id] += 1
result({"K": K, "id": perf.syscall_id("getppid"), "enter": dict(enter), "exit_ppid": dict(exit_ppid),
        "unnamed": [i for i in enter if perf.syscall_name(i) is None],
        "lost": evlist.unmatched})
"""
    r = ours.run(code, timeout=120).check()
    getppid = str(r["id"])
    assert r["enter"].get(getppid, 0) >= r["K"], r
    assert r["exit_ppid"].get(getppid, 0) >= r["K"], r
    assert max(r["exit_ppid"], key=r["exit_ppid"].get) == getppid
    assert r["unnamed"] == []


def test_unknown_numbers_names_and_machines(perf_ours):
    for machine in MACHINES:
        for number in (-1, -2 ** 31, 2 ** 31 - 1, 1000, 65535):
            assert perf_ours.syscall_name(number, machine) is None
    for name in ("nosuchcall", "", "GETPPID", "getppid "):
        with pytest.raises(ValueError, match=f"^Failed to find syscall {name}$"):
            perf_ours.syscall_id(name)
    # Machines without a table here (mips, sparc, 32-bit powerpc, ...).
    for machine in (8, 2, 20, 258):
        assert perf_ours.syscall_name(1, machine) is None
        with pytest.raises(ValueError, match="^Failed to find syscall read$"):
            perf_ours.syscall_id("read", machine)


# -- errno names -------------------------------------------------------------

@pytest.mark.parametrize("machine", MACHINES, ids=MACHINES.values())
def test_errno_names_match_the_kernel_headers(perf_ours, machine):
    oracle = headers(kernel_headers.errno_names, machine)
    assert len(oracle) >= 131
    for number in range(4200):
        assert perf_ours.arch_strerrno(number, machine) == oracle.get(number), number
        assert perf_ours.arch_strerrno(-number, machine) == oracle.get(number), number


def test_errno_names_match_python_on_the_host(perf_ours):
    names = {}
    for name in dir(errno):
        if name.startswith("E"):
            names.setdefault(getattr(errno, name), set()).add(name)
    for number in range(1, 300):
        ours = perf_ours.arch_strerrno(number)
        if number in names:
            assert ours in names[number], (number, ours, names[number])
        else:
            # Python's errno has EHWPOISON from 3.14 on.
            assert ours in (None, "EHWPOISON"), (number, ours)
    assert perf_ours.arch_strerrno(errno.ENOENT) == "ENOENT"
    assert perf_ours.arch_strerrno(-errno.EPERM, None) == "EPERM"
    assert perf_ours.arch_strerrno(err=errno.EINTR, elf_machine=62) == "EINTR"


def test_errno_edges(perf_ours):
    assert perf_ours.arch_strerrno(-2 ** 31) is None
    assert perf_ours.arch_strerrno(0) is None
    assert perf_ours.arch_strerrno(58, 21) == "EDEADLOCK"
    assert perf_ours.arch_strerrno(58, 20) == "EDEADLOCK"
    assert perf_ours.arch_strerrno(58) is None
    # mips, sparc, alpha, parisc number errors their own way; no table here.
    for machine in (8, 2, 43, 0x9026, 15):
        assert perf_ours.arch_strerrno(2, machine) is None
    assert perf_ours.arch_strerrno(2, 258) == "ENOENT"  # loongarch: generic


# -- bad arguments -----------------------------------------------------------

BAD_CALLS = [
    ("syscall_name", ("1",), {}, TypeError),
    ("syscall_name", (1.0,), {}, TypeError),
    ("syscall_name", (None,), {}, TypeError),
    ("syscall_name", (2 ** 31,), {}, OverflowError),
    ("syscall_name", (-2 ** 31 - 1,), {}, OverflowError),
    ("syscall_name", (1, "62"), {}, TypeError),
    ("syscall_name", (1, 62.0), {}, TypeError),
    ("syscall_name", (1, 2 ** 64), {}, OverflowError),
    ("syscall_name", (), {}, TypeError),
    ("syscall_name", (1, 62, 3), {}, TypeError),
    ("syscall_name", (1,), {"machine": 62}, TypeError),
    ("syscall_id", (110,), {}, TypeError),
    ("syscall_id", (b"getppid",), {}, TypeError),
    ("syscall_id", ("get\0ppid",), {}, ValueError),
    ("syscall_id", ("\udc80",), {}, UnicodeEncodeError),
    ("syscall_id", ("getppid", []), {}, TypeError),
    ("arch_strerrno", ("2",), {}, TypeError),
    ("arch_strerrno", (2 ** 31,), {}, OverflowError),
    ("arch_strerrno", (2, object()), {}, TypeError),
    ("config_get", (), {}, TypeError),
    ("config_get", (None,), {}, TypeError),
    ("config_get", (b"a.b",), {}, TypeError),
    ("config_get", ("a\0b",), {}, ValueError),
    ("config_get", ("a.b", "c"), {}, TypeError),
    ("config_get", (), {"name": "a.b"}, TypeError),
]


@pytest.mark.parametrize("function,args,kwargs,error", BAD_CALLS)
def test_bad_arguments(perf_ours, function, args, kwargs, error):
    with pytest.raises(error):
        getattr(perf_ours, function)(*args, **kwargs)


def test_bool_and_index_are_ints(perf_ours):
    class Index:
        def __index__(self):
            return 183
    assert perf_ours.syscall_name(True) == perf_ours.syscall_name(1)
    assert perf_ours.syscall_name(173, Index()) == "getppid"
