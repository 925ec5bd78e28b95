# SPDX-License-Identifier: GPL-2.0-only
"""Python API fuzzing (docs/reliability.md): hypothesis fuzzing of the
Python API (api_fuzzer.py) in a subprocess. Bounded here (a few hundred examples, well under a minute);
`make fuzz` runs it longer with fresh random examples:

    PERF_FUZZ_CALLS=5000 PERF_FUZZ_ORDERS=1000 PERF_FUZZ_RANDOM=1 \
        python3 -m pytest tests/robustness/test_api_fuzz.py
"""

import os

from robust_helpers import HERE, describe

CALLS = int(os.environ.get("PERF_FUZZ_CALLS", "200"))
ORDERS = int(os.environ.get("PERF_FUZZ_ORDERS", "40"))
STEPS = int(os.environ.get("PERF_FUZZ_STEPS", "25"))
RANDOM = os.environ.get("PERF_FUZZ_RANDOM") == "1"


def test_api_fuzz(ours, figures):
    args = ["--calls", str(CALLS), "--orders", str(ORDERS), "--steps", str(STEPS)]
    if RANDOM:
        args.append("--random")
    timeout = 120 + (CALLS + ORDERS * STEPS) // 2
    r = ours.run((HERE / "api_fuzzer.py").read_text(), prelude=False, args=args,
                 timeout=timeout)
    assert r.rc == 0, describe(r)
    s = r.result
    figures(call_examples=s["call_examples"], order_examples=s["order_examples"],
            order_steps=s["order_steps"], calls=s["calls"], events_read=s["events_read"],
            seconds=s["seconds"])
    assert s["call_examples"] >= CALLS and s["order_examples"] >= ORDERS, s
    # The state machine got as far as reading records, of several kinds.
    assert s["mapped_evlists"] > 0 and s["events_read"] > 0, s
    assert len(s["event_classes"]) >= 2, s
    # Errors were ordinary exceptions only (anything else ends the run), and
    # nothing the examples dropped kept an fd open.
    assert not [k for k in s["outcomes"] if "SystemError" in k or "Panic" in k], s
    assert s["fds_after"] == s["fds_before"], s
