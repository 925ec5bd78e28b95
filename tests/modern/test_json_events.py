# SPDX-License-Identifier: GPL-2.0-only
"""pmu.events() lists the JSON events of the CPU's pmu-events table on the
core PMU, as perf does. This machine has no CPU PMU, so both sides run in a
mount namespace where /sys/bus/event_source/devices holds the real PMUs and
a `cpu` PMU (type 4) with Intel's format fields; under the same PERF_CPUID,
perf 6.1's `perf list --details` and our 6.1 build (tables from
linux-source-6.1) must list the same events with the same descriptions and
encodings, and parse their names to the attr perf gives the kernel."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import stamped_builds
from modern.test_metrics_tables import LOAD, SOURCE_6_1, build_6_1, perf_tool  # noqa: F401

DEVICES = Path("/sys/bus/event_source/devices")
# Intel's core PMU format (arch/x86/events/intel/core.c).
FORMAT = {"event": "config:0-7", "umask": "config:8-15", "edge": "config:18", "pc": "config:19",
          "any": "config:21", "inv": "config:23", "cmask": "config:24-31",
          "in_tx": "config:32", "in_tx_cp": "config:33", "offcore_rsp": "config1:0-63",
          "ldlat": "config1:0-15", "frontend": "config1:0-23"}
EVENTS = LOAD.replace("print(json.dumps(perf.metrics()))", """
cpu = [p for p in perf.pmus() if p.name() == "cpu"]
print(json.dumps(cpu[0].events() if cpu else None))
""")


@pytest.fixture(scope="module")
def fake_devices(tmp_path_factory):
    if os.geteuid() != 0:
        pytest.skip("needs root for a mount namespace")
    d = tmp_path_factory.mktemp("devices")
    for pmu in DEVICES.iterdir():
        (d / pmu.name).symlink_to(pmu.resolve())
    fmt = d / "cpu" / "format"
    fmt.mkdir(parents=True)
    (d / "cpu" / "type").write_text("4\n")
    for name, bits in FORMAT.items():
        (fmt / name).write_text(bits + "\n")
    return d


def in_namespace(devices, cpuid, *cmd):
    script = 'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"'
    p = subprocess.run(["unshare", "-m", "sh", "-c", script, str(devices), *cmd],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PERF_CPUID=cpuid))
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


def as_perf_6_1_prints(encoding):
    """perf 6.1 prints a term's number with %#x, its low 32 bits (an
    offcore_rsp of 0x3f803c0004 as 0x803c0004; the attr gets all 64):
    newer perf prints them whole, as this module does."""
    return re.sub(r"=0x([0-9a-f]+)", lambda m: "=%#x" % (int(m.group(1), 16) & 0xFFFFFFFF),
                  encoding)


def words(text):
    return " ".join(text.split())


def perf_listed(devices, cpuid):
    """{name: (description, encoding)} of the cpu/ events perf 6.1's
    `perf list --details` prints (descriptions word-wrapped: compared by
    words), and {name: alias} of those without a description, which it
    lists as `name OR cpu/name/`."""
    out, aliases, name, lines = {}, {}, None, []
    text = in_namespace(devices, cpuid, perf_tool(), "list", "--details")
    for line in text.splitlines() + [""]:
        bare = re.match(r"^  (\S+) OR (cpu/\S+/)\s+\[Kernel PMU event\]$", line)
        if bare:
            aliases[bare.group(1)] = bare.group(2)
            continue
        m = re.match(r"^  (\S+)", line)
        if m or not line.strip():
            if name and lines and lines[-1].startswith("cpu/"):
                desc = words(" ".join(lines[:-1]))
                out[name] = (desc[1:-1] if desc else None, lines[-1])
            name, lines = (m.group(1) if m else None), []
        elif name:
            lines.append(line.strip())
    return out, aliases


@pytest.mark.parametrize("cpuid", ["GenuineIntel-6-8F-8", "GenuineIntel-6-55-4", "AuthenticAMD-25-1-1"])
def test_json_events_as_perf_lists_them(build_6_1, fake_devices, cpuid):  # noqa: F811
    theirs, aliases = perf_listed(fake_devices, cpuid)
    assert len(theirs) > 100, f"perf 6.1 lists no cpu/ events for {cpuid}"
    events = json.loads(in_namespace(fake_devices, cpuid, sys.executable, "-c", EVENTS,
                                     str(build_6_1)))
    ours = {e["name"]: e for e in events if "deprecated" not in e}
    assert set(ours) == set(theirs) | set(aliases)
    for name, alias in aliases.items():
        assert ours[name]["alias"] == alias and "desc" not in ours[name]
    for name, (desc, encoding) in theirs.items():
        e = ours[name]
        assert (words(e["desc"]) if "desc" in e else None,
                as_perf_6_1_prints(e["encoding_desc"])) == (desc, encoding)
        assert e["encoding_desc"] == f"cpu/{e['str']}/"
        assert e["event_type_desc"] == "Kernel PMU event" and e["topic"]
        assert list(e) == [k for k in ("name", "alias", "scale_unit", "desc", "long_desc",
                                       "encoding_desc", "topic", "event_type_desc", "str",
                                       "deprecated") if k in e]


# The attr fields compared: the encoding and what modifiers set.
ATTR_FIELDS = ("type", "config", "config1", "config2", "precise_ip", "exclude_user",
               "exclude_kernel", "exclude_hv", "exclude_guest", "exclude_host")


def perf_attrs(stderr):
    """ATTR_FIELDS of each `perf_event_attr:` block perf -vv prints (config1
    as `{ bp_addr, config1 }`, config2 as `{ bp_len, config2 }`, a field
    that is 0 not at all)."""
    attrs = []
    for block in stderr.split("perf_event_attr:")[1:]:
        fields = {re.sub(r"^\{ \w+, (\w+) \}$", r"\1", k): v
                  for k, v in re.findall(r"^  (\w+|\{ \w+, \w+ \})\s+(\S+)$", block, re.M)}
        attrs.append({k: int(fields.get(k, "0"), 0) for k in ATTR_FIELDS})
    return attrs


@pytest.fixture(scope="module")
def parse_events_example(build_6_1):  # noqa: F811
    """crates/perf-core/examples/parse_events built as the 6.1 build is (the
    tables of linux-source-6.1), beside it in the stamped builds' target."""
    env = dict(stamped_builds.env(), PERF_PMU_EVENTS_SOURCE=SOURCE_6_1)
    subprocess.run(["cargo", "build", "-q", "--profile", stamped_builds.PROFILE, "-p",
                    "perf-core", "--example", "parse_events"], cwd=stamped_builds.REPO,
                   env=env, check=True)
    return stamped_builds.TARGET / "debug" / "examples" / "parse_events"


def encode_both(example, devices, tmp_path, cpuid, names):
    """[(name, perf's attr, our parse)] for `names`: the attr `perf stat
    -vv` gives the kernel and ours through parse_events, against the same
    devices."""
    p = subprocess.run(["unshare", "-m", "sh", "-c",
                        'mount --bind "$0" /sys/bus/event_source/devices && exec "$@"',
                        str(devices), perf_tool(), "stat", "-e", ",".join(names), "-vv",
                        "--", "true"], capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PERF_CPUID=cpuid))
    theirs = perf_attrs(p.stderr)
    assert len(theirs) == len(names), p.stderr[-2000:]
    root = tmp_path / "sys"
    (root / "bus" / "event_source").mkdir(parents=True, exist_ok=True)
    if not (root / "bus" / "event_source" / "devices").exists():
        (root / "bus" / "event_source" / "devices").symlink_to(devices)
    q = subprocess.run([str(example), "--sysfs", str(root), *names],
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, PERF_CPUID=cpuid))
    assert q.returncode == 0, q.stderr
    return [(name, want, json.loads(line))
            for name, line, want in zip(names, q.stdout.splitlines(), theirs, strict=True)]


@pytest.mark.parametrize("cpuid", ["GenuineIntel-6-8F-8", "GenuineIntel-6-55-4"])
def test_json_event_names_encode_as_perf(parse_events_example, fake_devices, tmp_path, cpuid):
    """Every cpu/ event perf lists, by name, to the attr `perf stat -vv`
    gives the kernel (type 4, config, config1 from the PMU's format,
    precise_ip and the exclude_* bits perf stat's defaults leave), and
    ours through parse_events against the same devices."""
    names = sorted(perf_listed(fake_devices, cpuid)[0])
    assert len(names) > 100
    for name, want, parsed in encode_both(parse_events_example, fake_devices, tmp_path, cpuid,
                                          names):
        assert parsed["ok"] and len(parsed["evsels"]) == 1, (name, parsed)
        attr = parsed["evsels"][0]["attr"]
        assert {k: attr[k] for k in want} == want, name


# Modifiers, after the name and in the PMU form.
MODIFIED = ("{}:u", "{}:k", "{}:p", "{}:ppp", "{}:G", "{}:H", "{}:uh", "cpu/{}/", "cpu/{}/k",
            "cpu/{}/pp", "cpu/{}/uG")


def test_json_event_names_with_modifiers_encode_as_perf(parse_events_example, fake_devices,
                                                        tmp_path):
    """Every 16th Skylake-X event (sorted by name; a deterministic sample,
    as each form multiplies the events perf opens) in each modifier form,
    lower and upper case, to the attr perf gives the kernel."""
    names = sorted(perf_listed(fake_devices, "GenuineIntel-6-55-4")[0])[::16]
    forms = [f.format(n.upper() if k % 2 else n) for n in names
             for k, f in enumerate(MODIFIED)]
    seen = set()
    for name, want, parsed in encode_both(parse_events_example, fake_devices, tmp_path,
                                          "GenuineIntel-6-55-4", forms):
        assert parsed["ok"] and len(parsed["evsels"]) == 1, (name, parsed)
        attr = parsed["evsels"][0]["attr"]
        assert {k: attr[k] for k in want} == want, name
        seen.add(tuple(want[k] for k in ATTR_FIELDS[4:]))
    assert len(seen) >= 6  # the forms do set different bits
