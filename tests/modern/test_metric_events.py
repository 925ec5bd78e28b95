# SPDX-License-Identifier: GPL-2.0-only
"""The events parse_metrics() builds for each metric, against the events
perf 6.1's `perf stat -M NAME -vv` parses for it: this machine has no CPU
PMU, so both run in a mount namespace whose /sys/bus/event_source/devices
holds the real PMUs plus a fake core PMU (Intel's or AMD's `cpu`, or
Alder Lake's `cpu_core` and `cpu_atom` pair), under the same PERF_CPUID,
with our tables from linux-source-6.1. Compared per metric: whether its
events parse at all (perf 6.1 drops a metric whose events do not parse and
counts its default events instead), which metric ids are counted, which of
them form `{...}` groups, in which order the groups come, and shared events
counted once. The order inside a group and of the ungrouped events is
perf's hash table order, not compared (docs/api.md). On the hybrid pair,
also parse_events() of JSON names against the attrs perf opens."""

import json
import os
import re
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from modern.test_json_events import ATTR_FIELDS, FORMAT, parse_events_example  # noqa: F401
from modern.test_json_events import perf_attrs
from modern.test_metrics_tables import build_6_1, cpuid_env, perf_tool  # noqa: F401

DEVICES = Path("/sys/bus/event_source/devices")
# AMD's core PMU format (arch/x86/events/amd/core.c).
AMD_FORMAT = {"event": "config:0-7,32-35", "umask": "config:8-15", "edge": "config:18",
              "inv": "config:23", "cmask": "config:24-31"}
# name: {pmu: (type, format, cpus)}
LAYOUTS = {"intel": {"cpu": (4, FORMAT, None)},
           "amd": {"cpu": (4, AMD_FORMAT, None)},
           # cpu_atom's type: one no PMU here has (the open fails with ENOENT,
           # which perf does not retry).
           "hybrid": {"cpu_core": (4, FORMAT, "0"), "cpu_atom": (10, FORMAT, "1")}}
# Sapphire Rapids, Skylake-X, Cascade Lake, Alder Lake (hybrid), Zen 2, Zen 3.
MODELS = [("GenuineIntel-6-8F-8", "intel"), ("GenuineIntel-6-55-4", "intel"),
          ("GenuineIntel-6-55-7", "intel"), ("GenuineIntel-6-97-2", "hybrid"),
          ("AuthenticAMD-23-31-0", "amd"), ("AuthenticAMD-25-1-1", "amd")]
# perf_tool_event__from_str()'s names, and encode_metric_id()'s characters.
TOOL_EVENTS = ("duration_time", "user_time", "system_time")
CODE_CHARACTERS = ",-=@"
# perf 6.1 drops metrics whose events do not parse: a syntax error, or
# silently, when it counts its default events instead.
DROPPED = re.compile(r"event syntax error|Cannot find metric|"
                     r"failed to read counter (cpu\w*/)?cycles")


@pytest.fixture(scope="module")
def sysfs_roots(tmp_path_factory):
    """{layout: sysfs root} whose bus/event_source/devices is the real
    PMUs and the layout's fake core PMUs (type, format/, cpus)."""
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace")
    roots = {}
    for layout, pmus in LAYOUTS.items():
        root = tmp_path_factory.mktemp(layout)
        d = root / "bus" / "event_source" / "devices"
        d.mkdir(parents=True)
        for pmu in DEVICES.iterdir():
            (d / pmu.name).symlink_to(pmu.resolve())
        for name, (type_, fmt, cpus) in pmus.items():
            (d / name / "format").mkdir(parents=True)
            (d / name / "type").write_text(f"{type_}\n")
            if cpus is not None:
                (d / name / "cpus").write_text(f"{cpus}\n")
            for field, bits in fmt.items():
                (d / name / "format" / field).write_text(bits + "\n")
        roots[layout] = root
    return roots


def in_namespace(root, cpuid, *cmd):
    script = 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"'
    try:
        return subprocess.run(["unshare", "-m", "sh", "-c", script,
                               str(root / "bus" / "event_source" / "devices"), *cmd],
                              capture_output=True, text=True, timeout=120,
                              env=cpuid_env(cpuid))
    except FileNotFoundError:
        pytest.skip("no unshare")


def split_top(s):
    """`s` split at the commas outside `{}` and `/.../`."""
    out, cur, brace, slash = [], "", False, False
    for c in s:
        if c == "," and not brace and not slash:
            out.append(cur)
            cur = ""
            continue
        brace = True if c == "{" else False if c == "}" else brace
        slash = not slash if c == "/" else slash
        cur += c
    return out + [cur]


def metric_id(token):
    """The metric id of one event perf's metricgroup wrote
    (`NAME/metric-id=ENCODED/`, or a bare tool event)."""
    m = re.search(r"metric-id=([^/]*)/", token)
    if not m:
        return token
    return re.sub(r"!(\d)", lambda d: CODE_CHARACTERS[int(d.group(1))], m.group(1))


def perf_events(root, cpuid, name):
    """(parsed, items, stderr) for `perf stat -M name`: items are
    ("group", sorted ids) for each group of two or more and ("event", id)
    for each other event, over every evlist perf parses for the metrics."""
    p = in_namespace(root, cpuid, perf_tool(), "stat", "-M", name, "-vv", "--", "true")
    items = []
    for events in re.findall(r"^Parsing metric events '(.*)'$", p.stderr, re.M):
        for token in split_top(events):
            if token.startswith("{"):
                ids = tuple(sorted(metric_id(t) for t in split_top(token[1:token.rindex("}")])))
                items.append(("group", ids) if len(ids) > 1 else ("event", ids[0]))
            else:
                items.append(("event", metric_id(token)))
    assert "Using CPUID " + cpuid in p.stderr
    return not DROPPED.search(p.stderr), items, p.stderr


def our_events(example, root, cpuid, names):
    """{name: (parsed, items, message)} from parse_metrics' evsels."""
    p = subprocess.run([str(example), "--sysfs", str(root), "--metrics", *names],
                       capture_output=True, text=True, timeout=300, env=cpuid_env(cpuid))
    assert p.returncode == 0, p.stderr
    out = {}
    for name, line in zip(names, p.stdout.splitlines(), strict=True):
        d = json.loads(line)
        assert d["input"] == name
        if not d["ok"]:
            out[name] = (False, [], d["message"])
            continue
        items, seen = [], set()
        for e in d["evsels"]:
            g = e["group"]
            if g is None:
                items.append(("event", e["id"]))
            elif g["index"] not in seen:
                seen.add(g["index"])
                members = [x for x in d["evsels"] if x["group"] and
                           x["group"]["index"] == g["index"]]
                assert len(members) == g["nr_members"] > 1 and members[0]["group"]["is_leader"]
                items.append(("group", tuple(sorted(x["id"] for x in members))))
        out[name] = (True, items, "")
    return out


def perf_metric_names(cpuid):
    p = subprocess.run([perf_tool(), "list", "--details", "metrics"], capture_output=True,
                       text=True, timeout=120, env=cpuid_env(cpuid))
    assert p.returncode == 0, p.stderr
    return sorted({line.split()[0] for line in p.stdout.splitlines()
                   if re.match(r"^  \S", line)})


def groups(items):
    return [i for i in items if i[0] == "group"]


def expanded_on_both(stderr):
    """perf 6.1 on a hybrid CPU: an event name both PMUs' tables have made
    two events in one group."""
    pmus = {}
    for name, pmu in re.findall(r"^(\S+) -> (cpu_\w+)/", stderr, re.M):
        pmus.setdefault(name, set()).add(pmu)
    return any(len(p) > 1 for p in pmus.values())


@pytest.mark.parametrize("cpuid,layout", MODELS)
def test_metric_events_as_perf_parses_them(build_6_1, parse_events_example,  # noqa: F811
                                           sysfs_roots, cpuid, layout):
    """Every metric perf 6.1 lists for the model, one `perf stat` each."""
    root = sysfs_roots[layout]
    names = perf_metric_names(cpuid)
    assert len(names) > 10, f"perf 6.1 lists no metrics for {cpuid}"
    with ThreadPoolExecutor(2) as pool:
        theirs = dict(zip(names, pool.map(lambda n: perf_events(root, cpuid, n), names)))
    ours = our_events(parse_events_example, root, cpuid, names)
    parsed = 0
    for name in names:
        (ok, items, stderr), (our_ok, our_items, message) = theirs[name], ours[name]
        if layout == "hybrid" and ok and not our_ok:
            # Documented: a name on both PMUs makes ours refuse the metric.
            assert "makes 2 events, not one" in message and expanded_on_both(stderr), name
            continue
        assert our_ok == ok, (name, message, stderr[-1500:])
        if ok:
            parsed += 1
            assert sorted(our_items) == sorted(items), name
            assert groups(our_items) == groups(items), name
    assert parsed > len(names) // 3


# On Alder Lake: names both PMUs' tables have, one only cpu_core's, the
# PMU-qualified forms and modifiers.
HYBRID_EVENTS = ("inst_retired.any", "cpu_core/inst_retired.any/", "cpu_atom/inst_retired.any/",
                 "cpu_core/inst_retired.any/u", "INST_RETIRED.ANY:k",
                 "br_inst_retired.all_branches:p", "cpu_atom/br_misp_retired.all_branches/",
                 "topdown.slots_p", "cpu_core/ocr.demand_data_rd.any_response/",
                 "cpu_atom/ocr.demand_data_rd.any_response/uk", "mem_uops_retired.all_loads")


def test_hybrid_json_event_names_encode_as_perf(parse_events_example, sysfs_roots):  # noqa: F811
    """parse_events() on the cpu_core/cpu_atom pair: a name both PMUs
    have is one evsel on each (cpu_atom's first, as perf 6.1 orders them),
    each with the attr perf 6.1 gives the kernel."""
    root = sysfs_roots["hybrid"]
    p = in_namespace(root, "GenuineIntel-6-97-2", perf_tool(), "stat", "-e",
                     ",".join(HYBRID_EVENTS), "-vv", "--", "true")
    theirs = perf_attrs(p.stderr)
    q = subprocess.run([str(parse_events_example), "--sysfs", str(root), *HYBRID_EVENTS],
                       capture_output=True, text=True, timeout=120,
                       env=cpuid_env("GenuineIntel-6-97-2"))
    assert q.returncode == 0, q.stderr
    ours = []
    for line in q.stdout.splitlines():
        parsed = json.loads(line)
        assert parsed["ok"], parsed
        ours += [{k: e["attr"][k] for k in ATTR_FIELDS} for e in parsed["evsels"]]
    assert ours == theirs, p.stderr[-3000:]
    assert {a["type"] for a in theirs} == {4, 10} and len(theirs) > len(HYBRID_EVENTS)
