# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: where our staged module is, and how to run Python code
under our module or under the kernel's C module (Debian's linux-perf, the
oracle, imported by /usr/bin/python3). The machinery is in
tests/sidebyside/harness.py.

- `staged_root`: the staged install root (PERF_TEST_ROOT, or built and staged
  under build/pytest-root on first use with `make build` + scripts/install.sh).
- `run_py(which, code, **kw)`: runs `code` in a fresh interpreter under
  "ours" or "c" and returns a `Run` (rc, stdout, stderr, result). Crashes are
  visible as a negative rc (-11 for SIGSEGV).
- `module`: parametrised over ["ours", "c"], a `Module` whose `.run(code)`
  does the same; behaviour tests take it so that every assertion is checked
  against the C module too.
- `ours` / `c_module`: the two `Module`s, for tests that compare them.
- `perf_ours`: our module imported into the pytest process (fast tests).

PERF_TEST_VENV=<venv> points "ours" at the module installed in a virtual
environment (the wheel; pytest then runs under that venv's interpreter): see
harness.ours_venv and `make test-wheel`.

PERF_TEST_OURS=c runs the "ours" side under the C module too, to validate the
tests against the oracle (see harness.oracle_self_check).
"""

import os
import signal
import sys

import pytest

from sidebyside import harness


def pytest_configure(config):
    """SIGINT back to Python's handler, and umask 022. A shell starts a background job (`make
    test &` in a script) with SIGINT ignored, and every process it starts
    inherits that through exec: Python then installs no KeyboardInterrupt
    handler, and the tests that send SIGINT to a child would see it ignored."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    # What the tests create, they create as a package would install it (as
    # dpkg-buildpackage does, whatever the caller's umask): a directory made
    # under umask 002 is group-writable, and root's loader refuses to load
    # from below it.
    os.umask(0o022)


def pytest_collection_modifyitems(config, items):
    """Under PERF_TEST_VENV, the C module's half of the behaviour tests is
    deselected: it does not depend on where ours is installed, and the
    staged run has it."""
    if harness.ours_venv() is None:
        return
    keep, drop = [], []
    for item in items:
        callspec = getattr(item, "callspec", None)
        (drop if callspec is not None and callspec.params.get("module") == "c" else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


@pytest.fixture(scope="session")
def staged_root():
    """The root our module and loader are staged under."""
    if harness.ours_venv() is not None:
        pytest.skip("PERF_TEST_VENV: a test of the staged install (loader, per-ABI build)")
    root = harness.staged()
    if not (root / "usr/lib/python3/dist-packages/perf/__init__.py").exists():
        pytest.fail(f"nothing staged under {root}", pytrace=False)
    return root


@pytest.fixture(scope="session")
def run_py():
    """run_py(which, code, **kw) -> Run; which is "ours" or "c"."""
    def run(which, code, **kw):
        return harness.run_python(which, code, **kw)
    return run


@pytest.fixture(params=["ours", "c"])
def module(request, run_py):
    """Each behaviour test runs once per module; the C module is the target."""
    return harness.Module(request.param, run_py)


@pytest.fixture
def ours(request, run_py):
    """Our module, in subprocesses. Under PERF_TEST_OURS=c, tests that check
    ours alone (our improvements over the C module) skip."""
    if harness.oracle_self_check() and "c_module" not in request.fixturenames:
        pytest.skip("PERF_TEST_OURS=c: checks our own behaviour, not the oracle's")
    return harness.Module("ours", run_py)


@pytest.fixture
def c_module(run_py):
    """The kernel's C module, in subprocesses (skips if it is not installed)."""
    reason = harness.c_module_available()
    if reason:
        pytest.skip(reason)
    return harness.Module("c", run_py)


@pytest.fixture(scope="session")
def perf_ours():
    """Our module, imported into this process through the staged loader."""
    if harness.oracle_self_check():
        pytest.skip("PERF_TEST_OURS=c: the C module cannot be imported in-process")
    venv = harness.ours_venv()
    if venv is not None:
        return _import_from_venv(venv)
    staged_root = harness.staged()
    pkgdir = str(staged_root / "usr/lib/python3/dist-packages")
    os.environ["PERF_PYTHON_SYSROOT"] = str(staged_root)
    os.environ["PERF_PYTHON_KERNEL_RELEASE"] = harness.release()
    if pkgdir not in sys.path:
        sys.path.insert(0, pkgdir)
    root = os.path.realpath(staged_root) + os.sep
    loaded = sys.modules.get("perf")
    if loaded is not None and not os.path.realpath(getattr(loaded, "__file__", "") or "").startswith(root):
        del sys.modules["perf"]
    import perf
    path = os.path.realpath(perf.__file__)
    assert path.startswith(root), f"imported {path}, not our staged module"
    return perf


def _import_from_venv(venv):
    """Our module as this interpreter, which must be the venv's, imports it."""
    if os.path.realpath(sys.prefix) != os.path.realpath(venv):
        pytest.fail(f"PERF_TEST_VENV={venv}: run pytest with {venv}/bin/python "
                    f"(this is {sys.executable}, prefix {sys.prefix})", pytrace=False)
    import perf
    path = os.path.realpath(perf.__file__)
    assert path.startswith(os.path.realpath(venv) + os.sep), f"imported {path}, not our module in {venv}"
    return perf
