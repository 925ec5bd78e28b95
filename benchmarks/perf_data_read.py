# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: reading a perf.data file, perf's tools against our reader.

Records a file of N `syscalls:sys_enter_getppid` samples (a C loop of N
getppid() calls under `perf record -c 1`), then times, as CPU time (user +
sys of the child, medians; CPU time repeats on a busy machine far better
than wall time) and wall time:

* `perf script -F comm,pid,tid,cpu,time,ip > /dev/null`;
* `perf script -s` with a Python handler reading 5 members per sample;
* our pure-Rust drain (crates/perf-core/examples/perf_data_drain.rs: the
  session reads every sample in time order and, as perf script -F does,
  looks up each sample's thread and its comm and reads pid, tid, cpu, time,
  ip);

and our drain's peak RSS on that file and on a file 4x larger (streaming:
it must not grow with the file). Prints a table and the ratios; figures go
to docs/performance.md by hand.

Usage: /usr/bin/python3 benchmarks/perf_data_read.py [N] [RUNS]   (root)
"""

import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PERF = "/usr/bin/perf"

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


def timed(cmd, **kw):
    """(cpu seconds, wall seconds, stdout) of a child."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, **kw).stdout
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, out


def median(xs):
    return statistics.median(xs)


def record(d, work, n, name):
    path = os.path.join(d, name)
    subprocess.run([PERF, "record", "-q", "-e", "syscalls:sys_enter_getppid", "-c", "1",
                    "-m", "16M", "-o", path, "--", work, str(n)],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return path


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if os.geteuid() != 0 or not os.path.exists(PERF):
        print("perf_data_read: needs root and /usr/bin/perf; skipped")
        return
    subprocess.run(["cargo", "build", "-q", "--release", "-p", "perf-core", "--example",
                    "perf_data_drain"], check=True, cwd=ROOT)
    drain = os.path.join(ROOT, "target", "release", "examples", "perf_data_drain")
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

        def ours(path):
            cpu, wall, out = timed([drain, path, "1"])
            r = json.loads(out.decode().strip().splitlines()[-1])
            return cpu, wall, r

        # One untimed round each (page cache, perf's symbol caches).
        ours(small)
        timed([PERF, "script", "-F", "comm,pid,tid,cpu,time,ip", "-i", small])
        rows = {"perf script -F": ([], []), "ours (Rust drain)": ([], [])}
        samples = 0
        for _ in range(runs):
            cpu, wall, _ = timed([PERF, "script", "-F", "comm,pid,tid,cpu,time,ip", "-i", small])
            rows["perf script -F"][0].append(cpu)
            rows["perf script -F"][1].append(wall)
            cpu, wall, r = ours(small)
            rows["ours (Rust drain)"][0].append(cpu)
            rows["ours (Rust drain)"][1].append(wall)
            samples = r["samples"]
        cpu, wall, out = timed([PERF, "script", "-s", script, "-i", small])
        rows["perf script -s (5 members)"] = ([cpu], [wall])
        rss_small = ours(small)[2]["peak_rss_kib"]
        r_big = ours(big)[2]
        print(f"file: {n} syscalls:sys_enter_getppid samples recorded ({samples} read), "
              f"{os.path.getsize(small) >> 20} MiB; {runs} runs, medians")
        print(f"{'reader':32} {'CPU s':>8} {'wall s':>8} {'M samples/s (CPU)':>18}")
        for name, (cpus, walls) in rows.items():
            c, w = median(cpus), median(walls)
            print(f"{name:32} {c:8.3f} {w:8.3f} {samples / c / 1e6:18.2f}")
        perf_cpu = median(rows["perf script -F"][0])
        ours_cpu = median(rows["ours (Rust drain)"][0])
        print(f"ours / perf script -F: {perf_cpu / ours_cpu:.1f}x the samples/s (CPU time); "
              f"Rust time per sample {ours_cpu / samples * 1e9:.0f} ns, perf script -F "
              f"{perf_cpu / samples * 1e9:.0f} ns, perf script -s "
              f"{rows['perf script -s (5 members)'][0][0] / samples * 1e9:.0f} ns")
        growth = r_big["peak_rss_kib"] / rss_small
        print(f"peak RSS of our drain: {rss_small} KiB on the file, {r_big['peak_rss_kib']} KiB on "
              f"one 4x larger ({r_big['samples']} samples, {os.path.getsize(big) >> 20} MiB): "
              f"x{growth:.2f} ({'within' if growth <= 1.10 else 'ABOVE'} the 10 % bound)")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
