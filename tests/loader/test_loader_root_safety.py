# SPDX-License-Identifier: GPL-2.0-only
"""Running as root, the loader refuses a .so, a symbolic link or a directory
on its path that is not owned by root or is writable by group or others, says
why, and goes on to the next candidate."""

import os
from importlib.machinery import EXTENSION_SUFFIXES

import pytest

from loader_helpers import MID, NEW, OLD, run_import

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the refusals apply to root only")

NOBODY = 65534


def test_group_writable_directory_on_the_flavour_route(root):
    root.install(MID)
    flavour = root.lib / "linux-tools" / MID / "lib"
    os.chmod(flavour, 0o775)
    run = run_import(root, MID)
    # The flavour link's directory is unsafe; the ABI directory is not.
    assert run.build == MID
    assert run.step == "abi"
    assert len(run.warnings) == 1, run.describe()
    assert (f"perf: skipped {flavour}/perf.abi3.so: refused while running as root: "
            f"{flavour} is writable by its group (mode 0775)") in run.warnings[0]


@pytest.mark.parametrize("how, reason", [
    ("chown", "is owned by uid 65534, not root"),
    ("chmod", "is writable by others (mode 0646)"),
])
def test_unsafe_file_is_refused_under_every_name(root, how, reason):
    target = root.install(MID)
    root.install(OLD)
    if how == "chown":
        os.chown(target, NOBODY, NOBODY)
    else:
        os.chmod(target, 0o646)
    run = run_import(root, MID)
    assert run.build == OLD  # the nearest safe build
    assert run.step == "nearest"
    skipped = [w for w in run.warnings if "refused while running as root" in w]
    assert len(skipped) == 2, run.describe()  # via the flavour link and the ABI directory
    assert all(f"{target} {reason}" in w for w in skipped)


def test_unsafe_file_beside_a_safe_one_is_said_though_the_safe_one_loads(root):
    # Step 1's directory holds an unsafe build under this interpreter's own
    # suffix and a safe one under abi3: the safe one loads, and root is told.
    unsafe = root.put(f"linux-tools/{MID}/lib", OLD, name="perf" + EXTENSION_SUFFIXES[0])
    root.put(f"linux-tools/{MID}/lib", MID)
    os.chmod(unsafe, 0o666)
    run = run_import(root, MID)
    assert run.build == MID and run.step == "exact", run.describe()
    assert len(run.warnings) == 1, run.describe()
    assert (f"perf: skipped {unsafe}: refused while running as root: {unsafe} is writable by its "
            "group and others (mode 0666)") in run.warnings[0]


def test_symbolic_link_owned_by_another_user(root):
    root.install(MID)
    link = root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so"
    os.lchown(link, NOBODY, NOBODY)
    run = run_import(root, MID)
    assert run.step == "abi"
    assert any(f"{link} is a symbolic link owned by uid 65534, not root" in w for w in run.warnings)


def test_directory_owned_by_another_user_high_up(root):
    root.install(MID)
    os.chown(root.lib, NOBODY, NOBODY)
    run = run_import(root, MID)
    err = run.error
    assert err["error"] == "KernelNotFoundError"
    assert f"{root.lib} is owned by uid 65534, not root" in err["message"]


def test_sticky_world_writable_directory_is_accepted(root):
    root.install(NEW)
    # Like /tmp: world-writable but sticky, holding root-owned entries.
    os.chmod(root.lib / "linux-tools", 0o1777)
    run = run_import(root, NEW)
    assert run.step == "exact"
    assert run.warnings == []


def test_world_writable_directory_without_sticky_bit(root):
    root.install(NEW)
    os.chmod(root.lib / "linux-tools", 0o777)
    run = run_import(root, NEW)
    assert run.step == "abi"
    assert any(f"{root.lib / 'linux-tools'} is writable by its group and others (mode 0777)" in w
               for w in run.warnings)


def test_refusal_applies_to_root_only(root, loader_modules):
    target = root.install(MID)
    os.chmod(target, 0o666)
    as_root = loader_modules.loader.Search(MID, str(root.path), euid=0, policy="exact")
    assert list(as_root.candidates()) == []
    assert all("refused while running as root" in r for _, r in as_root.refused)
    as_user = loader_modules.loader.Search(MID, str(root.path), euid=1000, policy="exact")
    assert [c.path for c in as_user.candidates()] == [
        str(root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so")]


def test_unsafe_reason_follows_links_like_the_kernel(root, loader_modules, tmp_path):
    root.install(MID)
    unsafe = loader_modules.core.unsafe_reason
    link = root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so"
    assert unsafe(str(link)) is None
    # A link to a file in an unsafe place is unsafe, though the link's own
    # directory is fine.
    evil = tmp_path / "evil"
    evil.mkdir()
    os.chmod(evil, 0o777)
    (evil / "perf.abi3.so").write_bytes(b"")
    other = root.lib / "linux-tools" / NEW / "lib"
    other.mkdir(parents=True)
    (other / "perf.abi3.so").symlink_to(evil / "perf.abi3.so")
    assert unsafe(str(other / "perf.abi3.so")) == f"{evil} is writable by its group and others (mode 0777)"
    # A link loop is reported, not followed for ever.
    loop = root.lib / "loop"
    loop.symlink_to("loop")
    assert unsafe(str(loop / "perf.abi3.so")) == f"too many symbolic links under {loop}/perf.abi3.so"
    assert unsafe(str(root.lib / "missing" / "perf.abi3.so")).startswith(
        f"cannot check {root.lib}/missing: ")
