# SPDX-License-Identifier: GPL-2.0-only
"""Fixtures for the loader tests; the machinery is in loader_helpers.py."""

import importlib
import importlib.util
import sys
import warnings

import pytest

import stamped_builds
from loader_helpers import LOADER, RELEASES, Root


@pytest.fixture(scope="session")
def builds():
    """release -> directory holding perf.abi3.so and perf-python.toml
    (tests/stamped_builds.py).

    If a build fails while an older build exists (the tree is being edited),
    the older one is used with a warning: these tests are about the loader,
    and any real build stamped for the release shows which one it picked.
    """
    out = {}
    for release in RELEASES:
        try:
            out[release] = stamped_builds.build(release)
        except stamped_builds.BuildFailed as e:
            older = stamped_builds.OUT / release
            if not all((older / name).exists() for name in stamped_builds.FILES):
                pytest.fail(str(e), pytrace=False)
            warnings.warn(f"{e}\nusing the older build in {older}")
            out[release] = older
    stamped_builds.perf_abi()  # the scripts these tests run (install.sh) read the ABI with it
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
