# SPDX-License-Identifier: GPL-2.0-only
"""Helpers shared by the robustness tests (plain functions, no fixtures)."""

import signal
from pathlib import Path

HERE = Path(__file__).resolve().parent


def signal_name(rc):
    """'SIGSEGV' for rc -11 (or 139), else str(rc)."""
    n = -rc if rc < 0 else rc - 128 if rc > 128 else 0
    try:
        return signal.Signals(n).name if n else str(rc)
    except ValueError:
        return str(rc)


def describe(run):
    """A failed run's rc, signal and output, for assertion messages."""
    return (f"rc {run.rc} ({signal_name(run.rc)})\n--- stderr:\n{run.stderr[-6000:]}\n"
            f"--- stdout:\n{run.stdout[-3000:]}")
