# SPDX-License-Identifier: GPL-2.0-only
"""Running Python under our module or the kernel's C module, in subprocesses.

Used by tests/conftest.py's fixtures and by the test modules (markers,
tracefs helpers). Everything here is plain functions; no pytest fixtures.

"Ours" is one of two installs of our module:
- the staged one (default): the loader and the build for the running release
  under a root (PERF_TEST_ROOT, or staged under build/pytest-root), imported
  through the loader by any python3;
- with PERF_TEST_VENV, a virtual environment our module is installed in (the
  wheel: `make test-wheel`): "ours" is what that venv's interpreter imports
  as `perf`, nothing is staged, and pytest itself runs under that interpreter
  (the in-process `perf_ours` imports it too).
"""

import atexit
import contextlib
import dataclasses
import fcntl
import glob
import importlib.util
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parent.parent.parent
TESTS = REPO / "tests"
# The prelude, then the fd probes (perf_fds, perf_maps) every snippet may use.
PRELUDE = "\n".join((TESTS / "sidebyside" / name).read_text() for name in ("prelude.py", "fdprobe.py"))
SYSTEM_PYTHON = "/usr/bin/python3"
C_MODULE_PREFIX = "/usr/lib/python3/dist-packages/perf."
# Signals a crashed interpreter dies of (segfault; abort for stack smashing).
CRASH_RCS = (-11, 139, -6, 134)


@dataclasses.dataclass
class Run:
    """The outcome of one subprocess run."""

    which: str
    rc: int
    stdout: str
    stderr: str
    result: Any

    def crashed(self):
        """True if the interpreter died of a signal (segfault, abort)."""
        return self.rc in CRASH_RCS

    def check(self):
        """The result, after asserting the run exited cleanly."""
        assert self.rc == 0, f"{self.which}: rc {self.rc}\n--- stderr:\n{self.stderr}\n--- stdout:\n{self.stdout}"
        return self.result


@dataclasses.dataclass
class Module:
    """One of the two modules under test, runnable in subprocesses."""

    name: str
    runner: Any

    def run(self, code, **kw):
        return self.runner(self.name, code, **kw)

    def __repr__(self):
        return self.name


def release():
    """The kernel release our module is staged for."""
    return os.environ.get("PERF_TEST_RELEASE") or os.uname().release


def ours_venv():
    """The virtual environment "ours" is installed in (PERF_TEST_VENV), or None."""
    venv = os.environ.get("PERF_TEST_VENV")
    return Path(venv) if venv else None


_staged = {}


def _stage():
    """Stages our module once per session; remembers a failure so that every
    test reports it instead of rebuilding."""
    if "root" in _staged or "error" in _staged:
        return
    root = os.environ.get("PERF_TEST_ROOT")
    if not root:
        root = REPO / "build" / "pytest-root"
        steps = [["make", "-s", "build", f"KERNEL_RELEASE={release()}"],
                 ["scripts/install.sh", str(root), release()]]
        shutil.rmtree(root, ignore_errors=True)
        for cmd in steps:
            p = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
            if p.returncode != 0:
                _staged["error"] = f"{' '.join(cmd)} failed (rc {p.returncode}):\n{p.stdout}\n{p.stderr}"
                return
    _staged["root"] = loadable_by_root(Path(root))


_loader = {}


def loader_module():
    """The loader's source (loader/perf/__init__.py) imported under another
    name: its functions, without it loading anything."""
    if "loader" not in _loader:
        spec = importlib.util.spec_from_file_location("perf_loader_under_test",
                                                      REPO / "loader" / "perf" / "__init__.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _loader["loader"] = module
    return _loader["loader"]


def copy_root(root, prefix):
    """A copy of `root` in a fresh directory under the system's temporary
    directory (mode 0755, owned by whoever runs the tests, removed when the
    session ends), nothing in it writable by group or others."""
    top = tempfile.mkdtemp(prefix=prefix)
    atexit.register(shutil.rmtree, top, ignore_errors=True)
    os.chmod(top, 0o755)
    copy = Path(top) / "root"
    shutil.copytree(root, copy, symlinks=True)
    for where, dirs, files in os.walk(copy):
        for name in [".", *dirs, *files]:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                os.chmod(path, os.stat(path).st_mode & ~0o022)
    return copy


def loadable_by_root(root):
    """`root`, or, when the tests run as root and the loader would refuse the
    build staged there (unsafe_reason: the clone sits in a directory another
    user owns, or was made under umask 002), a copy of it that root may load.
    Otherwise root's `import perf` would fall back to the system's module."""
    if os.geteuid() != 0:
        return root
    loader = loader_module()
    build = loader.flavour_dir(str(root), release()) + "/perf.abi3.so"
    if loader.unsafe_reason(build) is None:
        return root
    return copy_root(root, "perf-test-root-")


def ours_env(root):
    """Environment under which any python3 imports our module."""
    venv = ours_venv()
    if venv is not None:
        return venv_env(venv)
    env = dict(os.environ)
    env["PERF_PYTHON_SYSROOT"] = str(root)
    env["PERF_PYTHON_KERNEL_RELEASE"] = release()
    env["PYTHONPATH"] = str(Path(root) / "usr/lib/python3/dist-packages")
    env["PERF_TEST_ROOT"] = str(root)
    return env


def venv_env(venv):
    """Environment under which the interpreter of `venv` imports the module
    installed in it: nothing of a staged root. PERF_TEST_ROOT names the venv,
    the directory the prelude checks our module is loaded from."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PERF_PYTHON_SYSROOT", "PERF_PYTHON_KERNEL_RELEASE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PERF_TEST_ROOT"] = str(venv)
    return env


def c_module_file():
    """Debian's compiled C module, or None."""
    found = sorted(glob.glob(C_MODULE_PREFIX + "cpython-*.so"))
    return found[-1] if found else None


_oracle = {}


def c_oracle_dir():
    """A directory holding only a link to the C module, put first on the C
    runs' PYTHONPATH: `import perf` then finds the C module even when a
    python3-perf package (ours) has put a `perf/` package beside it in
    dist-packages, which would otherwise shadow it."""
    if "dir" not in _oracle:
        d = tempfile.mkdtemp(prefix="perf-c-oracle-")
        os.chmod(d, 0o755)  # readable by the unprivileged runs
        so = c_module_file()
        if so:
            os.symlink(so, os.path.join(d, os.path.basename(so)))
        atexit.register(shutil.rmtree, d, ignore_errors=True)
        _oracle["dir"] = d
    return _oracle["dir"]


def c_env():
    """Environment under which /usr/bin/python3 imports the C module."""
    drop = ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PERF_PYTHON_SYSROOT",
            "PERF_PYTHON_KERNEL_RELEASE")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PYTHONPATH"] = c_oracle_dir()
    return env


_c_available = {}


def c_module_available():
    """None if /usr/bin/python3 imports the C module, else why not."""
    if "reason" not in _c_available:
        reason = None
        if not os.access(SYSTEM_PYTHON, os.X_OK):
            reason = f"{SYSTEM_PYTHON} is missing"
        elif not c_module_file():
            reason = f"the kernel's C module is not installed ({C_MODULE_PREFIX}cpython-*.so: apt-get install linux-perf)"
        else:
            p = subprocess.run([SYSTEM_PYTHON, "-c", "import os, perf; print(os.path.realpath(perf.__file__))"],
                               env=c_env(), capture_output=True, text=True)
            if p.returncode != 0 or not p.stdout.startswith(C_MODULE_PREFIX):
                reason = ("the kernel's C module (Debian linux-perf) is not importable by "
                          f"{SYSTEM_PYTHON}: {(p.stdout + p.stderr).strip()[-300:]}")
        _c_available["reason"] = reason
    return _c_available["reason"]


def oracle_self_check():
    """PERF_TEST_OURS=c runs every "ours" subprocess under the C module: the
    side-by-side comparisons then compare the oracle with itself, which
    validates the tests (the in-process `perf_ours` tests skip)."""
    return os.environ.get("PERF_TEST_OURS") == "c"


def effective(which):
    """The module a run for `which` really uses (see oracle_self_check);
    skips the test if that is the C module and it is not installed."""
    if which == "ours" and oracle_self_check():
        which = "c"
    if which == "c":
        reason = c_module_available()
        if reason:
            pytest.skip(reason)
    return which


def env_for(which, user=None):
    """The environment that makes `import perf` load `which` (as `user`)."""
    if which == "c":
        return c_env()
    if ours_venv() is not None:
        return venv_env(ours_venv())
    return ours_env(staged() if user is None else readable_root())


_readable = {}


def readable_root():
    """A copy of the staged root that every user can read, for runs as
    another user: the staged root sits in the clone, which may be private
    (a clone under `mktemp -d` or /root is mode 0700), and a user who cannot
    enter it would import some other `perf` instead. The copy is a fresh
    directory under the system's temporary directory, mode 0755, removed when
    the session ends."""
    if "root" not in _readable:
        _readable["root"] = copy_root(staged(), "perf-test-readable-")
    return _readable["root"]


def as_user(user):
    """The command prefix that runs a program as uid and gid `user`."""
    return ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups"]


_usable = {}


def user_can_import(which, user, python):
    """None if `python` run as `user` imports `which` (the staged copy for
    ours, Debian's C module for "c"), else why not (the test then skips: it
    cannot test the module it is about)."""
    key = (which, user, python)
    if which == "ours" and ours_venv() is not None:
        return (f"PERF_TEST_VENV: runs as uid {user} need a copy of our module every user can "
                "read, which a venv is not (its interpreter lives in the home of the user who made it); "
                "the staged install's run covers them")
    if key not in _usable:
        probe = "import os, perf; print(os.path.realpath(perf.__file__))"
        env = env_for(which, user)
        want = (os.path.realpath(readable_root()) + os.sep if which == "ours" else C_MODULE_PREFIX)
        try:
            p = subprocess.run([*as_user(user), python, "-c", probe], env=env,
                               cwd=readable_root().parent, capture_output=True, text=True,
                               timeout=60)
            out = (p.stdout + p.stderr).strip()
            ok = p.returncode == 0 and p.stdout.startswith(want)
        except (OSError, subprocess.SubprocessError) as e:
            out, ok = str(e), False
        _usable[key] = None if ok else (
            f"uid {user} running {python} cannot import the {which} module from {want}: {out[-300:]}")
    return _usable[key]


def python_for(which):
    """The interpreter for `which`: Debian's for the C module (the only one
    that sees it); for ours, the venv's under PERF_TEST_VENV, else the test
    interpreter."""
    if which == "c":
        return SYSTEM_PYTHON
    venv = ours_venv()
    return str(venv / "bin" / "python") if venv is not None else sys.executable


def run_python(which, code, *, timeout=60, python=None, user=None,
               args=(), env=None, prelude=True, wrapper=()):
    """Runs `code` (fed on stdin, after the prelude) under one module.

    `user` runs it as that uid/gid (setpriv), with our module from
    readable_root(); it skips the test if that user cannot import the module
    (user_can_import). `python` overrides the interpreter (e.g.
    /usr/bin/python3 for ours too: pyenv's is under /root); `env` adds
    variables; `wrapper` is a command prefix (e.g. strace).
    """
    which = effective(which)
    python = python or python_for(which)
    cwd = None
    if user is not None:
        reason = user_can_import(which, user, python)
        if reason:
            pytest.skip(reason)
        cwd = readable_root().parent   # the clone may be closed to `user`
    full_env = env_for(which, user)
    full_env["PERF_TEST_MODULE"] = which
    if env:
        full_env.update(env)
    cmd = [*wrapper, python, "-", *args]
    if user is not None:
        cmd = [*as_user(user), *cmd]
    source = (PRELUDE + "\n" + code) if prelude else code
    with tempfile.TemporaryFile() as out:
        full_env["PERF_TEST_RESULT_FD"] = str(out.fileno())
        # In a session of its own, so that on a timeout the whole group dies
        # (children a workload forked hold its stdout) and what it printed
        # until then is reported.
        with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=full_env,
                              pass_fds=(out.fileno(),), cwd=cwd, start_new_session=True) as p:
            try:
                stdout, stderr = p.communicate(source, timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                stdout, stderr = p.communicate()
                pytest.fail(f"{which}: timed out after {timeout}s\n--- stderr:\n{stderr}\n"
                            f"--- stdout:\n{stdout}")
        out.seek(0)
        data = out.read()
    result = json.loads(data) if data else None
    return Run(which, p.returncode, stdout, stderr, result)


def staged():
    """The staged root, staging it on first use; fails the test on error."""
    _stage()
    if "error" in _staged:
        pytest.fail(_staged["error"], pytrace=False)
    return _staged["root"]


# One lock for every test session on the machine (clones and worktrees alike).
SYSCTL_LOCK = os.path.join("/run/lock" if os.path.isdir("/run/lock") else tempfile.gettempdir(),
                           "perf-python-tests-sysctl.lock")


@contextlib.contextmanager
def sysctl(name):
    """Yields set(value) for /proc/sys/<name> (dots for slashes) and restores
    the value it had when the block ends. Test sessions on this machine take
    turns on a lock file, so no session saves another's temporary value as
    the one to restore. Skips without root, or if the kernel refuses the
    value (the test cannot set up what it is about)."""
    if os.geteuid() != 0:
        pytest.skip(f"needs root to change {name}")
    path = "/proc/sys/" + name.replace(".", "/")
    with open(SYSCTL_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with open(path) as f:
            orig = f.read().strip()

        def write(value):
            with open(path, "w") as f:
                f.write(str(value))

        def set_value(value):
            try:
                write(value)
            except OSError as e:
                pytest.skip(f"the kernel refuses {name} = {value}: {e}")
        try:
            yield set_value
        finally:
            write(orig)


def tracefs():
    """The tracefs mount point, or None."""
    for d in ("/sys/kernel/tracing", "/sys/kernel/debug/tracing"):
        if os.path.exists(os.path.join(d, "events")):
            return d
    return None


def tracepoint_id(system, name):
    """The id tracefs gives a tracepoint, or None."""
    d = tracefs()
    if d is None:
        return None
    try:
        with open(os.path.join(d, "events", system, name, "id")) as f:
            return int(f.read())
    except OSError:
        return None


needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (system-wide perf events)")
needs_tracefs = pytest.mark.skipif(
    tracepoint_id("sched", "sched_switch") is None,
    reason="needs tracefs with sched:sched_switch (mount -t tracefs nodev /sys/kernel/tracing)")


def expand_cpu_list(text):
    """`0-3,5` -> [0, 1, 2, 3, 5] (the sysfs cpu list format)."""
    cpus = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return cpus


def real_perf():
    """The perf executable; Debian's /usr/bin/perf may be a wrapper script
    that execs perf_<version>. None when there is no perf."""
    path = shutil.which("perf")
    if not path:
        return None
    with open(path, "rb") as f:
        if f.read(4) == b"\x7fELF":
            return path
    versioned = sorted(Path(path).parent.glob("perf_[0-9]*"))
    return str(versioned[-1]) if versioned else None


def online_cpus():
    """The online CPUs as /sys/devices/system/cpu/online lists them."""
    with open("/sys/devices/system/cpu/online") as f:
        return expand_cpu_list(f.read())


def parse_strace_attr(line):
    """`perf_event_open({type=…, …}, pid, cpu, group_fd, flags) = fd` as
    strace -v prints it -> ({field: text}, [pid, cpu, group_fd, flags], ret)."""
    head, _, rest = line.partition("perf_event_open({")
    body, _, tail = rest.partition("}, ")
    attr = {}
    for item in body.split(", "):
        key, _, value = item.partition("=")
        attr[key] = value.split(" /*")[0]
    args_text, _, ret = tail.partition(") = ")
    return attr, [a.strip() for a in args_text.split(",")], ret.strip()


needs_strace = pytest.mark.skipif(not shutil.which("strace"),
                                  reason="needs strace (apt-get install strace) to see the attr the kernel gets")
