# SPDX-License-Identifier: GPL-2.0-only
"""Python API fuzzing (docs/reliability.md): hypothesis fuzzing of the
Python API (api_fuzzer.py) in a subprocess. Bounded here (a few hundred examples, well under a minute);
`make fuzz` runs it longer with fresh random examples:

    PERF_FUZZ_CALLS=5000 PERF_FUZZ_ORDERS=1000 PERF_FUZZ_RANDOM=1 \
        PERF_FUZZ_PERF_DATA_EXAMPLES=2000 python3 -m pytest tests/robustness/test_api_fuzz.py

As root with /usr/bin/perf, it records a few small perf.data files of each
kind first, which the fuzzer reads intact and corrupted.
"""

import os
import subprocess
import sys

import pytest

from robust_helpers import HERE, describe

CALLS = int(os.environ.get("PERF_FUZZ_CALLS", "200"))
ORDERS = int(os.environ.get("PERF_FUZZ_ORDERS", "40"))
STEPS = int(os.environ.get("PERF_FUZZ_STEPS", "25"))
PERF_DATA = int(os.environ.get("PERF_FUZZ_PERF_DATA_EXAMPLES", "100"))
RANDOM = os.environ.get("PERF_FUZZ_RANDOM") == "1"
PERF = "/usr/bin/perf"

# Small files of every kind the reader takes (perf record, -z, pipe mode,
# --threads, perf stat record), for the fuzzer's perf.data examples.
RECORDINGS = {
    "sw.data": (["record", "-q", "-e", "task-clock,page-faults", "-c", "50000"], "file"),
    "tp.data": (["record", "-q", "-e", "syscalls:sys_enter_read,syscalls:sys_exit_read",
                 "--switch-events"], "file"),
    "z.data": (["record", "-q", "-z", "-e", "page-faults", "-c", "1"], "file"),
    "pipe.data": (["record", "-q", "-e", "sched:sched_process_exec,page-faults", "-c", "1"], "pipe"),
    "threads.data": (["record", "-q", "--threads", "-e", "page-faults", "-c", "1"], "file"),
    "stat.data": (["stat", "record", "-e", "task-clock,page-faults"], "file"),
}


@pytest.fixture(scope="module")
def perf_data_dir(tmp_path_factory):
    """A directory of small real perf.data files (None without perf or root)."""
    if os.geteuid() != 0 or not os.access(PERF, os.X_OK):
        return None
    d = tmp_path_factory.mktemp("fuzz-perf-data")
    work = [sys.executable, "-c", "import os; [open('/etc/hostname').read() for _ in range(20)]"]
    for name, (args, how) in RECORDINGS.items():
        if how == "pipe":
            with open(d / name, "wb") as f:
                subprocess.run([PERF, *args, "-o", "-", "--", *work], stdout=f, stderr=subprocess.DEVNULL,
                               timeout=120)
        else:
            subprocess.run([PERF, *args, "-o", str(d / name), "--", *work], capture_output=True,
                           timeout=120)
    return d


def test_api_fuzz(ours, figures, perf_data_dir):
    args = ["--calls", str(CALLS), "--orders", str(ORDERS), "--steps", str(STEPS),
            "--perf-data", str(PERF_DATA)]
    if RANDOM:
        args.append("--random")
    timeout = 120 + (CALLS + ORDERS * STEPS + PERF_DATA) // 2
    env = {"PERF_FUZZ_PERF_DATA": str(perf_data_dir)} if perf_data_dir else {}
    r = ours.run((HERE / "api_fuzzer.py").read_text(), prelude=False, args=args,
                 timeout=timeout, env=env)
    assert r.rc == 0, describe(r)
    s = r.result
    figures(call_examples=s["call_examples"], order_examples=s["order_examples"],
            order_steps=s["order_steps"], calls=s["calls"], events_read=s["events_read"],
            perf_data_examples=s["perf_data_examples"], perf_data_events=s["perf_data_events"],
            seconds=s["seconds"])
    assert s["call_examples"] >= CALLS and s["order_examples"] >= ORDERS, s
    # The state machine got as far as reading records, of several kinds.
    assert s["mapped_evlists"] > 0 and s["events_read"] > 0, s
    assert len(s["event_classes"]) >= 2, s
    # Errors were ordinary exceptions only (anything else ends the run), and
    # nothing the examples dropped kept an fd open.
    assert not [k for k in s["outcomes"] if "SystemError" in k or "Panic" in k], s
    assert s["leaked_fds"] == [], s
    if perf_data_dir:
        # perf.data examples ran, intact files delivered events, and
        # corrupted ones raised OSError.
        assert s["perf_data_examples"] >= PERF_DATA and s["perf_data_events"] > 0, s
        assert s["outcomes"].get("session.process_events: OSError", 0) + \
            s["outcomes"].get("perf.session: OSError", 0) > 0, s
