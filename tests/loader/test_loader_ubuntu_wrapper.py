# SPDX-License-Identifier: GPL-2.0-only
"""Our build works with Ubuntu's own wrapper, unmodified in substance.

The tests write out Ubuntu's v2 wrapper (benchmarks/ubuntu_wrapper.py), told
to look under the staged root for the test's release. It never assigns
sys.modules['perf']; `import perf` still gives the extension because our
module, like the C one, is single-phase (its init puts it in sys.modules while
the package is still executing).
"""

import shutil
import sys

from loader_helpers import MID, REPO, online_cpus, run_import

sys.path.insert(0, str(REPO / "benchmarks"))
import ubuntu_wrapper  # noqa: E402 - from benchmarks/


def install_ubuntu_wrapper(root, release):
    shutil.rmtree(root.site / "perf")
    (root.site / "perf").mkdir()
    (root.site / "perf" / "__init__.py").write_text(ubuntu_wrapper.v2(str(root.path), release))


def test_ubuntu_v2_wrapper_loads_our_build_and_import_perf_is_the_extension(root):
    root.install(MID)
    install_ubuntu_wrapper(root, MID)
    run = run_import(root, MID, code="""
import json, sys
import perf
print("RESULT " + json.dumps({
    "file": perf.__file__, "has_cpu_map": hasattr(perf, "cpu_map"),
    "is_package": hasattr(perf, "__path__"), "same": sys.modules["perf"] is perf,
    "build": perf.__build__, "cpus": list(perf.cpu_map())}))
""")
    assert run.result is not None, run.describe()
    assert run.result["file"] == str(root.lib / "linux-tools" / MID / "lib" / "perf.abi3.so")
    assert run.result["has_cpu_map"] is True
    assert run.result["is_package"] is False
    assert run.result["same"] is True
    assert run.result["build"]["kernel_release"] == MID
    assert run.result["cpus"] == online_cpus()


def test_ubuntu_v2_wrapper_defect_is_not_ours(root):
    # The same situation (no build, a release without a flavour) through the
    # Ubuntu wrapper: IndexError inside the exception's constructor; through
    # our loader: a ModuleNotFoundError.
    install_ubuntu_wrapper(root, "6.1.0")
    theirs = run_import(root, "6.1.0", code="import perf")
    assert theirs.stderr.rstrip().splitlines()[-1] == "IndexError: list index out of range"
    ours = run_import(type(root)(root.path.parent / "ours", root.builds), "6.1.0")
    assert ours.error["error"] == "KernelNotFoundError"
