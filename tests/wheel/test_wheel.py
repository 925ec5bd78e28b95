# SPDX-License-Identifier: GPL-2.0-only
"""The wheel (pyproject.toml, docs/packaging.md): one abi3 manylinux wheel,
installed into a fresh venv of every CPython >= 3.10 here, where
`import perf` is the extension itself, from the venv; `pip install .` from a
clone gives the same; the wheel and the system's `perf` (the Debian packages'
loader, or Debian's C module) coexist.

The wheel is PERF_TEST_WHEEL, or built once with scripts/wheel.sh. The
side-by-side suite runs against it in `make test-wheel` (PERF_TEST_VENV,
tests/sidebyside/harness.py).
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from sidebyside.harness import REPO, SYSTEM_PYTHON, online_cpus

PYENV = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
# What the wheel holds, besides its .dist-info: the package that makes
# `import perf` the extension, the extension, its stubs and marker (PEP 561),
# and the tools of perf-python-info.
CONTENTS = {"perf/__init__.py", "perf/perf.abi3.so", "perf/__init__.pyi", "perf/py.typed",
            "perf_python/__init__.py", "perf_python/info.py"}
# What an abi3 extension may need at run time (the manylinux policy's system
# libraries it uses): never libpython, nothing to bundle.
NEEDED = {"libc.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}

PROBE = """
import json, os, perf
print(json.dumps({"file": os.path.realpath(perf.__file__), "build": perf.__build__,
                  "loaded_by": getattr(perf, "__loaded_by__", None), "cpus": list(perf.cpu_map())}))
"""

_built = {}


@pytest.fixture(scope="session")
def wheel():
    """The wheel under test."""
    given = os.environ.get("PERF_TEST_WHEEL")
    if given:
        return Path(given)
    if "path" not in _built:
        p = subprocess.run(["scripts/wheel.sh", str(REPO / "build/pytest-wheel")], cwd=REPO,
                           capture_output=True, text=True)
        assert p.returncode == 0, f"scripts/wheel.sh failed:\n{p.stderr}"
        _built["path"] = Path(p.stdout.strip())
    return _built["path"]


def pythons(minimum=(3, 10)):
    """The newest patch release of every pyenv CPython minor >= minimum, as
    (version, path); this interpreter's when pyenv has none."""
    newest = {}
    for d in glob.glob(str(PYENV / "3.*")):
        m = re.fullmatch(r"3\.(\d+)\.(\d+)", os.path.basename(d))
        exe = Path(d) / "bin/python3"
        if m and exe.exists() and (3, int(m[1])) >= minimum:
            key = (3, int(m[1]))
            if key not in newest or int(m[2]) > newest[key][0]:
                newest[key] = (int(m[2]), exe)
    found = [(f"{k[0]}.{k[1]}", v[1]) for k, v in sorted(newest.items())]
    return found or [(f"{sys.version_info[0]}.{sys.version_info[1]}", Path(sys.executable))]


def make_venv(python, where, *args):
    """A fresh venv of `python` at `where`; returns its interpreter."""
    subprocess.run([str(python), "-m", "venv", *args, str(where)], check=True)
    return where / "bin/python"


def pip(venv_python, *args):
    return subprocess.run([str(venv_python), "-m", "pip", "--disable-pip-version-check",
                           "--no-input", *args], capture_output=True, text=True)


def probe(python, cwd="/", env=None):
    """What `python` gets for `import perf`, run from `cwd` (not the clone)."""
    p = subprocess.run([str(python), "-c", PROBE], cwd=cwd, capture_output=True, text=True,
                       env=env)
    assert p.returncode == 0, f"{python}: rc {p.returncode}\n{p.stderr}"
    return json.loads(p.stdout)


def check_wheel_module(got, venv):
    """`import perf` gave the wheel's extension itself, from `venv`."""
    assert got["file"].startswith(os.path.realpath(venv) + os.sep), got["file"]
    assert got["file"].endswith("/site-packages/perf/perf.abi3.so"), got["file"]
    assert got["build"]["build"] == "wheel"
    assert got["build"]["kernel_release"] is None and got["build"]["python_abi"] == "abi3"
    assert got["loaded_by"]["step"] == "wheel" and got["loaded_by"]["path"] == got["file"]
    assert got["cpus"] == online_cpus()


def test_one_abi3_manylinux_wheel(wheel):
    assert re.fullmatch(r"perf_python-[0-9.]+-cp310-abi3-manylinux_2_\d+_x86_64\.whl", wheel.name)
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = [n for n in names if n.split("/")[0].endswith(".dist-info")]
        assert set(names) - set(info) == CONTENTS
        entry_points = z.read(next(n for n in info if n.endswith("/entry_points.txt"))).decode()
        metadata = z.read(next(n for n in info if n.endswith("/METADATA"))).decode()
        stub = z.read("perf/__init__.pyi").decode()
    assert "perf-python-info=perf_python.info:main" in entry_points.replace(" ", "")
    assert "Name: perf-python\n" in metadata and "Requires-Python: >=3.10" in metadata
    assert stub == (REPO / "crates/perf-py/perf.pyi").read_text()


def test_auditwheel_show_is_clean(wheel, tmp_path):
    """A manylinux tag, nothing bundled, and only the system libraries the
    policy allows (no libpython: abi3)."""
    p = subprocess.run([sys.executable, "-m", "auditwheel", "show", str(wheel)],
                       capture_output=True, text=True)
    if p.returncode != 0 and "No module named auditwheel" in p.stderr:
        pytest.skip("auditwheel is not installed (scripts/setup.sh installs it)")
    assert p.returncode == 0, p.stderr
    text = " ".join(p.stdout.split())
    tag = re.search(r'is consistent with the following platform tag: "(manylinux_2_\d+_x86_64)"', text)
    assert tag and tag[1] in wheel.name, text
    assert "external shared libraries" not in text, text
    with zipfile.ZipFile(wheel) as z:
        z.extract("perf/perf.abi3.so", tmp_path)
    dynamic = subprocess.run(["readelf", "-d", str(tmp_path / "perf/perf.abi3.so")],
                             capture_output=True, text=True, check=True).stdout
    needed = set(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    assert needed and needed <= NEEDED, needed


def test_the_extension_is_stripped(wheel, tmp_path):
    """No symbol table and no debug sections (the linker strips the wheel's
    build: crates/perf-py/build.rs); the dynamic symbols stay, PyInit_perf
    among them."""
    with zipfile.ZipFile(wheel) as z:
        z.extract("perf/perf.abi3.so", tmp_path)
    so = str(tmp_path / "perf/perf.abi3.so")
    sections = re.findall(r"\]\s+(\S+)", subprocess.run(["readelf", "-SW", so], capture_output=True,
                                                        text=True, check=True).stdout)
    assert ".dynsym" in sections and ".text" in sections, sections
    assert not [s for s in sections if s == ".symtab" or s.startswith(".debug")], sections
    dynsym = subprocess.run(["readelf", "--dyn-syms", "-W", so], capture_output=True, text=True,
                            check=True).stdout
    assert re.search(r"\bPyInit_perf\b", dynsym)


@pytest.mark.parametrize("version,python", pythons(), ids=[v for v, _ in pythons()])
def test_fresh_venv(wheel, tmp_path, version, python):
    """Each CPython >= 3.10: `import perf` works, is inside the venv, is the
    wheel's build; perf-python-info says so."""
    venv = tmp_path / "venv"
    py = make_venv(python, venv)
    p = pip(py, "install", "--no-index", "--no-deps", str(wheel))
    assert p.returncode == 0, p.stdout + p.stderr
    check_wheel_module(probe(py), venv)
    info = subprocess.run([str(venv / "bin/perf-python-info")], cwd="/", capture_output=True,
                          text=True)
    assert info.returncode == 0, info.stderr
    so = os.path.realpath(venv) + f"/lib/python{version}/site-packages/perf/perf.abi3.so"
    assert f"import perf: {so}\n" in info.stdout, info.stdout
    assert "build = 'wheel'" in info.stdout and "python ABI: abi3" in info.stdout


def test_python_3_9_is_refused(wheel, tmp_path):
    """abi3 for 3.10+: pip will not install it on 3.9 (end of life)."""
    old = [py for v, py in pythons(minimum=(3, 9)) if v == "3.9"]
    if not old:
        pytest.skip("no pyenv CPython 3.9 here")
    py = make_venv(old[0], tmp_path / "venv")
    p = pip(py, "install", "--no-index", "--no-deps", str(wheel))
    assert p.returncode != 0 and "is not a supported wheel on this platform" in p.stderr, p.stderr


def test_venv_wins_and_the_system_python_keeps_its_perf(wheel, tmp_path):
    """A venv that sees the system's site-packages (--system-site-packages on
    /usr/bin/python3): `import perf` there is the wheel's, before the
    system's `perf` (the Debian packages' loader, else Debian's C module),
    which perf-python-info lists as shadowed; /usr/bin/python3 itself
    still imports what it did."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERF_PYTHON_"))}
    system = subprocess.run([SYSTEM_PYTHON, "-c", "import os, perf; print(os.path.realpath(perf.__file__))"],
                            cwd="/", capture_output=True, text=True, env=clean)
    if system.returncode != 0:
        pytest.skip(f"{SYSTEM_PYTHON} imports no perf (neither python3-perf nor linux-perf): "
                    f"{system.stderr.strip()[-200:]}")
    venv = tmp_path / "venv"
    py = make_venv(SYSTEM_PYTHON, venv, "--system-site-packages")
    p = pip(py, "install", "--no-index", "--no-deps", str(wheel))
    assert p.returncode == 0, p.stdout + p.stderr
    check_wheel_module(probe(py, env=clean), venv)
    info = subprocess.run([str(venv / "bin/perf-python-info")], cwd="/", capture_output=True,
                          text=True, env=clean).stdout
    listed = [line.strip() for line in info.split("perf on sys.path, in import order:\n")[1]
              .split("\n\n")[0].splitlines()]
    assert listed[0].endswith(": the perf-python wheel"), info
    system_perf = system.stdout.strip()
    if system_perf.endswith("/perf/__init__.py"):
        system_perf = os.path.dirname(system_perf)
    assert any(line.startswith(system_perf + ":") for line in listed[1:]), info
    after = subprocess.run([SYSTEM_PYTHON, "-c", "import os, perf; print(os.path.realpath(perf.__file__))"],
                           cwd="/", capture_output=True, text=True, env=clean)
    assert after.stdout == system.stdout


@pytest.mark.skipif(not shutil.which("cargo"), reason="`pip install .` builds with cargo")
def test_pip_install_from_the_clone(tmp_path):
    """`pip install .` in a fresh venv of the newest Python (pip fetches the
    pinned maturin into its isolated build environment) installs the same
    module."""
    version, python = pythons()[-1]
    venv = tmp_path / "venv"
    py = make_venv(python, venv)
    p = pip(py, "install", "--quiet", str(REPO))
    assert p.returncode == 0, p.stdout + p.stderr
    check_wheel_module(probe(py), venv)
    assert (venv / "bin/perf-python-info").exists()
