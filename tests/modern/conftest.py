# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures for the modern-API tests. The shared ones (`ours`,
`run_py`, `perf_ours`, `staged_root`) are in tests/conftest.py."""

import subprocess
import sys

import pytest

from modern import new_scripts
from sidebyside import harness


@pytest.fixture(scope="session")
def new_kernel_scripts():
    """The directory holding the kernel's 6.15+ tracepoint.py and 6.16+
    counting.py (from a Debian linux-source package, fetched once)."""
    try:
        return new_scripts.scripts_dir()
    except new_scripts.Unavailable as e:
        pytest.skip(str(e))


@pytest.fixture
def ours_env(staged_root):
    """The environment under which python3 imports our staged module (skips
    under PERF_TEST_OURS=c: these tests check our own module)."""
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: checks our own module")
    env = harness.ours_env(staged_root)
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture
def run_ours_file(ours_env):
    """run_ours_file(path, *args, timeout=60) -> CompletedProcess: runs a
    Python file unchanged under our module."""
    def run(path, *args, timeout=60):
        return subprocess.run([sys.executable, str(path), *args], env=ours_env,
                              capture_output=True, text=True, timeout=timeout)
    return run
