# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures of the symbol tests: workloads of crates/perf-core/tests/data/
symbols/ built and recorded once per test session with the real perf 6.1,
each recording with its own HOME (its own build-id cache, which our
session reads through the same HOME)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from sidebyside import harness

PERF = "/usr/bin/perf"
SOURCES = Path(__file__).resolve().parents[2] / "crates/perf-core/tests/data/symbols"


class Recordings:
    def __init__(self, top):
        self.top = top
        self.home = top / "home"
        self.home.mkdir()
        self.env = dict(os.environ, HOME=str(self.home))
        self.env.pop("PERF_BUILDID_DIR", None)

    def build(self, compiler, src, flags, out):
        exe = self.top / out
        subprocess.run([compiler, *flags, str(SOURCES / src), "-o", str(exe)], check=True)
        return exe

    def record(self, name, args, cmd):
        data = self.top / f"{name}.data"
        subprocess.run([PERF, "record", "-q", "-e", "cpu-clock", "-F", "2999", *args,
                        "-o", str(data), "--", *cmd], env=self.env, check=True,
                       stdout=subprocess.DEVNULL)
        return data

    def file(self, name):
        """The recording `name`; the test is skipped when its compiler is
        missing."""
        if name not in self.files:
            pytest.skip(f"no recording {name} (compiler missing)")
        return self.files[name]

    def script(self, data, *args):
        p = subprocess.run([PERF, "script", "-i", str(data), *args], env=self.env,
                           capture_output=True, text=True, errors="replace", timeout=600)
        assert p.returncode == 0, p.stderr[-2000:]
        return p.stdout


@pytest.fixture(scope="session")
def recs(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root (perf record)")
    for tool in (PERF, "gcc", "g++"):
        if not shutil.which(tool):
            pytest.skip(f"no {tool}")
    r = Recordings(tmp_path_factory.mktemp("symbols"))
    c = r.build("gcc", "work.c", ["-O2", "-g", "-fno-omit-frame-pointer"], "work")
    cxx = r.build("g++", "work.cpp", ["-O1", "-g", "-fno-omit-frame-pointer"], "workxx")
    # Without frame pointers: their user stacks are unwound from the dumps.
    c_nofp = r.build("gcc", "work.c", ["-O2", "-g", "-fomit-frame-pointer"], "work-nofp")
    c_o0_nofp = r.build("gcc", "work.c", ["-O0", "-g", "-fomit-frame-pointer"], "work-o0-nofp")
    cxx_nofp = r.build("g++", "work.cpp", ["-O1", "-g", "-fomit-frame-pointer"], "workxx-nofp")
    dwarf = ["--call-graph", "dwarf"]
    r.files = {
        "c_g": r.record("c_g", ["-g"], [str(c), "15"]),
        "cxx_g": r.record("cxx_g", ["-g"], [str(cxx)]),
        "c_flat": r.record("c_flat", [], [str(c), "15"]),
        "c_dwarf": r.record("c_dwarf", dwarf, [str(c_nofp), "8"]),
        "c_o0_dwarf": r.record("c_o0_dwarf", dwarf, [str(c_o0_nofp), "4"]),
        "cxx_dwarf": r.record("cxx_dwarf", dwarf, [str(cxx_nofp)]),
    }
    r.binaries = {"c_g": c, "c_dwarf": c_nofp}
    if shutil.which("rustc"):
        rs_nofp = r.build("rustc", "work.rs", ["-O", "-g", "-C", "force-frame-pointers=no"],
                          "workrs-nofp")
        r.files["rust_dwarf"] = r.record("rust_dwarf", dwarf, [str(rs_nofp)])
    return r



@pytest.fixture
def ours_env(staged_root, recs):
    """The environment under which python3 imports our staged module, with
    the recordings' HOME."""
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: the C module has no perf.data API")
    env = harness.ours_env(staged_root)
    env["PYTHONUNBUFFERED"] = "1"
    env["HOME"] = str(recs.home)
    return env
