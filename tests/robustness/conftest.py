# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures for the robustness tests (docs/reliability.md). Everything runs our module
in subprocesses (the `ours` fixture of tests/conftest.py), so a crash is a
failed test with the signal, not a dead pytest."""

import pytest

from robust_helpers import describe


@pytest.fixture
def run_ok(ours):
    """run_ok(code, **kw) -> result: runs code under our module and asserts
    a clean exit (rc 0), naming the signal if the interpreter died."""
    def run(code, **kw):
        r = ours.run(code, **kw)
        assert r.rc == 0, describe(r)
        return r.result
    return run


FIGURES = []


@pytest.fixture
def figures(request):
    """figures(**numbers): recorded and printed at the end of the run (the
    counts docs/reliability.md quotes)."""
    def record(**numbers):
        FIGURES.append((request.node.name, numbers))
    return record


def pytest_terminal_summary(terminalreporter):
    if FIGURES:
        terminalreporter.section("robustness figures")
        for name, numbers in FIGURES:
            text = ", ".join(f"{k}={v}" for k, v in numbers.items())
            terminalreporter.write_line(f"{name}: {text}")
