# SPDX-License-Identifier: GPL-2.0-only
"""The loader's policy, best first; the first build that loads wins
(docs/loader.md):

1. exact release: <root>/usr/lib/linux-tools/<release>/lib/;
2. same ABI: /usr/lib/linux-tools-<abi>/lib/, the derivative kernels'
   /usr/lib/linux-<src>-tools-<abi>/lib/, then the other flavours of the ABI
   (_layout);
3. the nearest installed build by kernel version, with a warning (_fallback);
4. the distribution's unversioned perf.*.so on sys.path, with a warning
   (_fallback).

Steps 3 and 4 are skipped under policy "exact", step 4 under "nearest"
(_policy). The package's __init__ loads the build of step 1 itself when
there is nothing to say about it; this module runs otherwise, and for
perf-python-info. `Search` takes the release, root and euid as arguments, so
that perf-python-info and the tests can ask about any of them.

The modules of the later steps are imported when a step runs: while the
package is still sys.modules["perf"] (a load that fails leaves it there, one
whose warning is refused puts it back), so that relative imports work.
"""

import os
import sys

from . import (ENV_RELEASE, ENV_SYSROOT, ENVIRON, EXTENSION_SUFFIXES, flavour_dir, load, scan,
               usable_name)

MANIFEST = "perf-python.toml"
CONFIG = "etc/perf-python.toml"

# Steps of the policy, as recorded in perf.__loaded_by__["step"].
EXACT, ABI, FLAVOUR, NEAREST, DISTRO = "exact", "abi", "flavour", "nearest", "distro"


def env(name):
    """An override from the environment, or None: unset, empty, or ignored
    (under `python -E` and `-I`, and in set-uid or set-gid programs)."""
    return ENVIRON.get(name) or None


def running_release():
    """$PERF_PYTHON_KERNEL_RELEASE, else `uname -r`."""
    return env(ENV_RELEASE) or os.uname().release


def sysroot():
    """$PERF_PYTHON_SYSROOT, else /."""
    return env(ENV_SYSROOT) or "/"


def foreign(names):
    """The names among `names` of extensions built for another Python (a
    perf.*.so whose suffix this interpreter does not load), sorted."""
    return sorted(n for n in names if n.startswith("perf.") and n.endswith(".so")
                  and n[4:] not in EXTENSION_SUFFIXES)


def foreign_reason(name):
    """Why this interpreter does not load the extension named `name`."""
    return (f"built for another Python ABI ({name[5:-3]}); this interpreter loads "
            + ", ".join("perf" + s for s in EXTENSION_SUFFIXES))


class Candidate:
    """An extension the policy offers: its path, the step, why (a sentence)
    and the warning to give if it is loaded."""

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
        self._seen = set()  # the files offered or refused: scan() passes them over
        self._scanned = set()

    @property
    def policy(self):
        """(policy, where it came from), resolved when first asked (after
        steps 1 and 2). If resolving raises (a warning about the setting,
        made an error by the warnings filter), the search stays strict."""
        if self._policy is None or isinstance(self._policy, str):
            from . import _policy

            override = self._policy
            self._policy = ("exact", "the policy setting could not be used")
            self._policy = _policy.resolve(self.root, override)
        return self._policy

    def scan(self, directory):
        """The extensions one directory offers, best first, recording what it
        held and what was refused. A directory is scanned once per search:
        what it offered was offered, what it refused stays refused."""
        if directory in self._scanned:
            return []
        self._scanned.add(directory)
        try:
            found, refused, names = scan(directory, self.euid == 0, self._seen)
        except OSError as e:
            self.searched.append((directory, "missing" if isinstance(e, FileNotFoundError)
                                  else e.strerror or str(e)))
            return []
        refused += [(f"{directory}/{name}", foreign_reason(name)) for name in foreign(names)]
        self.refused += refused
        notes = []
        for suffix in EXTENSION_SUFFIXES:
            name, path = "perf" + suffix, f"{directory}/perf{suffix}"
            if path in found:
                notes.append(f"found {name}")
            elif any(path == p for p, _ in refused):
                notes.append(f"{name} refused")
            elif name in names:
                notes.append(f"{name} is a file found before")
        self.searched.append((directory, ", ".join(notes) or "no loadable perf.*.so"))
        return found

    def refuse(self, path, reason):
        """Record that the file at `path` was refused for `reason`: it is not
        offered again, under this name or any other."""
        self.refused.append((path, reason))
        try:
            st = os.stat(path)
        except OSError:
            return
        self._seen.add((st.st_dev, st.st_ino))

    def candidates(self):
        """Everything the policy allows, best first. A generator: each step
        runs only when the ones before it offered nothing that loaded."""
        release = self.release
        if not usable_name(release):
            self.searched.append((f"(release {release!r})", "not usable as a directory name"))
        else:
            for path in self.scan(flavour_dir(self.root, release)):
                yield Candidate(path, EXACT, f"exact release {release}")
            from . import _layout

            yield from _layout.same_abi(self)
        if self.policy[0] == "exact":
            return
        from . import _fallback

        yield from _fallback.nearest(self)
        if self.policy[0] == "nearest":
            return
        yield from _fallback.distro(self)

    def failure(self):
        """The KernelNotFoundError describing this search."""
        from . import _errors

        return _errors.KernelNotFoundError.from_search(self)


def find(release=None, root=None, **kw):
    """The first candidate (nothing is loaded), or raise KernelNotFoundError."""
    search = Search(release, root, **kw)
    for candidate in search.candidates():
        return candidate
    raise search.failure()


def import_perf(name="perf"):
    """Load the first candidate that loads as the module `name`, in place of
    the package in sys.modules; warn if it is not the build for this kernel
    or something was skipped.

    Raises KernelNotFoundError, and nothing else: where the warnings filter
    makes a warning an error (python -W error), the candidate it is about is
    not used, so that the caller still gets an ImportError.
    """
    search = Search()
    package = sys.modules.get(name)
    try:
        for c in search.candidates():
            to_say = c.warning or search.refused
            if to_say:
                from . import _fallback  # while the package is still sys.modules[name]
            try:
                module = load(c.path, name, c.why, c.step, search.release)
            except ImportError as e:
                search.refuse(c.path, f"failed to load: {e}")
                continue
            if to_say:
                try:
                    _fallback.warn_loaded(search, c)
                except Warning as w:
                    if package is not None:  # the package again, for the next candidate
                        sys.modules[name] = package
                    search.refuse(c.path, f"not used: the warning is an error here: {w}")
                    continue
            return module
    except Warning as w:
        raise search.failure() from w
    raise search.failure()


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
