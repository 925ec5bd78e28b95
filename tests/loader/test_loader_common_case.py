# SPDX-License-Identifier: GPL-2.0-only
"""The common case, step 1 run by perf/__init__.py itself: it makes the module
with ExtensionFileLoader's create_module() and exec_module() and sets what
importlib.util.module_from_spec() would, so check that what it gives is what a
direct import gives, and that it leaves to the whole policy, which reports
it, anything it should not open."""

import os
import shutil
import tempfile
from pathlib import Path

import pytest

from loader_helpers import ABIS, MID, NEW, SYSTEM_PYTHON, Root, run_import

ATTRIBUTES = r"""
import json, sys
import perf
spec = perf.__spec__
print("RESULT " + json.dumps({
    "name": perf.__name__, "file": perf.__file__, "package": perf.__package__,
    "loader": [type(perf.__loader__).__name__, perf.__loader__.name, perf.__loader__.path],
    "spec": [spec.name, spec.origin, spec.has_location, spec.parent, spec.cached,
             spec.submodule_search_locations, spec.loader is perf.__loader__],
    "in_sys_modules": sys.modules["perf"] is perf,
    "has_path": hasattr(perf, "__path__"),
}))
"""


def test_module_attributes_are_those_of_a_direct_import(root, tmp_path):
    so = root.install(NEW)
    fast = run_import(root, NEW, code=ATTRIBUTES)
    assert fast.result is not None, fast.describe()
    # The same file imported directly, from a directory on sys.path.
    direct_dir = tmp_path / "direct"
    direct_dir.mkdir()
    direct_so = direct_dir / "perf.abi3.so"
    direct_so.symlink_to(so)
    direct = run_import(root, None, code=ATTRIBUTES, site=direct_dir, sysroot=False)
    assert direct.result is not None, direct.describe()
    flavour_so = str(root.lib / "linux-tools" / NEW / "lib" / "perf.abi3.so")
    expected = dict(direct.result)
    assert expected["file"] == str(direct_so)
    expected["file"] = flavour_so
    expected["loader"] = [expected["loader"][0], expected["loader"][1], flavour_so]
    expected["spec"] = [expected["spec"][0], flavour_so, *expected["spec"][2:]]
    assert fast.result == expected
    assert fast.result["package"] == "" and fast.result["spec"][2] is True


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_build_that_is_not_a_regular_file_is_not_opened(root, kind):
    """A FIFO would block dlopen(); step 1 must pass it over, and the whole
    policy skips it with a reason and loads the same-ABI build."""
    flavour = root.lib / "linux-tools" / MID / "lib"
    flavour.mkdir(parents=True)
    if kind == "fifo":
        os.mkfifo(flavour / "perf.abi3.so", 0o644)
    else:
        (flavour / "perf.abi3.so").mkdir()
    root.put(f"linux-tools-{ABIS[MID]}/lib", MID)
    run = run_import(root, MID)  # times out (60 s) if the FIFO is opened
    assert run.build == MID and run.step == "abi", run.describe()
    assert any(f"skipped {flavour / 'perf.abi3.so'}: not a regular file" in w for w in run.warnings), \
        run.describe()


@pytest.mark.skipif(os.geteuid() != 0, reason="the ownership walk applies to root only")
def test_an_unsafe_build_is_left_to_the_whole_policy_to_refuse(root):
    so = root.install(MID)
    os.chmod(so, 0o666)
    try:
        run = run_import(root, MID, env={"PERF_PYTHON_POLICY": "exact"})
    finally:
        os.chmod(so, 0o644)
    assert run.error["error"] == "KernelNotFoundError", run.describe()
    assert "refused while running as root" in run.error["message"]
    assert f"{so} is writable by its group and others (mode 0666)" in run.error["message"]


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("setpriv"),
                    reason="needs root and setpriv to run as another user")
def test_an_unprivileged_user_loads_without_the_walk(builds):
    """Not root: the build is loaded by step 1 (step exact) even where the
    ownership walk would refuse it (the refusals are for root only)."""
    top = tempfile.mkdtemp(prefix="perf-loader-nobody.")  # pytest's tmp_path is private to root
    try:
        os.chmod(top, 0o777)  # world-writable, not sticky: root would refuse everything below
        root = Root(Path(top) / "root", builds)
        root.install(MID)
        run = run_import(root, MID, python=SYSTEM_PYTHON, env={"PYTHONDONTWRITEBYTECODE": "1"},
                         prefix=("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"))
        assert run.step == "exact" and run.build == MID, run.describe()
        assert run.warnings == []
        as_root = run_import(root, MID, python=SYSTEM_PYTHON, env={"PERF_PYTHON_POLICY": "exact"})
        assert f"{top} is writable by its group and others (mode 0777)" in as_root.error["message"]
    finally:
        shutil.rmtree(top)
