# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's example scripts (tools/perf/python/*.py) from Debian's
linux-source-6.1 package, fetched at test time with apt and cached under
build/consumers/ (never committed)."""

import fcntl
import glob
import os
import subprocess
import tempfile

from sidebyside.harness import REPO

PACKAGE = "linux-source-6.1"
CACHE = REPO / "build" / "consumers" / PACKAGE
SCRIPTS = ("twatch.py", "tracepoint.py")


class Unavailable(Exception):
    """apt could not download the package; the message says why."""


def scripts_dir():
    """The directory holding twatch.py and tracepoint.py (fetching on first use)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        target = CACHE / "tools" / "perf" / "python"
        if not all((target / s).exists() for s in SCRIPTS):
            _fetch(target)
    return target


def _run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def _fetch(target):
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        download = ["apt-get", "download", "-q", "-o", "APT::Sandbox::User=root", PACKAGE]
        p = _run(download, tmp)
        if p.returncode != 0:
            _run(["apt-get", "update", "-qq"], tmp)
            p = _run(download, tmp)
        debs = glob.glob(os.path.join(tmp, f"{PACKAGE}_*.deb"))
        if p.returncode != 0 or not debs:
            raise Unavailable(f"apt-get download {PACKAGE} failed: {p.stderr.strip()[-500:]}")
        version = os.path.basename(debs[0]).split("_")[1]
        unpack_scripts(debs[0], PACKAGE, SCRIPTS, target, tmp)
        (CACHE / "VERSION").write_text(version + "\n")


def unpack_scripts(deb, package, scripts, target, cwd):
    """Extracts tools/perf/python/<scripts> of linux-source package `package`
    from its .deb (deleted afterwards) into `target`, working in `cwd`.
    Raises Unavailable if the sources lack one of them."""
    tarball = f"./usr/src/{package}.tar.xz"
    p = subprocess.run(f"dpkg-deb --fsys-tarfile {deb} | tar -xf - {tarball}",
                       shell=True, cwd=cwd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"unpacking {deb}: {p.stderr}")
    os.unlink(deb)
    p = _run(["tar", "-xJf", tarball, "--wildcards", *(f"*/tools/perf/python/{s}" for s in scripts)], cwd)
    if p.returncode != 0:
        raise Unavailable(f"{package} lacks the scripts: {p.stderr.strip()[-300:]}")
    target.mkdir(parents=True, exist_ok=True)
    for s in scripts:
        (found,) = glob.glob(os.path.join(cwd, "*", "tools", "perf", "python", s))
        os.replace(found, target / s)
