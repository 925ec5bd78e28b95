# SPDX-License-Identifier: GPL-2.0-only
"""What benchmarks/perf_data_threads.py times, in one interpreter:

    perf_data_threads_workload.py columns FILE
        read_columns(("sample_time", "sample_pid", "sample_cpu")) of FILE:
        {"samples": N, "cpu": CPU seconds of the read}
    perf_data_threads_workload.py threads perf|sha256 FILE...
        the same read of each FILE (or sha256 of 64 MiB per FILE) by one
        thread one after the other, then by a thread each at once:
        {"sequential": wall s, "threads": wall s}
"""

import hashlib
import json
import sys
import threading
import time

import perf

COLUMNS = ("sample_time", "sample_pid", "sample_cpu")
BLOB = b"\0" * (64 << 20)


def read(path):
    session = perf.session(perf.data(path))
    n = 0
    while cols := session.read_columns(COLUMNS):
        n += len(cols)
    return n


def sha(_):
    hashlib.sha256(BLOB).digest()


def main():
    if sys.argv[1] == "columns":
        t0 = time.process_time()
        n = read(sys.argv[2])
        print(json.dumps({"samples": n, "cpu": time.process_time() - t0}))
        return
    work = read if sys.argv[2] == "perf" else sha
    files = sys.argv[3:]
    t0 = time.monotonic()
    for f in files:
        work(f)
    sequential = time.monotonic() - t0
    threads = [threading.Thread(target=work, args=(f,)) for f in files]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(json.dumps({"sequential": sequential, "threads": time.monotonic() - t0}))


if __name__ == "__main__":
    main()
