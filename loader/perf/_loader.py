# SPDX-License-Identifier: GPL-2.0-only
"""Find and load the `perf` extension built for the running kernel.

Pure functions (release -> ABI -> candidate directories -> chosen file) are kept
apart from the one side effect, `load()`, so they can be tested against staged
roots. See docs/loader.md.
"""

import importlib.machinery
import importlib.util
import os
import sys

# Environment overrides (ignored under `python -E` and in set-uid programs).
ENV_SYSROOT = "PERF_PYTHON_SYSROOT"
ENV_RELEASE = "PERF_PYTHON_KERNEL_RELEASE"

MANIFEST = "perf-python.toml"


class KernelNotFoundError(ModuleNotFoundError):
    """No `perf` extension is installed for the running kernel."""

    def __init__(self, release, searched, found=()):
        abi, flavour = abi_of(release)
        lines = [
            f"python perf module not found for kernel {release}",
            "searched: " + (", ".join(searched) if searched else "(nothing)"),
        ]
        if found:
            lines.append("builds installed: " + ", ".join(found))
        lines.append(f"install the package for this kernel: linux-tools-{abi}"
                     + (f" (flavour {flavour})" if flavour else ""))
        super().__init__("\n".join(lines), name="perf")
        self.release = release
        self.searched = list(searched)
        self.found = list(found)


def env(name):
    """An override from the environment, unless the interpreter ignores it."""
    if sys.flags.ignore_environment:
        return None
    if hasattr(os, "getuid") and os.getuid() != os.geteuid():
        return None
    value = os.environ.get(name)
    return value or None


def running_release():
    return env(ENV_RELEASE) or os.uname().release


def sysroot():
    return env(ENV_SYSROOT) or "/"


def _decimal(s):
    return s.isdigit() and s.isascii()


def abi_of(release):
    """`6.8.0-31-generic` -> ("6.8.0-31", "generic"); anything that is not
    `X.Y.Z-N-flavour` is its own ABI with no flavour. Mirrors perf-abi's
    KernelRelease (the tests compare both over one table)."""
    release = release.strip()
    parts = release.split("-", 2)
    if len(parts) == 3:
        upstream, abinum, flavour = parts
        nums = upstream.split(".")
        if len(nums) == 3 and all(_decimal(n) for n in nums) and _decimal(abinum) and flavour:
            return f"{upstream}-{abinum}", flavour
    return release, None


def candidate_dirs(release, root="/"):
    """Directories to search, best first: the flavour directory Ubuntu's tools
    use, then the ABI directory."""
    abi, _ = abi_of(release)
    lib = os.path.join(root, "usr", "lib")
    return [
        os.path.join(lib, "linux-tools", release, "lib"),
        os.path.join(lib, f"linux-tools-{abi}", "lib"),
    ]


def pick_extension(directory):
    """The `perf` extension in a directory that this interpreter can load,
    chosen deterministically by this interpreter's suffix preference."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(directory, "perf" + suffix)
        if os.path.isfile(path):
            return path
    return None


def find(release=None, root=None):
    """(path, why) of the build to load, or raise KernelNotFoundError."""
    release = release or running_release()
    root = root or sysroot()
    searched = []
    for directory in candidate_dirs(release, root):
        searched.append(directory)
        path = pick_extension(directory)
        if path:
            why = "exact release" if len(searched) == 1 else "same ABI"
            return path, why
    raise KernelNotFoundError(release, searched)


def load(path, why="explicit"):
    """Load the extension at `path` as `perf` and make it `sys.modules['perf']`."""
    spec = importlib.util.spec_from_file_location("perf", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules["perf"] = module
    module.__loaded_by__ = {"path": path, "reason": why, "release": running_release()}
    return module


def installed_builds(root=None):
    """Every installed build: (directory, extension path, manifest text or None)."""
    root = root or sysroot()
    lib = os.path.join(root, "usr", "lib")
    dirs = []
    try:
        names = sorted(os.listdir(lib))
    except OSError:
        names = []
    for name in names:
        if name.startswith("linux-") and "tools-" in name:
            dirs.append(os.path.join(lib, name, "lib"))
    builds = []
    for d in dirs:
        path = pick_extension(d)
        if not path:
            continue
        try:
            with open(os.path.join(d, MANIFEST), encoding="utf-8") as f:
                manifest = f.read()
        except OSError:
            manifest = None
        builds.append((d, path, manifest))
    return builds


def diagnose(out=sys.stdout):
    """Print what `import perf` would load on this machine, and why."""
    release = running_release()
    root = sysroot()
    abi, flavour = abi_of(release)
    print(f"running kernel release: {release}", file=out)
    print(f"ABI: {abi}" + (f", flavour: {flavour}" if flavour else " (no flavour)"), file=out)
    if root != "/":
        print(f"system root: {root} (from ${ENV_SYSROOT})", file=out)
    print("installed builds:", file=out)
    builds = installed_builds(root)
    if not builds:
        print("  (none)", file=out)
    for _, path, manifest in builds:
        print(f"  {path}", file=out)
        for line in (manifest or "(no manifest)\n").splitlines():
            print(f"      {line}", file=out)
    try:
        path, why = find(release, root)
        print(f"import perf would load: {path} ({why})", file=out)
        return 0
    except KernelNotFoundError as e:
        print(f"import perf would fail: {e}", file=out)
        return 1
