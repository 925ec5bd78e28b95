# SPDX-License-Identifier: GPL-2.0-only
"""ABI honesty (docs/abi.md) through the Python module on the real kernel:
per-ABI builds stamped for other kernels, run on this one.

* a build targeting Linux 7.0 passes the attr to this (older) kernel, which
  answers E2BIG/EINVAL: the OSError keeps that errno and names the field, the
  release that added it and the kernel's attr size;
* a build targeting this kernel refuses a newer field before any syscall;
* a build targeting 2.6.37 drops the module's own defaults that release lacks
  (sample_id_all, close-on-exec) silently, and says so in evsel.fallbacks;
* perf.set_abi_policy('lenient') drops user requests too, and 'strict' none.
"""

import errno
import json
import os
import subprocess
import sys

import pytest

import stamped_builds

KERNEL = os.uname().release

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="opens CPU-wide software events: needs root")


def build(release):
    return str(stamped_builds.build(release) / "perf.abi3.so")


@pytest.fixture(scope="module")
def new_build():
    return build("7.0.0-1-generic")


@pytest.fixture(scope="module")
def old_build():
    return build("2.6.37-1-generic")


def run(so, body):
    """Runs `body` with the build at `so` imported as perf; returns its JSON."""
    code = f"""
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("perf", {so!r})
perf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perf)
cpus, threads = perf.cpu_map(), perf.thread_map(-1)
def attempt(**kw):
    ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, **kw)
    try:
        ev.open(cpus=cpus, threads=threads)
        return {{"ok": True, "fallbacks": ev.fallbacks}}
    except OSError as e:
        return {{"ok": False, "errno": e.errno, "class": type(e).__name__, "text": str(e)}}
{body}
"""
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == ""
    return json.loads(p.stdout)


def test_new_field_on_this_kernel_gives_e2big_naming_it(new_build):
    got = run(new_build, "print(json.dumps(attempt(config4=1)))")
    assert got["ok"] is False
    assert got["errno"] == errno.E2BIG
    assert "'config4'" in got["text"] and "6.19" in got["text"] and "136" in got["text"], got


def test_new_flag_on_this_kernel_gives_einval_naming_it(new_build):
    got = run(new_build, "print(json.dumps(attempt(defer_callchain=1)))")
    assert got["ok"] is False
    assert got["errno"] == errno.EINVAL
    assert "'defer_callchain'" in got["text"] and "6.19" in got["text"], got
    assert KERNEL.split("-")[0] in got["text"], got  # names the running kernel


def test_fields_this_kernel_has_open_on_a_newer_build(new_build):
    got = run(new_build, "print(json.dumps(attempt(namespaces=1, ksymbol=1, cgroup=1, text_poke=1)))")
    assert got == {"ok": True, "fallbacks": []}


def test_build_refuses_fields_newer_than_its_target_before_the_syscall(ours):
    got = ours.run("""
import perf
ev = perf.evsel(type=perf.TYPE_SOFTWARE, config=perf.COUNT_SW_DUMMY, defer_callchain=1)
try:
    ev.open(cpus=perf.cpu_map(), threads=perf.thread_map(-1))
    result({"ok": True})
except OSError as e:
    result({"errno": e.errno, "text": str(e), "target": perf.__build__["kernel_release"]})
""").check()
    assert got["errno"] == errno.EINVAL
    assert "this build targets" in got["text"] and "'defer_callchain'" in got["text"] and "6.19" in got["text"]
    assert got["target"] in got["text"]


def test_module_defaults_fall_back_visibly_on_an_old_target(old_build):
    got = run(old_build, "print(json.dumps(attempt()))")
    assert got["ok"] is True
    dropped = dict(map(tuple, got["fallbacks"]))
    assert dropped.get("sample_id_all") == "build target", got
    assert "FLAG_FD_CLOEXEC" in dropped, got


def test_user_request_newer_than_an_old_target_is_refused(old_build):
    got = run(old_build, "print(json.dumps(attempt(sigtrap=1, remove_on_exec=1)))")
    assert got["ok"] is False and got["errno"] == errno.EINVAL
    assert "2.6.37" in got["text"] and "5.13" in got["text"], got


def test_lenient_and_strict_policies(new_build, old_build):
    lenient = run(new_build, "perf.set_abi_policy('lenient'); print(json.dumps(attempt(defer_callchain=1)))")
    assert lenient["ok"] is True
    assert ["defer_callchain", "kernel"] in lenient["fallbacks"], lenient
    strict = run(old_build, "perf.set_abi_policy('strict'); print(json.dumps(attempt()))")
    assert strict["ok"] is False and strict["errno"] == errno.EINVAL
    assert "sample_id_all" in strict["text"] or "FLAG_FD_CLOEXEC" in strict["text"], strict
    with pytest.raises(subprocess.CalledProcessError):
        subprocess.run([sys.executable, "-c", f"""
import importlib.util
spec = importlib.util.spec_from_file_location("perf", {new_build!r})
perf = importlib.util.module_from_spec(spec); spec.loader.exec_module(perf)
perf.set_abi_policy('sloppy')
"""], check=True, capture_output=True)
