# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: symbols and call chains through our Python session against
the real perf 6.1 (`perf script`), on files recorded here from a mixed
workload run in parallel under `perf record -e cpu-clock -F 20000`: the symbol
tests' C workload built with -g, a Python loop (/usr/bin/python3) and dd
copying /dev/zero to /dev/null in 4 KiB reads and writes (kernel time).

* Stack collapsing, on a file of >= 1 M samples with call chains (-g):
  tests/symbols/scripts/stackcollapse.py over our session against
  `perf script -s /usr/lib/perf-core/scripts/python/stackcollapse.py`; both
  outputs must be equal (sorted lines), so the two do the same work.
  Then the columnar collapser (benchmarks/symbols_workload.py columns),
  skipped with the reason when the session has no read_columns().
* Source lines, on a file of >= 100 000 samples without call chains (one
  source line a sample on both sides): srccode() of every sample
  (benchmarks/symbols_workload.py srccode) against
  `perf script -F ip,srcline` (perf 6.1 on Debian runs addr2line).
* Memory: the peak RSS of each reader's own process (VmHWM, read from
  /proc/<pid>/status when the process exits, stopped there under ptrace:
  ru_maxrss of a child counts the RSS of the parent that forked it), and
  the peaks of the processes it started (perf's addr2line) added up.

Speeds are samples per CPU second (user + sys of the reader and of the
children it waited for: perf's addr2line processes), medians of runs alternating between the
readers; wall seconds are printed too. The recordings are kept in
$PERF_BENCH_CACHE (default build/bench-cache), with the HOME whose build-id
cache they filled, so a second run does not record again (--rerecord does).

Usage: /usr/bin/python3 benchmarks/perf_data_symbols.py [--runs N]
       [--samples N] [--srccode-samples N] [--rerecord]
(root, /usr/bin/perf, gcc, and our staged build: make install)
"""

import argparse
import ctypes
import json
import os
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF = "/usr/bin/perf"
PY = "/usr/bin/python3"
PERF_COLLAPSE = "/usr/lib/perf-core/scripts/python/stackcollapse.py"
OUR_COLLAPSE = os.path.join(ROOT, "tests/symbols/scripts/stackcollapse.py")
WORKLOAD = os.path.join(HERE, "symbols_workload.py")
WORK_C = os.path.join(ROOT, "crates/perf-core/tests/data/symbols/work.c")
FREQ = 20000
NO_COLUMNS = 3  # symbols_workload.py's exit status without read_columns()

PYTHON_LOOP = """
import time
end = time.monotonic() + {seconds}
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)
while time.monotonic() < end:
    fib(18)
    sorted(str(i) for i in range(2000))
"""

# ptrace(2), to stop a reader and each process it starts as it exits and
# read its VmHWM.
PTRACE_TRACEME, PTRACE_CONT, PTRACE_SETOPTIONS = 0, 7, 0x4200
PTRACE_O_TRACEFORK, PTRACE_O_TRACEVFORK, PTRACE_O_TRACECLONE = 0x2, 0x4, 0x8
PTRACE_O_TRACEEXEC, PTRACE_O_TRACEEXIT, PTRACE_O_EXITKILL = 0x10, 0x40, 0x100000
PTRACE_EVENT_EXIT = 6
WALL = 0x40000000  # __WALL: wait for threads and traced non-children too
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


def ptrace(request, pid, data=0):
    if libc.ptrace(request, pid, None, ctypes.c_void_p(data)) == -1:
        err = ctypes.get_errno()
        raise OSError(err, f"ptrace({request}, {pid}): {os.strerror(err)}")


def status_field(pid, field):
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(field + ":"))


def run(cmd, env, out=subprocess.DEVNULL):
    """Runs cmd to its end: (CPU s, wall s, peak RSS KiB of its own process,
    exit status, peak RSS KiB of each process it started: perf's addr2line)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.DEVNULL,
                         preexec_fn=lambda: ptrace(PTRACE_TRACEME, 0))
    os.wait4(p.pid, WALL)  # stopped at the exec
    ptrace(PTRACE_SETOPTIONS, p.pid, PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_TRACECLONE
           | PTRACE_O_TRACEEXEC | PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)
    ptrace(PTRACE_CONT, p.pid)
    hwm, children, seen = None, [], {p.pid}
    while True:
        try:
            pid, status, usage = os.wait4(-1, WALL)
        except ChildProcessError:
            break
        if not os.WIFSTOPPED(status):
            if pid == p.pid:
                main_status, main_usage = status, usage
            continue
        sig = os.WSTOPSIG(status)
        if status >> 16:  # an event stop: fork, exec, exit
            if status >> 16 == PTRACE_EVENT_EXIT and status_field(pid, "Tgid") == pid:
                if pid == p.pid:
                    hwm = status_field(pid, "VmHWM")
                else:
                    children.append(status_field(pid, "VmHWM"))
            sig = 0
        elif pid not in seen and sig == signal.SIGSTOP:  # a new process or thread
            seen.add(pid)
            sig = 0
        try:
            ptrace(PTRACE_CONT, pid, sig)
        except ProcessLookupError:
            pass  # killed meanwhile
    wall = time.monotonic() - t0
    p.returncode = os.waitstatus_to_exitcode(main_status)
    cpu = main_usage.ru_utime + main_usage.ru_stime
    return cpu, wall, hwm, p.returncode, children


def ours_env(home):
    stage = os.environ.get("PERF_TEST_ROOT", os.path.join(ROOT, "build", "stage"))
    env = dict(os.environ, HOME=home)
    env.update(PERF_PYTHON_SYSROOT=stage,
               PYTHONPATH=os.path.join(stage, "usr/lib/python3/dist-packages"),
               PERF_PYTHON_KERNEL_RELEASE=os.uname().release)
    return env


def sample_count(path, env):
    out = subprocess.run([PERF, "report", "--stats", "-i", path], env=env, check=True,
                         capture_output=True, text=True).stdout
    return next((int(line.split()[2]) for line in out.splitlines()
                 if line.strip().startswith("SAMPLE events:")), 0)


def record(cache, name, samples, callchains, env, rerecord):
    """The cached recording `name` of at least `samples` samples: (path,
    samples). Records again, longer, until there are enough."""
    path = os.path.join(cache, name + ".data")
    stamp = os.path.join(cache, name + ".json")
    want = {"samples": samples, "callchains": callchains, "freq": FREQ}
    if not rerecord and os.path.exists(path) and os.path.exists(stamp):
        with open(stamp) as f:
            got = json.load(f)
        if all(got.get(k) == v for k, v in want.items()):
            return path, got["recorded"]
    work = os.path.join(cache, "work")
    py = os.path.join(cache, "loop.py")
    # Three busy processes on a shared 2-CPU machine: fewer than FREQ
    # samples a second each; measured once, then recorded again longer.
    seconds = max(3, samples // (2 * FREQ))
    while True:
        for stale in (path, path + ".old"):
            if os.path.exists(stale):
                os.remove(stale)
        with open(py, "w") as f:
            f.write(PYTHON_LOOP.format(seconds=seconds))
        loop = (f"end=$(($(date +%s)+{seconds})); "
                f"(while [ $(date +%s) -lt $end ]; do {work} 4 >/dev/null; done) & "
                f"{PY} {py} & "
                f"timeout {seconds} dd if=/dev/zero of=/dev/null bs=4096 status=none; wait")
        subprocess.run([PERF, "record", "-q", *(["-g"] if callchains else []), "-e", "cpu-clock",
                        "-F", str(FREQ), "-o", path, "--", "sh", "-c", loop], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        got = sample_count(path, env)
        if got >= samples:
            break
        seconds = int(seconds * samples / max(got, 1) * 1.1) + 1
    with open(stamp, "w") as f:
        json.dump(dict(want, recorded=got, seconds=seconds), f)
    return path, got


def is_hex(s):
    return bool(s) and all(c in "0123456789abcdef" for c in s)


def sorted_lines(path):
    with open(path, errors="replace") as f:
        return sorted(line for line in f if line.strip())


def table(title, rows, samples):
    """rows: name -> list of (cpu, wall, peak RSS, its children's peak RSS
    added up); prints medians (the highest peaks), returns them by name."""
    print(title)
    print(f"  {'reader':44} {'CPU s':>8} {'wall s':>8} {'k samples/s':>12} {'peak RSS':>10}"
          f"  {'+ children':>10}")
    med = {}
    for name, runs in rows.items():
        cpu, wall = statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)
        rss, children = max(r[2] for r in runs), max(r[3] for r in runs)
        med[name] = (cpu, wall, rss, children)
        print(f"  {name:44} {cpu:8.2f} {wall:8.2f} {samples / cpu / 1e3:12.1f} {rss / 1024:8.1f}M"
              + (f"  {children / 1024:8.1f}M" if children else ""))
    return med


def collapse(path, samples, runs, env, tmp):
    """Stack collapsing: ours (the Python collapser, then the columnar one)
    against perf script -s stackcollapse.py."""
    readers = {
        "perf script -s stackcollapse.py": [PERF, "script", "-s", PERF_COLLAPSE, "-i", path],
        "ours, stackcollapse.py over perf.session": [PY, OUR_COLLAPSE, "-i", path],
    }
    outs = {name: os.path.join(tmp, f"collapse{i}.out") for i, name in enumerate(readers)}
    rows = {name: [] for name in readers}
    for _ in range(runs):
        for name, cmd in readers.items():
            with open(outs[name], "w") as o:
                cpu, wall, rss, rc, children = run(cmd, env, o)
            if rc != 0:
                raise RuntimeError(f"{name}: exit status {rc}")
            rows[name].append((cpu, wall, rss, sum(children)))
    theirs, ours = (sorted_lines(outs[name]) for name in readers)
    if theirs != ours:
        only_p, only_o = set(theirs) - set(ours), set(ours) - set(theirs)
        raise RuntimeError(f"the collapsed stacks differ: {len(only_p)} lines only perf's "
                           f"(e.g. {sorted(only_p)[:3]}), {len(only_o)} only ours "
                           f"(e.g. {sorted(only_o)[:3]})")
    counted = sum(int(line.rsplit(" ", 1)[1]) for line in ours)
    print(f"collapsed stacks equal: {len(ours)} distinct stacks, {counted} samples")

    cols_out = os.path.join(tmp, "columns.out")
    cols_cmd = [PY, WORKLOAD, path, "columns"]
    with open(cols_out, "w") as o:
        first = run(cols_cmd, env, o)
    skipped = None
    if first[3] == NO_COLUMNS:
        skipped = "the session has no read_columns() in this build"
    elif first[3] != 0:
        skipped = f"the columnar collapser failed (exit status {first[3]})"
    elif sorted_lines(cols_out) != ours:
        raise RuntimeError("the columnar collapser's stacks differ from stackcollapse.py's")
    else:
        rows["ours, columnar (session.read_columns)"] = [
            (r[0], r[1], r[2], sum(r[4])) for r in [first] + [run(cols_cmd, env) for _ in range(runs - 1)]]

    med = table(f"stack collapsing, {samples} samples with call chains, {runs} runs, medians:",
                rows, samples)
    perf_cpu = med["perf script -s stackcollapse.py"][0]
    ours_cpu = med["ours, stackcollapse.py over perf.session"][0]
    print(f"  ours / perf script -s: {perf_cpu / ours_cpu:.1f}x the samples/s (target >= 5x), "
          f"{med['perf script -s stackcollapse.py'][1] / med['ours, stackcollapse.py over perf.session'][1]:.1f}x "
          f"in wall time")
    if skipped:
        print(f"  columnar collapser: skipped, {skipped} (target >= 20x perf script -s)")
    else:
        c = med["ours, columnar (session.read_columns)"][0]
        print(f"  columnar / perf script -s: {perf_cpu / c:.1f}x the samples/s (target >= 20x)")
    return med


def srclines(path, samples, runs, env, tmp):
    """srccode() of every sample against perf script -F ip,srcline."""
    rows = {"perf script -F ip,srcline": [], "ours, srccode() of every sample": []}
    perf_out, ours_out = os.path.join(tmp, "srcline.out"), os.path.join(tmp, "srccode.out")
    # perf's run is long (addr2line): once; ours, runs times around it.
    with open(ours_out, "w") as o:
        cpu, wall, rss, _, children = run([PY, WORKLOAD, path, "srccode"], env, o)
        rows["ours, srccode() of every sample"].append((cpu, wall, rss, sum(children)))
    with open(perf_out, "w") as o:
        cpu, wall, rss, rc, children = run([PERF, "script", "-F", "ip,srcline", "-i", path], env, o)
    if rc != 0:
        raise RuntimeError(f"perf script -F ip,srcline: exit status {rc}")
    rows["perf script -F ip,srcline"].append((cpu, wall, rss, sum(children)))
    print(f"perf script -F ip,srcline ran {len(children)} addr2line processes")
    for _ in range(runs - 1):
        cpu, wall, rss, _, children = run([PY, WORKLOAD, path, "srccode"], env)
        rows["ours, srccode() of every sample"].append((cpu, wall, rss, sum(children)))
    with open(ours_out) as f:
        ours = json.loads(f.read().strip().splitlines()[-1])
    with open(perf_out, errors="replace") as f:
        # perf prints each sample's ip as "%17x" on a line, its source line
        # (or nothing) on the next.
        perf_samples = sum(1 for line in f if len(line) == 18 and is_hex(line.strip()))
    if ours["samples"] != perf_samples:
        raise RuntimeError(f"srccode: ours read {ours['samples']} samples, perf printed {perf_samples}")
    med = table(f"source lines, {samples} samples without call chains (perf once, ours {runs} runs, "
                f"medians; {ours['with_line']} samples with a source line):", rows, samples)
    p, o = med["perf script -F ip,srcline"], med["ours, srccode() of every sample"]
    print(f"  srccode() / perf script -F ip,srcline: {p[0] / o[0]:.1f}x the samples/s (target >= 10x), "
          f"{p[1] / o[1]:.1f}x in wall time")
    return med


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--samples", type=int, default=1_000_000)
    ap.add_argument("--srccode-samples", type=int, default=100_000)
    ap.add_argument("--rerecord", action="store_true")
    args = ap.parse_args()
    if os.geteuid() != 0 or not os.path.exists(PERF) or not os.path.exists(PERF_COLLAPSE):
        print(f"perf_data_symbols: needs root, {PERF} and {PERF_COLLAPSE}; skipped")
        return
    cache = os.path.abspath(os.environ.get("PERF_BENCH_CACHE", os.path.join(ROOT, "build", "bench-cache")))
    home = os.path.join(cache, "home")
    os.makedirs(home, exist_ok=True)
    env = ours_env(home)
    work = os.path.join(cache, "work")
    if args.rerecord or not os.path.exists(work):
        subprocess.run(["gcc", "-O2", "-g", "-fno-omit-frame-pointer", WORK_C, "-o", work], check=True)
    big, n_big = record(cache, f"collapse-{args.samples}", args.samples, True, env, args.rerecord)
    src, n_src = record(cache, f"srccode-{args.srccode_samples}", args.srccode_samples, False, env,
                        args.rerecord)
    print(f"recordings in {cache}: {n_big} samples with call chains "
          f"({os.path.getsize(big) >> 20} MiB), {n_src} without ({os.path.getsize(src) >> 20} MiB); "
          f"cpu-clock -F {FREQ}, C (-g) + Python + dd")
    tmp = os.path.join(cache, "out")
    os.makedirs(tmp, exist_ok=True)
    try:
        # One untimed round of each (page cache).
        run([PERF, "script", "-F", "ip", "-i", big], env)
        run([PY, OUR_COLLAPSE, "-i", big], env)
        med_c = collapse(big, n_big, args.runs, env, tmp)
        med_s = srclines(src, n_src, args.runs, env, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("peak RSS (VmHWM of each reader's own process), ours / perf's (target < 1):")
    for what, med, p, o in (
            ("stack collapsing", med_c, "perf script -s stackcollapse.py",
             "ours, stackcollapse.py over perf.session"),
            ("source lines", med_s, "perf script -F ip,srcline", "ours, srccode() of every sample")):
        print(f"  {what}: {med[o][2] / 1024:.1f} MiB / {med[p][2] / 1024:.1f} MiB = "
              f"{med[o][2] / med[p][2]:.2f}" + (
                  f"; against perf's with its addr2line processes' added "
                  f"({(med[p][2] + med[p][3]) / 1024:.1f} MiB): "
                  f"{med[o][2] / (med[p][2] + med[p][3]):.2f}" if med[p][3] else ""))


if __name__ == "__main__":
    sys.exit(main())
