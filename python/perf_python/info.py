# SPDX-License-Identifier: GPL-2.0-only
"""`perf-python-info` of the wheel: which `perf` this interpreter imports,
from where, what build it is, and which other `perf` modules on sys.path it
shadows (the Debian packages' loader, the kernel's C module). The Debian
packages have their own `perf-python-info`, about the per-ABI builds
(docs/loader.md)."""

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES

_BUILD_KEYS = ("build", "kernel_release", "abi", "flavour", "kernel_version", "attr_size",
               "build_version", "python_abi")


def _wheel_package():
    """The directory of the wheel's `perf` package, beside this one."""
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "perf")


def _candidates():
    """Every `perf` on sys.path, in the order `import perf` tries them: a
    package directory or an extension file this interpreter can load."""
    found = []
    for entry in sys.path:
        directory = os.path.abspath(entry or os.curdir)
        package = os.path.join(directory, "perf", "__init__.py")
        if os.path.isfile(package):
            found.append(os.path.dirname(package))
        found.extend(os.path.join(directory, "perf" + suffix) for suffix in EXTENSION_SUFFIXES
                     if os.path.isfile(os.path.join(directory, "perf" + suffix)))
    return found


def _describe(path, wheel):
    if os.path.realpath(path) == os.path.realpath(wheel):
        return "the perf-python wheel"
    if os.path.isfile(os.path.join(path, "_loader.py")):
        return "the loader of the Debian packages (its own perf-python-info tells more)"
    if os.path.isdir(path):
        return "a perf package"
    return "an extension module (the kernel's C module, or a build on PYTHONPATH)"


def main(out=None):
    """Print the report; 0 if `import perf` works, else 1."""
    out = sys.stdout if out is None else out

    def say(line=""):
        print(line, file=out)

    wheel = _wheel_package()
    in_venv = sys.prefix != sys.base_prefix
    say(f"python: {sys.executable} {sys.version.split()[0]}"
        + (f" (virtual environment {sys.prefix})" if in_venv else ""))
    say(f"running kernel release: {os.uname().release}")
    candidates = _candidates()
    say("perf on sys.path, in import order:")
    for path in candidates:
        say(f"  {path}: {_describe(path, wheel)}")
    if not candidates:
        say("  none")
    say()
    try:
        import perf
    except ImportError as e:
        say(f"import perf: failed: {type(e).__name__}: {e}")
        return 1
    path = getattr(perf, "__file__", None) or "(no file)"
    say(f"import perf: {path}")
    loaded_by = getattr(perf, "__loaded_by__", None)
    if loaded_by:
        say(f"loaded by: {loaded_by.get('step')} ({loaded_by.get('reason')})")
    build = getattr(perf, "__build__", None)
    if build is None:
        say("build: none stated (not this project's module: the kernel's C module?)")
        return 0
    say("build: " + ", ".join(f"{k} = {build[k]!r}" for k in _BUILD_KEYS if k in build))
    if build.get("build") == "wheel":
        say("the wheel's build serves every kernel: it probes the running one")
    suffix = next((s for s in EXTENSION_SUFFIXES if path.endswith(s)), None)
    say(f"python ABI: {build.get('python_abi')} (file suffix {suffix}; loads on CPython >= 3.10)")
    if os.path.realpath(os.path.dirname(path)) != os.path.realpath(wheel) and os.path.isdir(wheel):
        say(f"note: the wheel's perf in {wheel} is shadowed by {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
