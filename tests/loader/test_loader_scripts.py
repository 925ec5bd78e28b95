# SPDX-License-Identifier: GPL-2.0-only
"""scripts/install.sh lays builds out as the loader expects,
scripts/build-all.sh finds the releases a host has headers or modules for,
and benchmarks/loader_import.py runs."""

import os
import subprocess
import sys
from types import SimpleNamespace

import pytest

from loader_helpers import MID, NEW, OLD, REPO, clean_env, run_import
from stamped_builds import PERF_ABI
from stamped_builds import env as build_env


def test_install_sh_layout_is_what_the_loader_reads(tmp_path, builds):
    dest = tmp_path / "dest"
    env = build_env()
    for release, mode in ((MID, "--no-loader"), ("6.8.0-31-lowlatency", "--links-only"), (OLD, None)):
        args = [str(REPO / "scripts" / "install.sh"), str(dest), release] + ([mode] if mode else [])
        subprocess.run(args, cwd=REPO, env=env, check=True)
    lib = dest / "usr" / "lib"
    for release in (MID, "6.8.0-31-lowlatency"):
        link = lib / "linux-tools" / release / "lib" / "perf.abi3.so"
        assert os.readlink(link) == "../../../linux-tools-6.8.0-31/lib/perf.abi3.so"
    assert (lib / "linux-tools-6.8.0-31" / "lib" / "perf-python.toml").read_text() == \
        (builds[MID] / "perf-python.toml").read_text()
    assert (dest / "usr" / "bin" / "perf-python-info").stat().st_mode & 0o777 == 0o755
    site = lib / "python3" / "dist-packages"
    assert sorted(p.name for p in (site / "perf").glob("*.py")) == sorted(
        p.name for p in (REPO / "loader" / "perf").glob("*.py"))
    run = run_import(SimpleNamespace(path=dest, site=site), "6.8.0-31-lowlatency")
    assert run.build == MID and run.step == "exact"


def test_links_only_needs_the_abi_directory(tmp_path, builds):
    p = subprocess.run([str(REPO / "scripts" / "install.sh"), str(tmp_path), NEW, "--links-only"],
                       cwd=REPO, env=build_env(), capture_output=True, text=True)
    assert p.returncode == 1
    assert "perf.abi3.so is not installed" in p.stderr


def build_all_list(sysroot, *releases):
    env = dict(build_env(), PERF_PYTHON_SYSROOT=str(sysroot))
    return subprocess.run([str(REPO / "scripts" / "build-all.sh"), "--list", *releases],
                          cwd=REPO, env=env, capture_output=True, text=True)


def test_build_all_discovers_headers_and_modules(tmp_path, builds):
    src = tmp_path / "usr" / "src"
    # Debian: -common holds no release; the flavour's headers name it.
    (src / "linux-headers-6.1.0-18-common").mkdir(parents=True)
    (src / "linux-headers-6.1.0-18-amd64" / "include" / "config").mkdir(parents=True)
    (src / "linux-headers-6.1.0-18-amd64" / "include" / "config" / "kernel.release").write_text(OLD + "\n")
    # Ubuntu: linux-headers-<abi> is common; the flavour has a .config.
    (src / "linux-headers-6.8.0-31").mkdir()
    (src / "linux-headers-6.8.0-31" / "Makefile").write_text("")
    (src / "linux-headers-6.8.0-31-generic").mkdir()
    (src / "linux-headers-6.8.0-31-generic" / ".config").write_text("")
    for release in (MID, "5.14.0-362.el9.x86_64"):
        (tmp_path / "lib" / "modules" / release).mkdir(parents=True)
    p = build_all_list(tmp_path)
    assert p.returncode == 0, p.stderr
    running = os.uname().release
    running_abi = subprocess.run([str(PERF_ABI), "abi", running], capture_output=True,
                                 text=True, check=True).stdout.strip()
    assert p.stdout.splitlines() == [
        f"{running}\t{running_abi}",
        f"{OLD}\t6.1.0-18",
        f"{MID}\t6.8.0-31",
        "5.14.0-362.el9.x86_64\t5.14.0-362.el9.x86_64",
    ]


@pytest.mark.parametrize("bad", ["", "a/b", "..", "6.1 0"])
def test_build_all_refuses_unusable_releases(tmp_path, builds, bad):
    p = build_all_list(tmp_path, MID, bad)
    assert p.returncode == 2
    assert f"build-all: '{bad}' is not a usable kernel release" in p.stderr


def test_loader_benchmark_runs(builds):
    p = subprocess.run([sys.executable, str(REPO / "benchmarks" / "loader_import.py"), "--runs", "3",
                        "--release", NEW, "--so", str(builds[NEW] / "perf.abi3.so")],
                       env=clean_env(), capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert lines[0].startswith("/usr/bin/python3 ")
    # Two tables, times (medians) and instructions, each with the loader's
    # ratios to the direct import and to Ubuntu's wrapper. What the figures
    # are depends on the machine's load; what the ratios say does not.
    assert len(lines) == 1 + 2 * 6
    for table in (lines[1:7], lines[7:13]):
        figures = {line[:25].strip(): float(line[25:].split()[0]) for line in table[1:4]}
        assert list(figures) == ["direct", "ubuntu wrapper", "loader"]
        ratios = {line[:25].strip(): float(line[25:].split()[0].rstrip("x")) for line in table[4:]}
        assert list(ratios) == ["loader / direct", "loader / ubuntu wrapper"]
        assert abs(ratios["loader / direct"] - figures["loader"] / figures["direct"]) < 0.006
        assert abs(ratios["loader / ubuntu wrapper"]
                   - figures["loader"] / figures["ubuntu wrapper"]) < 0.006
