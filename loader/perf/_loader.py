# SPDX-License-Identifier: GPL-2.0-only
"""The loader's full policy, best first (docs/loader.md):

1. exact release: <root>/usr/lib/linux-tools/<release>/lib/;
2. same ABI: /usr/lib/linux-tools-<abi>/lib/, /usr/lib/linux-<src>-tools-<abi>/lib/,
   the other flavours of the ABI (_layout);
3. the nearest installed build by kernel version, with a warning (_fallback);
4. the distribution's unversioned perf.*.so on sys.path, with a warning.

Steps 3-4 are skipped under policy "exact", step 4 under "nearest" (_policy).
The package's __init__ (the core, reached here as `_core`) loads the common
case itself; this module runs when that fast path declines, and for
perf-python-info. `Search` takes the release, root and euid as arguments, so
the tests run it against staged roots.
"""

import os
import stat
import sys

try:
    # What importlib.util re-exports, without importing it (and contextlib).
    from _frozen_importlib import module_from_spec
    from _frozen_importlib_external import spec_from_file_location
except ImportError:  # pragma: no cover - not CPython
    from importlib.util import module_from_spec, spec_from_file_location

# The package's __init__ (the fast path and core), registered under this
# name by itself so that it stays reachable once the extension has replaced
# the package in sys.modules.
_core = sys.modules[__name__.rpartition(".")[0] + "._core"]

# Environment overrides (ignored under `python -E` and in set-uid programs).
ENV_SYSROOT = "PERF_PYTHON_SYSROOT"
ENV_RELEASE = "PERF_PYTHON_KERNEL_RELEASE"
ENV_POLICY = "PERF_PYTHON_POLICY"

MANIFEST = "perf-python.toml"
CONFIG = "etc/perf-python.toml"

# Steps of the policy, as recorded in perf.__loaded_by__["step"].
EXACT, ABI, FLAVOUR, NEAREST, DISTRO = "exact", "abi", "flavour", "nearest", "distro"
ROOT_REFUSAL = "refused while running as root: "


def env(name):
    """An override from the environment, unless the interpreter ignores it
    (-E, -I) or runs set-uid/set-gid."""
    return _core.ENVIRON.get(name) or None


def running_release():
    """$PERF_PYTHON_KERNEL_RELEASE, else `uname -r`."""
    return env(ENV_RELEASE) or os.uname().release


def sysroot():
    """$PERF_PYTHON_SYSROOT, else /."""
    return env(ENV_SYSROOT) or "/"


def usable_name(name):
    """True if `name` can be one component of a path."""
    return name not in ("", ".", "..") and "/" not in name and "\0" not in name


def unsafe_reason(path: str) -> "str | None":
    """Why root must not load `path` (see _core.ownership), or None."""
    node, st = _core.ownership(path)
    if node is None:
        return None
    if isinstance(st, OSError):
        return f"cannot check {node}: {st.strerror}"
    if st.st_uid != 0:
        kind = "a symbolic link " if stat.S_ISLNK(st.st_mode) else ""
        return f"{node} is {kind}owned by uid {st.st_uid}, not root"
    if stat.S_ISLNK(st.st_mode):
        return f"too many symbolic links under {path}"
    writable = st.st_mode & 0o022
    who = {0o020: "its group", 0o002: "others"}.get(writable, "its group and others")
    return f"{node} is writable by {who} (mode {st.st_mode & 0o7777:04o})"


def flavour_dir(root, release):
    """/usr/lib/linux-tools/<release>/lib, Ubuntu's per-flavour directory."""
    return os.path.join(root, "usr", "lib", "linux-tools", release, "lib")


def split_extensions(names):
    """(loadable, foreign) perf.*.so names: the loadable ones in this
    interpreter's suffix order (_core.EXTENSION_SUFFIXES), the others sorted."""
    loadable, foreign = [], []
    for name in names:
        if name.startswith("perf.") and name.endswith(".so"):
            suffix = name[4:]
            if suffix in _core.EXTENSION_SUFFIXES:
                loadable.append((_core.EXTENSION_SUFFIXES.index(suffix), name))
            else:
                foreign.append(name)
    return [n for _, n in sorted(loadable)], sorted(foreign)


def pick_extension(directory):
    """The first extension in `directory` this interpreter can load, or None."""
    try:
        loadable, _ = split_extensions(os.listdir(directory))
    except OSError:
        return None
    for name in loadable:
        path = os.path.join(directory, name)
        if os.path.isfile(path):
            return path
    return None


def foreign_reason(name):
    """Why this interpreter cannot load an extension named `name`."""
    return (f"built for another Python ABI ({name[5:-3]}); this interpreter loads "
            + ", ".join("perf" + s for s in _core.EXTENSION_SUFFIXES))


class Candidate:
    """An extension the policy offers: path, step, why (a sentence), and the
    warning to give if it is loaded."""

    __slots__ = ("path", "step", "why", "warning")

    def __init__(self, path, step, why, warning=None):
        self.path, self.step, self.why, self.warning = path, step, why, warning

    def __repr__(self):
        return f"Candidate({self.path!r}, {self.step!r}, {self.why!r})"


class Search:
    """One run of the policy. `candidates()` yields what may be loaded, best
    first, recording every directory searched (`searched`: (directory, note))
    and every file refused (`refused`: (path, reason))."""

    def __init__(self, release=None, root=None, euid=None, policy=None, search_path=None):
        self.release = running_release() if release is None else release
        self.root = sysroot() if root is None else root
        self.euid = os.geteuid() if euid is None else euid
        self._policy = policy
        self.search_path = search_path
        self.searched = []
        self.refused = []
        self._seen = set()

    @property
    def policy(self):
        """(policy, where it came from); resolved when steps 1-2 fail. If
        resolving raises (a warning about the setting, made an error by the
        warnings filter), the search stays strict."""
        if self._policy is None or isinstance(self._policy, str):
            override = self._policy
            self._policy = ("exact", "the policy setting could not be used")
            self._policy = _sibling("_policy").resolve(self.root, override)
        return self._policy

    def refuse(self, path, reason, identity=None):
        """Record a refusal. With the file's identity (st_dev, st_ino) the
        file is ruled out under any other name too; a refusal of the route
        (an unsafe directory or link) only rules out this path."""
        self.refused.append((path, reason))
        self._seen.add(path if identity is None else identity)

    def accept(self, path):
        """True if `path` may be offered: a regular file not offered or
        refused before (under any name), and safe for root to load."""
        try:
            st = os.stat(path)
        except OSError as e:
            self.refuse(path, f"cannot use it: {e.strerror}")
            return False
        identity = (st.st_dev, st.st_ino)
        if identity in self._seen or path in self._seen:
            return False
        if not stat.S_ISREG(st.st_mode):
            self.refuse(path, "not a regular file", identity)
            return False
        if self.euid == 0:
            reason = unsafe_reason(path)
            if reason is not None:
                self.refuse(path, ROOT_REFUSAL + reason)
                return False
        self._seen.add(identity)
        return True

    def identity(self, path):
        """(st_dev, st_ino) of a file, or None."""
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)

    def scan(self, directory):
        """The loadable extensions in one directory, best first."""
        try:
            names = os.listdir(directory)
        except OSError as e:
            self.searched.append((directory, "missing" if isinstance(e, FileNotFoundError)
                                  else e.strerror or str(e)))
            return []
        loadable, foreign = split_extensions(names)
        for name in foreign:
            self.refuse(os.path.join(directory, name), foreign_reason(name))
        found, notes = [], []
        for name in loadable:
            path = os.path.join(directory, name)
            refusals = len(self.refused)
            if self.accept(path):
                found.append(path)
                notes.append(f"found {name}")
            elif len(self.refused) == refusals:
                notes.append(f"{name} is a file found before")
            else:
                notes.append(f"{name} refused")
        self.searched.append((directory, ", ".join(notes) or "no loadable perf.*.so"))
        return found

    def candidates(self):
        """Everything the policy allows, best first."""
        release = self.release
        if not usable_name(release):
            self.searched.append((f"(release {release!r})", "not usable as a directory name"))
        else:
            for path in self.scan(flavour_dir(self.root, release)):
                yield Candidate(path, EXACT, f"exact release {release}")
            yield from _sibling("_layout").same_abi(self)
        policy, _ = self.policy
        if policy == "exact":
            return
        fallback = _sibling("_fallback")
        yield from fallback.nearest(self)
        if policy == "nearest":
            return
        yield from fallback.distro(self)

    def failure(self):
        """The KernelNotFoundError describing this search."""
        return _sibling("_errors").KernelNotFoundError.from_search(self)


def warn(message):
    """A one-line RuntimeWarning, attributed to the code that ran `import
    perf` rather than to the loader or the import machinery."""
    import warnings

    # warnings skips the import machinery's frames itself; count ours.
    here = os.path.dirname(os.path.abspath(__file__))
    level = 1
    frame = sys._getframe(0)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith("<frozen importlib"):
            if not filename.startswith(here):
                break
            level += 1
        frame = frame.f_back
    warnings.warn(message, RuntimeWarning, stacklevel=level)


def find(release: "str | None" = None, root: "str | None" = None, **kw) -> Candidate:
    """The first candidate (nothing is loaded), or raise KernelNotFoundError."""
    search = Search(release, root, **kw)
    for candidate in search.candidates():
        return candidate
    raise search.failure()


def import_perf(name: str = "perf"):
    """What perf/__init__.py does when its fast path declines: load the first
    candidate that loads, warn if it is not a build for this kernel or
    something was skipped, and replace the package in sys.modules.

    Raises KernelNotFoundError, and nothing else: where the warnings filter
    makes a warning an error (python -W error), the candidate it is about is
    not used, so that the caller still gets an ImportError.
    """
    search = Search()
    try:
        for c in search.candidates():
            # Imported before load() replaces the package in sys.modules.
            fallback = _sibling("_fallback") if c.warning or search.refused else None
            package = sys.modules.get(name)
            try:
                module = _core.load(c.path, c.why, name, c.step, search.release)
            except ImportError as e:
                search.refuse(c.path, f"failed to load: {e}", search.identity(c.path))
                continue
            if fallback is not None:
                try:
                    fallback.warn_loaded(search, c)
                except Warning as w:
                    if package is not None:  # the package again, for the next candidate
                        sys.modules[name] = package
                    search.refuse(c.path, f"not used: the warning is an error here: {w}")
                    continue
            return module
    except Warning as w:
        raise search.failure() from w
    raise search.failure()


def _sibling(name):
    """Another module of this package, imported on first use (by path once
    the extension has replaced the package in sys.modules)."""
    full = __name__.rpartition(".")[0] + "." + name
    module = sys.modules.get(full)
    if module is None:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), name + ".py")
        spec = spec_from_file_location(full, path)
        module = module_from_spec(spec)
        sys.modules[full] = module
        try:
            spec.loader.exec_module(module)
        except BaseException:
            del sys.modules[full]
            raise
    return module


_ELSEWHERE = {"KernelNotFoundError": "_errors", "package_name": "_errors",
              "installed_builds": "_builds", "diagnose": "_diagnose",
              "abi_of": "_layout", "version_of": "_layout"}


def __getattr__(name):
    """Names defined in the slow-path modules, imported on first use."""
    if name in _ELSEWHERE:
        return getattr(_sibling(_ELSEWHERE[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
