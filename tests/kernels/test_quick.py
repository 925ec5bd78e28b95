# SPDX-License-Identifier: GPL-2.0-only
"""The multi-kernel host on real kernels: one boot per kernel of
tests/kernels/kernels.txt (two 6.1 ABIs, two 6.12 ABIs), two at a time, all
its checks in one guest command (tests/kernels/guest.py). Builds for the
host and every guest are installed side by side in one staged root, which
each guest reads.

In each guest:
* /usr/bin/python3's `import perf` loads that kernel's exact build, without
  a warning, and perf-python-info says so and why;
* the smoke test prints the guest's CPUs (the kernels boot with 1 and 3);
* every attr row newer than the kernel, set on an event under a build that
  knows every row, is an OSError naming the row and its release, with the
  errno the kernel itself gave (E2BIG past its attr size, EINVAL otherwise);
* perf-core's tests_real.rs: the probe equals the feature table for that
  release, and the emulated kernel of that release agrees with the real one
  on every row, size and consistency rule.
"""

import errno

import pytest

from kernels import plan, vm
from kernels.conftest import guest_run, staged_env, step

KERNELS = vm.releases()
QUICK_STEPS = ["loader", "smoke", "info", "honesty", "emulator"]
# Guests booting at once. TCG spends most of a boot on one host thread, so
# two guests use both cores (docs/kernels.md, "Time").
AT_ONCE = 2


def cpus_for(release):
    """1 or 3 CPUs, alternating down kernels.txt: the smoke test must follow."""
    return 1 if KERNELS.index(release) % 2 == 0 else 3


@pytest.fixture(scope="module")
def guests(staged, rust_tests):
    """{release: Future of (GuestRun, result)}: every kernel booted, AT_ONCE
    at a time, as soon as the first test asks for one."""
    newest = str(plan.build(plan.NEWEST) / "perf.abi3.so")

    def boot(release):
        data = {"steps": QUICK_STEPS, "info": str(staged / "usr/bin/perf-python-info"),
                "newest_build": newest,
                "rows": {name: row["keywords"] for name, row in plan.rows_newer_than(release).items()},
                "rust_tests": rust_tests}
        return guest_run(release, data, cpus=cpus_for(release), env=staged_env(staged))

    return vm.boot_all(KERNELS, boot, at_once=AT_ONCE)


@pytest.fixture(scope="module", params=KERNELS)
def guest(request, guests):
    run, result = guests[request.param].result()
    return request.param, run, result


def test_guest_runs_every_check(guest):
    release, run, result = guest
    assert run.rc == 0 and not run.timed_out, run.describe()
    assert result["release"] == release
    assert list(result["steps"]) == QUICK_STEPS, run.describe()


def test_import_perf_loads_the_exact_build_without_a_warning(guest, staged):
    release, run, result = guest
    got = step(result, "loader")
    assert got["warnings"] == []
    assert got["loaded_by"]["step"] == "exact", got
    assert got["loaded_by"]["reason"] == f"exact release {release}"
    assert got["file"] == str(staged / f"usr/lib/linux-tools/{release}/lib/perf.abi3.so")
    assert got["build"]["kernel_release"] == release
    assert got["build"]["abi"] == plan.manifest(release)["abi"]


def test_perf_python_info_says_which_build_and_why(guest, staged):
    release, run, result = guest
    got = step(result, "info")
    assert got["rc"] == 0, got["stdout"]
    lines = got["stdout"].splitlines()
    assert f"running kernel release: {release} (uname -r)" in lines
    assert f"import perf would load: {staged}/usr/lib/linux-tools/{release}/lib/perf.abi3.so" in lines
    assert f"  why: exact release {release}" in lines


def test_smoke_test_prints_the_guests_cpus(guest):
    release, run, result = guest
    got = step(result, "smoke")
    assert got["rc"] == 0 and got["stderr"] == "", got
    expected = [str(c) for c in range(cpus_for(release))]
    assert got["stdout"].split() == expected
    assert got["online"] == ("0" if len(expected) == 1 else f"0-{len(expected) - 1}")


def test_every_newer_row_is_an_oserror_from_the_kernel(guest):
    release, run, result = guest
    got = step(result, "honesty")
    assert got["build"]["kernel_release"] == plan.NEWEST
    version = plan.manifest(release)["kernel_version"]
    expected = plan.rows_newer_than(release)
    assert set(got["rows"]) == set(expected)
    assert {"config4", "defer_callchain"} <= set(expected)
    wrong = {}
    for name, want in expected.items():
        seen = got["rows"][name]
        text = seen.get("text", "")
        if (seen["ok"] or seen["errno"] != want["errno"]
                or f"perf_event_open: this kernel ({version}) does not support " not in text
                or not any(f"'{n}' (added in Linux {want['since']})" in text for n in want["names"])
                or (want["errno"] == errno.E2BIG) != ("its perf_event_attr is" in text)):
            wrong[name] = (want, seen)
    assert wrong == {}, "\n".join(f"{name}: expected errno {want['errno']} naming it and Linux "
                                   f"{want['since']}, got {seen}" for name, (want, seen) in wrong.items())


def test_newest_build_knows_every_row_of_the_table():
    assert set(plan.manifest(plan.NEWEST)["features"]) == {r["name"] for r in plan.table()["feature"]}


def test_emulator_and_probe_agree_with_the_real_kernel(guest):
    release, run, result = guest
    got = step(result, "emulator")
    assert got["rc"] == 0, got["stdout"][-4000:] + got["stderr"][-2000:]
    for name in ("probe_learns_the_running_kernel", "emulator_agrees_with_the_running_kernel_on_every_feature",
                 "emulator_agrees_on_sizes_and_rules", "config4_names_itself_and_the_kernel_size"):
        assert f"test abi::tests_real::{name} ... ok" in got["stdout"], got["stdout"][-2000:]
