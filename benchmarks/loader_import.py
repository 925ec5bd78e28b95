#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The loader's cost: `import perf` through the loader package, against a
direct import of the same .so and against Ubuntu's wrapper v2, the peer,
each in fresh interpreters.

Stages one build (default build/releases/<uname -r>/perf.abi3.so, made by
scripts/build.sh) in a temporary directory three ways: in the distro layout
with the loader (as scripts/install.sh lays it out); alone as
<dir>/perf.abi3.so on sys.path (direct); and in the same distro layout with
Ubuntu's wrapper v2 (benchmarks/ubuntu_wrapper.py) as the perf package
instead of the loader. Both packages are byte-compiled first, as dpkg's
py3compile does on installation. Then runs RUNS interpreters per mode,
alternating the modes, each timing the `import perf` statement (wall and CPU
time, time.perf_counter_ns and time.thread_time_ns), and prints the medians
and the loader's ratios to the other two. The whole process's wall time
(start-up included) is printed too.

Before the clock starts, each interpreter searches sys.path once for a module
that does not exist, so that every directory on it has its finder and the
finder its listing, as site makes them at start-up for the directories on
sys.path then; nothing else is imported.

With --installed it times the installed packages instead (python3-perf and
python3-perf-<abi> from `make deb`): the loader in
/usr/lib/python3/dist-packages and the build in
/usr/lib/linux-tools/<release>/lib, against a copy of that build alone in a
directory, and against the wrapper reading the installed build, each put on
sys.path just before dist-packages (so that all three search the same
directories first).

As root the loader checks that root owns every directory on the way to the
build (docs/loader.md); --user times an unprivileged user, who skips that.

Then it counts the instructions of `import perf` in each mode with valgrind's
callgrind (an interpreter that imports perf, less one that does not): a
figure that repeats on a busy machine (--no-instructions skips it).

Usage: benchmarks/loader_import.py [--python /usr/bin/python3] [--runs 300]
                                   [--so build/releases/R/perf.abi3.so | --installed]
                                   [--user nobody] [--no-instructions]
"""

import argparse
import importlib
import importlib.util
import os
import pwd
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import ubuntu_wrapper

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_PACKAGES = "/usr/lib/python3/dist-packages"

# What runs before the clock starts. $PERF_BENCH_PATH_BEFORE: a directory to
# put on sys.path just before the installed dist-packages (--installed).
SETUP = ("import os, sys, time\n"
         "d = os.environ.get('PERF_BENCH_PATH_BEFORE')\n"
         f"if d: sys.path.insert(sys.path.index({DIST_PACKAGES!r}), d)\n"
         "try:\n"
         "    import perf_bench_no_such_module\n"
         "except ModuleNotFoundError:\n"
         "    pass\n")
PROBE = SETUP + ("c = time.thread_time_ns(); t = time.perf_counter_ns(); import perf; "
                 "t = time.perf_counter_ns() - t; c = time.thread_time_ns() - c; "
                 "assert perf.__file__.endswith('.so'), perf.__file__; print(t, c)")

MODES = ("direct", "ubuntu", "loader")
LABELS = {"direct": "direct", "ubuntu": "ubuntu wrapper", "loader": "loader"}
TARGETS = {"direct": 1.35, "ubuntu": 0.8}


def _abi_of(release):
    """The loader's own abi_of(), imported without running `import perf`
    (the package loads the extension only when it is named perf)."""
    directory = os.path.join(REPO, "loader", "perf")
    spec = importlib.util.spec_from_file_location(
        "perf_loader_bench", os.path.join(directory, "__init__.py"),
        submodule_search_locations=[directory])
    package = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = package
    spec.loader.exec_module(package)
    return importlib.import_module("perf_loader_bench._layout").abi_of(release)[0]


def wrapper_package(python, tmp, root="/", release=None):
    """A site directory holding Ubuntu's wrapper v2 as its perf package,
    byte-compiled by `python`."""
    site = os.path.join(tmp, "ubuntu")
    os.makedirs(os.path.join(site, "perf"))
    with open(os.path.join(site, "perf", "__init__.py"), "w", encoding="utf-8") as f:
        f.write(ubuntu_wrapper.v2(root, release))
    byte_compile(python, site)
    return site


def byte_compile(python, directory):
    """The .pyc files dpkg's py3compile writes on installation."""
    subprocess.run([python, "-m", "compileall", "-q", directory], check=True)


def stage(python, so, release, tmp):
    """{mode: environment}: the distro layout scripts/install.sh makes (the
    .so in linux-tools-<abi>/lib, a link in linux-tools/<release>/lib, the
    loader in dist-packages/perf/), the .so alone in a directory, and the
    wrapper reading the same layout."""
    root = os.path.join(tmp, "root")
    abi = _abi_of(release)
    abidir = os.path.join(root, "usr/lib", f"linux-tools-{abi}", "lib")
    flavourdir = os.path.join(root, "usr/lib/linux-tools", release, "lib")
    os.makedirs(abidir)
    os.makedirs(flavourdir)
    shutil.copy(so, os.path.join(abidir, "perf.abi3.so"))
    os.symlink(f"../../../linux-tools-{abi}/lib/perf.abi3.so", os.path.join(flavourdir, "perf.abi3.so"))
    site = os.path.join(root, "usr/lib/python3/dist-packages")
    shutil.copytree(os.path.join(REPO, "loader", "perf"), os.path.join(site, "perf"),
                    ignore=shutil.ignore_patterns("__pycache__"))
    byte_compile(python, site)
    direct = os.path.join(tmp, "direct")
    os.makedirs(direct)
    shutil.copy(so, os.path.join(direct, "perf.abi3.so"))
    ubuntu = wrapper_package(python, tmp, root, None if release == os.uname().release else release)
    base = clean_env()
    return {"direct": dict(base, PYTHONPATH=direct),
            "ubuntu": dict(base, PYTHONPATH=ubuntu),
            "loader": dict(base, PYTHONPATH=site, PERF_PYTHON_SYSROOT=root,
                           PERF_PYTHON_KERNEL_RELEASE=release)}


def installed(python, so, tmp):
    """{mode: environment} for the installed packages."""
    direct = os.path.join(tmp, "direct")
    os.makedirs(direct)
    shutil.copy(so, os.path.join(direct, "perf.abi3.so"))
    ubuntu = wrapper_package(python, tmp)
    base = clean_env()
    return {"direct": dict(base, PERF_BENCH_PATH_BEFORE=direct),
            "ubuntu": dict(base, PERF_BENCH_PATH_BEFORE=ubuntu),
            "loader": base}


def clean_env():
    return {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERF_PYTHON_"))}


def run_once(python, env, prefix=()):
    """(import wall time in µs, import CPU time in µs, process wall time in ms)."""
    t = time.perf_counter()
    p = subprocess.run([*prefix, python, "-c", PROBE], env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - t) * 1e3
    if p.returncode != 0:
        sys.exit(f"probe failed:\n{p.stderr}")
    import_wall, import_cpu = p.stdout.split()[-2:]
    return int(import_wall) / 1e3, int(import_cpu) / 1e3, wall


def instructions(python, env, prefix=()):
    """Instructions (valgrind's callgrind) of `import perf`: an interpreter
    that runs SETUP and imports perf, less one that only runs SETUP. They
    repeat from run to run on a busy machine, where times do not."""
    env = dict(env, PYTHONHASHSEED="0")
    counts = []
    for code in (SETUP, SETUP + "import perf\n"):
        p = subprocess.run([*prefix, "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                            python, "-c", code], env=env, capture_output=True, text=True)
        refs = [line.split()[-1] for line in p.stderr.splitlines() if "refs:" in line]
        if p.returncode != 0 or not refs:
            sys.exit(f"callgrind failed:\n{p.stderr}")
        counts.append(int(refs[-1].replace(",", "")))
    return counts[1] - counts[0]


def row(label, cells, note=""):
    """One line of the table printed."""
    return f"  {label:23}" + "".join(f"{cell:>22}" for cell in cells) + note


def ratio_rows(figures, what):
    """The loader's ratios to the direct import and to the wrapper, a line
    each, for each column of `figures` ({mode: [value, ...]})."""
    return [row(f"loader / {LABELS[mode]}",
                [f"{figures['loader'][i] / figures[mode][i]:.2f}x" for i in range(len(figures[mode]))],
                f"   ({what}; target <= {TARGETS[mode]}x)")
            for mode in ("direct", "ubuntu")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default="/usr/bin/python3")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--release", default=os.uname().release)
    parser.add_argument("--so", help="the build to time (default build/releases/<release>/perf.abi3.so)")
    parser.add_argument("--installed", action="store_true",
                        help="time the installed loader and build for the running release")
    parser.add_argument("--user", help="run the timed interpreters as this user (run as root: "
                        "the loader's ownership check applies to root only)")
    parser.add_argument("--no-instructions", action="store_true",
                        help="skip the instruction counts (valgrind's callgrind)")
    args = parser.parse_args()
    prefix = ()
    if args.user:
        pw = pwd.getpwnam(args.user)
        prefix = ("setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups")
    if args.installed:
        so = f"/usr/lib/linux-tools/{args.release}/lib/perf.abi3.so"
        if not os.path.isfile(so) or not os.path.isdir(os.path.join(DIST_PACKAGES, "perf")):
            sys.exit("the packages are not installed (make deb; dpkg -i build/deb/*.deb)")
    else:
        so = args.so or os.path.join(REPO, "build", "releases", args.release, "perf.abi3.so")
        if not os.path.isfile(so):
            sys.exit(f"{so} is not built: scripts/build.sh {args.release}")
    with tempfile.TemporaryDirectory(prefix="perf-loader-bench.") as tmp:
        if args.installed:
            envs = installed(args.python, so, tmp)
        else:
            envs = stage(args.python, so, args.release, tmp)
        for env in envs.values():  # warm the page cache
            run_once(args.python, env)
        if prefix:
            os.chmod(tmp, 0o755)  # TemporaryDirectory makes it 0700
        samples = {mode: [] for mode in MODES}
        for _ in range(args.runs):
            for mode in MODES:
                samples[mode].append(run_once(args.python, envs[mode], prefix))
        counts = None
        if not args.no_instructions and shutil.which("valgrind"):
            counts = {mode: [instructions(args.python, envs[mode], prefix)] for mode in MODES}
    med = {m: [statistics.median(s[i] for s in v) for i in range(3)] for m, v in samples.items()}
    uid = args.user or ("root" if os.geteuid() == 0 else f"uid {os.geteuid()}")
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    where = "installed packages" if args.installed else "staged root"
    print(f"{args.python} {version}, {args.runs} fresh interpreters per mode, as {uid}, "
          f"build for {args.release} ({where}), load average {os.getloadavg()[0]:.2f}")
    print(row("", ["import perf (wall)", "import perf (CPU)", "whole process (wall)"]))
    for mode in MODES:
        w, c, p = med[mode]
        print(row(LABELS[mode], [f"{w:.1f} µs", f"{c:.1f} µs", f"{p:.2f} ms"]))
    print("\n".join(ratio_rows(med, "medians")))
    if counts is None:
        if not args.no_instructions:
            print("(no instruction counts: valgrind is not installed)")
        return
    print(row("", ["instructions"]))
    for mode in MODES:
        print(row(LABELS[mode], [f"{counts[mode][0] / 1e3:.0f} k"]))
    print("\n".join(ratio_rows(counts, "instructions")))


if __name__ == "__main__":
    main()
