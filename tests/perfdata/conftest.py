# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures of the perf.data tests. The shared ones (`perf_ours`,
`staged_root`, `run_py`) are in tests/conftest.py.

- `recordings`: the files of tests/perfdata/recordings.py, recorded once per
  test session in a temporary directory (skips, with the reason, where perf,
  root, gcc or tracefs is missing);
- `recording(name)` (through `recordings.path(name)`): one of them.
"""

import pytest

from perfdata import recordings as rec
from sidebyside import harness


@pytest.fixture(scope="session")
def recordings(request, tmp_path_factory):
    reason = rec.unavailable_reason()
    if reason:
        pytest.skip(reason)
    r = rec.Recordings(tmp_path_factory.mktemp("perfdata"))
    # Start what the selected tests use, the slowest first (syscalls:*
    # enables and then disables ~700 tracepoints: ~25 s).
    wanted = {name for item in request.session.items for name in rec.SPECS
              if f"[{name}]" in item.nodeid}
    r.start(*sorted(wanted, key=lambda n: n != "syscalls"))
    yield r
    r.shutdown()


@pytest.fixture(scope="session")
def record(recordings):
    """record(name) -> path of that recording (skips if it cannot be made)."""
    def get(name):
        try:
            return recordings.path(name)
        except rec.Unavailable as e:
            pytest.skip(str(e))
    return get


@pytest.fixture
def ours_env(staged_root):
    """The environment under which python3 imports our staged module."""
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: the C module has no perf.data API")
    env = harness.ours_env(staged_root)
    env["PYTHONUNBUFFERED"] = "1"
    return env
