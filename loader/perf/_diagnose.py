# SPDX-License-Identifier: GPL-2.0-only
"""`perf-python-info`: what `import perf` would load on this machine, and why.

Prints the running release and its ABI, the interpreter's extension suffixes,
the policy and where it came from, every installed build with its manifest,
every candidate in policy order, every refusal with its reason, and the one
`import perf` would load. Nothing is loaded.
"""

import os
import sys

from . import ENV_POLICY, ENV_RELEASE, ENV_SYSROOT, EXTENSION_SUFFIXES, _builds, _layout, _loader

_MANIFEST_KEYS = ("kernel_release", "abi", "flavour", "kernel_version", "attr_size",
                  "build_version", "python_abi")


def _manifest_line(manifest):
    parts = [f"{k} = {manifest[k]!r}" for k in _MANIFEST_KEYS if k in manifest]
    features = manifest.get("features")
    if isinstance(features, list):
        parts.append(f"features = [{len(features)} names]")
    parts.extend(f"{k} = {v!r}" for k, v in manifest.items()
                 if k not in _MANIFEST_KEYS and k != "features")
    return ", ".join(parts)


def _resolution():
    """What a plain `import perf` finds first on this interpreter's sys.path."""
    from importlib.machinery import PathFinder

    spec = PathFinder.find_spec("perf")
    if spec is None:
        return "nothing: no perf module or package is on sys.path"
    origin = spec.origin or "(namespace package)"
    ours = os.path.join(os.path.dirname(os.path.abspath(_loader.__file__)), "__init__.py")
    if spec.submodule_search_locations is not None:
        if os.path.realpath(origin) == os.path.realpath(ours):
            return f"{origin} (this loader)"
        return f"{origin} (a perf package that is not this loader)"
    return f"{origin} (an extension, loaded directly: this loader is not used)"


def diagnose(out=None, release=None, root=None, policy=None, euid=None, search_path=None):
    """Print the report; return 0 if `import perf` would load something, else 1."""
    out = sys.stdout if out is None else out

    def say(line=""):
        print(line, file=out)

    given_release = release
    search = _loader.Search(release, root, euid=euid, policy=policy, search_path=search_path)
    release = search.release
    abi, flavour = _layout.abi_of(release)
    if given_release is not None:
        origin = "given"
    elif _loader.env(ENV_RELEASE):
        origin = f"from ${ENV_RELEASE}"
    else:
        origin = "uname -r"
    version = _layout.version_of(release)
    say(f"running kernel release: {release} ({origin})")
    say(f"ABI: {abi}" + (f", flavour: {flavour}" if flavour else " (no flavour)"))
    say("kernel version: " + (".".join(map(str, version)) if version else "unknown"))
    say(f"python: {sys.executable} {sys.version.split()[0]}; loads "
        + ", ".join("perf" + s for s in EXTENSION_SUFFIXES))
    say(f"system root: {search.root}"
        + (f" (from ${ENV_SYSROOT})" if root is None and _loader.env(ENV_SYSROOT) else ""))
    name, source = search.policy
    say(f"policy: {name} ({source})")
    if search.euid == 0:
        say("running as root: builds, links and directories not owned by root or "
            "writable by group/others are refused")
    if sys.flags.ignore_environment:
        say("python -E: the PERF_PYTHON_* environment variables are ignored")
    say()
    say("installed builds:")
    builds = _builds.installed_builds(search.root)
    if not builds:
        say("  (none)")
    for b in builds:
        say(f"  {b.path}")
        for link in b.links:
            say(f"    linked from {link}")
        say(f"    built for {b.release}, {b.describe_version()}")
        if b.manifest is not None:
            say(f"    manifest: {_manifest_line(b.manifest)}")
        else:
            say(f"    manifest: {b.manifest_error}")
    say()
    candidates = list(search.candidates())
    say("searched, in policy order:")
    seen = set()
    for directory, note in search.searched:
        if (directory, note) not in seen:
            seen.add((directory, note))
            say(f"  {directory}: {note}")
    say()
    say("candidates, best first:")
    if not candidates:
        say("  (none)")
    for i, c in enumerate(candidates, 1):
        mark = "   <- import perf loads this" if i == 1 else ""
        say(f"  {i}. {c.path}: {c.why}{mark}")
    refused = list(search.refused)
    known = {p for p, _ in refused}
    refused += [(p, r) for p, r in _builds.foreign_extensions(search.root)
                if p not in known]
    if refused:
        say()
        say("refused:")
        for path, reason in refused:
            say(f"  {path}: {reason}")
    say()
    say(f"`import perf` on this interpreter finds: {_resolution()}")
    if candidates:
        c = candidates[0]
        say(f"import perf would load: {c.path}")
        say(f"  why: {c.why}")
        if c.warning:
            say(f"  with the warning: {c.warning}")
        return 0
    error = search.failure()
    say("import perf would fail with KernelNotFoundError:")
    for line in str(error).splitlines():
        say(f"  {line}")
    return 1


def main(argv=None):
    """Command-line entry point of perf-python-info."""
    import argparse

    parser = argparse.ArgumentParser(
        prog="perf-python-info",
        description="Show which perf extension `import perf` loads for the running kernel, "
                    "every installed build with its manifest, and why the others were refused.")
    parser.add_argument("--release", help="kernel release to resolve for (default: uname -r, "
                        f"or ${ENV_RELEASE})")
    parser.add_argument("--root", help=f"system root the builds are under (default: /, or "
                        f"${ENV_SYSROOT})")
    parser.add_argument("--policy", choices=("exact", "nearest", "any"),
                        help=f"policy to apply (default: ${ENV_POLICY}, else "
                             "/etc/perf-python.toml, else any)")
    args = parser.parse_args(argv)
    return diagnose(release=args.release, root=args.root, policy=args.policy)
