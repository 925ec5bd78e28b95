# SPDX-License-Identifier: GPL-2.0-only
"""Several perf.*.so in one place: the choice follows this interpreter's
extension suffixes (importlib.machinery.EXTENSION_SUFFIXES), never the
directory order; a .so whose Python ABI tag this interpreter cannot load is
refused with a clear message and the search goes on."""

import sys

import pytest

from loader_helpers import ABIS, MID, NEW, OLD, run_import, pyenv_python

TAG = f"cpython-{sys.version_info.major}{sys.version_info.minor}-x86_64-linux-gnu"


def stage_three(root, release, order):
    """The exact directory of `release` holding a version-specific, an abi3
    and a bare .so, each a different build, created in `order`."""
    names = {"specific": (f"perf.{TAG}.so", OLD), "abi3": ("perf.abi3.so", MID), "bare": ("perf.so", NEW)}
    for key in order:
        name, build = names[key]
        root.put(f"linux-tools/{release}/lib", build, name=name)


@pytest.mark.skipif(sys.implementation.cache_tag != "cpython-311", reason="names the 3.11 tag")
@pytest.mark.parametrize("order", [("specific", "abi3", "bare"), ("bare", "abi3", "specific"),
                                   ("abi3", "bare", "specific")])
def test_suffix_order_decides_not_creation_order(root, order):
    stage_three(root, MID, order)
    runs = [run_import(root, MID) for _ in range(2)]
    assert [r.build for r in runs] == [OLD, OLD]  # perf.cpython-311-...so first
    assert all(r.step == "exact" and r.warnings == [] for r in runs)


def test_abi3_before_bare_so(root):
    root.put(f"linux-tools/{MID}/lib", NEW, name="perf.so")
    root.put(f"linux-tools/{MID}/lib", MID, name="perf.abi3.so")
    assert run_import(root, MID).build == MID


def test_another_pythons_tag_is_refused_in_favour_of_abi3_in_the_same_directory(root):
    # Under 3.12 the cpython-311 build is foreign; abi3 from the same
    # directory is loaded, silently (the refusal did not change the outcome).
    python = pyenv_python("3.12")
    stage_three(root, MID, ("specific", "abi3", "bare"))
    run = run_import(root, MID, python=python)
    assert run.build == MID
    assert run.warnings == []


def test_foreign_tag_only_is_refused_and_the_search_goes_on(root):
    fake = root.put(f"linux-tools/{MID}/lib", OLD, name="perf.cpython-399-x86_64-linux-gnu.so")
    root.put(f"linux-tools-{ABIS[MID]}/lib", MID)
    run = run_import(root, MID)
    assert run.build == MID
    assert run.step == "abi"
    assert len(run.warnings) == 1
    assert f"perf: skipped {fake}: built for another Python ABI (cpython-399-x86_64-linux-gnu); " \
           "this interpreter loads perf." in run.warnings[0]


def test_foreign_tag_only_and_nothing_else_is_a_clear_failure(root):
    fake = root.put(f"linux-tools/{MID}/lib", OLD, name="perf.cpython-399-x86_64-linux-gnu.so")
    run = run_import(root, MID)
    err = run.error
    assert err["error"] == "KernelNotFoundError"
    assert f"{fake}: built for another Python ABI (cpython-399-x86_64-linux-gnu)" in err["message"]


def test_a_so_that_fails_to_load_is_refused_and_the_search_goes_on(root):
    bad = root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"\x7fELF not really")
    root.put(f"linux-tools-{ABIS[MID]}/lib", MID)
    run = run_import(root, MID)
    assert run.build == MID
    assert run.step == "abi"
    assert any(f"perf: skipped {bad}: failed to load:" in w for w in run.warnings), run.describe()


def test_search_order_is_stable_whatever_the_listing_order(root, loader_modules):
    for src in ("linux-zzz-tools-6.8.0-31", "linux-aaa-tools-6.8.0-31", "linux-mmm-tools-6.8.0-31"):
        root.put(f"{src}/lib", MID)
    dirs = [d for _, d in loader_modules.layout.abi_dirs(str(root.path), "6.8.0-31-generic")]
    assert [d.split("/")[-2] for d in dirs] == [
        "linux-tools-6.8.0-31", "linux-aaa-tools-6.8.0-31", "linux-mmm-tools-6.8.0-31",
        "linux-zzz-tools-6.8.0-31"]


def test_scan_orders_by_suffix(loader_modules, tmp_path):
    suffixes = loader_modules.core.EXTENSION_SUFFIXES
    names = ["perf.so", "x.so", "perf.abi3.so", "perf.cpython-399-x86_64-linux-gnu.so",
             "perf" + suffixes[0], "perf.abi3.so.bak", "perf-python.toml"]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    search = loader_modules.loader.Search(MID, str(tmp_path), euid=1000)
    assert search.scan(str(tmp_path)) == [f"{tmp_path}/perf{s}" for s in suffixes]
    assert [path for path, _ in search.refused] == [f"{tmp_path}/perf.cpython-399-x86_64-linux-gnu.so"]
    assert search.searched == [(str(tmp_path), ", ".join(f"found perf{s}" for s in suffixes))]
