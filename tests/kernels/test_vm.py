# SPDX-License-Identifier: GPL-2.0-only
"""The boot harness itself (tests/kernels/vm.py): a machine without QEMU
skips with the reason, a boot that does not reach the command is a boot
failure, and (in the full matrix, which boots for them) a failing command is
a failed check with its output, a hanging one a timeout, a crashing kernel
an oops with its trace; none of them a boot failure."""

import os

import pytest

from kernels import conftest, vm

FIRST = vm.releases()[0]
full = pytest.mark.skipif(os.environ.get("PERF_TEST_KERNELS") != "full",
                          reason="boots a kernel: runs under make test-kernels (PERF_TEST_KERNELS=full)")


def test_no_qemu_skips_with_the_reason(monkeypatch):
    monkeypatch.setattr(conftest, "_boots", [])  # not a boot of this session
    which = vm.shutil.which
    monkeypatch.setattr(vm.shutil, "which", lambda name: None if name.startswith("qemu") else which(name))
    with pytest.raises(vm.Unavailable, match="qemu-system-x86_64 not installed"):
        vm.boot(FIRST, "true")
    with pytest.raises(pytest.skip.Exception, match=f"cannot boot {FIRST} here: qemu-system-x86_64"):
        conftest.guest_run(FIRST, {}, cpus=1, env={})


def test_a_boot_that_never_reaches_the_command_is_a_boot_failure():
    if vm.missing_tools():
        pytest.skip(vm.missing_tools())
    with pytest.raises(vm.BootFailed, match=f"{FIRST} did not boot within 1 s"):
        vm.boot(FIRST, "true", boot_timeout=1)


@full
def test_a_failing_command_is_a_failed_check_with_its_output():
    run = vm.boot(FIRST, 'echo out; echo err >&2; echo data > "$RUN/left.txt"; exit 3', cpus=1)
    assert (run.rc, run.stdout, run.stderr, run.timed_out) == (3, "out\n", "err\n", False)
    assert run.files == {"left.txt": "data\n"}


@full
def test_a_hanging_command_times_out_after_booting():
    run = vm.boot(FIRST, "sleep 3600", cpus=1, timeout=20)
    assert run.timed_out and run.rc is None
    assert run.boot_seconds < run.seconds


@full
def test_a_kernel_that_crashes_is_a_kernel_oops_with_its_trace():
    run = vm.boot(FIRST, "echo c > /proc/sysrq-trigger; sleep 60", cpus=1)
    assert run.rc is None and not run.timed_out
    assert run.state() == "kernel oops", run.describe()
    assert "sysrq" in run.oops().lower() and "Call Trace:" in run.oops(), run.oops()
    assert "--- kernel oops:\n" + run.oops() in run.describe()
