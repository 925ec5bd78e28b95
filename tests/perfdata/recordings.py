# SPDX-License-Identifier: GPL-2.0-only
"""The perf.data files the perf.data tests read, recorded with the real
`perf record` / `perf stat record` (Debian's perf 6.1) once per test
session, into one temporary directory, several at a time.

Each recording is a name, the perf arguments and the workload
(tests/perfdata/workload.c, compiled once, or a shell command):

    sw        software events, per process, each with its own period
    tp_a      tracepoints, system-wide (-a), two events in one file
    syscalls  every syscalls:* tracepoint of the machine, per process
    rw        syscalls:sys_{enter,exit}_{read,write} (rw-by-pid)
    futex     syscalls:sys_{enter,exit}_futex of contending threads
    raw_sys   raw_syscalls:sys_enter (syscall-counts)
    comm      a comm change and a named thread in the middle of the run
              (-k mono, --switch-events)
    z         -z (COMPRESSED records)
    pipe      pipe mode (perf record -o - > file): tracepoints and software
    zpipe     -z in pipe mode (perf record -z -o - > file)
    threads   --threads (a directory of per-thread data files)
    nt        --no-timestamp (delivered in file order)
    stat      perf stat record, per thread
    stat_i    perf stat record -a -A -I 100 --interval-count 3 (per CPU,
              interval rounds; the workload ends once the file holds the
              three rounds, so there are three on any schedule)
    big       200 000 syscalls:sys_enter_getppid samples (Ctrl-C while reading)
    callchain -g: software events with call chains (kernel and user frames)
    exec      -g: a shell that spins, forks a child that execs the workload,
              then execs the workload itself (a thread's comm changes from
              sh to workload between two of its samples)
    twins     -g: two programs with the same code at the same addresses and
              other symbol names (tests/perfdata/twins.c), at once and one
              exec'ing the other, without address randomization

`Recordings.path(name)` waits for that file (recording it if no one has
started it) and returns its path; a recording that fails raises
`Unavailable` with perf's message, which the fixtures turn into a skip.
"""

import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import threading
from pathlib import Path

PERF = "/usr/bin/perf"
HERE = Path(__file__).resolve().parent

SW_EVENTS = ("cpu-clock/period=100000/,task-clock/period=100000/,"
             "page-faults/period=1/,context-switches/period=1/")
RW_EVENTS = ("syscalls:sys_enter_read,syscalls:sys_exit_read,"
             "syscalls:sys_enter_write,syscalls:sys_exit_write")

# name -> (perf arguments before -o, workload (a list: "workload" is the
# compiled workload, "output" the file perf writes), how the output is
# written)
SPECS = {
    "sw": (["record", "-e", SW_EVENTS, "-P", "--sample-cpu"], ["workload", "sw"], "file"),
    # The filter keeps read and close (sleep makes some as it starts), not
    # write: a busy machine's `yes > /dev/null` makes a million a second.
    "tp_a": (["record", "-a", "-e", "sched:sched_switch", "-e", "raw_syscalls:sys_enter",
              "--filter", "id == 0 || id == 3"], ["sleep", "0.05"], "file"),
    "syscalls": (["record", "-e", "syscalls:*"], ["workload", "rw"], "file"),
    "rw": (["record", "-e", RW_EVENTS], ["workload", "rw"], "file"),
    "futex": (["record", "-e", "syscalls:sys_enter_futex,syscalls:sys_exit_futex"],
              ["workload", "futex"], "file"),
    "raw_sys": (["record", "-e", "raw_syscalls:sys_enter"], ["workload", "sw"], "file"),
    "comm": (["record", "-k", "mono", "--switch-events", "-e", "task-clock/period=200000/",
              "--sample-cpu"],
             ["workload", "comm"], "file"),
    "z": (["record", "-z", "-e", SW_EVENTS, "-P", "--sample-cpu"], ["workload", "sw"], "file"),
    "pipe": (["record", "-e", RW_EVENTS + ",page-faults/period=1/"], ["workload", "rw"], "pipe"),
    "zpipe": (["record", "-z", "-e", SW_EVENTS, "-P", "--sample-cpu"], ["workload", "sw"], "pipe"),
    "threads": (["record", "--threads", "-e", SW_EVENTS, "-P", "--sample-cpu"],
                ["workload", "sw"], "file"),
    # Data address, physical address, weight (WEIGHT_STRUCT in 6.1) and
    # data source sampled.
    "mem": (["record", "-d", "--phys-data", "-W", "-e", "page-faults/period=1/"],
            ["workload", "sw"], "file"),
    "nt": (["record", "--no-timestamp", "-e", "page-faults/period=1/"], ["workload", "sw"], "file"),
    "stat": (["stat", "record", "-e", "task-clock,context-switches,page-faults"],
             ["workload", "sw"], "file"),
    # perf ends its -I loop after three rounds and then waits for the
    # workload, which waits for the third round in the file: a workload that
    # slept 0.35 s could end before a late-woken perf wrote three.
    "stat_i": (["stat", "record", "-a", "-A", "-I", "100", "--interval-count", "3",
                "-e", "task-clock,context-switches"],
               ["workload", "rounds", "output", "3"], "file"),
    "callchain": (["record", "-g", "-e", "cpu-clock/period=100000/,page-faults/period=1/",
                   "--sample-cpu"], ["workload", "sw"], "file"),
    # The shell's loop gives samples of `sh` before each exec; "$0" is the
    # workload's path.
    "exec": (["record", "-g", "-e", "cpu-clock/period=100000/"],
             ["sh", "-c", 'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; "$0" sw & wait; '
              'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done; exec "$0" sw', "workload"],
             "file"),
    # "$0" and "$1" are the twins: one process runs alpha then execs gamma,
    # another runs gamma meanwhile.
    "twins": (["record", "-g", "-e", "cpu-clock/period=100000/"],
              ["setarch", "-R", "sh", "-c", '"$0" "$1" & "$1"; wait', "twin_a", "twin_b"],
              "file"),
    "big": (["record", "-e", "syscalls:sys_enter_getppid", "-c", "1", "-m", "16M"],
            ["workload", "getppid", "200000"], "file"),
}


class Unavailable(Exception):
    """A recording this machine cannot make (the reason is the message)."""


def unavailable_reason():
    """Why nothing can be recorded here, or None."""
    if os.geteuid() != 0:
        return "needs root (perf record of tracepoints and system-wide events)"
    if not os.access(PERF, os.X_OK):
        return f"needs {PERF} (Debian's linux-perf)"
    if shutil.which("gcc") is None:
        return "needs gcc for the workload"
    if not os.path.isdir("/sys/kernel/tracing/events") and \
            not os.path.isdir("/sys/kernel/debug/tracing/events"):
        return "needs tracefs (scripts/setup.sh mounts it)"
    return None


class Recordings:
    """The files of one test session, recorded on first use, three at a
    time (recording syscalls:* takes ~25 s: it enables ~700 tracepoints)."""

    def __init__(self, directory):
        self.dir = Path(directory)
        self._lock = threading.Lock()
        self._futures = {}
        self._requested = set()
        self._procs = {}
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=3)
        self._workload = None

    def workload(self):
        """The compiled workload."""
        with self._lock:
            if self._workload is None:
                exe = self.dir / "workload"
                p = subprocess.run(["gcc", "-O2", "-pthread", "-o", str(exe), str(HERE / "workload.c")],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise Unavailable(f"gcc: {p.stderr.strip()}")
                self._workload = exe
            return self._workload

    def twin(self, name):
        """One of tests/perfdata/twins.c's programs (`twin_a`: alpha_spin,
        `twin_b`: gamma_spin), compiled once."""
        exe = self.dir / name
        with self._lock:
            if not exe.exists():
                spin = {"twin_a": "alpha_spin", "twin_b": "gamma_spin"}[name]
                # The linker's build id hashes the code, not the symbol
                # names: the twins' would be one (one DSO to perf).
                build_id = hashlib.sha1(spin.encode()).hexdigest()
                p = subprocess.run(["gcc", "-O1", "-no-pie", "-fno-omit-frame-pointer",
                                    f"-DSPIN={spin}", f"-Wl,--build-id=0x{build_id}",
                                    "-o", str(exe), str(HERE / "twins.c")],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    raise Unavailable(f"gcc: {p.stderr.strip()}")
            return exe

    def start(self, *names):
        """Starts recording `names` in the background."""
        with self._lock:
            for name in names:
                if name not in self._futures:
                    self._futures[name] = self._pool.submit(self._record, name)

    def path(self, name):
        """The recorded file (or directory) `name`."""
        self.start(name)
        with self._lock:
            self._requested.add(name)
        return self._futures[name].result()

    def shutdown(self):
        """Ends the recordings started ahead that no test asked for."""
        with self._lock:
            for name, proc in self._procs.items():
                if name not in self._requested and proc.poll() is None:
                    proc.kill()
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _run(self, name, argv, **kw):
        """(returncode, stderr) of one perf run, which shutdown() may end."""
        proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, cwd=self.dir, **kw)
        with self._lock:
            self._procs[name] = proc
        try:
            _, err = proc.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            proc.kill()
            _, err = proc.communicate()
        return proc.returncode, err

    def _record(self, name):
        args, workload, output = SPECS[name]
        out = self.dir / f"{name}.data"
        work = [str(self.workload()) if w == "workload" else str(out) if w == "output" else
                str(self.twin(w)) if w.startswith("twin_") else w for w in workload]
        if output == "pipe":
            with open(out, "wb") as f:
                rc, err = self._run(name, [PERF, *args, "-q", "-o", "-", "--", *work], stdout=f)
        else:
            quiet = ["-q"] if args[0] == "record" else []
            rc, err = self._run(name, [PERF, *args[:1], *quiet, *args[1:], "-o", str(out), "--", *work],
                                stdout=subprocess.DEVNULL)
        if rc != 0 or not out.exists():
            raise Unavailable(f"perf {' '.join(args)}: rc {rc}: {err.strip()[-500:]}")
        return out
