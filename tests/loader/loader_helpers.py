# SPDX-License-Identifier: GPL-2.0-only
"""Helpers for the loader tests (fixtures in conftest.py): real builds stamped
for several kernel releases, staged roots (tmp_path) in the distro layout, and
subprocesses that run `import perf` under a staged root.

Builds: tests/stamped_builds.py, once per source tree per release. Each
build's perf.__build__["kernel_release"] proves which one the loader picked.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
LOADER = REPO / "loader" / "perf"
INFO = REPO / "loader" / "bin" / "perf-python-info"

# Three releases of three shapes: Debian, Ubuntu, and an ABI with no flavour.
OLD = "6.1.0-18-amd64"
MID = "6.8.0-31-generic"
NEW = "6.18.44-fc-v595"
RELEASES = (OLD, MID, NEW)
ABIS = {OLD: "6.1.0-18", MID: "6.8.0-31", NEW: "6.18.44-fc-v595"}

PYENV = Path.home() / ".pyenv" / "versions"
SYSTEM_PYTHON = "/usr/bin/python3"


class Root:
    """A staged system root: /usr/lib/linux-tools*, /etc, and a site
    directory holding the loader package (as dist-packages does)."""

    def __init__(self, path, builds):
        self.path = path
        self.builds = builds
        self.lib = path / "usr" / "lib"
        self.site = self.lib / "python3" / "dist-packages"
        self.site.mkdir(parents=True)
        shutil.copytree(LOADER, self.site / "perf", ignore=shutil.ignore_patterns("__pycache__"))
        self.info = path / "usr" / "bin" / "perf-python-info"
        self.info.parent.mkdir()
        shutil.copy(INFO, self.info)

    def put(self, directory, release, name="perf.abi3.so", manifest=True):
        """Copy the build for `release` into <root>/usr/lib/<directory>/ as `name`."""
        d = self.lib / directory
        d.mkdir(parents=True, exist_ok=True)
        shutil.copy(self.builds[release] / "perf.abi3.so", d / name)
        if manifest:
            shutil.copy(self.builds[release] / "perf-python.toml", d / "perf-python.toml")
        return d / name

    def install(self, release, flavours=None):
        """What scripts/install.sh and the per-ABI package lay out: the build
        in linux-tools-<abi>/lib, links in linux-tools/<flavour>/lib."""
        abi = ABIS[release]
        self.put(f"linux-tools-{abi}/lib", release)
        for flavour_release in flavours or [release]:
            d = self.lib / "linux-tools" / flavour_release / "lib"
            d.mkdir(parents=True, exist_ok=True)
            for name in ("perf.abi3.so", "perf-python.toml"):
                (d / name).symlink_to(f"../../../linux-tools-{abi}/lib/{name}")
        return self.lib / f"linux-tools-{abi}" / "lib" / "perf.abi3.so"

    def config(self, text):
        (self.path / "etc").mkdir(exist_ok=True)
        (self.path / "etc" / "perf-python.toml").write_text(text)


PROBE = r"""
import json, os, sys, warnings
warnings.simplefilter("always")
try:
    import perf
except ImportError as e:
    out = {"error": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__],
           "message": str(e), "name": e.name}
else:
    out = {"file": perf.__file__, "build": perf.__build__, "loaded_by": perf.__loaded_by__,
           "is_extension": type(perf.__spec__.loader).__name__ == "ExtensionFileLoader"
                           and not hasattr(perf, "__path__"),
           "same_object": sys.modules["perf"] is perf,
           "cpus": list(perf.cpu_map())}
print("RESULT " + json.dumps(out))
"""


# The line of PROBE that runs `import perf`, where warnings are attributed.
PROBE_IMPORT_LINE = PROBE.splitlines().index("    import perf") + 1


class Run:
    def __init__(self, p):
        self.rc = p.returncode
        self.stdout = p.stdout
        self.stderr = p.stderr
        lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
        self.result = json.loads(lines[-1][len("RESULT "):]) if lines else None

    @property
    def build(self):
        assert self.result and "build" in self.result, self.describe()
        return self.result["build"]["kernel_release"]

    @property
    def step(self):
        assert self.result and "loaded_by" in self.result, self.describe()
        return self.result["loaded_by"]["step"]

    @property
    def error(self):
        assert self.result and "error" in self.result, self.describe()
        return self.result

    @property
    def warnings(self):
        """The RuntimeWarning lines on stderr (the message lines, not the
        source line Python prints after each)."""
        return [ln for ln in self.stderr.splitlines() if "RuntimeWarning: " in ln]

    def describe(self):
        return f"rc {self.rc}\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}"


def clean_env():
    """The environment without anything that steers Python or the loader."""
    return {k: v for k, v in os.environ.items()
            if not k.startswith(("PYTHON", "PERF_PYTHON_", "PERF_TEST_"))}


def run_import(root, release, *, python=None, env=None, args=(), code=PROBE, prefix=(),
               site=None, sysroot=True):
    """Run `code` (default: `import perf` and report) in a fresh interpreter
    with the loader of `root` on PYTHONPATH and $PERF_PYTHON_SYSROOT and
    $PERF_PYTHON_KERNEL_RELEASE pointing at the staged root and `release`."""
    e = clean_env()
    e["PYTHONPATH"] = str(site or root.site)
    if sysroot:
        e["PERF_PYTHON_SYSROOT"] = str(root.path)
    if release is not None:
        e["PERF_PYTHON_KERNEL_RELEASE"] = release
    e.update(env or {})
    cmd = [*prefix, python or sys.executable, *args, "-c", code]
    return Run(subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=60))


def pyenv_python(version):
    """A pyenv interpreter X.Y, or skip."""
    for d in sorted(PYENV.glob(f"{version}.*")):
        exe = d / "bin" / "python3"
        if exe.exists():
            return str(exe)
    pytest.skip(f"no pyenv python {version} under {PYENV}")


def online_cpus():
    """/sys/devices/system/cpu/online expanded to a list of ints."""
    text = Path("/sys/devices/system/cpu/online").read_text().strip()
    cpus = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus
