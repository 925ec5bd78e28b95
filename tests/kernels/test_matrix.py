# SPDX-License-Identifier: GPL-2.0-only
"""The full matrix of `make test-kernels` (PERF_TEST_KERNELS=full), beyond
test_quick.py's one boot per kernel:

* the real packages: `make deb` for the host and every guest release, then in
  each guest `dpkg -i` of all of them (into the guest's overlays: the host's
  dpkg database and /usr are untouched) and a plain /usr/bin/python3
  `import perf` that loads the guest's exact build without a warning,
  perf-python-info, and the smoke test with the other CPU count (1 <-> 3);
* on the newest 6.1 guest, the kernel Debian's C module (linux-perf 6.1) was
  built for: the side-by-side suite, tests/sidebyside, ours against the C
  module (7 minutes under TCG; the module's behaviour does not differ between
  6.1 ABIs, which the quick set covers). Two tests that count the samples of
  a 0.3 s workload against fixed floors (>100, >1000) are left out: TCG runs
  the workload several times slower, and both modules fall short alike.
"""

import json
import os
import sys

import pytest

from kernels import plan, vm
from kernels.conftest import guest_run, staged_env, step
from kernels.test_quick import KERNELS, cpus_for

pytestmark = pytest.mark.skipif(
    os.environ.get("PERF_TEST_KERNELS") != "full",
    reason="the full kernel matrix runs under make test-kernels (PERF_TEST_KERNELS=full)")

C_MODULE_KERNELS = [k for k in KERNELS if k.startswith("6.1.")][-1:]
THROUGHPUT_TESTS = ("test_cpu_clock_samples", "test_records_crossing_the_end_of_the_ring")


def other_cpus(release):
    return 4 - cpus_for(release)


@pytest.fixture(scope="session")
def debs(staged):
    """The .debs (no -dbgsym) of scripts/deb.sh for the host and every guest."""
    try:
        return plan.debs([os.uname().release, *KERNELS])
    except plan.StageFailed as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="module", params=KERNELS)
def deb_guest(request, debs):
    release = request.param
    data = {"steps": ["debs"], "debs": [str(d) for d in debs]}
    run, result = guest_run(release, data, cpus=other_cpus(release), env={})
    assert run.rc == 0 and not run.timed_out, run.describe()
    return release, step(result, "debs")


def test_packages_install_in_the_guest(deb_guest):
    release, got = deb_guest
    assert got["dpkg"]["rc"] == 0, got["dpkg"]["stdout"][-3000:] + got["dpkg"]["stderr"][-3000:]


def test_installed_import_perf_loads_the_exact_build_without_a_warning(deb_guest):
    release, got = deb_guest
    run = got["import"]
    assert run["rc"] == 0 and run["stderr"] == "", run
    loaded = json.loads(run["stdout"])
    assert loaded["file"] == f"/usr/lib/linux-tools/{release}/lib/perf.abi3.so"
    assert loaded["loaded_by"]["step"] == "exact"


def test_installed_perf_python_info_says_why(deb_guest):
    release, got = deb_guest
    lines = got["info"]["stdout"].splitlines()
    assert got["info"]["rc"] == 0, got["info"]
    assert f"import perf would load: /usr/lib/linux-tools/{release}/lib/perf.abi3.so" in lines
    assert f"  why: exact release {release}" in lines


def test_installed_smoke_test_prints_the_other_cpu_count(deb_guest):
    release, got = deb_guest
    smoke = got["smoke"]
    assert smoke["rc"] == 0 and smoke["stderr"] == "", smoke
    assert smoke["stdout"].split() == [str(c) for c in range(other_cpus(release))]


@pytest.fixture(scope="module", params=C_MODULE_KERNELS)
def sidebyside_guest(request, staged):
    try:  # fetched on the host: the guest has no network
        from sidebyside import kernel_scripts
        kernel_scripts.scripts_dir()
    except Exception as e:  # the consumer tests then skip in the guest, saying why
        print(f"linux-source scripts not fetched: {e}")
    release = request.param
    data = {"steps": ["sidebyside"], "root": str(staged), "repo": str(vm.REPO),
            "pytest_python": sys.executable,
            "sidebyside": ["tests/sidebyside", "-k", " and ".join(f"not {t}" for t in THROUGHPUT_TESTS)]}
    run, result = guest_run(release, data, cpus=2, env=staged_env(staged),
                            overlays=(vm.REPO,), timeout=5400)
    assert run.rc == 0 and not run.timed_out, run.describe()
    return release, step(result, "sidebyside")


def test_sidebyside_suite_passes_on_the_c_modules_kernel(sidebyside_guest):
    release, got = sidebyside_guest
    tail = got["stdout"][-6000:] + got["stderr"][-2000:]
    assert got["rc"] == 0, tail
    last = got["stdout"].strip().splitlines()[-1]
    assert " passed" in last and "failed" not in last, tail
    print(f"{release}: tests/sidebyside: {last}")
