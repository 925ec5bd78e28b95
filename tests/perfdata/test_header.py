# SPDX-License-Identifier: GPL-2.0-only
"""data.header against what perf 6.1 prints of the same file's header:
`perf report --header-only` (host, perf version, arch, CPUs, memory,
cmdline, every event with its ids, type, config, period, sample_type and
read_format, PMU mappings, sample time range, clock data, which features
are missing) and `perf buildid-list` (the build ids)."""

import os
import re
import subprocess

import pytest

PERF = "/usr/bin/perf"
NAMES = ["sw", "rw", "comm", "z", "pipe", "threads", "stat", "stat_i", "tp_a"]

SAMPLE_BITS = ["IP", "TID", "TIME", "ADDR", "READ", "CALLCHAIN", "ID", "CPU", "PERIOD", "STREAM_ID",
               "RAW", "BRANCH_STACK", "REGS_USER", "STACK_USER", "WEIGHT", "DATA_SRC", "IDENTIFIER",
               "TRANSACTION", "REGS_INTR", "PHYS_ADDR", "AUX", "CGROUP", "DATA_PAGE_SIZE",
               "CODE_PAGE_SIZE", "WEIGHT_STRUCT"]
READ_BITS = ["TOTAL_TIME_ENABLED", "TOTAL_TIME_RUNNING", "ID", "GROUP", "LOST"]


def bits(names, table):
    return sum(1 << table.index(n) for n in names.split("|")) if names else 0


def perf_header(path):
    """{key: value} of `perf report --header-only` lines, with "event"
    and "missing features" lists."""
    p = subprocess.run([PERF, "report", "-i", str(path), "--header-only"], capture_output=True,
                       text=True, errors="replace")
    head = {"event": [], "text": p.stdout}
    for line in p.stdout.splitlines():
        m = re.match(r"^# ([a-z][a-z ]*?)\s*:\s?(.*)$", line)
        if not m:
            continue
        key, value = m.group(1), m.group(2)
        if key == "event":
            head["event"].append(value)
        else:
            head[key] = value
    return head


def parse_event(text):
    """The fields of one `# event : name = ..., , id = { ... }, ...` line."""
    name, rest = re.match(r"^name = (.*?), , (.*)$", text).groups()
    ids = re.search(r"id = \{ ([0-9, ]*) \}", rest)
    fields = dict(re.findall(r"(\w+) = ([^,{}]+)", re.sub(r"\{[^}]*\} = ", "period = ", rest)))
    return {"name": name, "ids": [int(i) for i in ids.group(1).split(", ")] if ids else [],
            "type": int(fields["type"]), "config": int(fields.get("config", "0"), 0),
            "period": int(fields["period"]) if "period" in fields else 0,
            "sample_type": bits(fields.get("sample_type", "").strip(), SAMPLE_BITS),
            "read_format": bits(fields.get("read_format", "").strip(), READ_BITS)}


def usec(ns):
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000 // 1000:06d}"


@pytest.mark.parametrize("name", NAMES)
def test_header_as_perf_report(perf_ours, record, name):
    path = record(name)
    h = perf_ours.data(str(path)).header
    theirs = perf_header(path)
    assert h["hostname"] == theirs["hostname"]
    assert h["os_release"] == theirs["os release"]
    assert h["perf_version"] == theirs["perf version"]
    assert h["arch"] == theirs["arch"]
    assert str(h["nr_cpus_online"]) == theirs["nrcpus online"]
    assert str(h["nr_cpus_avail"]) == theirs["nrcpus avail"]
    assert h["cpu_desc"] == theirs["cpudesc"]
    assert h["cpuid"] == theirs["cpuid"]
    assert f"{h['total_mem']} kB" == theirs["total memory"]
    assert "".join(a.replace("'", "\\'") + " " for a in h["cmdline"]) == theirs["cmdline"]
    events = [parse_event(e) for e in theirs["event"]]
    assert [e["name"] for e in h["events"]] == [e["name"] for e in events]
    for ours, t in zip(h["events"], events):
        assert (ours["ids"], ours["type"], ours["config"], ours["sample_period"], ours["sample_type"],
                ours["read_format"]) == (t["ids"], t["type"], t["config"], t["period"],
                                         t["sample_type"], t["read_format"]), t["name"]
    mappings = dict(m.split(" = ") for m in theirs["pmu mappings"].split(", "))
    assert h["pmu_mappings"] == {k: int(v) for k, v in mappings.items()}
    first, last = h["sample_time"]
    assert (usec(first), usec(last)) == (theirs["time of first sample"], theirs["time of last sample"])
    if "clockid frequency" in theirs:
        res = h["clockid_res_ns"]
        assert f"{1000 // res if res else 0} MHz" == theirs["clockid frequency"]
    if "clockid" in theirs:
        assert h["clockid"] == int(re.search(r"\((\d+)\)", theirs["clockid"]).group(1))
        tod, clock = h["clock_reference"]["tod_ns"], h["clock_reference"]["clockid_ns"]
        assert f"= {usec(tod)} (TOD) = {clock // 10**9}.{clock % 10**9:09d} " in theirs["reference time"]
    else:
        assert h["clockid"] is None and h["clock_reference"] is None
    missing = theirs.get("missing features", "").split()
    assert missing or name == "pipe"  # perf prints none in pipe mode
    assert not set(missing) & set(h["features"])
    assert h["pipe"] == (name == "pipe")
    assert ("STAT" in h["features"]) == name.startswith("stat") == ("# contains stat data" in theirs["text"])
    if name == "z":
        assert h["compressed"] is not None and h["compressed"]["type"] == 1
        assert theirs["compressed"].startswith(f"Zstd, level = {h['compressed']['level']}, "
                                               f"ratio = {h['compressed']['ratio']}")


@pytest.mark.parametrize("name", ["sw", "rw", "pipe", "threads", "z"])
def test_build_ids_as_perf_buildid_list(perf_ours, record, name):
    path = record(name)
    p = subprocess.run([PERF, "buildid-list", "-i", str(path)], capture_output=True, text=True)
    # Without build ids in the header (perf record -z here), perf lists the
    # DSOs of the records with blank build ids: those are not the header's.
    theirs = {m.groups() for m in re.finditer(r"^([0-9a-f]{2,}) (.*)$", p.stdout, re.M)}
    ours = {(b["build_id"], b["filename"]) for b in perf_ours.data(str(path)).header["build_ids"]}
    assert ours == theirs
    if name in ("sw", "threads"):
        assert ours, "perf record wrote build ids"


def test_header_of_a_stream_is_read_once(perf_ours, record):
    """A pipe's header is read by the first of data.header and
    perf.session(data); the session then reads the records that follow."""
    path = record("pipe")
    r, w = os.pipe()
    try:
        pid = os.fork()
        if pid == 0:
            os.close(r)
            with open(path, "rb") as f:
                os.write(w, f.read())
            os._exit(0)
        os.close(w)
        data = perf_ours.data(fd=r)
        header = data.header
        samples = []
        perf_ours.session(data, sample=samples.append).process_events()
        os.waitpid(pid, 0)
        assert header == perf_ours.data(str(path)).header
        assert len(samples) > 0
        with pytest.raises(ValueError, match="read once"):
            perf_ours.session(data)
        assert data.header == header  # kept
    finally:
        os.close(r)
