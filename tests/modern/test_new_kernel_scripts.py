# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's 6.15+ tracepoint.py and 6.16+ counting.py
(tools/perf/python/), run unchanged under our module: they print sensible counts and
sched_switch lines for software events and tracepoints on this machine.
The scripts come from a Debian linux-source package (modern/new_scripts.py)."""

import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


from modern import new_scripts
from sidebyside.harness import needs_root, needs_tracefs, online_cpus

pytestmark = needs_root

COUNT_LINE = re.compile(r"^For evsel\((?P<name>[^)]+)\) val: (?P<val>\d+) enable: (?P<ena>\d+) "
                        r"run: (?P<run>\d+)$")


def counting_rows(stdout):
    """[(name, val, ena, run)] of counting.py's lines; every line must be one."""
    rows = []
    for line in stdout.splitlines():
        m = COUNT_LINE.match(line)
        assert m, f"unexpected counting.py line: {line!r}"
        rows.append((m["name"], int(m["val"]), int(m["ena"]), int(m["run"])))
    return rows


def test_scripts_are_the_new_ones(new_kernel_scripts):
    tp = (new_kernel_scripts / "tracepoint.py").read_text()
    assert 'perf.parse_events("sched:sched_switch", cpus, threads)' in tp
    assert "evlist.config()" in tp and "ev.tracking = False" in tp
    counting = (new_kernel_scripts / "counting.py").read_text()
    assert "evsel.read(cpu, thread)" in counting and "evlist.close()" in counting
    package, version, _ = new_scripts.source().split(" ", 2)
    major, minor = (int(x) for x in re.match(r"(\d+)\.(\d+)", version).groups())
    assert (major, minor) >= new_scripts.MIN_VERSION, package


def test_counting_default_events(new_kernel_scripts, run_ours_file):
    """Default -e cpu-clock,task-clock: parse_events without maps, so open()
    counts system-wide: one line per evsel, CPU and thread (-1)."""
    p = run_ours_file(new_kernel_scripts / "counting.py")
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    rows = counting_rows(p.stdout)
    ncpus = len(online_cpus())
    assert [r[0] for r in rows] == ["cpu-clock"] * ncpus + ["task-clock"] * ncpus
    for name, val, ena, run in rows:
        # Software events are never multiplexed: running == enabled, and the
        # loop of 100000 iterations keeps them enabled for a millisecond or more.
        assert run == ena and ena > 1_000_000, (name, val, ena, run)
        if name == "cpu-clock":
            # A CPU's clock runs the whole time the counter is enabled.
            assert 0.9 * ena <= val <= 1.01 * ena, (name, val, ena)
        else:
            # Time of the tasks on that CPU: at most the enabled time.
            assert 0 < val <= 1.01 * ena, (name, val, ena)


def test_counting_other_software_events(new_kernel_scripts, run_ours_file):
    p = run_ours_file(new_kernel_scripts / "counting.py", "-e", "context-switches,page-faults,task-clock")
    assert p.returncode == 0, p.stderr
    rows = counting_rows(p.stdout)
    ncpus = len(online_cpus())
    names = ["context-switches"] * ncpus + ["page-faults"] * ncpus + ["task-clock"] * ncpus
    assert [r[0] for r in rows] == names
    assert all(run == ena > 0 for _, _, ena, run in rows), rows
    # The script's own loop runs on one of the CPUs.
    assert sum(val for name, val, _, _ in rows if name == "task-clock") > 1_000_000


def test_counting_a_hardware_event_fails_clearly(new_kernel_scripts, run_ours_file):
    """No PMU here: the script ends with a FileNotFoundError that suggests a
    software event, not a crash."""
    p = run_ours_file(new_kernel_scripts / "counting.py", "-e", "cycles")
    assert p.returncode == 1, (p.returncode, p.stderr)
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("FileNotFoundError: [Errno 2] ") and "cpu-clock" in last, p.stderr


SCHED_SWITCH_LINE = re.compile(r"^time (?P<time>\d+) prev_comm=(?P<prev_comm>.*) prev_pid=(?P<prev_pid>\d+) "
                               r"prev_prio=(?P<prev_prio>\d+) prev_state=0x(?P<prev_state>[0-9a-f]+) ==> "
                               r"next_comm=(?P<next_comm>.*) next_pid=(?P<next_pid>\d+) "
                               r"next_prio=(?P<next_prio>\d+)$")
SETPROCTITLE_HINT = "Install the setproctitle python package to help with top and friends"


def perf_mmaps(pid):
    try:
        with open(f"/proc/{pid}/maps") as f:
            return sum("anon_inode:[perf_event]" in line for line in f)
    except OSError:
        return 0


def sleeper(comm):
    """A process named `comm` that sleeps 10 ms at a time until killed."""
    code = (f"open('/proc/self/comm', 'w').write({comm!r})\n"
            "import time\nwhile True:\n    time.sleep(0.01)\n")
    return subprocess.Popen([sys.executable, "-c", code])


@needs_tracefs
def test_tracepoint_script(new_kernel_scripts, ours_env):
    """tracepoint.py (parse_events, tracking=False, config(), sample_type and
    read_format setters, enable(), tracepoint fields) shows a process of ours
    switching out asleep and back in."""
    comm = "mdrn-tracepnt"
    with tempfile.TemporaryDirectory() as cwd:
        out_path, err_path = Path(cwd) / "stdout", Path(cwd) / "stderr"
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            proc = subprocess.Popen([sys.executable, str(new_kernel_scripts / "tracepoint.py")], cwd=cwd,
                                    env=ours_env, stdout=out, stderr=err, stdin=subprocess.DEVNULL)
        child = None
        try:
            deadline = time.monotonic() + 30
            while perf_mmaps(proc.pid) < len(online_cpus()):
                assert proc.poll() is None and time.monotonic() < deadline, err_path.read_text()
                time.sleep(0.05)
            child = sleeper(comm)
            while time.monotonic() < deadline:
                time.sleep(0.2)
                text = out_path.read_text(errors="replace")
                if f"prev_comm={comm} prev_pid={child.pid}" in text and \
                        f"next_comm={comm} next_pid={child.pid}" in text:
                    break
        finally:
            if child is not None:
                child.kill()
                child.wait()
            proc.send_signal(signal.SIGTERM)
            rc = proc.wait(10)
        out, err = out_path.read_text(errors="replace"), err_path.read_text(errors="replace")
    assert rc == -signal.SIGTERM, err
    assert err == ""
    lines = [line for line in out.splitlines() if line != SETPROCTITLE_HINT]
    matches = [SCHED_SWITCH_LINE.match(line) for line in lines]
    assert lines and all(matches), [line for line, m in zip(lines, matches) if not m][:5]
    mine_out = [m for m in matches if m["prev_comm"] == comm and int(m["prev_pid"]) == child.pid]
    mine_in = [m for m in matches if m["next_comm"] == comm and int(m["next_pid"]) == child.pid]
    assert mine_out and mine_in, f"pid {child.pid} not shown:\n{out[-3000:]}"
    # It sleeps: switched out in TASK_INTERRUPTIBLE (prev_state 0x1), at the
    # normal priority of a nice-0 task.
    assert any(int(m["prev_state"], 16) == 1 for m in mine_out)
    assert {int(m["prev_prio"]) for m in mine_out} == {120}
    assert all(int(m["time"]) > 0 for m in matches)
