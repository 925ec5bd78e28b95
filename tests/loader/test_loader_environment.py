# SPDX-License-Identifier: GPL-2.0-only
"""The PERF_PYTHON_* overrides are honoured only when the caller could have
set them: not under `python -E` or `-I`, and not when uid != euid."""

import os
import shutil

import pytest

from loader_helpers import MID, NEW, run_import

# Put the staged loader on sys.path by hand: -E and -I ignore PYTHONPATH too.
CODE_PREFIX = "import sys; sys.path.insert(0, {site!r})\n"


def probe_with_path(root):
    from loader_helpers import PROBE

    return CODE_PREFIX.format(site=str(root.site)) + PROBE


def assert_ignored(run):
    """The override (release MID under the staged root) was not used: either
    a real build for the real release was loaded or the error names it."""
    real = os.uname().release
    if run.result and "error" in run.result:
        assert run.result["message"].startswith(f"python perf module not found for kernel {real}")
        assert f"/usr/lib/linux-tools/{real}/lib" in run.result["message"]
        assert MID not in run.result["message"]
    else:
        assert run.result["loaded_by"]["release"] == real, run.describe()


@pytest.mark.parametrize("flag", ["-E", "-I"])
def test_overrides_are_ignored_under_E_and_I(root, flag):
    root.install(MID)
    honoured = run_import(root, MID)
    assert honoured.step == "exact"
    run = run_import(root, MID, args=(flag,), code=probe_with_path(root))
    assert_ignored(run)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run with uid != euid")
def test_overrides_are_ignored_when_uid_differs_from_euid(root):
    root.install(MID)
    run = run_import(root, MID, prefix=("setpriv", "--ruid=65534", "--"),
                     code="import os; assert os.getuid() != os.geteuid()\n" + probe_with_path(root))
    assert_ignored(run)


def test_empty_override_means_unset(root, loader_modules):
    root.install(NEW)
    run = run_import(root, "")
    assert_ignored(run)
    assert loader_modules.loader.env("PERF_PYTHON_NO_SUCH_VARIABLE") is None


def test_sysroot_override_is_used(root):
    root.install(NEW)
    run = run_import(root, NEW)
    assert run.result["file"].startswith(str(root.path))
