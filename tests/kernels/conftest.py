# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures for the tests that boot real kernels (docs/kernels.md).

`make test` runs test_quick.py: each kernel of tests/kernels/kernels.txt is
booted once and runs all its checks in one guest command. `make test-kernels`
(PERF_TEST_KERNELS=full) adds test_matrix.py: the .debs installed with dpkg in
each guest, the other CPU count, and the side-by-side suite on the 6.1 guests.
Without QEMU, or when a guest does not boot, the tests skip with the reason;
the summary lists every boot and how long it took. After one boot failure
the other guests skip at once, naming it.
"""

import json
import shlex
from pathlib import Path

import pytest

from kernels import plan, vm
from sidebyside import harness

_boots = []
# The first boot failure: later guests skip at once instead of waiting out
# their own boot timeouts (a machine that cannot boot one cannot boot any).
_boot_failed = []


def guest_run(release, plan_data, *, cpus, env, python="/usr/bin/python3", **kw):
    """Boots `release` and runs guest.py with `plan_data` under `env`;
    returns (GuestRun, result dict). Skips if the guest cannot be booted."""
    exports = " ".join(f"{k}={shlex.quote(str(v))}" for k, v in env.items())
    command = (f"env {exports} {python} {shlex.quote(str(vm.REPO / 'tests/kernels/guest.py'))}"
               ' "$RUN/plan.json" "$RUN/result.json"')
    root = env.get("PERF_PYTHON_SYSROOT")
    if root is not None and not Path(root).is_relative_to(vm.REPO):
        # A copy root may load (harness.loadable_by_root), under the host's
        # /tmp: the guest's own /tmp hides it unless it is shared too.
        kw["overlays"] = (*kw.get("overlays", ()), root)
    try:
        if _boot_failed:
            raise vm.Unavailable(f"an earlier guest did not boot: {_boot_failed[0]}")
        run = vm.boot(release, command, cpus=cpus, files={"plan.json": json.dumps(plan_data)}, **kw)
    except vm.Unavailable as e:
        if isinstance(e, vm.BootFailed):
            _boot_failed.append(str(e))
        _boots.append((release, cpus, f"skipped: {str(e).splitlines()[0]}"))
        pytest.skip(f"cannot boot {release} here: {e}")
    result = json.loads(run.files.get("result.json") or "{}")
    steps = ", ".join(f"{name} {s['seconds']:.0f} s" for name, s in result.get("steps", {}).items())
    _boots.append((release, cpus, f"boot {run.boot_seconds:.0f} s, checks "
                   f"{run.seconds - run.boot_seconds:.0f} s ({steps}), {run.state()}"))
    return run, result


def staged_env(root):
    """The environment that makes the guest's python3 load from `root`."""
    return {"PERF_PYTHON_SYSROOT": root, "PYTHONPATH": root / "usr/lib/python3/dist-packages"}


@pytest.fixture(scope="session")
def staged():
    """Builds for the host and every guest installed side by side (plan.stage),
    or a copy of them root may load (harness.loadable_by_root)."""
    reason = vm.missing_tools()
    if reason:
        pytest.skip(f"cannot boot kernels here: {reason}")
    try:
        return harness.loadable_by_root(plan.stage(vm.releases()))
    except plan.StageFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def rust_tests():
    try:
        return plan.rust_tests()
    except plan.StageFailed as e:
        pytest.fail(str(e), pytrace=False)


def step(result, name):
    """One step's value from a guest result; fails on a missing or raised step."""
    steps = result.get("steps", {})
    assert name in steps, f"the guest never ran step {name!r}: {sorted(steps)}"
    value = steps[name]["value"]
    assert not (isinstance(value, dict) and "error" in value), f"{name}:\n{value.get('error')}"
    return value


def pytest_terminal_summary(terminalreporter):
    if _boots:
        terminalreporter.section("guest kernels (tests/kernels)")
        for release, cpus, what in _boots:
            terminalreporter.write_line(f"{release} ({cpus} CPU{'s' if cpus > 1 else ''}): {what}")

