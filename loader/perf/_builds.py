# SPDX-License-Identifier: GPL-2.0-only
"""Every build installed under a root, with its manifest.

Builds live in the directories _layout.build_dirs() lists. Each may hold a
manifest, perf-python.toml, written by `perf-abi manifest`. Its
kernel_version orders the builds for the nearest-build step; a build without
one (Ubuntu's own perf.cpython-*.so) is dated by its directory's name.
"""

import os

from . import _layout, scan
from ._loader import MANIFEST, foreign, foreign_reason, sysroot


class Build:
    """One installed extension and what is known about it."""

    def __init__(self, path, directory, kind, name):
        self.path = path
        self.directory = directory
        self.kind = kind
        self.name = name  # the release or ABI the directory is named after
        self.manifest = None
        self.manifest_error = None
        self.release = name
        self.version = None
        self.version_source = None
        self.links = []  # other directories whose entry resolves to this file

    def read_manifest(self):
        """Read the manifest beside the build, and the release and kernel
        version from it (the version from the directory's name without)."""
        from . import _toml  # imports re and tomllib: only when a file is read

        path = os.path.join(self.directory, MANIFEST)
        try:
            self.manifest = _toml.load_file(path)
        except FileNotFoundError:
            self.manifest_error = "no manifest"
        except (OSError, ValueError) as e:
            self.manifest_error = f"unreadable manifest {path}: {e}"
        m = self.manifest if isinstance(self.manifest, dict) else {}
        if isinstance(m.get("kernel_release"), str):
            self.release = m["kernel_release"]
        if isinstance(m.get("kernel_version"), str):
            self.version = _layout.version_of(m["kernel_version"])
            self.version_source = "manifest"
        if self.version is None:
            self.version = _layout.version_of(self.name.strip())
            if self.version is not None:
                self.version_source = "directory name"
        return self

    def describe_version(self):
        """`kernel 6.8.0 (from the manifest)`, or why it is unknown."""
        if self.version is None:
            return "unknown kernel version"
        return "kernel " + ".".join(map(str, self.version)) + f" (from the {self.version_source})"

    def __repr__(self):
        return f"Build({self.path!r}, {self.release!r}, {self.version!r})"


def installed_builds(root=None):
    """Every installed build under `root`, one per file: the first extension
    this interpreter can load in each build directory. A file reached from
    several directories (a flavour link to an ABI directory's file) is listed
    once, under its real directory, with the other paths as `links`."""
    root = sysroot() if root is None else root
    groups = {}
    for kind, name, directory in _layout.build_dirs(root):
        try:
            found = scan(directory, False, set())[0]
        except OSError:
            continue
        if found:
            path = found[0]
            groups.setdefault(os.path.realpath(path), []).append((kind, name, directory, path))
    builds = []
    for entries in groups.values():
        plain = [e for e in entries if not os.path.islink(e[3])]
        kind, name, directory, path = (plain or entries)[0]
        build = Build(path, directory, kind, name).read_manifest()
        build.links = [e[3] for e in entries if e[3] != path]
        builds.append(build)
    return builds


def foreign_extensions(root=None):
    """(path, reason) of every perf.*.so in a build directory that this
    interpreter cannot load."""
    root = sysroot() if root is None else root
    out = []
    for _, _, directory in _layout.build_dirs(root):
        try:
            names = os.listdir(directory)
        except OSError:
            continue
        out.extend((os.path.join(directory, n), foreign_reason(n)) for n in foreign(names))
    return out
