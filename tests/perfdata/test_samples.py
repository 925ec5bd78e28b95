# SPDX-License-Identifier: GPL-2.0-only
"""Every sample of every recording, field by field, against perf 6.1:

* perf's own Python scripting engine (`perf script -s`, oracle.samples):
  event, comm, pid, tid, cpu, time, period, ip, addr, phys_addr, weight,
  data source, and every tracepoint field by attribute name (read from the
  file's own tracing data);
* `perf script -F comm,pid,tid,cpu,time,period,event,ip --ns`;
* `perf script -D`: the same samples in the same (time) order, the RAW
  payload (`raw_buf`) and the other members inside the record's bytes.

The tracepoint values differ from perf's engine only where docs/api.md says
ours differ: a narrow signed field is sign-extended (perf: zero-extended),
a numeric array is a bytearray (perf: a list of numbers).
"""

import struct

import pytest

from perfdata import oracle

ALL = ["sw", "tp_a", "syscalls", "rw", "futex", "raw_sys", "comm", "z", "pipe", "threads", "nt", "mem"]
U64_MAX = 2**64 - 1


def read_ours(perf, path, fields):
    """Our view of every sample: the same dict layout as oracle.samples."""
    out = []
    session = None

    def sample(s):
        text = str(s.evsel)
        assert text.startswith("evsel(") and text.endswith(")"), text
        name = text[6:-1]
        handler = name.replace(":", "__", 1)
        if s.sample_tid == -1:
            # find_thread(pid, -1) is pid's main thread (the API's rule);
            # perf script makes a thread of tid -1 (":-1") for such samples.
            comm = ":-1"
        else:
            thread = session.find_thread(s.sample_pid, s.sample_tid)
            comm = thread.comm() if thread else None
        d = {"event": handler if handler in fields else name,
             "comm": comm,
             "sample": {"pid": s.sample_pid, "tid": s.sample_tid, "cpu": s.sample_cpu,
                        "time": s.sample_time, "period": s.sample_period, "ip": s.sample_ip,
                        "addr": s.sample_addr, "phys_addr": s.sample_phys_addr,
                        "weight": s.sample_weight, "datasrc": s.sample_data_src},
             "id": s.sample_id, "raw_buf": s.raw_buf, "type": s.type}
        if handler in fields:
            d["common_pid"] = s.common_pid
            d["fields"] = {f: getattr(s, f) for f in fields[handler]}
        out.append(d)

    session = perf.session(perf.data(str(path)), sample=sample)
    session.process_events()
    return out


def same_field(ours, theirs):
    """A tracepoint field value of ours equals perf's engine's."""
    if ours == theirs:
        return True
    if isinstance(ours, int) and isinstance(theirs, int) and ours < 0:
        # Narrow signed fields: perf's engine zero-extends them.
        return theirs in (ours + 2**8, ours + 2**16, ours + 2**32)
    if isinstance(ours, bytearray) and isinstance(theirs, list):
        if not theirs:
            return not ours
        size = len(ours) // len(theirs)
        if size not in (1, 2, 4, 8) or size * len(theirs) != len(ours):
            return False
        items = [int.from_bytes(ours[i:i + size], "little") for i in range(0, len(ours), size)]
        return items == [v % 2**(8 * size) for v in theirs]
    if isinstance(ours, bytearray) and isinstance(theirs, str):
        return bytes(ours).split(b"\0", 1)[0].decode(errors="replace") == theirs
    return False


@pytest.fixture(scope="module")
def views(record, perf_ours, tmp_path_factory):
    """name -> (perf's samples, our samples, field names), computed once."""
    cache = {}

    def get(name):
        if name not in cache:
            path = record(name)
            theirs, fields = oracle.samples(path, tmp_path_factory.mktemp(name))
            cache[name] = (theirs, read_ours(perf_ours, path, fields), fields)
        return cache[name]
    return get


@pytest.mark.parametrize("name", ALL)
def test_every_sample_as_perf_script_s(views, name):
    theirs, ours, fields = views(name)
    assert theirs, f"{name}: perf delivered no samples"
    assert len(ours) == len(theirs)
    keys = ["pid", "tid", "cpu", "time", "period", "ip", "addr", "phys_addr", "weight", "datasrc"]
    for i, (o, t) in enumerate(zip(ours, theirs)):
        where = f"{name} sample {i}"
        assert o["event"] == t["event"], where
        assert o["comm"] == t["comm"], where
        # perf's scripting engine gives pid and tid as the record's u32 (a
        # tid of -1 is 4294967295 there); sample_pid/sample_tid are ints, as
        # the C module's T_INT members.
        mine = {k: o["sample"][k] & 0xffffffff if k in ("pid", "tid") else o["sample"][k]
                for k in keys}
        assert mine == {k: t["sample"][k] for k in keys}, where
        if "fields" in t:
            assert o["common_pid"] == t["common_pid"], where
            assert o["fields"].keys() == t["fields"].keys(), where
            for f, v in t["fields"].items():
                assert same_field(o["fields"][f], v), (where, f, o["fields"][f], v)
        else:
            assert "fields" not in o, where
    # The recordings exercise what they are meant to.
    if name in ("tp_a", "syscalls", "rw", "futex", "raw_sys", "pipe"):
        assert fields and any("fields" in o for o in ours)
    if name == "syscalls":
        assert len({o["event"] for o in ours}) >= 10, "several syscalls:* events in one file"
    if name == "mem":
        # sample_addr, sample_weight and sample_data_src come from the record
        # (the data source is not perf's DATA_SRC_NONE default).
        assert all(o["sample"]["addr"] for o in ours)
        assert all(o["sample"]["datasrc"] not in (0, 0x5080021) for o in ours)
    if name == "nt":
        assert all(o["sample"]["time"] == U64_MAX for o in ours)


def requested_fields(perf, path):
    """perf script -F fields every event of the file has."""
    types = [e["sample_type"] for e in perf.data(str(path)).header["events"]]
    fields = ["comm", "pid", "tid"]
    for bit, field in ((perf.SAMPLE_CPU, "cpu"), (perf.SAMPLE_TIME, "time"),
                       (perf.SAMPLE_PERIOD, "period")):
        if all(t & bit for t in types):
            fields.append(field)
    return fields + ["event", "ip"]


@pytest.mark.parametrize("name", ALL)
def test_every_sample_as_perf_script_F(views, record, perf_ours, name):
    _, ours, _ = views(name)
    path = record(name)
    fields = requested_fields(perf_ours, path)
    rows = oracle.script_fields(path, fields)
    assert len(rows) == len(ours)
    for i, (o, r) in enumerate(zip(ours, rows)):
        s = o["sample"]
        mine = {"comm": o["comm"], "pid": s["pid"], "tid": s["tid"],
                "event": o["event"].replace("__", ":", 1) if "fields" in o else o["event"],
                "ip": s["ip"]}
        for f in ("cpu", "time", "period"):
            if f in fields:
                mine[f] = s[f]
        assert mine == r, f"{name} sample {i}"


@pytest.mark.parametrize("name", ALL)
def test_every_sample_as_perf_script_D(views, record, perf_ours, name):
    """The same samples in the same order as perf delivers them (-D), each
    member and the RAW payload where the record's bytes have them."""
    _, ours, _ = views(name)
    path = record(name)
    combined = 0
    for e in perf_ours.data(str(path)).header["events"]:
        combined |= e["sample_type"]
    raw = oracle.raw_samples(path)
    assert len(raw) == len(ours)
    for i, (o, (offset, stamp, record_bytes)) in enumerate(zip(ours, raw)):
        where = f"{name} sample {i} at {offset:#x}"
        s = o["sample"]
        expected = []
        if combined & perf_ours.SAMPLE_CPU:
            expected.append(s["cpu"])
        if combined & perf_ours.SAMPLE_TIME:
            expected.append(s["time"])
        assert stamp == expected, where
        assert o["type"] == 9 and record_bytes[:4] == struct.pack("<I", 9), where
        assert struct.pack("<ii", s["pid"], s["tid"]) in record_bytes or s["pid"] == -1, where
        if s["ip"]:
            assert struct.pack("<Q", s["ip"]) in record_bytes, where
        if o["id"] != U64_MAX:
            assert struct.pack("<Q", o["id"]) in record_bytes, where
        if o["raw_buf"]:
            assert struct.pack("<I", len(o["raw_buf"])) + o["raw_buf"] in record_bytes, where
        else:
            assert "fields" not in o, where
