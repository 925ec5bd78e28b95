# SPDX-License-Identifier: GPL-2.0-only
# Prepended to every snippet and workload run in a subprocess (see
# tests/conftest.py). It imports `perf`, proves which module it got, and gives
# the snippet `result(obj)` (JSON to a private fd, so stdout stays the
# program's own) and `exc(fn)` (an outcome that can be compared as JSON).
import json as _json
import os as _os

import perf

_which = _os.environ["PERF_TEST_MODULE"]
_file = _os.path.realpath(getattr(perf, "__file__", ""))
if _which == "c":
    if hasattr(perf, "__build__") or not _file.startswith("/usr/lib/python3/dist-packages/perf."):
        raise SystemExit(f"prelude: expected the C module, got {_file}")
else:
    _root = _os.path.realpath(_os.environ["PERF_TEST_ROOT"])
    if not _file.startswith(_root + _os.sep):
        raise SystemExit(f"prelude: expected our module under {_root}, got {_file}")


def result(obj):
    """Hands `obj` (JSON-able; other values become their repr) to the test."""
    fd = int(_os.environ["PERF_TEST_RESULT_FD"])
    with open(fd, "w", closefd=False) as f:
        _json.dump(obj, f, default=repr)


def exc(fn, *args, **kwargs):
    """["ok", repr(value)] or [exception class name, str(e), errno]."""
    try:
        value = fn(*args, **kwargs)
    except BaseException as e:  # noqa: BLE001 - any outcome is data here
        return [type(e).__name__, str(e), getattr(e, "errno", None)]
    return ["ok", repr(value)]
