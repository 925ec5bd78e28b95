# SPDX-License-Identifier: GPL-2.0-only
"""KernelNotFoundError: `import perf` found nothing it may load.

A ModuleNotFoundError, so that ``except ImportError`` (tuned >= 2.25) and
``except ModuleNotFoundError`` (tuned's kthread plugin) treat it as "perf is
not installed". The message keeps the shape of Ubuntu's wrapper ("python perf
module not found for kernel ...") and adds what was searched, what is
installed, what was refused and why, and which packages to install. Building
it never raises: every piece of it is computed from strings already at hand
or from directory listings whose errors are caught.
"""

from . import ENV_POLICY, _builds, _layout

# Characters a Debian package name may hold (Policy 5.6.1), after lowering.
_PACKAGE_CHARS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789+-.")
PACKAGE_PREFIX = "python3-perf-"


def package_name(abi: str) -> str:
    """The per-ABI package of this project that holds a build for `abi`:
    ``python3-perf-<abi>``, the ABI lowered and any character a package name
    cannot hold replaced by ``-`` (5.14.0-362.el9.x86_64 ->
    python3-perf-5.14.0-362.el9.x86-64). debian/gen-control uses it too."""
    return PACKAGE_PREFIX + "".join(c if c in _PACKAGE_CHARS else "-" for c in abi.lower())


def package_hints(release):
    """Lines naming the packages that would provide a build for `release`."""
    abi, flavour = _layout.abi_of(release)
    lines = []
    if abi and abi[0].isalnum():
        lines.append(f"    {package_name(abi)}  (this project's build for ABI {abi})")
    lines.append(f"    linux-tools-{release}  (Ubuntu's tools for this kernel)")
    if flavour:
        lines.append(f"  to keep up to date: linux-tools-{flavour} (Ubuntu)")
    return lines


class KernelNotFoundError(ModuleNotFoundError):
    """No `perf` extension this interpreter may load is installed for the
    running kernel (and the policy allows no fallback that is)."""

    def __init__(self, release, searched=(), found=(), refused=(), policy=None):
        abi, flavour = _layout.abi_of(release)
        self.release = release
        self.searched = list(searched)
        self.found = list(found)
        self.refused = list(refused)
        self.policy = policy
        lines = [f"python perf module not found for kernel {release}"
                 + (f" (ABI {abi}, flavour {flavour})" if flavour else "")]
        if policy is not None:
            lines.append(f"  policy: {policy[0]} ({policy[1]})")
        lines.append("  searched:")
        seen = set()
        for directory, note in self.searched:
            if (directory, note) not in seen:
                seen.add((directory, note))
                lines.append(f"    {directory}: {note}")
        if not self.searched:
            lines.append("    (nothing)")
        if self.found:
            lines.append("  builds installed:")
            lines.extend(f"    {b}" for b in self.found)
        if self.refused:
            lines.append("  refused:")
            lines.extend(f"    {path}: {reason}" for path, reason in self.refused)
        lines.append("  install the build for this kernel:")
        lines.extend(package_hints(release))
        if self.found and policy is not None and policy[0] == "exact":
            lines.append(f"  or allow the nearest build: {ENV_POLICY}=nearest, or "
                         "policy = \"nearest\" in /etc/perf-python.toml")
        super().__init__("\n".join(lines), name="perf")

    @classmethod
    def from_search(cls, search):
        """The error for a Search that offered nothing loadable."""
        try:
            policy = search.policy
        except Exception as e:  # noqa: BLE001 - the error must be raised regardless
            policy = ("unknown", f"cannot resolve: {e}")
        try:
            builds = _builds.installed_builds(search.root)
        except OSError:
            builds = []
        refused = list(search.refused)
        known = {path for path, _ in refused}
        for path, reason in _builds.foreign_extensions(search.root):
            if path not in known:
                refused.append((path, reason))
        found = [f"{b.path}  ({b.release}, {b.describe_version()})" for b in builds]
        return cls(search.release, search.searched, found, refused, policy)
