# SPDX-License-Identifier: GPL-2.0-only
# `import perf`: loads the perf extension built for the running kernel.
#
# The extension replaces this package in sys.modules, so `import perf` gives
# the extension itself; KernelNotFoundError (a ModuleNotFoundError) says what
# is missing. This file is the fast path (step 1 of the policy) and the pieces
# of the core it needs; the full policy is in _loader (docs/loader.md).
#
# Python unmarshals every code object, name and constant of this file on each
# `import perf`, and that is most of the loader's cost: hence comments rather
# than docstrings, no type hints, the fast path as module code rather than a
# function, and the extension made by the import system's own primitives
# rather than importlib's wrappers around them (docs/performance.md).

import os
import stat
import sys

from _imp import create_dynamic, exec_dynamic

try:
    # Loaded at start-up on CPython; importlib.machinery would cost more
    # than the whole fast path.
    from _frozen_importlib import ModuleSpec
    from _frozen_importlib_external import EXTENSION_SUFFIXES, ExtensionFileLoader
except ImportError:  # pragma: no cover - not CPython
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec

# os.environ, or {} under -E/-I and in set-uid/set-gid programs: the
# PERF_PYTHON_* overrides are honoured only when the caller could set them.
if sys.flags.ignore_environment or os.getuid() != os.geteuid() or os.getgid() != os.getegid():
    ENVIRON = {}
else:
    ENVIRON = os.environ


# Whether root may load `path`: every component from / to the file, following
# symbolic links as the kernel does, must be owned by root and not writable
# by group or others (a sticky directory such as /tmp may be: its entries are
# checked in turn). Returns (None, the file's lstat) if so, else (the
# component, its lstat or the OSError); _loader.unsafe_reason() says it in
# words.
def ownership(path):
    if path[:1] != "/":
        path = os.getcwd() + "/" + path
    pending = path.split("/")
    pending.reverse()
    node = ""
    links = 0
    st = None
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
            if stat.S_ISLNK(st.st_mode) and st.st_uid == 0 and links < 40:
                links += 1
                target = os.readlink(node).split("/")
                node = "" if target[0] == "" else node.rpartition("/")[0]
                target.reverse()
                pending += target
                continue
        except OSError as e:
            return node, e
        if st.st_uid or (st.st_mode & 0o022 and not (stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX)):
            return node, st
    root = os.lstat("/")
    if root.st_uid or root.st_mode & 0o022:
        return "/", root
    return None, st or root


# Load the extension at `path` as `name` and make it sys.modules[name]: what
# importlib's spec_from_file_location, module_from_spec and exec_module do
# for an extension, without their generality. Our module, like the C one, is
# single-phase: create_dynamic has run its init and put it in sys.modules
# already (exec_dynamic does nothing then); the assignment makes that
# explicit and would keep the package from being returned by a multi-phase
# build.
def load(path, why="explicit", name="perf", step="explicit", release=None):
    loader = ExtensionFileLoader(name, path)
    spec = ModuleSpec(name, loader, origin=path)
    spec.has_location = True
    module = create_dynamic(spec)
    module.__spec__, module.__loader__, module.__file__, module.__package__ = spec, loader, path, spec.parent
    exec_dynamic(module)
    sys.modules[name] = module
    module.__loaded_by__ = {"path": path, "reason": why, "step": step,
                            "release": os.uname().release if release is None else release}
    return module


# The fast path: step 1 without the bookkeeping. The build in the running
# release's flavour directory, if it is there, a regular file and (as root)
# safe; else the full policy, which also says what it skipped and why, takes
# over.
module = None
if __name__ == "perf":
    release = ENVIRON.get("PERF_PYTHON_KERNEL_RELEASE") or os.uname().release
    if release not in ("", ".", "..") and "/" not in release and "\0" not in release:
        lib = (ENVIRON.get("PERF_PYTHON_SYSROOT") or "/").rstrip("/") + "/usr/lib/linux-tools/" + release + "/lib/perf"
        for suffix in EXTENSION_SUFFIXES:
            if os.access(lib + suffix, os.F_OK):
                try:
                    unsafe, st = (None, os.stat(lib + suffix)) if os.geteuid() else ownership(lib + suffix)
                    if unsafe is None and stat.S_ISREG(st.st_mode):
                        module = load(lib + suffix, "exact release " + release, __name__, "exact", release)
                except (OSError, ValueError, ImportError):
                    pass
                break

if module is None:
    # The other modules reach this one as sys.modules["perf._core"], which
    # stays valid once the extension has replaced the package in sys.modules.
    if __name__ in sys.modules:
        sys.modules[__name__ + "._core"] = sys.modules[__name__]
    if __name__ == "perf":  # not when perf-python-info or a test reads the core
        from perf import _loader

        _loader.import_perf(__name__)
