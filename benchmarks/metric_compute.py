# SPDX-License-Identifier: GPL-2.0-only
"""`make bench`: the cost of evlist.compute_metric() against evsel.read(),
for one metric on one CPU: CPUs_utilized (cpu-clock and duration_time) of
perf.parse_metrics() on CPU 0. Three loops, each N calls, alternated run by
run, medians of RUNS: compute_metric("CPUs_utilized", 0, -1); evsel.read(0,
-1) of cpu-clock alone; and the metric by hand (both evsels read, the ratio
in Python). Prints ns per call and the ratios. Numbers go to
docs/performance.md by hand.

Usage: python3 benchmarks/metric_compute.py [RUNS] [N]   (needs the staged build)
"""

import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from bench import PY, ours_env  # noqa: E402

LOOP = r"""
import json, sys, time
import perf
n, mode = int(sys.argv[1]), sys.argv[2]
ev = perf.parse_metrics("CPUs_utilized", None, perf.cpu_map("0"), None)
ev.open()
clock, duration = ev[0], ev[1]
compute, read = ev.compute_metric, clock.read
def by_hand():
    c = clock.read(0, -1).val
    d = duration.read(0, -1).val
    return c / (d * 1e-9 * 1e9) if d else float("nan")
for _ in range(1000):
    compute("CPUs_utilized", 0, -1); read(0, -1); by_hand()
t = time.perf_counter_ns()
if mode == "compute_metric":
    for _ in range(n):
        compute("CPUs_utilized", 0, -1)
elif mode == "evsel.read":
    for _ in range(n):
        read(0, -1)
else:
    for _ in range(n):
        by_hand()
print(json.dumps({"ns": (time.perf_counter_ns() - t) / n}))
"""

MODES = ("compute_metric", "evsel.read", "by hand")


def main():
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    env = ours_env()
    times = {m: [] for m in MODES}
    for _ in range(runs):
        for mode in MODES:
            out = subprocess.run([PY, "-c", LOOP, str(n), mode], env=env,
                                 capture_output=True, text=True, check=True).stdout
            times[mode].append(json.loads(out.strip().splitlines()[-1])["ns"])
    med = {m: statistics.median(v) for m, v in times.items()}
    print(f"compute_metric vs evsel.read: CPUs_utilized on CPU 0, {runs} alternated runs of {n} calls, medians")
    for m in MODES:
        print(f"  {m:15} {med[m]:8.0f} ns/call")
    print(f"  compute_metric / evsel.read  {med['compute_metric'] / med['evsel.read']:.2f}")
    print(f"  compute_metric / by hand     {med['compute_metric'] / med['by hand']:.2f}")


if __name__ == "__main__":
    main()
