# SPDX-License-Identifier: GPL-2.0-only
# `import perf`: loads the perf extension built for the running kernel.
#
# The extension replaces this package in sys.modules, so `import perf` gives
# the extension itself; KernelNotFoundError (a ModuleNotFoundError) says what
# is missing. This file is the fast path (step 1 of the policy) and the pieces
# of the core it needs; the full policy is in _loader (docs/loader.md).
#
# Python unmarshals every name and constant of this file on each
# `import perf`, and that is most of the loader's cost: hence comments rather
# than docstrings, no type hints, and few names (docs/performance.md).

import os
import stat
import sys

try:
    # Loaded at start-up on CPython; importlib.util would cost more than the
    # whole fast path.
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import EXTENSION_SUFFIXES, ExtensionFileLoader, spec_from_file_location
except ImportError:  # pragma: no cover - not CPython
    from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader
    from importlib.util import module_from_spec, spec_from_file_location


# os.environ, or {} under -E/-I and in set-uid/set-gid programs: the
# PERF_PYTHON_* overrides are honoured only when the caller could set them.
def environ():
    if sys.flags.ignore_environment or os.getuid() != os.geteuid() or os.getgid() != os.getegid():
        return {}
    return os.environ


# None if root may load `path`, else (component, its lstat or the OSError):
# every component from / to the file, following symbolic links as the kernel
# does, must be owned by root and not writable by group or others (a sticky
# directory such as /tmp may be: its entries are checked in turn).
# _loader.unsafe_reason() says it in words.
def unsafe_component(path):
    if path[:1] != "/":
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
    st = os.lstat("/")
    if st.st_uid or st.st_mode & 0o022:
        return "/", st
    return None


# Load the extension at `path` as `name` and make it sys.modules[name]. Our
# module, like the C one, is single-phase, so module_from_spec() has put it in
# sys.modules already; the assignment makes that explicit and would keep the
# package from being returned by a multi-phase build.
def load(path, why="explicit", name="perf", step="explicit", release=None):
    spec = spec_from_file_location(name, path, loader=ExtensionFileLoader(name, path))
    module = module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[name] = module
    module.__loaded_by__ = {"path": path, "reason": why, "step": step,
                            "release": os.uname().release if release is None else release}
    return module


# Step 1 without the bookkeeping: the build in the running release's flavour
# directory, if it is there and safe; else None, and the full policy, which
# also says what it skipped and why, takes over.
def _fast_path(name):
    env = environ()
    release = env.get("PERF_PYTHON_KERNEL_RELEASE") or os.uname().release
    if release in ("", ".", "..") or "/" in release or "\0" in release:
        return None
    lib = (env.get("PERF_PYTHON_SYSROOT") or "/").rstrip("/") + "/usr/lib/linux-tools/" + release + "/lib/perf"
    try:
        for suffix in EXTENSION_SUFFIXES:
            if os.access(lib + suffix, os.F_OK):
                if stat.S_ISREG(os.stat(lib + suffix).st_mode) and (os.geteuid() or unsafe_component(lib + suffix) is None):
                    return load(lib + suffix, "exact release " + release, name, "exact", release)
                return None
    except (OSError, ValueError, ImportError):
        pass
    return None


if __name__ != "perf" or _fast_path(__name__) is None:
    # The other modules reach this one as sys.modules["perf._core"], which
    # stays valid once the extension has replaced the package in sys.modules.
    if __name__ in sys.modules:
        sys.modules[__name__ + "._core"] = sys.modules[__name__]
    if __name__ == "perf":  # not when perf-python-info or a test reads the core
        from perf import _loader

        _loader.import_perf(__name__)
