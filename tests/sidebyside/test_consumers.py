# SPDX-License-Identifier: GPL-2.0-only
"""Real consumers, run unchanged: the kernel's twatch.py and tracepoint.py
(6.1, from Debian's linux-source-6.1, fetched at test time) under our module
and under the C module, each seeing a process the test starts."""

import re
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from sidebyside import harness, kernel_scripts
from sidebyside.harness import needs_root, needs_tracefs, online_cpus

pytestmark = needs_root


@pytest.fixture(scope="session")
def scripts():
    try:
        return kernel_scripts.scripts_dir()
    except kernel_scripts.Unavailable as e:
        pytest.skip(str(e))


def perf_mmaps(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            return sum("anon_inode:[perf_event]" in line for line in f)
    except OSError:
        return 0


def start_named(comm, sleeps):
    """A process that renames itself to `comm`, then sleeps `sleeps` times
    10 ms (forever if None) and exits."""
    loop = f"range({sleeps})" if sleeps is not None else "iter(int, 1)"
    code = (f"open('/proc/self/comm', 'w').write({comm!r})\n"
            f"import time\nfor _ in {loop}:\n    time.sleep(0.01)\n")
    return subprocess.Popen(["/usr/bin/python3", "-c", code])


def run_consumer(which, script, comm, seen, timeout=60, sleeps=5):
    """Runs `script` under `which` until it has mapped its rings, then starts
    named processes (each sleeping `sleeps` times 10 ms, or until the end with
    None) and reads the script's output until seen(text, pid) for one of them
    or the timeout. Returns (rc, stdout, stderr, pid): the pid seen, else the
    last one started.

    A new process is started every second: on a busy machine the scripts,
    which read one record per CPU per poll, lag and their rings drop records.
    The timeout only bounds a failure (a run ends when the script shows the
    process), so it is generous: a busy machine only makes the script lag
    longer.
    """
    which = harness.effective(which)
    env = harness.env_for(which)
    env["PYTHONUNBUFFERED"] = "1"
    with tempfile.TemporaryDirectory() as cwd:
        # The script writes through its own open file; we read through others
        # (a shared file offset would let our reads move its writes).
        out_path, err_path = Path(cwd) / "stdout", Path(cwd) / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen([harness.python_for(which), str(script)], cwd=cwd, env=env,
                                    stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        pids, named, found = [], None, None
        try:
            deadline = time.monotonic() + timeout
            while perf_mmaps(proc.pid) < len(online_cpus()):
                assert proc.poll() is None and time.monotonic() < deadline, "the script did not start"
                time.sleep(0.05)
            while found is None and time.monotonic() < deadline:
                if named is None:
                    named = start_named(comm, sleeps)
                    pids.append(named.pid)
                    if sleeps is not None:
                        named.wait()
                    started = time.monotonic()
                time.sleep(0.1)
                text = out_path.read_text(errors="replace")
                found = next((p for p in pids if seen(text, p)), None)
                if found is None and sleeps is not None and time.monotonic() - started > 1:
                    named = None
        finally:
            if named is not None and named.poll() is None:
                named.kill()
                named.wait()
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = proc.wait()
        return (rc, out_path.read_text(errors="replace"), err_path.read_text(errors="replace"),
                found if found is not None else pids[-1])


def twatch_lines(text, pid):
    """The fork, comm and exit lines twatch prints for `pid`."""
    prefix = r"^cpu: \d+, pid: (\d+), tid: (\d+) "
    task = rf"pid: {pid}, ppid: \d+, tid: {pid}, ptid: \d+, time: \d+\}}$"
    return {
        "fork": re.search(prefix + r"\{ type: fork, " + task, text, re.M),
        "comm": re.search(prefix + rf"\{{ type: comm, pid: {pid}, tid: {pid}, comm: sbs-twatch \}}$", text, re.M),
        "exit": re.search(prefix + r"\{ type: exit, " + task, text, re.M),
    }


@pytest.mark.parametrize("which", ["ours", "c"])
def test_twatch(scripts, which):
    rc, out, err, pid = run_consumer(which, scripts / "twatch.py", "sbs-twatch",
                                     lambda text, pid: all(twatch_lines(text, pid).values()))
    lines = twatch_lines(out, pid)
    assert all(lines.values()), f"twatch did not show pid {pid}: {lines}\n{out[-3000:]}\n{err[-2000:]}"
    # sample_pid/tid of the comm and exit records are the child itself
    assert lines["comm"].groups() == (str(pid), str(pid))
    assert lines["exit"].groups() == (str(pid), str(pid))
    assert rc == -signal.SIGTERM, err
    if harness.effective(which) == "ours":
        assert err == ""
    else:
        assert "libperf: " in err


SCHED_SWITCH_LINE = re.compile(r"^time \d+ prev_comm=(.*) prev_pid=(\d+) prev_prio=\d+ "
                               r"prev_state=0x[0-9a-f]+ ==> next_comm=(.*) next_pid=(\d+) next_prio=\d+$", re.M)


def tracepoint_lines(text, pid):
    """tracepoint.py's lines about `pid` under its new name, switched out or in.
    (The script reads one record per CPU per poll: on a busy machine it lags
    and the ring drops records, so the named process keeps switching until
    the script has shown it.)"""
    lines = [m.groups() for m in SCHED_SWITCH_LINE.finditer(text)
             if str(pid) in (m.group(2), m.group(4))]
    return [g for g in lines if ("sbs-tracepnt", str(pid)) in ((g[0], g[1]), (g[2], g[3]))]


@needs_tracefs
@pytest.mark.parametrize("which", ["ours", "c"])
def test_tracepoint(scripts, which):
    rc, out, err, pid = run_consumer(which, scripts / "tracepoint.py", "sbs-tracepnt",
                                     tracepoint_lines, sleeps=None)
    assert tracepoint_lines(out, pid), \
        f"tracepoint.py did not show pid {pid}:\n{out[-3000:]}\n{err[-2000:]}"
    assert SCHED_SWITCH_LINE.fullmatch(out.splitlines()[0])
    assert rc == -signal.SIGTERM, err
    if harness.effective(which) == "ours":
        assert err == ""
    else:
        assert "libperf: " in err


def test_scripts_are_the_6_1_ones(scripts):
    text = (scripts / "tracepoint.py").read_text()
    assert "perf.tracepoint(sys, name)" in text and "perf.evsel.__init__(self," in text
    assert "evlist.read_on_cpu(cpu)" in (scripts / "twatch.py").read_text()
    assert (kernel_scripts.CACHE / "VERSION").read_text().startswith("6.1.")
