# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures for the loader tests; the machinery is in loader_helpers.py."""

import importlib
import importlib.util
import subprocess
import sys
import warnings

import pytest

from loader_helpers import BUILDS, LOADER, RELEASES, REPO, Root, build_env


def _newest_source():
    """The newest mtime among the inputs of a build."""
    paths = [REPO / "Cargo.toml", REPO / "Cargo.lock"]
    for crate in (REPO / "crates").iterdir():
        paths.extend(p for p in crate.rglob("*") if p.is_file())
    return max(p.stat().st_mtime for p in paths if p.exists())


@pytest.fixture(scope="session")
def builds():
    """release -> directory holding perf.abi3.so and perf-python.toml, built
    by scripts/build.sh (each build for another release recompiles perf-py).

    A build newer than every source file is reused, as make would. If the
    build fails while an older build exists (the tree is being edited), the
    older one is used with a warning: these tests are about the loader, and
    any real build stamped for the release shows which one it picked.
    """
    out = {}
    newest = _newest_source()
    for release in RELEASES:
        so = BUILDS / release / "perf.abi3.so"
        have = so.exists() and (BUILDS / release / "perf-python.toml").exists()
        if have and so.stat().st_mtime > newest:
            out[release] = BUILDS / release
            continue
        p = subprocess.run([str(REPO / "scripts" / "build.sh"), release], cwd=REPO,
                           env=build_env(), capture_output=True, text=True)
        if p.returncode != 0:
            if not have:
                pytest.fail(f"scripts/build.sh {release} failed:\n{p.stdout}\n{p.stderr}", pytrace=False)
            warnings.warn(f"scripts/build.sh {release} failed; using the older build {so}:\n"
                          + p.stderr[-800:])
        out[release] = BUILDS / release
    return out


@pytest.fixture
def root(tmp_path, builds):
    """An empty staged root with the loader in its dist-packages."""
    return Root(tmp_path / "root", builds)


@pytest.fixture(scope="session")
def loader_modules():
    """The loader's modules imported into this process under a package name
    of their own (perf_loader_under_test): its __init__ loads the extension
    only when it is named perf, so nothing is loaded."""
    name = "perf_loader_under_test"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(
            name, LOADER / "__init__.py", submodule_search_locations=[str(LOADER)])
        package = importlib.util.module_from_spec(spec)
        sys.modules[name] = package
        spec.loader.exec_module(package)

    class Modules:
        core = sys.modules[name]
        loader = importlib.import_module(name + "._loader")
        layout = importlib.import_module(name + "._layout")
        toml = importlib.import_module(name + "._toml")
        errors = importlib.import_module(name + "._errors")
        builds = importlib.import_module(name + "._builds")

    return Modules
