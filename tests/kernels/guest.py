# SPDX-License-Identifier: GPL-2.0-only
"""Runs inside a guest booted by tests/kernels/vm.py, under /usr/bin/python3:
every check of one kernel in one command, so that each kernel is booted once.

    python3 guest.py PLAN.json RESULT.json

The plan (written by tests/kernels/plan.py on the host) says what to run; the
result maps each step to what it saw, and the host's tests judge it. A step
that raises is recorded as {"error": traceback}; the others still run. This
file imports nothing from the project: it runs before anything is known to
work. The environment selects the loader (PERF_PYTHON_SYSROOT and PYTHONPATH
for a staged root; nothing for installed packages).
"""

import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import runpy
import subprocess
import sys
import time
import traceback
import warnings

SMOKE = "import perf; [print(c) for c in perf.cpu_map()]"


def run(cmd, timeout, **kw):
    """A subprocess's exit status, output and duration."""
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
        out = {"rc": p.returncode, "stdout": p.stdout, "stderr": p.stderr}
    except subprocess.TimeoutExpired as e:
        out = {"rc": None, "stdout": str(e.stdout or ""), "stderr": f"timed out after {timeout} s"}
    out["seconds"] = round(time.monotonic() - start, 2)
    return out


def import_perf():
    """`import perf` through the loader the environment selects: what it
    loaded, why, and every warning it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import perf
    return {"file": perf.__file__, "loaded_by": perf.__loaded_by__, "build": perf.__build__,
            "warnings": [str(w.message) for w in caught]}


def smoke():
    """The smoke test verbatim, in a fresh interpreter."""
    out = run([sys.executable, "-c", SMOKE], 300)
    with open("/sys/devices/system/cpu/online") as f:
        out["online"] = f.read().strip()
    return out


def info(plan):
    """perf-python-info's report (the script, run in this interpreter)."""
    out, argv = io.StringIO(), sys.argv
    sys.argv = [plan["info"]]
    try:
        with contextlib.redirect_stdout(out):
            runpy.run_path(plan["info"], run_name="__main__")
        status = 0
    except SystemExit as e:
        status = e.code
    finally:
        sys.argv = argv
    return {"rc": status, "stdout": out.getvalue()}


def load_by_path(path):
    """A build loaded from its file under the name perf_build (beside the
    loader's perf: each build keeps its own state)."""
    loader = importlib.machinery.ExtensionFileLoader("perf", path)
    spec = importlib.util.spec_from_file_location("perf", path, loader=loader)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def honesty(plan):
    """Opens a software event with each row of the plan set, under a build
    that knows every row (so the attr reaches the kernel): the OSError each
    gives."""
    perf = load_by_path(plan["newest_build"])
    cpus, threads = perf.cpu_map(), perf.thread_map(-1)
    out = {"build": perf.__build__, "rows": {}}
    for name, kwargs in plan["rows"].items():
        ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, **kwargs)
        try:
            ev.open(cpus=cpus, threads=threads)
            out["rows"][name] = {"ok": True}
        except OSError as e:
            out["rows"][name] = {"ok": False, "errno": e.errno, "text": str(e)}
    return out


def emulator(plan):
    """perf-core's tests against the running kernel (tests_real.rs: the probe
    equals the feature table's release, the emulator for this release agrees
    with the kernel on every row, size and rule)."""
    return run([plan["rust_tests"], "abi::tests_real", "--test-threads=1"], 600)


def debs(plan):
    """Installs the .debs for real (into the guest's overlays: the host's dpkg
    database and /usr are untouched), then asks the installed loader. Other
    packages' triggers (man-db's reads every manual page over 9p: minutes
    under TCG) are left pending; the packages' own maintainer scripts run."""
    env = {k: v for k, v in os.environ.items() if k not in ("PERF_PYTHON_SYSROOT", "PYTHONPATH")}
    out = {"dpkg": run(["dpkg", "--no-triggers", "--force-unsafe-io", "-i", *plan["debs"]], 900, env=env)}
    report = "import json, perf; print(json.dumps({'file': perf.__file__, 'loaded_by': perf.__loaded_by__}))"
    out["import"] = run(["/usr/bin/python3", "-c", report], 300, env=env)
    out["smoke"] = run(["/usr/bin/python3", "-c", SMOKE], 300, env=env)
    out["info"] = run(["/usr/bin/perf-python-info"], 300, env=env)
    return out


def sidebyside(plan):
    """The side-by-side suite (ours against Debian's C module), in this guest."""
    env = dict(os.environ, PERF_TEST_ROOT=plan["root"], PERF_TEST_RELEASE=os.uname().release,
               PYTHONDONTWRITEBYTECODE="1")
    env.pop("PERF_PYTHON_SYSROOT", None)
    env.pop("PYTHONPATH", None)
    return run([plan["pytest_python"], "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rs",
                *plan["sidebyside"]], 3600, env=env, cwd=plan["repo"])


STEPS = {"loader": lambda plan: import_perf(), "smoke": lambda plan: smoke(), "info": info,
         "honesty": honesty, "emulator": emulator, "debs": debs, "sidebyside": sidebyside}


def main():
    with open(sys.argv[1]) as f:
        plan = json.load(f)
    result = {"release": os.uname().release, "steps": {}}
    for name in plan["steps"]:
        start = time.monotonic()
        try:
            value = STEPS[name](plan)
        except Exception:  # recorded for the host's tests, which fail on it
            value = {"error": traceback.format_exc()}
        result["steps"][name] = {"value": value, "seconds": round(time.monotonic() - start, 2)}
        with open(sys.argv[2], "w") as f:
            json.dump(result, f)


if __name__ == "__main__":
    main()
