# SPDX-License-Identifier: GPL-2.0-only
"""perf.sample_columns through the Arrow PyCapsule interface: the C
structs of the Arrow C data interface read with ctypes (no pyarrow needed),
and the rows a sample callback sees of the same file, to compare with what
an Arrow consumer reads."""

import ctypes
from ctypes import POINTER, c_char_p, c_int64, c_void_p


class ArrowSchema(ctypes.Structure):
    pass


ArrowSchema._fields_ = [
    ("format", c_char_p), ("name", c_char_p), ("metadata", c_char_p), ("flags", c_int64),
    ("n_children", c_int64), ("children", POINTER(POINTER(ArrowSchema))),
    ("dictionary", POINTER(ArrowSchema)), ("release", c_void_p), ("private_data", c_void_p)]


class ArrowArray(ctypes.Structure):
    pass


ArrowArray._fields_ = [
    ("length", c_int64), ("null_count", c_int64), ("offset", c_int64), ("n_buffers", c_int64),
    ("n_children", c_int64), ("buffers", POINTER(c_void_p)),
    ("children", POINTER(POINTER(ArrowArray))), ("dictionary", POINTER(ArrowArray)),
    ("release", c_void_p), ("private_data", c_void_p)]

class ArrowArrayStream(ctypes.Structure):
    _fields_ = [("get_schema", c_void_p), ("get_next", c_void_p), ("get_last_error", c_void_p),
                ("release", c_void_p), ("private_data", c_void_p)]


_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_pointer.restype = c_void_p
_pointer.argtypes = [ctypes.py_object, c_char_p]


def unwrap(capsule, name, struct):
    """The struct a capsule named `name` holds (valid while it lives)."""
    return struct.from_address(_pointer(capsule, name))


def formats(schema):
    """{field name: format} of a struct schema; a dictionary's format is
    'index format:value format', a list's 'list format<child format>'."""
    def one(s):
        f = s.format.decode()
        if s.dictionary:
            f += ":" + one(s.dictionary.contents)
        if s.n_children and f != "+s":
            f += "<" + one(s.children[0].contents) + ">"
        return f
    return {schema.children[i].contents.name.decode(): one(schema.children[i].contents)
            for i in range(schema.n_children)}


MEMBERS = ["sample_ip", "sample_pid", "sample_tid", "sample_time", "sample_period", "sample_cpu"]


def callback_rows(perf, path, frames=False):
    """What the sample callback sees: the members, the evsel's name, the
    thread's comm, and (frames) each frame's (ip, dso, symbol), leaf first."""
    rows = []

    def sample(s):
        row = {m: getattr(s, m) for m in MEMBERS}
        row["evsel"] = str(s.evsel)[6:-1]
        thread = session.find_thread(s.sample_pid, s.sample_tid)
        row["comm"] = thread.comm() if thread is not None else f":{s.sample_tid}"
        if frames:
            chain = s.callchain
            row["frames"] = [(n.ip, n.dso, n.symbol) for n in chain] if chain is not None else []
        rows.append(row)
    session = perf.session(perf.data(str(path)), sample=sample)
    session.process_events()
    return rows
