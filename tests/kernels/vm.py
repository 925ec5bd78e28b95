# SPDX-License-Identifier: GPL-2.0-only
"""Boots a real Debian kernel under QEMU and runs one command in it.

virtme-ng (`vng`) boots the kernel with the host's files as the guest's root
(read-only over 9p, with tmpfs overlays on /etc, /usr, /var, /tmp...), so the
guest sees this checkout, its builds and the host's /usr/bin/python3 at the
same paths. QEMU runs under TCG (`--disable-kvm`): KVM guests hang on the
project's machines. The images come from scripts/kernels.sh, which fetches
and unpacks Debian's packages into a cache outside the checkout.

The command's output does not travel over the console: each run has its own
host directory, shared read-write with the guest, where the guest writes
`booted` first, then the command's `stdout`, `stderr` and exit status (`rc`).
So a run tells a guest that never reached the command (`BootFailed`: QEMU or
the kernel failed, or the boot took longer than `boot_timeout`) from a command
that failed (`GuestRun.rc != 0`) or hung (`GuestRun.timed_out`).
"""

import atexit
import concurrent.futures
import dataclasses
import os
import queue
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
KERNELS_SH = REPO / "scripts" / "kernels.sh"
KERNELS_TXT = REPO / "tests" / "kernels" / "kernels.txt"
# How long a boot may take before the command starts, and the command:
# generous, because TCG on a busy 2-core machine is slow (docs/kernels.md).
BOOT_TIMEOUT = 300
TIMEOUT = 900
# One host thread runs all of a guest's CPUs, in turn. With a thread per CPU
# (QEMU's default multi-threaded TCG; Debian's QEMU 7.2), a CPU now and then
# runs an instruction the kernel has just patched as it was before: a static
# key flipped at boot or by perf_event_open (perf_sched_events, whose branches
# sit in __schedule) leaves a stale int3 or half a jump, and the guest panics
# ("Oops: int3" in __schedule, or an oops in hrtimer_start_range_ns during
# boot). Measured on 6.12.111 with 3 CPUs: 2 panics in 8 boots with a thread
# per CPU, none in 16 boots (80 runs of the honesty checks) with one thread
# (docs/kernels.md, "What was found").
QEMU_OPTS = "-accel tcg,thread=single"
# The headline of a kernel oops on the guest's console, and how many of its
# lines an account of the run keeps when no end-of-trace line follows.
_OOPS = re.compile(r"\] (Oops: |BUG: |general protection fault|Kernel panic - not syncing)")
OOPS_LINES = 80
# The vng processes running now: stopped at exit, so that a test run
# interrupted while guests boot on other threads (test_quick.py) leaves no
# QEMU behind.
_running = set()


class Unavailable(Exception):
    """The guest cannot be run here: a tool or the kernel image is missing."""


class BootFailed(Unavailable):
    """QEMU started but the guest never reached the command."""


@dataclasses.dataclass
class GuestRun:
    """What one boot gave: the command's exit status and output, and how long
    the boot and the whole run took (seconds)."""

    release: str
    cpus: int
    rc: "int | None"
    stdout: str
    stderr: str
    console: str
    boot_seconds: float
    seconds: float
    timed_out: bool
    files: dict

    def oops(self):
        """The guest kernel's first oops (first_oops of its console)."""
        return first_oops(self.console)

    def state(self):
        """'rc N', 'timed out' or 'kernel oops': how the command ended."""
        if self.rc is None and self.oops():
            return "kernel oops"
        return "timed out" if self.timed_out else f"rc {self.rc}"

    def describe(self):
        """A multi-line account of the run, for assertion messages."""
        oops = self.oops()
        console = f"--- kernel oops:\n{oops}" if oops else f"--- console (end):\n{self.console[-2000:]}"
        return (f"{self.release} ({self.cpus} CPUs): {self.state()} after {self.seconds:.0f} s"
                f" (boot {self.boot_seconds:.0f} s)\n--- stdout:\n{self.stdout[-3000:]}"
                f"\n--- stderr:\n{self.stderr[-3000:]}\n{console}")


def first_oops(console):
    """The kernel's first oops on `console`, from its headline to the end of
    its trace (at most OOPS_LINES lines); '' if it had none."""
    lines = console.splitlines()
    for i, line in enumerate(lines):
        if _OOPS.search(line):
            end = next((j for j in range(i, len(lines)) if "---[ end trace" in lines[j]), None)
            return "\n".join(lines[i:min(i + OOPS_LINES, len(lines)) if end is None else end + 1])
    return ""


def releases():
    """The kernel releases tests/kernels/kernels.txt lists, in its order."""
    out = []
    for line in KERNELS_TXT.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            out.append(line)
    return out


def _vng():
    """virtme-ng beside the interpreter running the tests, else on PATH."""
    beside = Path(sys.executable).parent / "vng"
    return str(beside) if beside.exists() else shutil.which("vng")


def missing_tools():
    """None if this machine can boot guests, else what is missing."""
    needs = {"vng": _vng(), "qemu-system-x86_64": shutil.which("qemu-system-x86_64"),
             "busybox": shutil.which("busybox"), "depmod": shutil.which("depmod")}
    missing = [name for name, path in needs.items() if not path]
    if missing:
        return f"{', '.join(missing)} not installed (scripts/setup.sh installs them)"
    return None


def kernel_dir(release):
    """The unpacked image of `release` in the cache, fetched if needed."""
    p = subprocess.run([str(KERNELS_SH), release], capture_output=True, text=True)
    if p.returncode != 0:
        raise Unavailable(f"no image of {release}: {(p.stderr or p.stdout).strip()[-500:]}")
    path = subprocess.run([str(KERNELS_SH), "--path", release], capture_output=True,
                          text=True, check=True).stdout.strip()
    return Path(path)


def _read(path):
    try:
        return path.read_text(errors="replace")
    except OSError:
        return ""


def _stop(proc):
    """Ends vng and the QEMU it started (their own process group)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.wait()


@atexit.register
def _stop_running():
    for proc in list(_running):
        _stop(proc)


def boot_all(releases, boot_one, *, at_once):
    """Runs `boot_one(release)` for every release, `at_once` at a time, in
    the order given, on daemon threads (an interrupted run does not wait
    for them; the QEMUs they started are stopped at exit). Returns
    {release: concurrent.futures.Future} of the results."""
    futures = {release: concurrent.futures.Future() for release in releases}
    todo = queue.SimpleQueue()
    for release in releases:
        todo.put(release)

    def work():
        while True:
            try:
                release = todo.get_nowait()
            except queue.Empty:
                return
            future = futures[release]
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(boot_one(release))
                except BaseException as e:  # pytest's skip and fail are BaseExceptions
                    future.set_exception(e)

    for _ in range(at_once):
        threading.Thread(target=work, daemon=True).start()
    return futures


def boot(release, command, *, cpus=2, memory="2G", files=None, overlays=(),
         boot_timeout=BOOT_TIMEOUT, timeout=TIMEOUT):
    """Boots `release` with `cpus` CPUs and runs the shell `command` in it as
    root, from its run directory (exported as $RUN, readable and writable by
    the guest; `files` {name: text} are put there first). `overlays` are host
    directories the guest may write to without the host seeing it. The boot
    may take `boot_timeout` seconds, the command `timeout` more.

    Returns a GuestRun, whose `files` holds the text of every other file the
    command left in $RUN. Raises Unavailable if a tool or the image is
    missing, BootFailed if the guest never reached the command.
    """
    reason = missing_tools()
    if reason:
        raise Unavailable(reason)
    image = kernel_dir(release) / "boot" / f"vmlinuz-{release}"
    run = Path(tempfile.mkdtemp(prefix="perf-guest-"))
    try:
        for name, text in (files or {}).items():
            (run / name).write_text(text)
        (run / "guest.sh").write_text(
            f"RUN={shlex.quote(str(run))}; export RUN\n"
            'echo booted > "$RUN/booted"\n'
            'cd "$RUN" || exit 1\n'
            f'( {command}\n) > "$RUN/stdout" 2> "$RUN/stderr" < /dev/null\n'
            'echo $? > "$RUN/rc.tmp" && mv "$RUN/rc.tmp" "$RUN/rc"\n')
        cmd = [_vng(), "--run", str(image), "--disable-kvm", "--disable-microvm", "--verbose",
               "--cpus", str(cpus), "--memory", memory, f"--rwdir={run}",
               *(f"--overlay-rwdir={d}" for d in overlays),
               "--exec", f"sh {shlex.quote(str(run / 'guest.sh'))}", f"--qemu-opts={QEMU_OPTS}"]
        return _watch(release, cpus, cmd, run, boot_timeout, timeout, set(files or {}))
    finally:
        shutil.rmtree(run, ignore_errors=True)


def _watch(release, cpus, cmd, run, boot_timeout, timeout, given):
    console_path = run / "console.log"
    start = time.monotonic()
    with open(console_path, "w") as console:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=console,
                                stderr=subprocess.STDOUT, start_new_session=True)
        _running.add(proc)
        try:
            booted_at, timed_out = _wait(proc, run, start, boot_timeout, timeout)
        except BaseException:  # the test run interrupted
            _stop(proc)
            raise
        finally:
            _running.discard(proc)
    seconds = time.monotonic() - start
    console_text = _read(console_path)
    if booted_at is None:
        why = f"within {boot_timeout} s" if timed_out else f"(vng exit status {proc.returncode})"
        oops = first_oops(console_text)
        raise BootFailed(f"{release} did not boot {why}:\n"
                         + (f"its kernel oopsed:\n{oops}" if oops else console_text[-2000:]))
    rc_text = _read(run / "rc").strip()
    skip = given | {"guest.sh", "booted", "stdout", "stderr", "rc", "rc.tmp", "console.log"}
    files = {p.name: _read(p) for p in run.iterdir() if p.is_file() and p.name not in skip}
    return GuestRun(release=release, cpus=cpus, rc=int(rc_text) if rc_text.isdigit() else None,
                    stdout=_read(run / "stdout"), stderr=_read(run / "stderr"),
                    console=console_text, boot_seconds=booted_at, seconds=seconds,
                    timed_out=timed_out, files=files)


def _wait(proc, run, start, boot_timeout, timeout):
    """Waits for vng to end, stopping it when the boot or the command takes
    too long. Returns (seconds until `booted` appeared or None, timed out)."""
    booted_at = None
    while proc.poll() is None:
        time.sleep(0.5)
        elapsed = time.monotonic() - start
        if booted_at is None and (run / "booted").exists():
            booted_at = elapsed
        limit = boot_timeout if booted_at is None else booted_at + timeout
        if elapsed > limit:
            _stop(proc)
            return booted_at, True
    if booted_at is None and (run / "booted").exists():
        booted_at = time.monotonic() - start
    return booted_at, False
