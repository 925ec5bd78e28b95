# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: events decoded per second through the read_on_cpu loop,
ours and the kernel's C module, on the same interpreter (/usr/bin/python3)
and workload, alternated run by run; then our batch readers (read_all, a
list of event objects, and read_columns, array columns). Each mode does the
same work with what it reads (benchmarks/read_on_cpu.py), for two kinds of
work: keeping the latest sample_time, and counting only.
Prints medians and ratios. Numbers go to docs/performance.md by hand.

Usage: python3 benchmarks/bench.py [RUNS]   (needs the staged build: make install)
"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PY = "/usr/bin/python3"


def ours_env():
    stage = os.environ.get("PERF_TEST_ROOT", os.path.join(ROOT, "build", "stage"))
    env = dict(os.environ)
    env.update(PERF_PYTHON_SYSROOT=stage,
               PYTHONPATH=os.path.join(stage, "usr/lib/python3/dist-packages"),
               PERF_PYTHON_KERNEL_RELEASE=os.uname().release)
    return env


def c_env():
    env = {k: v for k, v in os.environ.items() if not k.startswith("PERF_PYTHON")}
    env.pop("PYTHONPATH", None)
    return env


def run(env, mode, work):
    env = dict(env, BENCH_MODE=mode, BENCH_WORK=work)
    out = subprocess.run([PY, os.path.join(HERE, "read_on_cpu.py")], env=env,
                         capture_output=True, text=True, check=True).stdout
    r = json.loads(out.strip().splitlines()[-1])
    if r["lost"]:
        print(f"  (a run lost {r['lost']} records)", file=sys.stderr)
    return r["events"] / r["seconds"], r["module"]


WORKS = {
    "time": "count the samples, keep the latest sample_time (read_columns: max() of the column)",
    "count": "count the samples (read_columns: no column)",
}


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    modules = {}
    print(f"workload: syscalls:sys_enter_getppid samples, {runs} alternated runs, /usr/bin/python3, "
          "one untimed round first")
    for work, what in WORKS.items():
        rates = {"c": [], "ours": [], "batch": [], "columns": []}
        ratios = []
        for _ in range(runs):
            c, modules["c"] = run(c_env(), "classic", work)
            o, modules["ours"] = run(ours_env(), "classic", work)
            b, _ = run(ours_env(), "batch", work)
            k, _ = run(ours_env(), "columns", work)
            for key, value in zip(rates, (c, o, b, k)):
                rates[key].append(value)
            ratios.append((o / c, b / o, b / c, k / o, k / c))
        med = {k: statistics.median(v) for k, v in rates.items()}
        r = [statistics.median(x[i] for x in ratios) for i in range(5)]
        print(f"\nwork per event: {what}")
        print(f"  C module   ({modules['c']}): read_on_cpu loop {med['c'] / 1e6:.2f} M events/s (median)")
        print(f"  ours       ({modules['ours']}): read_on_cpu loop {med['ours'] / 1e6:.2f} M events/s")
        print(f"  ours batch (evlist.read_all()): {med['batch'] / 1e6:.2f} M events/s")
        print(f"  ours columns (evlist.read_columns()): {med['columns'] / 1e6:.2f} M events/s")
        print(f"  ratio ours/C (read_on_cpu): {r[0]:.2f}x   read_all/ours classic: {r[1]:.2f}x   "
              f"read_all/C: {r[2]:.2f}x")
        print(f"  ratio read_columns/ours classic: {r[3]:.2f}x   read_columns/C: {r[4]:.2f}x")


if __name__ == "__main__":
    main()
