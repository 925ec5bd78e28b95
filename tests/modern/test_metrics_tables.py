# SPDX-License-Identifier: GPL-2.0-only
"""perf.metrics() (6.18+) from the pmu-events tables built in, against perf
6.1's own tables: a build targeting a 6.1 release takes its tables from
linux-source-6.1, so for a CPU named by PERF_CPUID its metrics must be the
ones `perf list --details metrics` prints under the same PERF_CPUID (names,
descriptions, expressions), and the expressions the ones `perf stat -M`
expands. Also which model an identifier selects, and a build without a
kernel source (no CPU metrics at all)."""

import json
import os
import re
import subprocess
import sys
import tomllib
from collections import Counter
from pathlib import Path

import pytest

import stamped_builds
from sidebyside import harness

RELEASE_6_1 = "6.1.0-18-amd64"
SOURCE_6_1 = "/usr/src/linux-source-6.1.tar.xz"
KEYS = ("MetricGroup", "MetricName", "PMU", "MetricExpr", "MetricThreshold", "ScaleUnit",
        "Compat", "BriefDescription", "PublicDescription")

# Sapphire Rapids, Alder Lake (hybrid: cpu_core and cpu_atom metrics),
# Skylake-X and Cascade Lake (one model number, told apart by the stepping),
# Zen 2, Zen 3.
MODELS = ("GenuineIntel-6-8F-8", "GenuineIntel-6-97-2", "GenuineIntel-6-55-4",
          "GenuineIntel-6-55-7", "AuthenticAMD-23-31-0", "AuthenticAMD-25-1-1")

LOAD = """
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.ExtensionFileLoader("perf", sys.argv[1])
spec = importlib.util.spec_from_file_location("perf", sys.argv[1], loader=loader)
perf = importlib.util.module_from_spec(spec)
spec.loader.exec_module(perf)
print(json.dumps(perf.metrics()))
"""


def perf_tool():
    perf = harness.real_perf()
    if perf is None:
        pytest.skip("no perf executable")
    return perf


@pytest.fixture(scope="module")
def build_6_1():
    """Our build for a 6.1 release: its manifest names linux-source-6.1."""
    assert os.path.exists(SOURCE_6_1), f"{SOURCE_6_1} missing (scripts/setup.sh installs it)"
    out = stamped_builds.build(RELEASE_6_1)
    manifest = tomllib.loads((out / "perf-python.toml").read_text())
    assert manifest["pmu_events_source"] == SOURCE_6_1
    return out / "perf.abi3.so"


def cpuid_env(cpuid):
    """The environment with PERF_CPUID set to `cpuid` (None: unset, the
    host's CPU)."""
    env = {k: v for k, v in os.environ.items() if k != "PERF_CPUID"}
    if cpuid is not None:
        env["PERF_CPUID"] = cpuid
    return env


def metrics(so, cpuid):
    env = cpuid_env(cpuid)
    p = subprocess.run([sys.executable, "-c", LOAD, str(so)], env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def perf_list_details(cpuid):
    """(name, description or None, expression) per metric perf 6.1 lists
    (printf's "(null)" for a metric without a description)."""
    p = subprocess.run([perf_tool(), "list", "--details", "metrics"], capture_output=True,
                       text=True, timeout=120, env=cpuid_env(cpuid))
    assert p.returncode == 0, p.stderr
    entries, current = [], None
    for line in p.stdout.splitlines():
        if re.match(r"^  \S", line):
            current = [line.strip()]
            entries.append(current)
        elif line.startswith("       [") and line.endswith("]") and current is not None:
            current.append(line[len("       ["):-1])
    out = []
    for e in entries:
        assert len(e) in (2, 3), e
        desc = e[1] if len(e) == 3 and e[1] != "(null)" else None
        out.append((e[0], desc, e[-1]))
    return out


UNKNOWN_CPU = "VendorX-0-0-0"


def cpu_metrics(so, cpuid):
    """The metrics of the CPU's table: those of an unknown CPU (the common
    software metrics, which perf 6.1 does not have) left out."""
    common = metrics(so, UNKNOWN_CPU)
    ms = metrics(so, cpuid)
    assert ms[len(ms) - len(common):] == common
    return ms[:len(ms) - len(common)]


def ours_as_listed(so, cpuid):
    return [(m["MetricName"], m.get("BriefDescription"), m["MetricExpr"])
            for m in cpu_metrics(so, cpuid)]


def perf_stat_exprs(cpuid, name):
    """(expression, metric) of the "metric expr EXPR for NAME" lines
    `perf stat -M NAME -vv` prints for the metric and those it refers to."""
    p = subprocess.run([perf_tool(), "stat", "-M", name, "-vv", "--", "true"],
                       capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PERF_CPUID=cpuid))
    seen = re.findall(r"^metric expr (.*) for (.+)$", p.stderr, re.M)
    assert any(n == name for _, n in seen), p.stderr[-2000:]
    return seen


def assert_as_perf_lists_them(so, cpuid):
    """perf 6.1 lists every metric but those of a JSON object that is an
    event too and has no MetricGroup (Skylake-X's uncore ones): those,
    `perf stat -M` finds with the same expression."""
    theirs = Counter(perf_list_details(cpuid))
    ours = Counter(ours_as_listed(so, cpuid))
    assert not theirs - ours
    for name, _, expr in ours - theirs:
        assert (expr, name) in perf_stat_exprs(cpuid, name)
    return theirs


@pytest.mark.parametrize("cpuid", MODELS)
def test_metrics_as_perf_lists_them(build_6_1, cpuid):
    theirs = assert_as_perf_lists_them(build_6_1, cpuid)
    assert len(theirs) > 5, f"perf 6.1 lists no metrics for {cpuid}"


def test_hybrid_metrics_name_their_pmu(build_6_1):
    ms = cpu_metrics(build_6_1, "GenuineIntel-6-97-2")
    assert {m.get("PMU") for m in ms} >= {"cpu_core", "cpu_atom"}
    for m in ms:
        if "PMU" in m:
            assert m["BriefDescription"].endswith(f"Unit: {m['PMU']} ")


@pytest.mark.parametrize("cpuid", MODELS)
def test_dict_keys_and_shapes(build_6_1, cpuid):
    for m in metrics(build_6_1, cpuid):
        keys = list(m)
        assert keys[0] == "MetricGroup" and isinstance(m["MetricGroup"], list)
        assert keys == [k for k in KEYS if k in m], keys
        assert all(isinstance(m[k], str) and m[k] for k in keys[1:])
        assert all(g and ";" not in g for g in m["MetricGroup"])


@pytest.mark.parametrize("cpuid", MODELS[:3] + MODELS[4:])
def test_expressions_as_perf_stat_expands_them(build_6_1, cpuid):
    """`perf stat -M NAME -vv` prints "metric expr EXPR for NAME" for the
    metric and each metric it refers to."""
    ours = {}
    for m in cpu_metrics(build_6_1, cpuid):
        ours.setdefault(m["MetricName"], set()).add(m["MetricExpr"])
    names = sorted(ours)
    for name in (names[0], names[len(names) // 2], names[-1]):
        for expr, n in perf_stat_exprs(cpuid, name):
            assert expr in ours[n], (n, expr, ours[n])


@pytest.mark.parametrize("cpuid,same_as", [
    ("GenuineIntel-6-8F", "GenuineIntel-6-8F-8"),     # no stepping: the model's table
    ("GenuineIntel-6-55-5", "GenuineIntel-6-55-7"),   # a stepping range: cascadelakex
    ("GenuineIntel-6-9A-0", "GenuineIntel-6-97-2"),   # another model of the same row
])
def test_cpuid_selects_perfs_table(build_6_1, cpuid, same_as):
    theirs = assert_as_perf_lists_them(build_6_1, cpuid)
    assert theirs == Counter(perf_list_details(same_as))


def test_host_cpu_as_perf_identifies_it(build_6_1):
    """Without PERF_CPUID, the identifier from /proc/cpuinfo is the one perf
    reads with the CPUID instruction (`Using CPUID` of `perf stat -vv`), and
    selects the table perf's does."""
    p = subprocess.run([perf_tool(), "stat", "-vv", "-e", "cpu-clock", "--", "true"],
                       capture_output=True, text=True, timeout=120, env=cpuid_env(None))
    host = re.search(r"^Using CPUID (\S+)$", p.stderr, re.M)
    assert host, p.stderr[-2000:]
    assert metrics(build_6_1, None) == metrics(build_6_1, host.group(1))
    assert_as_perf_lists_them(build_6_1, None)


@pytest.mark.parametrize("cpuid", ["GenuineIntel-6-01-1", "GenuineIntel-6-8F1-8",
                                   "VendorX-6-8F-8"])
def test_unknown_cpuid_has_no_cpu_metrics(build_6_1, cpuid):
    assert perf_list_details(cpuid) == []
    assert ours_as_listed(build_6_1, cpuid) == []


def test_build_without_source():
    """PERF_PMU_EVENTS_SOURCE=none: no tables (a known CPU gets what an
    unknown one gets), and the manifest names no source."""
    out = stamped_builds.OUT.parent / "stamped-no-pmu-events"
    release = RELEASE_6_1
    if not stamped_builds.fresh(out / release):
        env = dict(stamped_builds.env(), PERF_PYTHON_OUT=str(out), PERF_PMU_EVENTS_SOURCE="none")
        p = subprocess.run([str(stamped_builds.REPO / "scripts" / "build.sh"), release],
                           cwd=stamped_builds.REPO, env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]
    manifest = tomllib.loads((out / release / "perf-python.toml").read_text())
    assert "pmu_events_source" not in manifest
    so = out / release / "perf.abi3.so"
    assert metrics(so, "GenuineIntel-6-8F-8") == metrics(so, UNKNOWN_CPU)


SOURCE_6_12 = "/usr/src/linux-source-6.12.tar.xz"
NEOVERSE_V1 = "0x00000000410fd400"


def fixdesc(s):
    """jevents.py's fixdesc(): the final period (and spaces after it) off."""
    for suffix in (".  ", ". ", "."):
        s = s.removesuffix(suffix)
    return s


def json_metrics(arch_dir, model):
    """The metrics of `model` straight from the JSON files: each object's
    missing keys from the architecture's standard event or metric its
    ArchStdEvent names, as jevents.py resolves them."""
    std = {}
    for f in sorted(arch_dir.glob("*.json")):
        for obj in json.loads(f.read_text()):
            for key in ("EventName", "MetricName"):
                if key in obj:
                    std[obj[key].lower()] = obj
    out = []
    for f in sorted((arch_dir / model).glob("*.json")):
        for obj in json.loads(f.read_text()):
            base = std.get(obj.get("ArchStdEvent", "").lower(), {})
            obj = {**base, **obj}
            if "MetricName" not in obj:
                continue
            m = {"MetricGroup": [g for g in obj.get("MetricGroup", "").split(";") if g],
                 "MetricName": obj["MetricName"], "PMU": "default_core",
                 "MetricExpr": obj["MetricExpr"]}
            for key in ("MetricThreshold", "ScaleUnit", "Compat"):
                if key in obj:
                    m[key] = obj[key]
            for key in ("BriefDescription", "PublicDescription"):
                if key in obj:
                    m[key] = fixdesc(obj[key])
            out.append(m)
    return out


def test_arm64_model_against_its_json(tmp_path):
    """perf 6.1 here has no arm64 tables: a build carrying arm64's
    (PERF_PMU_EVENTS_ARCH=arm64, from linux-source-6.12) gives Neoverse V1's
    MIDR the metrics its JSON files hold, the SBSA ones (TopdownL1) through
    ArchStdEvent. Expressions are compared as the JSON has them (perf from
    6.3 simplifies them at build time: docs/pmu-events.md)."""
    assert os.path.exists(SOURCE_6_12), f"{SOURCE_6_12} missing (scripts/setup.sh installs it)"
    out = stamped_builds.OUT.parent / "stamped-arm64-pmu-events"
    release = "6.12.57+deb13-amd64"
    if not stamped_builds.fresh(out / release):
        env = dict(stamped_builds.env(), PERF_PYTHON_OUT=str(out), PERF_PMU_EVENTS_ARCH="arm64")
        p = subprocess.run([str(stamped_builds.REPO / "scripts" / "build.sh"), release],
                           cwd=stamped_builds.REPO, env=env, capture_output=True, text=True)
        assert p.returncode == 0, p.stderr[-3000:]
    # The pattern's * matches / too: every JSON file under arch/arm64.
    subprocess.run(["tar", "-xJf", SOURCE_6_12, "-C", str(tmp_path), "--wildcards",
                    "*/tools/perf/pmu-events/arch/arm64/*.json"], check=True)
    arch_dir = next(tmp_path.glob("*/tools/perf/pmu-events/arch/arm64"))
    expected = json_metrics(arch_dir, "arm/neoverse-v1")
    assert any(m["MetricName"] == "backend_bound" for m in expected)
    ours = cpu_metrics(out / release / "perf.abi3.so", NEOVERSE_V1)
    key = lambda m: (m["MetricName"], m["MetricExpr"])  # noqa: E731
    assert sorted(ours, key=key) == sorted(expected, key=key)
    # A later revision of the part selects the same table; another part none.
    assert cpu_metrics(out / release / "perf.abi3.so", "0x00000000411fd401") == ours
    assert cpu_metrics(out / release / "perf.abi3.so", "0x00000000410fd0c0") != ours
