# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: reading a perf.data file, perf's tools against ours.

Records a file of N `syscalls:sys_enter_getppid` samples (a C loop of N
getppid() calls under `perf record -c 1`), then, in one run on that file,
alternating run by run, times (CPU time, user + sys of each child, medians:
CPU time repeats on a busy machine far better than wall time, shown too):

* `perf script -F comm,pid,tid,cpu,time,ip > /dev/null`;
* `perf script -s` with a Python handler reading 5 members per sample
  (perf_sample_dict["sample"]: pid, tid, cpu, time, ip);
* ours in Python: `perf.session(perf.data(path), sample=callback)` with a
  callback reading sample_pid, sample_tid, sample_cpu, sample_time,
  sample_ip (benchmarks/perf_data_workload.py), under /usr/bin/python3;
* ours in Python without a callback (what the session costs by itself);
* ours in Python, columnar: `session.read_columns()` of the same five
  members in batches of 65536, each column summed with `sum()`;
* our pure-Rust drain (crates/perf-core/examples/perf_data_drain.rs: the
  session reads every sample in time order and, as perf script -F does,
  looks up each sample's thread and its comm and reads pid, tid, cpu, time,
  ip).

Then the peak RSS of ours in Python and of the Rust drain on a file and
on one 4x larger, recorded with perf's default ring (streaming: it must not
grow with the file) and with -m 16M (what perf's rounds add), and, with
valgrind, instructions per sample of each reader (the difference between a
file of 30 000 and one of 10 000 samples, divided by 20 000: counts, not
seconds, so they repeat). Prints tables and the ratios the targets name
(docs/performance.md): ours in Python >= 10x perf script -s and >= 1.5x
perf script -F in samples/s; peak RSS x1.10 at most on the 4x file.

Usage: /usr/bin/python3 benchmarks/perf_data_read.py [N] [RUNS] [--no-instructions]
(root, /usr/bin/perf, and our staged build: make install)
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF = "/usr/bin/perf"
PY = "/usr/bin/python3"

WORKLOAD = r"""
#include <stdlib.h>
#include <unistd.h>
int main(int argc, char **argv) {
    long n = atol(argv[1]);
    for (long i = 0; i < n; i++) getppid();
    return 0;
}
"""

SCRIPT = """
n = 0
acc = 0
def syscalls__sys_enter_getppid(event_name, context, common_cpu, common_secs,
                                common_nsecs, common_pid, common_comm,
                                common_callchain, __syscall_nr, perf_sample_dict):
    global n, acc
    s = perf_sample_dict["sample"]
    acc += s["pid"] + s["tid"] + s["cpu"] + s["time"] + s["ip"]
    n += 1
def trace_end():
    print("samples", n)
"""


def ours_env():
    stage = os.environ.get("PERF_TEST_ROOT", os.path.join(ROOT, "build", "stage"))
    env = dict(os.environ)
    env.update(PERF_PYTHON_SYSROOT=stage,
               PYTHONPATH=os.path.join(stage, "usr/lib/python3/dist-packages"),
               PERF_PYTHON_KERNEL_RELEASE=os.uname().release)
    return env


def timed(cmd, env=None):
    """(cpu seconds, wall seconds, peak RSS KiB, stdout) of one child.

    perf's output goes to /dev/null (stdout is b"" then). The peak RSS is
    what ours report of themselves (VmHWM: the exec'd image's own peak;
    ru_maxrss counts the forking parent's RSS too), None for perf."""
    ours = cmd[0] != PERF
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE if ours else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, env=env)
    out = p.stdout.read() if ours else b""
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        raise RuntimeError(f"{cmd[0]} {cmd[1]}: rc {p.returncode}")
    rss = json.loads(out.decode().strip().splitlines()[-1])["peak_rss_kib"] if ours else None
    return usage.ru_utime + usage.ru_stime, wall, rss, out


def record(d, work, n, name, ring=("-m", "16M")):
    path = os.path.join(d, name)
    subprocess.run([PERF, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1",
                    *ring, "-o", path, "--", work, str(n)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def instructions(cmd, env=None):
    """Instructions (callgrind Ir) of one run of cmd."""
    p = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *cmd],
                       capture_output=True, text=True, env=dict(env or os.environ, PYTHONHASHSEED="0"))
    for line in p.stderr.splitlines():
        if "refs:" in line:
            return int(line.split()[-1].replace(",", ""))
    raise RuntimeError(f"callgrind: {p.stderr[-500:]}")


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 1_000_000
    runs = int(args[1]) if len(args) > 1 else 5
    if os.geteuid() != 0 or not os.path.exists(PERF):
        print("perf_data_read: needs root and /usr/bin/perf; skipped")
        return
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "perf-core", "--example",
                    "perf_data_drain"], check=True, cwd=ROOT)
    drain = os.path.join(ROOT, "target", "release", "examples", "perf_data_drain")
    py_work = os.path.join(HERE, "perf_data_workload.py")
    env = ours_env()
    d = tempfile.mkdtemp(prefix="perf-data-bench-")
    try:
        src = os.path.join(d, "work.c")
        with open(src, "w") as f:
            f.write(WORKLOAD)
        work = os.path.join(d, "work")
        subprocess.run(["gcc", "-O2", "-o", work, src], check=True)
        small = record(d, work, n, "n.data")
        big = record(d, work, 4 * n, "4n.data")
        script = os.path.join(d, "members.py")
        with open(script, "w") as f:
            f.write(SCRIPT)

        readers = {
            "perf script -F": lambda path: timed([PERF, "script", "-F", "comm,pid,tid,cpu,time,ip",
                                                  "-i", path]),
            "perf script -s (5 members)": lambda path: timed([PERF, "script", "-s", script,
                                                              "-i", path]),
            "ours, Python (5 members)": lambda path: timed([PY, py_work, path, "members"], env),
            "ours, Python (no callback)": lambda path: timed([PY, py_work, path, "none"], env),
            "ours, read_columns (5 members)": lambda path: timed([PY, py_work, path, "columns"],
                                                                  env),
            "ours, Rust drain": lambda path: timed([drain, path, "1"]),
        }
        # One untimed round each (page cache, perf's symbol caches).
        for read in readers.values():
            read(small)
        rows = {name: ([], [], []) for name in readers}
        for _ in range(runs):
            for name, read in readers.items():
                cpu, wall, rss, _ = read(small)
                rows[name][0].append(cpu)
                rows[name][1].append(wall)
                rows[name][2].append(rss)
        out = timed([PY, py_work, small, "members"], env)[3]
        samples = json.loads(out.decode().strip().splitlines()[-1])["samples"]
        print(f"file: {n} syscalls:sys_enter_getppid samples recorded ({samples} read), "
              f"{os.path.getsize(small) >> 20} MiB; {runs} runs alternating, medians")
        print(f"{'reader':30} {'CPU s':>8} {'wall s':>8} {'ns/sample':>10} {'M samples/s':>12}")
        cpu = {}
        for name, (cpus, walls, _) in rows.items():
            cpu[name] = statistics.median(cpus)
            print(f"{name:30} {cpu[name]:8.3f} {statistics.median(walls):8.3f} "
                  f"{cpu[name] / samples * 1e9:10.0f} {samples / cpu[name] / 1e6:12.2f}")
        ours = cpu["ours, Python (5 members)"]
        print(f"ours in Python / perf script -s: {cpu['perf script -s (5 members)'] / ours:.1f}x "
              f"the samples/s (target >= 10x)")
        print(f"ours in Python / perf script -F: {cpu['perf script -F'] / ours:.2f}x "
              f"the samples/s (target >= 1.5x)")
        columns = cpu["ours, read_columns (5 members)"]
        print(f"read_columns / the 5-member callback: {ours / columns:.1f}x the samples/s; "
              f"read_columns / perf script -F: {cpu['perf script -F'] / columns:.1f}x")
        print(f"Rust drain / perf script -F: {cpu['perf script -F'] / cpu['ours, Rust drain']:.1f}x")

        # The ordered queue holds up to two of perf's rounds, and a round of
        # a -m 16M recording is up to 16 MiB a CPU, as the recording's timing
        # makes it: the peak follows the rounds, not the file. Streaming is
        # measured on files recorded with perf's default ring (rounds of
        # 512 KiB a CPU), the rounds' share shown on the -m 16M files.
        small_d = record(d, work, n, "n-default.data", ring=())
        big_d = record(d, work, 4 * n, "4n-default.data", ring=())
        for name, cmd in (("ours, Python (5 members)", lambda p: [PY, py_work, p, "members"]),
                          ("ours, read_columns", lambda p: [PY, py_work, p, "columns"]),
                          ("ours, Rust drain", lambda p: [drain, p, "1"])):
            for ring, a, b in (("default ring", small_d, big_d), ("-m 16M", small, big)):
                rss_small, rss_big = timed(cmd(a), env)[2], timed(cmd(b), env)[2]
                growth = rss_big / rss_small
                verdict = ("within" if growth <= 1.10 else "ABOVE") + " the 10 % bound"
                print(f"peak RSS, {name}, {ring}: {rss_small / 1024:.1f} MiB on the file, "
                      f"{rss_big / 1024:.1f} MiB on one 4x larger ({os.path.getsize(b) >> 20} MiB): "
                      f"x{growth:.2f}" + (f" ({verdict})" if ring == "default ring" else ""))

        if "--no-instructions" in sys.argv or shutil.which("valgrind") is None:
            return
        few, more = record(d, work, 10_000, "10k.data"), record(d, work, 30_000, "30k.data")
        counted = {
            "perf script -F": lambda p: ([PERF, "script", "-F", "comm,pid,tid,cpu,time,ip", "-i", p],
                                         None),
            "perf script -s (5 members)": lambda p: ([PERF, "script", "-s", script, "-i", p], None),
            "ours, Python (5 members)": lambda p: ([PY, py_work, p, "members"], env),
            "ours, Python (no callback)": lambda p: ([PY, py_work, p, "none"], env),
            "ours, Rust drain": lambda p: ([drain, p, "1"], None),
        }
        print("instructions per sample (callgrind, (Ir(30 000) - Ir(10 000)) / 20 000):")
        per = {}
        for name, make in counted.items():
            per[name] = (instructions(*make(more)) - instructions(*make(few))) / 20_000
            print(f"  {name:30} {per[name]:8.0f}")
        ours = per["ours, Python (5 members)"]
        print(f"  perf script -s / ours in Python: {per['perf script -s (5 members)'] / ours:.1f}x; "
              f"perf script -F / ours in Python: {per['perf script -F'] / ours:.2f}x")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
