# SPDX-License-Identifier: GPL-2.0-only
"""The kernel's 6.15+ tracepoint.py and 6.16+ counting.py, fetched at test
time from a Debian linux-source package and cached under build/consumers/
(never committed).

Bookworm's own sources stop at linux-source-6.12 (bookworm-security) and
bookworm-backports at 6.12 too, both older than the scripts. The first
Debian suite reachable here with a new enough linux-source is
trixie-backports (linux-source-7.2, 7.3). It is used through a private apt
configuration under the cache directory (its own sources.list and lists):
the machine's apt configuration is not touched. Only the two scripts are
extracted from the package; the .deb is deleted afterwards.
"""

import fcntl
import glob
import os
import re
import subprocess
import tempfile
from pathlib import Path

from sidebyside.harness import REPO
from sidebyside.kernel_scripts import Unavailable, unpack_scripts

SCRIPTS = ("tracepoint.py", "counting.py")
# counting.py appeared in 6.16, the parse_events tracepoint.py in 6.15.
MIN_VERSION = (6, 16)
CACHE = REPO / "build" / "consumers" / "linux-source-6.16+"
APT = CACHE / "apt"
# (what, sources.list line or None for the machine's own sources)
SUITES = (
    ("the machine's apt sources", None),
    ("bookworm-backports", "deb http://deb.debian.org/debian bookworm-backports main"),
    ("trixie-backports", "deb http://deb.debian.org/debian trixie-backports main"),
)




def scripts_dir():
    """The directory holding tracepoint.py and counting.py (fetching them on
    first use)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    with open(CACHE / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        target = CACHE / "tools" / "perf" / "python"
        if not all((target / s).exists() for s in SCRIPTS):
            _fetch(target)
    return target


def source():
    """'<package> <version> <suite>' of the cached scripts."""
    return (CACHE / "SOURCE").read_text().strip()


def _apt_options(suite_line):
    if suite_line is None:
        return []
    lists, parts = APT / "lists", APT / "sources.list.d"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    parts.mkdir(parents=True, exist_ok=True)
    (APT / "cache").mkdir(parents=True, exist_ok=True)
    sources = APT / (re.sub(r"\W+", "-", suite_line) + ".list")
    sources.write_text(suite_line + "\n")
    return ["-o", f"Dir::Etc::SourceList={sources}", "-o", f"Dir::Etc::SourceParts={parts}",
            "-o", f"Dir::State::Lists={lists}", "-o", f"Dir::Cache={APT / 'cache'}",
            "-o", "Acquire::Languages=none"]


def _run(cmd, cwd=None):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def _candidates(options):
    """[(version tuple, package)] of the linux-source-X.Y packages apt knows."""
    p = _run(["apt-cache", *options, "search", "--names-only", r"^linux-source-[0-9]+\.[0-9]+$"])
    found = []
    for line in p.stdout.splitlines():
        m = re.match(r"^(linux-source-(\d+)\.(\d+)) ", line)
        if m:
            found.append(((int(m.group(2)), int(m.group(3))), m.group(1)))
    return sorted(found)


def _fetch(target):
    checked = []
    for what, line in SUITES:
        options = _apt_options(line)
        if line is not None:
            p = _run(["apt-get", *options, "-o", "APT::Sandbox::User=root", "-qq", "update"])
            if p.returncode != 0:
                checked.append(f"{what}: apt-get update failed: {p.stderr.strip()[-300:]}")
                continue
        packages = _candidates(options)
        new = [pkg for version, pkg in packages if version >= MIN_VERSION]
        checked.append(f"{what}: {', '.join(pkg for _, pkg in packages) or 'no linux-source-X.Y'}")
        if new:
            _download(target, new[0], options, what)
            return
    raise Unavailable("no reachable Debian package ships tracepoint.py (6.15+) and counting.py "
                      "(6.16+): " + "; ".join(checked))


def _download(target, package, options, what):
    with tempfile.TemporaryDirectory(dir=CACHE) as tmp:
        p = _run(["apt-get", *options, "-o", "APT::Sandbox::User=root", "-q", "download", package], tmp)
        debs = glob.glob(os.path.join(tmp, f"{package}_*.deb"))
        if p.returncode != 0 or not debs:
            raise Unavailable(f"apt-get download {package} ({what}) failed: {p.stderr.strip()[-500:]}")
        version = os.path.basename(debs[0]).split("_")[1]
        unpack_scripts(debs[0], package, SCRIPTS, target, tmp)
        (CACHE / "SOURCE").write_text(f"{package} {version} {what}\n")


def script(name):
    """Path of one fetched script."""
    return Path(scripts_dir()) / name
