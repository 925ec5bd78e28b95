#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The loader's cost: `import perf` through the loader package vs a direct
import of the same .so, each in fresh interpreters.

Stages one build (default build/releases/<uname -r>/perf.abi3.so, made by
scripts/build.sh) twice in a temporary directory: in the distro layout with
the loader (as scripts/install.sh lays it out), and alone as
<dir>/perf.abi3.so on sys.path.
Then runs RUNS interpreters per mode, alternating the modes, each timing the
`import perf` statement with time.perf_counter_ns, and prints the medians and
their ratio. The whole-process wall time (start-up included) is printed too.

With --installed it times the installed packages instead (python3-perf and
python3-perf-<abi> from `make deb`): the loader in /usr/lib/python3/dist-packages
and the build in /usr/lib/linux-tools/<release>/lib, against a copy of that
build alone in a directory searched just before dist-packages (so both
imports search the same directories first).

As root the loader checks that root owns every directory on the way to the
build (docs/loader.md); --user times an unprivileged user, who skips that.

Usage: benchmarks/loader_import.py [--python /usr/bin/python3] [--runs 300]
                                   [--so build/releases/R/perf.abi3.so | --installed]
                                   [--user nobody]
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# $PERF_BENCH_PATH_BEFORE: a directory to put on sys.path just before the
# installed dist-packages, so that the direct import searches the same
# directories the installed loader is found after (--installed). Then every
# directory on sys.path gets its finder, and the finder its listing, before
# the clock starts (site does that for the start-up sys.path when it looks for
# sitecustomize; a directory added later would pay it inside the timing).
PROBE = ("import os, sys, time\n"
         "d = os.environ.get('PERF_BENCH_PATH_BEFORE')\n"
         "if d: sys.path.insert(sys.path.index('/usr/lib/python3/dist-packages'), d)\n"
         "from importlib.machinery import PathFinder\n"
         "assert PathFinder.find_spec('perf_bench_no_such_module') is None\n"
         "c = time.thread_time_ns(); t = time.perf_counter_ns(); import perf; "
         "t = time.perf_counter_ns() - t; c = time.thread_time_ns() - c; "
         "assert perf.__file__.endswith('.so'), perf.__file__; print(t, c)")


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


def stage(so, release, tmp):
    """(loader env, direct env) for the two modes: the distro layout
    scripts/install.sh makes (the .so in linux-tools-<abi>/lib, a link in
    linux-tools/<release>/lib, the loader in dist-packages/perf/), and the
    .so alone in a directory."""
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
    direct = os.path.join(tmp, "direct")
    os.makedirs(direct)
    shutil.copy(so, os.path.join(direct, "perf.abi3.so"))
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERF_PYTHON_"))}
    loader = dict(base, PYTHONPATH=site, PERF_PYTHON_SYSROOT=root, PERF_PYTHON_KERNEL_RELEASE=release)
    return loader, dict(base, PYTHONPATH=direct)


def run_once(python, env, prefix=()):
    """(import wall time in µs, import CPU time in µs, process wall time in ms)."""
    t = time.perf_counter()
    p = subprocess.run([*prefix, python, "-c", PROBE], env=env, capture_output=True, text=True)
    wall = (time.perf_counter() - t) * 1e3
    if p.returncode != 0:
        sys.exit(f"probe failed:\n{p.stderr}")
    import_wall, import_cpu = p.stdout.split()[-2:]
    return int(import_wall) / 1e3, int(import_cpu) / 1e3, wall


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
    args = parser.parse_args()
    prefix = ()
    if args.user:
        pw = pwd.getpwnam(args.user)
        prefix = ("setpriv", f"--reuid={pw.pw_uid}", f"--regid={pw.pw_gid}", "--clear-groups")
    if args.installed:
        so = f"/usr/lib/linux-tools/{args.release}/lib/perf.abi3.so"
        if not os.path.isfile(so) or not os.path.isdir("/usr/lib/python3/dist-packages/perf"):
            sys.exit("the packages are not installed (make deb; dpkg -i build/deb/*.deb)")
    else:
        so = args.so or os.path.join(REPO, "build", "releases", args.release, "perf.abi3.so")
        if not os.path.isfile(so):
            sys.exit(f"{so} is not built: scripts/build.sh {args.release}")
    with tempfile.TemporaryDirectory(prefix="perf-loader-bench.") as tmp:
        if args.installed:
            direct = os.path.join(tmp, "direct")
            os.makedirs(direct)
            shutil.copy(so, os.path.join(direct, "perf.abi3.so"))
            base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PERF_PYTHON_"))}
            envs = {"loader": base, "direct": dict(base, PERF_BENCH_PATH_BEFORE=direct)}
        else:
            envs = dict(zip(("loader", "direct"), stage(so, args.release, tmp)))
        for env in envs.values():  # warm the page cache and write the .pyc files
            run_once(args.python, env)
        if prefix:
            os.chmod(tmp, 0o755)  # TemporaryDirectory makes it 0700
        samples = {mode: [] for mode in envs}
        for _ in range(args.runs):
            for mode, env in envs.items():
                samples[mode].append(run_once(args.python, env, prefix))
    med = {m: [statistics.median(s[i] for s in v) for i in range(3)] for m, v in samples.items()}
    uid = args.user or ("root" if os.geteuid() == 0 else f"uid {os.geteuid()}")
    version = subprocess.run([args.python, "-c", "import sys; print(sys.version.split()[0])"],
                             capture_output=True, text=True).stdout.strip()
    where = "installed packages" if args.installed else "staged root"
    print(f"{args.python} {version}, {args.runs} fresh interpreters per mode, as {uid}, "
          f"build for {args.release} ({where}), load average {os.getloadavg()[0]:.2f}")
    print("          import perf (wall)  import perf (CPU)  whole process (wall)")
    for mode in ("direct", "loader"):
        w, c, p = med[mode]
        print(f"  {mode:6}  {w:10.1f} µs      {c:10.1f} µs     {p:8.2f} ms")
    ratio = [med["loader"][i] / med["direct"][i] for i in range(3)]
    print(f"  ratio   {ratio[0]:10.2f}x        {ratio[1]:10.2f}x       {ratio[2]:8.2f}x   (medians)")


if __name__ == "__main__":
    main()
