# SPDX-License-Identifier: GPL-2.0-only
"""Kernel release strings and the directory layout builds are installed in.

* ``/usr/lib/linux-tools/<release>/lib/``   per-flavour links (Ubuntu);
* ``/usr/lib/linux-tools-<abi>/lib/``       the files of a per-ABI package;
* ``/usr/lib/linux-<src>-tools-<abi>/lib/`` the same for a derivative kernel
  (``linux-aws-tools-6.8.0-1009``, ``linux-hwe-6.8-tools-6.8.0-31``).

abi_of() and version_of() mirror perf-abi's KernelRelease::parse and
KernelVersion::from_release (tests/loader compares them over a table); the
loader needs them before any build, and so any manifest, is found.
"""

import os

from . import flavour_dir, usable_name
from ._loader import ABI, FLAVOUR, Candidate

# Rust's char::is_whitespace for the ASCII range plus the Unicode spaces, so
# that abi_of() trims exactly like perf-abi's KernelRelease::parse.
_WHITESPACE = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
)
_DIGITS = "0123456789"


def _decimal(s):
    return s != "" and s.strip(_DIGITS) == ""


def _suite(s):
    """``bpo`` or ``debV``: the suite tag of Debian's backports and +debV ABIs."""
    return s == "bpo" or (s.startswith("deb") and _decimal(s[3:]))


def abi_of(release: str) -> "tuple[str, str | None]":
    """``6.8.0-31-generic`` -> (``6.8.0-31``, ``generic``),
    ``6.12.111+deb12-amd64`` -> (``6.12.111+deb12``, ``amd64``),
    ``4.19.0-0.bpo.6-amd64`` -> (``4.19.0-0.bpo.6``, ``amd64``); a release of
    another shape is its own ABI with no flavour.

    Mirrors perf-abi's KernelRelease::parse; tests/loader compares the two.
    """
    release = release.strip(_WHITESPACE)
    cut = min((i for i in (release.find("-"), release.find("+")) if i >= 0), default=-1)
    if cut < 0:
        return release, None
    nums = release[:cut].split(".")
    abiname, dash, flavour = release[cut + 1:].partition("-")
    if release[cut] == "+":
        known = _suite(abiname)
    else:
        parts = abiname.split(".")
        known = _decimal(abiname) or (
            len(parts) == 3 and _decimal(parts[0]) and _suite(parts[1]) and _decimal(parts[2]))
    if len(nums) == 3 and all(_decimal(n) for n in nums) and known and dash and flavour:
        return release[:cut + 1 + len(abiname)], flavour
    return release, None


def version_of(release: str) -> "tuple[int, int, int] | None":
    """The leading ``X.Y[.Z]`` of a release as a tuple of three ints, or None.

    Mirrors perf-abi's KernelVersion::from_release of the trimmed release
    (numbers fit in u32).
    """
    numbers = []
    for part in release.strip(_WHITESPACE).split(".")[:3]:
        digits = part
        for i, c in enumerate(part):
            if c not in _DIGITS:
                digits = part[:i]
                break
        if not digits:
            break
        n = int(digits)
        if n > 0xFFFFFFFF:
            return None
        numbers.append(n)
        if len(digits) != len(part):
            break
    if len(numbers) < 2:
        return None
    numbers += [0] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2])


def lib_dir(root):
    """<root>/usr/lib."""
    return os.path.join(root, "usr", "lib")


def abi_dir(root, abi):
    """/usr/lib/linux-tools-<abi>/lib: the files of a per-ABI package."""
    return os.path.join(lib_dir(root), f"linux-tools-{abi}", "lib")


def abi_dirs(root, release):
    """Step 2's directories, best first: linux-tools-<abi>, the derivative
    kernels' linux-<src>-tools-<abi> (sorted), then the other flavours of the
    ABI (sorted). Each entry is (step, directory)."""
    abi, _ = abi_of(release)
    if not usable_name(abi):
        return []
    dirs = [(ABI, abi_dir(root, abi))]
    tail = f"-tools-{abi}"
    try:
        names = sorted(os.listdir(lib_dir(root)))
    except OSError:
        names = []
    for name in names:
        if name.startswith("linux-") and name.endswith(tail) and name != f"linux{tail}":
            dirs.append((ABI, os.path.join(lib_dir(root), name, "lib")))
    try:
        flavours = sorted(os.listdir(os.path.join(lib_dir(root), "linux-tools")))
    except OSError:
        flavours = []
    for other in flavours:
        if other != release and abi_of(other)[0] == abi and usable_name(other):
            dirs.append((FLAVOUR, flavour_dir(root, other)))
    return dirs


def same_abi(search):
    """Step 2 of the policy: builds for the release's ABI."""
    abi, _ = abi_of(search.release)
    for step, directory in abi_dirs(search.root, search.release):
        for path in search.scan(directory):
            if step == ABI:
                yield Candidate(path, step, f"same ABI {abi} ({os.path.dirname(directory)})")
            else:
                other = os.path.basename(os.path.dirname(directory))
                yield Candidate(path, step, f"same ABI {abi}, flavour of {other}")


def build_dirs(root):
    """(kind, name, directory) of every directory a build may be in, in a
    fixed order: flavour directories, linux-tools-<abi>, derivatives; each
    sorted by name. `name` is the release or ABI the directory is named after."""
    lib = lib_dir(root)
    out = []
    try:
        flavours = sorted(os.listdir(os.path.join(lib, "linux-tools")))
    except OSError:
        flavours = []
    for release in flavours:
        if usable_name(release):
            out.append(("flavour", release, flavour_dir(root, release)))
    try:
        names = sorted(os.listdir(lib))
    except OSError:
        names = []
    abis, derivatives = [], []
    for name in names:
        if name.startswith("linux-tools-"):
            abis.append(("abi", name[len("linux-tools-"):], os.path.join(lib, name, "lib")))
        elif name.startswith("linux-") and "-tools-" in name[len("linux-"):]:
            abi = name[len("linux-"):].split("-tools-", 1)[1]
            derivatives.append(("derivative", abi, os.path.join(lib, name, "lib")))
    return out + abis + derivatives
