# SPDX-License-Identifier: GPL-2.0-only
"""Builds of the extension stamped for kernel releases other than the staged
install's, for the tests that load them (the loader, ABI honesty, the real
kernels): one place, so that a release two test families need is built once.

`build(release)` returns the directory holding perf.abi3.so and
perf-python.toml for `release`, made by scripts/build.sh with the dev
profile in the workspace's target directory: the dependencies are those
`cargo test` built, and a build for another release recompiles only
perf-py's stamp, incrementally, in about 1 s (a release relink, fat LTO,
takes 17 s); when the release takes perf's pmu-events tables from another
kernel source than the build before (a 6.1 release and a newer one:
docs/pmu-events.md), perf-core is compiled again too, about 20 s. target/release/libperf.so, which the staged install is made
from, is not touched. A build newer than every source file is reused, as
make would; `make build`'s build of the same release (build/releases) is
copied when fresh. A lock makes sessions that run at once take turns.
"""

import fcntl
import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "target"
OUT = REPO / "build" / "stamped"
PROFILE = "dev"
PERF_ABI = TARGET / "debug" / "perf-abi"
FILES = ("perf.abi3.so", "perf-python.toml")


class BuildFailed(Exception):
    """scripts/build.sh failed; the message has its output."""


def env():
    """The environment of scripts/build.sh, install.sh and build-all.sh for
    these builds."""
    return dict(os.environ, CARGO_TARGET_DIR=str(TARGET), PERF_PYTHON_OUT=str(OUT),
                PERF_BUILD_PROFILE=PROFILE)


def newest_source():
    """The newest mtime among the inputs of a build (not the fuzz workspace,
    which is none, and whose lock file make test-sweep writes)."""
    crates = REPO / "crates"
    fuzz = crates / "perf-core" / "fuzz"
    paths = [REPO / "Cargo.toml", REPO / "Cargo.lock",
             *(p for p in crates.rglob("*") if not p.is_relative_to(fuzz))]
    return max(p.stat().st_mtime for p in paths if p.is_file())


def fresh(directory):
    """Whether `directory` holds a build newer than every source file."""
    files = [Path(directory) / name for name in FILES]
    return all(f.exists() for f in files) and files[0].stat().st_mtime > newest_source()


def build(release):
    """The directory of the build stamped for `release` (see the module)."""
    out = OUT / release
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if fresh(out):
            return out
        made = REPO / "build" / "releases" / release
        if fresh(made):
            out.mkdir(exist_ok=True)
            for name in FILES:
                shutil.copy2(made / name, out / name)
            return out
        p = subprocess.run([str(REPO / "scripts" / "build.sh"), release], cwd=REPO, env=env(),
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise BuildFailed(f"scripts/build.sh {release} failed (rc {p.returncode}):\n"
                              f"{p.stdout[-2000:]}\n{p.stderr[-3000:]}")
        return out


def perf_abi():
    """perf-abi of these builds (built with them; built alone if missing)."""
    if not PERF_ABI.exists():
        subprocess.run(["cargo", "build", "--profile", PROFILE, "--quiet", "-p", "perf-abi"],
                       cwd=REPO, env=env(), check=True)
    return PERF_ABI
