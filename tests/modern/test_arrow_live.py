# SPDX-License-Identifier: GPL-2.0-only
"""evlist.read_columns() through the Arrow PyCapsule interface: the
columns of a live ring read by pyarrow, polars and DuckDB, against the
same getppid() samples read as event objects by read_on_cpu() from a
second evsel of the same tracepoint; the capsules' buffers (read with
ctypes, without pyarrow) are the arrays' own memory."""

import pytest

from sidebyside.harness import needs_root, needs_tracefs

pytestmark = [needs_root, needs_tracefs]

LIVE = """
import ctypes, os
N = 300
cpus, threads = perf.cpu_map(), perf.thread_map(os.getpid())
def getppid_evlist():
    ev = perf.evsel(type=perf.TYPE_TRACEPOINT, config=perf.tracepoint("syscalls", "sys_enter_getppid"),
                    freq=0, sample_period=1, wakeup_events=1,
                    sample_type=perf.SAMPLE_IP | perf.SAMPLE_TID | perf.SAMPLE_CPU | perf.SAMPLE_PERIOD)
    ev.open(cpus=cpus, threads=threads)
    evlist = perf.evlist(cpus, threads)
    evlist.add(ev)
    evlist.mmap(pages=64)
    return evlist
columnar, classic = getppid_evlist(), getppid_evlist()
for _ in range(N):
    os.getppid()
members = ["sample_ip", "sample_pid", "sample_tid", "sample_cpu", "sample_period"]
events = []
for c in cpus:
    while (e := classic.read_on_cpu(c)) is not None:
        if isinstance(e, perf.sample_event):
            events.append(sorted((k, getattr(e, k)) for k in members))
cols = columnar.read_columns()
arrays = [sorted((k, cols[k][i]) for k in members) for i in range(len(cols))]

class Schema(ctypes.Structure):
    pass
Schema._fields_ = [("format", ctypes.c_char_p), ("name", ctypes.c_char_p), ("metadata", ctypes.c_char_p),
                   ("flags", ctypes.c_int64), ("n_children", ctypes.c_int64),
                   ("children", ctypes.POINTER(ctypes.POINTER(Schema))), ("dictionary", ctypes.c_void_p),
                   ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]
class Array(ctypes.Structure):
    pass
Array._fields_ = [("length", ctypes.c_int64), ("null_count", ctypes.c_int64), ("offset", ctypes.c_int64),
                  ("n_buffers", ctypes.c_int64), ("n_children", ctypes.c_int64),
                  ("buffers", ctypes.POINTER(ctypes.c_void_p)),
                  ("children", ctypes.POINTER(ctypes.POINTER(Array))), ("dictionary", ctypes.c_void_p),
                  ("release", ctypes.c_void_p), ("private_data", ctypes.c_void_p)]
get = ctypes.pythonapi.PyCapsule_GetPointer
get.restype, get.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]
schema_capsule, array_capsule = cols.__arrow_c_array__()
schema = Schema.from_address(get(schema_capsule, b"arrow_schema"))
struct = Array.from_address(get(array_capsule, b"arrow_array"))
fields = [schema.children[i].contents for i in range(schema.n_children)]
shared = {f.name.decode(): [f.format.decode(), struct.children[i].contents.length,
                            struct.children[i].contents.buffers[1] == cols[f.name.decode()].buffer_info()[0]]
          for i, f in enumerate(fields)}

def rows(table):
    return sorted(sorted((k, v) for k, v in r.items() if k in members) for r in table)
consumers = {}
try:
    import pyarrow
    consumers["pyarrow"] = rows(pyarrow.table(cols).to_pylist())
except ImportError:
    pass
try:
    import polars
    consumers["polars"] = rows(polars.DataFrame(cols).to_dicts())
except ImportError:
    pass
try:
    import duckdb
    rel = duckdb.sql("SELECT * FROM cols")
    consumers["duckdb"] = rows(dict(zip(rel.columns, r)) for r in rel.fetchall())
except ImportError:
    pass
result({"events": sorted(events), "arrays": sorted(arrays), "len": len(cols), "shared": shared,
        "consumers": consumers})
"""

FORMATS = {"type": "I", "sample_ip": "L", "sample_pid": "i", "sample_tid": "i", "sample_time": "L",
           "sample_addr": "L", "sample_id": "L", "sample_stream_id": "L", "sample_cpu": "I",
           "sample_period": "L", "evsel": "I"}


def test_live_columns_through_arrow(ours):
    got = ours.run(LIVE).check()
    assert got["len"] == 300
    assert got["arrays"] == got["events"]
    assert got["shared"] == {k: [f, 300, True] for k, f in FORMATS.items()}
    for name, rows in got["consumers"].items():
        assert rows == got["events"], name
    missing = {"pyarrow", "polars", "duckdb"} - set(got["consumers"])
    if missing:
        pytest.skip(f"not installed: {', '.join(sorted(missing))}")
