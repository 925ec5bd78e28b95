# SPDX-License-Identifier: GPL-2.0-only
"""The Debian packages, for real: build them (scripts/deb.sh, lintian clean),
install them with dpkg, run the smoke test and tuned's scheduler-plugin
perf logic with /usr/bin/python3, check how they coexist with Debian's
linux-perf, then purge them and check that nothing is left behind.

The tests of this module run in order and share one installation; the last
one purges it, and a finalizer purges it anyway if a test failed. The
machine is left as it was found: the tests skip if one of our packages was
installed before.

$PERF_TEST_DEBS names a directory of packages built already (make deb); by
default they are built here, into build/test-packaging (not build/deb, which
`make deb` may be rewriting at the same time). Two runs of these tests on one
machine take turns (a lock around install ... purge).
"""

import fcntl
import json
import os
import shutil
import subprocess
import time
import tomllib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SYSTEM_PYTHON = "/usr/bin/python3"
SEED = "import perf; [print(c) for c in perf.cpu_map()]"
DEBIAN_PERF = "/usr/lib/python3/dist-packages/perf.cpython-311-x86_64-linux-gnu.so"
RELEASE = os.uname().release

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(os.geteuid() != 0, reason="installs packages: needs root"),
    pytest.mark.skipif(not shutil.which("dpkg-buildpackage"), reason="needs dpkg-dev"),
]


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def dpkg(*args):
    """dpkg, waiting (up to two minutes) for another dpkg or apt to finish."""
    for _ in range(120):
        p = run(["dpkg", *args])
        if p.returncode == 0 or "lock" not in p.stderr:
            return p
        time.sleep(1)
    return p


def installed(package):
    p = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", package])
    return p.returncode == 0 and p.stdout.startswith("ii")


def known(package):
    """True if dpkg has any record of the package (installed or config-files)."""
    p = run(["dpkg-query", "-W", "-f=${db:Status-Abbrev}", package])
    return p.returncode == 0 and p.stdout.strip() not in ("", "un")


def clean_env():
    """The environment of an ordinary program: nothing steers Python or the loader."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERF_PYTHON_", "PERF_TEST_"))}


def system_python(code, env=None, **kw):
    e = clean_env()
    e.update(env or {})
    return run([SYSTEM_PYTHON, "-c", code], env=e, cwd="/", timeout=120, **kw)


def online_cpus():
    cpus = []
    for part in Path("/sys/devices/system/cpu/online").read_text().strip().split(","):
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


class Installation:
    """The packages under test and what dpkg and the filesystem said about them."""

    def __init__(self, debs, packages):
        self.debs = debs
        self.packages = packages
        self.listing = {}     # package -> paths from dpkg -L
        self.existed = {}     # path -> existed before the installation


@pytest.fixture(scope="module")
def debs():
    """The .debs (no -dbgsym): built by scripts/deb.sh unless $PERF_TEST_DEBS
    names a directory of them; lintian must report no errors."""
    given = os.environ.get("PERF_TEST_DEBS")
    out = Path(given) if given else REPO / "build" / "test-packaging"
    if not given:
        env = dict(os.environ, PERF_PYTHON_RELEASES=RELEASE, PERF_PYTHON_DEB_OUT=str(out))
        p = run([str(REPO / "scripts" / "deb.sh")], cwd=REPO, env=env, timeout=3600)
        assert p.returncode == 0, f"scripts/deb.sh failed:\n{p.stdout[-4000:]}\n{p.stderr[-4000:]}"
    debs = sorted(d for d in out.glob("*.deb") if "-dbgsym_" not in d.name)
    assert debs, f"no packages in {out}"
    changes = sorted(out.glob("*.changes"))
    if changes:
        p = run(["lintian", "--fail-on", "error", *map(str, changes)])
        assert p.returncode == 0, f"lintian reports errors:\n{p.stdout}\n{p.stderr}"
        assert not [ln for ln in p.stdout.splitlines() if ln.startswith("E:")], p.stdout
    return debs


@pytest.fixture(scope="module")
def machine_lock():
    """Held from installation to purge: one packaging test run at a time."""
    with open("/run/lock/perf-python-packaging.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@pytest.fixture(scope="module")
def installation(debs, machine_lock):
    packages = [run(["dpkg-deb", "-f", str(d), "Package"]).stdout.strip() for d in debs]
    for package in packages:
        if known(package):
            pytest.skip(f"{package} is installed on this machine already; not touching it")
    inst = Installation(debs, packages)
    # What the packages will install, and which of it is there already.
    for deb in debs:
        paths = run(["dpkg-deb", "-c", str(deb)]).stdout.splitlines()
        for line in paths:
            path = line.split(None, 5)[5].split(" -> ")[0].lstrip(".").rstrip("/") or "/"
            inst.existed[path] = os.path.lexists(path)
    inst.existed["/usr/lib/python3/dist-packages/perf/__pycache__"] = False
    p = dpkg("-i", *map(str, debs))
    try:
        assert p.returncode == 0, f"dpkg -i failed:\n{p.stdout}\n{p.stderr}"
        for package in packages:
            inst.listing[package] = run(["dpkg", "-L", package]).stdout.splitlines()
        yield inst
    finally:
        if any(known(package) for package in packages):
            dpkg("--purge", *packages)


def test_packages_are_the_wrapper_and_one_per_abi(installation):
    names = sorted(installation.packages)
    manifest = tomllib.loads(Path(f"/usr/lib/linux-tools/{RELEASE}/lib/perf-python.toml").read_text())
    assert manifest["kernel_release"] == RELEASE
    abi = manifest["abi"]
    assert "python3-perf" in names
    assert [n for n in names if n != "python3-perf"] == [f"python3-perf-{abi.lower()}"]
    for package in names:
        assert installed(package)
    wrapper = installation.listing["python3-perf"]
    assert "/usr/lib/python3/dist-packages/perf/__init__.py" in wrapper
    assert "/usr/bin/perf-python-info" in wrapper
    per_abi = installation.listing[f"python3-perf-{abi.lower()}"]
    assert f"/usr/lib/linux-tools-{abi}/lib/perf.abi3.so" in per_abi
    assert f"/usr/lib/linux-tools-{abi}/lib/perf-python.toml" in per_abi
    assert os.readlink(f"/usr/lib/linux-tools/{RELEASE}/lib/perf.abi3.so") == \
        f"../../../linux-tools-{abi}/lib/perf.abi3.so"
    for paths in installation.listing.values():
        for path in paths:
            assert os.path.lexists(path), path


def test_seed_test_case_on_the_system_python(installation):
    p = system_python(SEED)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [str(c) for c in online_cpus()]
    assert p.stderr == ""  # the build for this kernel: no warning


def test_import_perf_is_our_build_for_the_running_kernel(installation):
    p = system_python("import json, perf; print(json.dumps([perf.__file__, perf.__loaded_by__, perf.__build__]))")
    assert p.returncode == 0, p.stderr
    path, loaded_by, build = json.loads(p.stdout)
    assert path == f"/usr/lib/linux-tools/{RELEASE}/lib/perf.abi3.so"
    assert loaded_by["step"] == "exact"
    assert build["kernel_release"] == RELEASE


@pytest.mark.skipif(not os.path.exists(DEBIAN_PERF), reason="Debian's linux-perf is not installed")
def test_coexistence_with_debian_linux_perf(installation):
    # Debian's C module stays installed beside our perf/ package in the same
    # dist-packages directory; the package shadows it for `import perf` ...
    assert installed("linux-perf")
    p = system_python("import perf; print(perf.__file__)")
    assert p.stdout.strip() == f"/usr/lib/linux-tools/{RELEASE}/lib/perf.abi3.so"
    # ... and the loader falls back to it, last and with a warning, when no
    # build of ours may be loaded (here: none under an empty root).
    p = system_python("import perf; print(perf.__file__); print(perf.__loaded_by__['step'])",
                      env={"PERF_PYTHON_SYSROOT": "/nonexistent"})
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == [DEBIAN_PERF, "distro"]
    assert f"loaded the distribution's module {DEBIAN_PERF}" in p.stderr
    # Under the strict policy it is not used.
    p = system_python("import perf", env={"PERF_PYTHON_SYSROOT": "/nonexistent", "PERF_PYTHON_POLICY": "exact"})
    assert "KernelNotFoundError: python perf module not found" in p.stderr


def test_perf_python_info_names_the_installed_build(installation):
    p = run(["/usr/bin/perf-python-info"], env=clean_env())
    assert p.returncode == 0, p.stderr
    assert f"import perf would load: /usr/lib/linux-tools/{RELEASE}/lib/perf.abi3.so" in p.stdout
    assert "`import perf` on this interpreter finds: /usr/lib/python3/dist-packages/perf/__init__.py " \
           "(this loader)" in p.stdout
    assert run(["man", "-w", "perf-python-info"]).returncode == 0


def autopkgtests():
    """(name, command) of each test in debian/tests/control (deb822)."""
    text = (REPO / "debian" / "tests" / "control").read_text()
    tests = []
    for stanza in text.split("\n\n"):
        fields = {}
        for line in stanza.splitlines():
            if line.startswith("#") or not line.strip():
                continue
            key, _, value = line.partition(":")
            fields[key.strip().lower()] = value.strip()
        if "test-command" in fields:
            tests.append((fields["test-command"], ["sh", "-c", fields["test-command"]]))
        for name in fields.get("tests", "").split():
            tests.append((name, [str(REPO / "debian" / "tests" / name)]))
        assert "depends" in fields and "allow-stderr" in fields.get("restrictions", "")
    return tests


def test_autopkgtest_definitions_pass_on_the_installation(installation):
    tests = autopkgtests()
    assert [name for name, _ in tests] == ["python3 -c 'import perf; [print(c) for c in perf.cpu_map()]'",
                                           "cpu-map"]
    # A testbed's python3 is Debian's, not a developer's pyenv.
    env = dict(clean_env(), PATH="/usr/sbin:/usr/bin:/sbin:/bin")
    for name, cmd in tests:
        p = run(cmd, env=env, cwd="/", timeout=120)
        assert p.returncode == 0, f"{name}:\n{p.stdout}\n{p.stderr}"
        assert str(online_cpus()[-1]) in p.stdout


@pytest.fixture(scope="module")
def tuned(tmp_path_factory):
    """Debian's tuned, downloaded and extracted at test time (never committed)."""
    d = tmp_path_factory.mktemp("tuned")
    p = run(["apt-get", "download", "tuned"], cwd=d, timeout=300)
    debs = list(d.glob("tuned_*.deb"))
    if p.returncode != 0 or not debs:
        pytest.skip(f"apt-get download tuned failed: {p.stderr.strip()[-300:]}")
    run(["dpkg-deb", "-x", str(debs[0]), str(d / "x")], check=True)
    plugin = d / "x/usr/lib/python3/dist-packages/tuned/plugins/plugin_scheduler.py"
    assert plugin.exists()
    return d / "x/usr/lib/python3/dist-packages"


def test_tuned_scheduler_plugin_perf_logic(installation, tuned):
    has_evsel = system_python("import perf; print(hasattr(perf, 'evsel'))")
    if has_evsel.stdout.strip() != "True":
        pytest.skip("perf.evsel is not in this build yet (the module's evsel/evlist are being written)")
    driver = Path(__file__).with_name("tuned_driver.py")
    e = clean_env()
    p = run([SYSTEM_PYTHON, str(driver), str(tuned), "/bin/sh", "-c", "exec /bin/sleep 0.3"],
            env=e, cwd="/", timeout=120)
    assert p.returncode == 0, f"{p.stdout}\n{p.stderr}"
    out = json.loads(p.stdout.splitlines()[-1])
    assert out["perf_file"] == f"/usr/lib/linux-tools/{RELEASE}/lib/perf.abi3.so"
    assert out["cpus"] == online_cpus()
    # tuned swallows any exception of its perf set-up with a bare except and
    # turns runtime tuning off: True means evsel/evlist/mmap all worked.
    assert out["daemon"] is True
    assert out["runtime_tuning"] is True, p.stderr
    assert out["thread_stopped"] is True
    assert out["child_added"] >= 1, out    # tuned saw the child's FORK or COMM
    assert out["child_removed"] >= 1, out  # and its EXIT
    assert len(out["pollfds"]) >= 1


def test_purge_leaves_nothing_behind(installation):
    p = dpkg("--purge", *installation.packages)
    assert p.returncode == 0, f"{p.stdout}\n{p.stderr}"
    for package in installation.packages:
        assert not known(package), package
    left = [path for path, existed in installation.existed.items()
            if not existed and os.path.lexists(path)]
    assert left == [], f"left behind after purge: {left}"
    gone = [path for path, existed in installation.existed.items()
            if existed and not os.path.lexists(path)]
    assert gone == [], f"removed though it was there before: {gone}"
    for paths in installation.listing.values():
        for path in paths:
            if not installation.existed.get(path.rstrip("/") or "/", True):
                assert not os.path.lexists(path), path
    # Debian's module is untouched and `import perf` is the C module again.
    if os.path.exists(DEBIAN_PERF):
        assert system_python("import perf; print(perf.__file__)").stdout.strip() == DEBIAN_PERF
