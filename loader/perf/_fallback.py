# SPDX-License-Identifier: GPL-2.0-only
"""Steps 3 and 4 of the policy: the nearest installed build, then the
distribution's unversioned module; and the warnings given when one of them
(or anything after a refusal) is loaded.

perf is backward and forward compatible and the module probes the running
kernel, so a build for another kernel works; the warning says which one was
loaded so that nobody is surprised.
"""

import os
import sys

from . import ROOT_REFUSAL, _builds, _layout
from ._loader import DISTRO, NEAREST, Candidate, warn


def _number(version):
    """A version on the scale builds are ordered by: 6.8.0 -> 6_008_000."""
    major, minor, patch = version
    return major * 1_000_000 + min(minor, 999) * 1_000 + min(patch, 999)


def rank(build, target, index):
    """Sort key of a build for a running kernel of version `target`: the
    nearest first; a tie goes to the newer build, which knows more attr
    features and degrades on an older kernel; a build of unknown version
    last; for a running kernel of unknown version, the newest first."""
    if build.version is None:
        return (2, 0, 0, index)
    if target is None:
        return (1, 0, -_number(build.version), index)
    return (0, abs(_number(build.version) - _number(target)), -_number(build.version), index)


def ranked_builds(root, release):
    """The installed builds, nearest to `release` first."""
    target = _layout.version_of(release)
    builds = _builds.installed_builds(root)
    order = sorted(range(len(builds)), key=lambda i: rank(builds[i], target, i))
    return [builds[i] for i in order]


def nearest(search):
    """Step 3: the installed builds for other kernels, nearest first, each
    by the first of its paths (its own, then its links) that its directory
    offers."""
    for build in ranked_builds(search.root, search.release):
        for path in [build.path] + build.links:
            if path in search.scan(os.path.dirname(path)):
                yield Candidate(
                    path, NEAREST,
                    f"nearest installed build: {build.release}, {build.describe_version()}",
                    f"perf: no build for kernel {search.release} is installed; loaded the nearest, "
                    f"built for {build.release}: {path}")
                break


def distro(search):
    """Step 4: an unversioned perf.*.so in a sys.path directory. Debian's
    linux-perf ships one beside our package, which shadows it for a plain
    `import perf`; loading it by path works."""
    entries = sys.path if search.search_path is None else search.search_path
    for entry in entries:
        if not isinstance(entry, str):
            continue
        directory = os.path.abspath(entry or os.curdir)
        if not os.path.isdir(directory):
            continue
        for path in search.scan(directory):
            yield Candidate(
                path, DISTRO, f"distribution module on sys.path ({directory})",
                f"perf: no build for kernel {search.release} is installed; loaded the "
                f"distribution's module {path}")


def warn_loaded(search, chosen):
    """Warn about what was skipped and what was loaded instead, one line each.

    A refusal while running as root is always reported; another refusal only
    when the module came from another directory (i.e. it changed the outcome).
    """
    where = os.path.dirname(chosen.path)
    for path, reason in search.refused:
        if reason.startswith(ROOT_REFUSAL) or os.path.dirname(path) != where:
            warn(f"perf: skipped {path}: {reason}")
    if chosen.warning:
        warn(chosen.warning)
