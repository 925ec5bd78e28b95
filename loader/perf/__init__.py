# SPDX-License-Identifier: GPL-2.0-only
"""`import perf`: the perf extension built for the running kernel.

This package finds the build of the extension for the kernel that is running
among those installed side by side, as the policy in _loader says, and loads
it in its own place: the extension replaces the package in sys.modules, so
`import perf` gives the extension itself. When nothing may be loaded,
`import perf` raises KernelNotFoundError, a ModuleNotFoundError that says
what was searched and what to install. See docs/loader.md.

The policy's first step, the build in the running release's directory, is
the common case. This module holds what it takes, which every step uses:
scan() a directory, unsafe_reason() for root, load(). When step 1 has nothing
to load, or something to say (a refusal), the whole policy (_loader) runs
from the start, and says what it skipped and why. Python reads this module
on every `import perf`, the others only when they are needed: each module
more on this path would cost 0.2x a direct import (docs/performance.md).

Imported under another name (perf-python-info, the tests), the package loads
nothing: its modules then tell what `import perf` would do.
"""

import os
import stat
import sys

# importlib.machinery's names, from the modules of CPython's import system
# that define them, which are loaded at start-up: importing importlib.machinery
# would import the importlib package and warnings, 1.05x a direct import of
# the extension (docs/performance.md). The extension is built for CPython only.
from _frozen_importlib import ModuleSpec
from _frozen_importlib_external import EXTENSION_SUFFIXES, ExtensionFileLoader

ENV_SYSROOT = "PERF_PYTHON_SYSROOT"
ENV_RELEASE = "PERF_PYTHON_KERNEL_RELEASE"
ENV_POLICY = "PERF_PYTHON_POLICY"

# The environment the PERF_PYTHON_* overrides are read from: an empty one
# where the caller of this interpreter could not have set them, under
# `python -E` or `-I`, and when the real and effective user or group ids
# differ (a set-uid program must not be steered by its caller).
if sys.flags.ignore_environment or os.getuid() != os.geteuid() or os.getgid() != os.getegid():
    ENVIRON = {}
else:
    ENVIRON = os.environ

ROOT_REFUSAL = "refused while running as root: "


def usable_name(name):
    """True if `name` can be one component of a path."""
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


def flavour_dir(root, release):
    """<root>/usr/lib/linux-tools/<release>/lib, Ubuntu's per-flavour
    directory: step 1 looks there."""
    return root.rstrip("/") + "/usr/lib/linux-tools/" + release + "/lib"


def unsafe_reason(path):
    """Why root must not load `path`, or None if it may.

    Every component from / to the file, following symbolic links as the
    kernel does, must be owned by root and not writable by its group or by
    others: whoever can write to one of them can replace the file, or make a
    link point elsewhere. A sticky directory such as /tmp may be writable by
    all, since the entries in it (checked in turn) cannot be replaced by
    anyone else.
    """
    if not path.startswith("/"):
        path = os.getcwd() + "/" + path
    pending = path.split("/")
    pending.reverse()
    node = ""
    links = 0
    while pending:
        name = pending.pop()
        if name == "" or name == ".":
            continue
        if name == "..":
            node = node.rpartition("/")[0]
            continue
        node += "/" + name
        try:
            st = os.lstat(node)
            link = os.readlink(node) if stat.S_ISLNK(st.st_mode) else None
        except OSError as e:
            return f"cannot check {node}: {e.strerror}"
        if st.st_uid != 0:
            kind = "a symbolic link " if link is not None else ""
            return f"{node} is {kind}owned by uid {st.st_uid}, not root"
        if link is not None:
            links += 1
            if links > 40:  # the kernel's limit (ELOOP)
                return f"too many symbolic links under {path}"
            target = link.split("/")
            node = "" if target[0] == "" else node.rpartition("/")[0]
            target.reverse()
            pending += target
        elif st.st_mode & 0o022 and not (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX):
            return _writable(node, st.st_mode)
    st = os.lstat("/")
    if st.st_uid != 0:
        return f"/ is owned by uid {st.st_uid}, not root"
    return _writable("/", st.st_mode) if st.st_mode & 0o022 else None


def _writable(node, mode):
    who = {0o020: "its group", 0o002: "others"}.get(mode & 0o022, "its group and others")
    return f"{node} is writable by {who} (mode {mode & 0o7777:04o})"


def scan(directory, as_root, seen):
    """The perf.*.so in `directory` that this interpreter can load, judged:
    (found, refused, names).

    `found` lists those that are regular files and, `as_root`, safe for root
    to load (unsafe_reason()), in the order of this interpreter's extension
    suffixes; `refused` lists (path, reason) for the others; `names` is the
    directory's listing. Files in `seen`, the identities (st_dev, st_ino) of
    the files offered or refused before, are passed over, and the ones found
    or not regular are added. OSError if the directory cannot be listed.
    """
    names = os.listdir(directory)
    found, refused = [], []
    for suffix in EXTENSION_SUFFIXES:
        name = "perf" + suffix
        if name not in names:
            continue
        path = directory + "/" + name
        try:
            st = os.stat(path)
        except OSError as e:
            refused.append((path, "cannot use it: " + e.strerror))
            continue
        identity = (st.st_dev, st.st_ino)
        if identity in seen:
            continue
        if not stat.S_ISREG(st.st_mode):
            seen.add(identity)
            refused.append((path, "not a regular file"))
        elif as_root and (reason := unsafe_reason(path)) is not None:
            refused.append((path, ROOT_REFUSAL + reason))
        else:
            seen.add(identity)
            found.append(path)
    return found, refused, names


def load(path, name, why, step, release):
    """Load the extension at `path` as the module `name`, as the import
    system loads an extension it has found, and make it sys.modules[name];
    `why`, `step` and `release` go to its __loaded_by__. ImportError if it
    does not load."""
    loader = ExtensionFileLoader(name, path)
    spec = ModuleSpec(name, loader, origin=path)
    spec.has_location = True
    module = loader.create_module(spec)
    # What importlib.util.module_from_spec() sets before exec_module().
    module.__spec__, module.__loader__, module.__package__ = spec, loader, spec.parent
    module.__file__ = path
    loader.exec_module(module)
    # A single-phase extension (ours, the kernel's C module) has put itself
    # in sys.modules; a multi-phase one would not have.
    sys.modules[name] = module
    module.__loaded_by__ = {"path": path, "reason": why, "step": step, "release": release}
    return module


# Step 1 of the policy, when it has nothing to say.
if __name__ == "perf":
    _release = ENVIRON.get(ENV_RELEASE) or os.uname().release
    _module = None
    if usable_name(_release):
        try:
            _found, _refused, _ = scan(flavour_dir(ENVIRON.get(ENV_SYSROOT) or "/", _release),
                                       os.geteuid() == 0, set())
            if _found and not _refused:
                _module = load(_found[0], __name__, "exact release " + _release, "exact", _release)
        except (OSError, ImportError):
            pass
    if _module is None:
        from ._loader import import_perf

        import_perf(__name__)
