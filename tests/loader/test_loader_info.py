# SPDX-License-Identifier: GPL-2.0-only
"""perf-python-info: the release, its ABI, every installed build with its
manifest, the candidates in policy order, the refusals, and the one `import
perf` would load and why. It loads nothing."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from loader_helpers import INFO, MID, NEW, OLD, Root, clean_env, run_import


def info(root, *args, release=None, python=None, env=None):
    e = clean_env()
    e["PERF_PYTHON_SYSROOT"] = str(root.path)
    if release is not None:
        e["PERF_PYTHON_KERNEL_RELEASE"] = release
    e["PYTHONPATH"] = str(root.site)
    e.update(env or {})
    return subprocess.run([python or sys.executable, str(root.info), *args], env=e,
                          capture_output=True, text=True, timeout=60)


def test_info_reports_builds_manifests_and_the_choice(root):
    root.install(MID, flavours=[MID, "6.8.0-31-lowlatency"])
    root.install(OLD)
    fake = root.put(f"linux-tools/{MID}/lib", NEW, name="perf.cpython-399-x86_64-linux-gnu.so",
                    manifest=False)
    p = info(root, release=MID)
    assert p.returncode == 0, p.stderr
    out = p.stdout
    abi_file = root.lib / "linux-tools-6.8.0-31" / "lib" / "perf.abi3.so"
    for expected in (
        f"running kernel release: {MID} (from $PERF_PYTHON_KERNEL_RELEASE)",
        "ABI: 6.8.0-31, flavour: generic",
        f"system root: {root.path} (from $PERF_PYTHON_SYSROOT)",
        "policy: any (default)",
        f"  {abi_file}\n    linked from {root.lib}/linux-tools/{MID}/lib/perf.abi3.so\n"
        f"    linked from {root.lib}/linux-tools/6.8.0-31-lowlatency/lib/perf.abi3.so\n"
        f"    built for {MID}, kernel 6.8.0 (from the manifest)\n"
        f"    manifest: kernel_release = '{MID}', abi = '6.8.0-31', flavour = 'generic', "
        "kernel_version = '6.8.0', attr_size = ",
        f"{root.lib}/linux-tools-6.1.0-18/lib/perf.abi3.so",
        f"  1. {root.lib}/linux-tools/{MID}/lib/perf.abi3.so: exact release {MID}   <- import perf loads this",
        f": nearest installed build: {OLD}, kernel 6.1.0 (from the manifest)",
        f"  {fake}: built for another Python ABI (cpython-399-x86_64-linux-gnu)",
        f"{root.lib}/linux-tools/{MID}/lib: found perf.abi3.so\n"
        f"  {root.lib}/linux-tools-6.8.0-31/lib: perf.abi3.so is a file found before\n",
        f"`import perf` on this interpreter finds: {root.site}/perf/__init__.py (this loader)",
        f"import perf would load: {root.lib}/linux-tools/{MID}/lib/perf.abi3.so\n  why: exact release {MID}",
    ):
        assert expected in out, f"{expected!r} not in:\n{out}"
    # What it says is what happens.
    assert run_import(root, MID).result["file"] == f"{root.lib}/linux-tools/{MID}/lib/perf.abi3.so"


def test_info_names_the_warning_of_a_fallback(root):
    root.install(OLD)
    p = info(root, "--release", MID)
    assert p.returncode == 0
    assert f"running kernel release: {MID} (given)" in p.stdout
    assert "with the warning: perf: no build for kernel 6.8.0-31-generic is installed; " \
           "loaded the nearest, built for 6.1.0-18-amd64" in p.stdout


def test_info_exits_1_and_prints_the_error_when_nothing_would_load(root):
    root.install(OLD)
    p = info(root, "--release", MID, "--policy", "exact")
    assert p.returncode == 1
    assert "policy: exact (argument)" in p.stdout
    assert "import perf would fail with KernelNotFoundError:\n" \
           f"  python perf module not found for kernel {MID}" in p.stdout
    assert "python3-perf-6.8.0-31" in p.stdout


def test_info_loads_nothing(root):
    root.install(NEW)
    code = (f"import runpy, sys; sys.argv = ['perf-python-info']\n"
            f"try:\n    runpy.run_path({str(INFO)!r}, run_name='__main__')\n"
            "except SystemExit:\n    pass\n"
            "print('RESULT {\"perf_loaded\": %s}' % str('perf' in sys.modules).lower())")
    run = run_import(root, NEW, code=code)
    assert run.result == {"perf_loaded": False}, run.describe()


def test_info_runs_on_the_system_python_and_as_another_user(builds):
    # A root every user can read (pytest's tmp_path is root's alone).
    top = tempfile.mkdtemp(prefix="perf-loader-test.")
    os.chmod(top, 0o755)
    root = Root(Path(top) / "root", builds)
    root.install(NEW)
    try:
        check_info_as_users(root)
    finally:
        shutil.rmtree(top)


def check_info_as_users(root):
    for prefix in ((), ("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups")):
        e = clean_env()
        e.update(PERF_PYTHON_SYSROOT=str(root.path), PERF_PYTHON_KERNEL_RELEASE=NEW)
        p = subprocess.run([*prefix, "/usr/bin/python3", str(root.info)], env=e, capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert f"import perf would load: {root.lib}/linux-tools/{NEW}/lib/perf.abi3.so" in p.stdout
        assert ("running as root" in p.stdout) == (prefix == ())
