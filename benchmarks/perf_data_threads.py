#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""session.read_columns() of columns that need no symbols, and Python
threads reading perf.data files at once (run by `make bench`, root).

Records N `syscalls:sys_enter_getppid` samples as benchmarks/perf_data_read.py
does (`perf record -c 1 -m 16M`, 72 bytes a sample), then, in children
running /usr/bin/python3 with the staged module (benchmarks/
perf_data_threads_workload.py):

* columns: `read_columns(("sample_time", "sample_pid", "sample_cpu"))` of
  the whole file in batches of 65 536, samples per CPU second (the read
  alone, after the interpreter started), medians of RUNS runs;
* threads: K copies of the file (K = 1, 2), read by one thread one after
  the other and by K threads at once in one process, wall seconds, medians
  of RUNS runs alternating; the speed-up is sequential / threads. The same
  for hashlib.sha256 of K × 64 MiB (C code that releases the GIL): what
  the machine gives two threads at that moment, the ceiling to compare
  with on a shared machine.

It prints figures and ratios; it asserts nothing about them.

    perf_data_threads.py [N [RUNS]]
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import perf_data_read as pdr  # noqa: E402


def child(env, *args):
    """The JSON line a workload child prints."""
    p = subprocess.run([pdr.PY, os.path.join(HERE, "perf_data_threads_workload.py"), *args],
                       env=env, check=True, capture_output=True, text=True)
    return json.loads(p.stdout.strip().splitlines()[-1])


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 1_000_000
    runs = int(args[1]) if len(args) > 1 else 5
    if os.geteuid() != 0 or not os.path.exists(pdr.PERF):
        print("perf_data_threads: needs root and /usr/bin/perf; skipped")
        return
    env = pdr.ours_env()
    d = tempfile.mkdtemp(prefix="perf-data-threads-")
    try:
        src = os.path.join(d, "work.c")
        with open(src, "w") as f:
            f.write(pdr.WORKLOAD)
        work = os.path.join(d, "work")
        subprocess.run(["gcc", "-O2", "-o", work, src], check=True)
        path = pdr.record(d, work, n, "a.data")
        copy = os.path.join(d, "b.data")
        shutil.copyfile(path, copy)
        child(env, "columns", path)  # untimed: the page cache
        cols = [child(env, "columns", path) for _ in range(runs)]
        samples = cols[0]["samples"]
        cpu = statistics.median(c["cpu"] for c in cols)
        print(f"file: {samples} samples, {os.path.getsize(path) >> 20} MiB; "
              f"{runs} runs, medians")
        print(f"read_columns(sample_time, sample_pid, sample_cpu): {cpu:.3f} CPU s, "
              f"{samples / cpu / 1e6:.1f} M samples/s")
        print(f"{'K':>2} {'what':10} {'one thread s':>13} {'K threads s':>12} {'speed-up':>9}")
        for k in (1, 2):
            files = [path, copy][:k]
            for what in ("perf", "sha256"):
                seq, par = [], []
                for _ in range(runs):
                    r = child(env, "threads", what, *files)
                    seq.append(r["sequential"])
                    par.append(r["threads"])
                s, p = statistics.median(seq), statistics.median(par)
                print(f"{k:>2} {what:10} {s:13.3f} {p:12.3f} {s / p:8.2f}x")
        print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
