# SPDX-License-Identifier: GPL-2.0-only
"""perf.data files written by hand, laid out as perf writes them (header,
ids, attrs, data, feature table, features), for what the test machine
cannot record: samples with branch stacks (no LBR here). The same layout as
crates/perf-core/tests/common/synth.rs, with the records the symbol tests
need (COMM, MMAP2, SAMPLE with PERF_SAMPLE_BRANCH_STACK)."""

import struct

PERF_TYPE_HARDWARE = 0
PERF_SAMPLE_IP = 1 << 0
PERF_SAMPLE_TID = 1 << 1
PERF_SAMPLE_TIME = 1 << 2
PERF_SAMPLE_CPU = 1 << 7
PERF_SAMPLE_PERIOD = 1 << 8
PERF_SAMPLE_BRANCH_STACK = 1 << 11
PERF_SAMPLE_BRANCH_USER = 1 << 0
PERF_SAMPLE_BRANCH_ANY = 1 << 3
PERF_SAMPLE_BRANCH_HW_INDEX = 1 << 17
PERF_RECORD_COMM = 3
PERF_RECORD_SAMPLE = 9
PERF_RECORD_MMAP2 = 10
PERF_RECORD_FINISHED_ROUND = 68
PERF_RECORD_MISC_USER = 2
# perf_event_attr flag bits
ATTR_SAMPLE_ID_ALL = 1 << 18
ATTR_MMAP, ATTR_COMM, ATTR_MMAP2 = 1 << 8, 1 << 9, 1 << 23
# Features (perf's HEADER_* bits).
HEADER_HOSTNAME = 3
HEADER_NRCPUS = 7

SAMPLE_TYPE = (PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU
               | PERF_SAMPLE_PERIOD | PERF_SAMPLE_BRANCH_STACK)
ATTR_SIZE = 128  # PERF_ATTR_SIZE_VER7


def branch_flags(mispred=False, predicted=False, in_tx=False, abort=False, cycles=0, type=0):
    """The flags word of `struct perf_branch_entry` (little-endian bitfield:
    mispred:1, predicted:1, in_tx:1, abort:1, cycles:16, type:4, ...)."""
    return (int(mispred) | int(predicted) << 1 | int(in_tx) << 2 | int(abort) << 3
            | (cycles & 0xffff) << 4 | (type & 0xf) << 20)


def _record(type_, misc, body):
    body += b"\0" * (-len(body) % 8)
    return struct.pack("<IHH", type_, misc, len(body) + 8) + body


def _string(s):
    b = s.encode() + b"\0"
    return b + b"\0" * (-len(b) % 8)


class Synth:
    """One hardware event sampling branch stacks (sample_id_all; samples
    carry ip, pid/tid, time, cpu, period, branch stack), and the records
    added by comm(), mmap2() and sample()."""

    def __init__(self, hw_index=False):
        self.hw_index = hw_index
        self.branch_sample_type = PERF_SAMPLE_BRANCH_USER | PERF_SAMPLE_BRANCH_ANY
        if hw_index:
            self.branch_sample_type |= PERF_SAMPLE_BRANCH_HW_INDEX
        self.data = b""

    def _id(self, pid, tid, time):
        """The sample_id trailer: tid, time, cpu."""
        return struct.pack("<IIQII", pid, tid, time, 0, 0)

    def comm(self, pid, tid, name, time):
        self.data += _record(PERF_RECORD_COMM, 0, struct.pack("<II", pid, tid) + _string(name)
                             + self._id(pid, tid, time))

    def mmap2(self, pid, tid, start, length, pgoff, filename, time, prot=5, flags=2):
        body = struct.pack("<IIQQQIIQQII", pid, tid, start, length, pgoff, 0, 0, 0, 0, prot, flags)
        self.data += _record(PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER,
                             body + _string(filename) + self._id(pid, tid, time))

    def sample(self, pid, tid, ip, time, entries, hw_idx=0):
        """entries: (from, to, flags) tuples, most recent first."""
        body = struct.pack("<QIIQIIQQ", ip, pid, tid, time, 0, 0, 1000, len(entries))
        if self.hw_index:
            body += struct.pack("<Q", hw_idx)
        for e in entries:
            body += struct.pack("<QQQ", *e)
        self.data += _record(PERF_RECORD_SAMPLE, PERF_RECORD_MISC_USER, body)

    def round(self):
        self.data += _record(PERF_RECORD_FINISHED_ROUND, 0, b"")

    def _attr(self):
        flags = ATTR_SAMPLE_ID_ALL | ATTR_MMAP | ATTR_COMM | ATTR_MMAP2
        a = struct.pack("<IIQQQQQIIQQQ", PERF_TYPE_HARDWARE, ATTR_SIZE, 0, 4000, SAMPLE_TYPE, 0,
                        flags, 0, 0, 0, 0, self.branch_sample_type)
        return a + b"\0" * (ATTR_SIZE - len(a))

    def build(self):
        features = {
            HEADER_HOSTNAME: struct.pack("<I", 8) + _string("synth"),
            HEADER_NRCPUS: struct.pack("<II", 1, 1),
        }
        ids = 104
        attrs = ids + 8
        data = attrs + ATTR_SIZE + 16
        table = data + len(self.data)
        bits = 0
        for bit in features:
            bits |= 1 << bit
        out = b"PERFILE2" + struct.pack("<QQQQQQQQ", 104, ATTR_SIZE + 16, attrs, ATTR_SIZE + 16,
                                        data, len(self.data), 0, 0)
        out += bits.to_bytes(32, "little")
        out += struct.pack("<Q", 7)
        out += self._attr() + struct.pack("<QQ", ids, 8)
        out += self.data
        at = table + 16 * len(features)
        for bit in sorted(features):
            out += struct.pack("<QQ", at, len(features[bit]))
            at += len(features[bit])
        for bit in sorted(features):
            out += features[bit]
        return out
