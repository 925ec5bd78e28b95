#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""pyarrow.table(cols) against session.read_columns() (run by `make bench`,
root, where a Python with pyarrow is found).

Records N `syscalls:sys_enter_getppid` samples as benchmarks/perf_data_read.py
does, then, in a child running a Python that imports pyarrow (/usr/bin/python3,
else the `python3` on PATH) with the staged module, reads the file's batches
(`read_columns()`, the default columns, 65 536 samples a batch) and makes a
`pyarrow.Table` of each (the Arrow PyCapsule interface: the numeric columns
are not copied), CPU seconds of each part summed over the batches; medians of
RUNS runs, and the ratio table / read.

It prints figures and ratios; it asserts nothing about them.

    perf_data_arrow.py [N [RUNS]]
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

CHILD = r"""
import json, sys, time
import perf, pyarrow
session = perf.session(perf.data(sys.argv[1]))
read = table = 0.0
n = rows = 0
while True:
    t0 = time.process_time()
    cols = session.read_columns()
    t1 = time.process_time()
    if not cols:
        break
    t = pyarrow.table(cols)
    t2 = time.process_time()
    read += t1 - t0
    table += t2 - t1
    n += len(cols)
    rows += t.num_rows
assert rows == n
print(json.dumps({"samples": n, "read": read, "table": table, "pyarrow": pyarrow.__version__}))
"""


def python_with_pyarrow():
    for py in (pdr.PY, shutil.which("python3")):
        if py and subprocess.run([py, "-c", "import pyarrow"], capture_output=True).returncode == 0:
            return py
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(args[0]) if args else 1_000_000
    runs = int(args[1]) if len(args) > 1 else 5
    if os.geteuid() != 0 or not os.path.exists(pdr.PERF):
        print("perf_data_arrow: needs root and /usr/bin/perf; skipped")
        return
    py = python_with_pyarrow()
    if py is None:
        print("perf_data_arrow: no Python with pyarrow; skipped")
        return
    env = pdr.ours_env()
    d = tempfile.mkdtemp(prefix="perf-data-arrow-")
    try:
        src = os.path.join(d, "work.c")
        with open(src, "w") as f:
            f.write(pdr.WORKLOAD)
        work = os.path.join(d, "work")
        subprocess.run(["gcc", "-O2", "-o", work, src], check=True)
        path = pdr.record(d, work, n, "a.data")

        def child():
            p = subprocess.run([py, "-c", CHILD, path], env=env, check=True,
                               capture_output=True, text=True)
            return json.loads(p.stdout.strip().splitlines()[-1])
        child()  # untimed: the page cache
        got = [child() for _ in range(runs)]
        read = statistics.median(g["read"] for g in got)
        table = statistics.median(g["table"] for g in got)
        print(f"file: {got[0]['samples']} samples; pyarrow {got[0]['pyarrow']} ({py}); "
              f"{runs} runs, medians")
        print(f"read_columns(): {read:.3f} CPU s; pyarrow.table(cols): {table:.4f} CPU s; "
              f"table / read = {table / read:.4f}")
        print(f"load average: {open('/proc/loadavg').read().split()[:3]}")
    finally:
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    main()
