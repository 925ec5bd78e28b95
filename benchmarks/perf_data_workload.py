# SPDX-License-Identifier: GPL-2.0-only
"""What benchmarks/perf_data_read.py times of ours in Python: one
perf.session over a perf.data file.

    perf_data_workload.py FILE members   a callback reading sample_pid,
                                          sample_tid, sample_cpu, sample_time
                                          and sample_ip of every sample (the
                                          work of the perf script -s handler
                                          it is compared with)
    perf_data_workload.py FILE none      no callback
    perf_data_workload.py FILE columns   session.read_columns() of the same
                                          five members, each column summed
                                          (sum() of an array.array)

Prints {"samples": N, "checksum": ..., "peak_rss_kib": VmHWM} as one JSON line.
"""

import json
import sys

import perf

n = 0
acc = 0


def sample(s):
    global n, acc
    acc += s.sample_pid + s.sample_tid + s.sample_cpu + s.sample_time + s.sample_ip
    n += 1


def peak_rss_kib():
    """This process's peak RSS (VmHWM), in KiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmHWM:"))


COLUMNS = ("sample_pid", "sample_tid", "sample_cpu", "sample_time", "sample_ip")


def main():
    global n, acc
    path, mode = sys.argv[1], sys.argv[2]
    if mode == "columns":
        session = perf.session(perf.data(path))
        while cols := session.read_columns(COLUMNS):
            n += len(cols)
            acc += sum(sum(cols[c]) for c in COLUMNS)
        print(json.dumps({"samples": n, "checksum": acc, "peak_rss_kib": peak_rss_kib()}))
        return
    session = perf.session(perf.data(path), sample=sample if mode == "members" else None)
    session.process_events()
    print(json.dumps({"samples": n, "checksum": acc, "peak_rss_kib": peak_rss_kib()}))


if __name__ == "__main__":
    main()
