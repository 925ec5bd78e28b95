# SPDX-License-Identifier: GPL-2.0-only
"""Damaged perf.data files (docs/perfdata.md, "Damaged files"): real
recordings cut at record boundaries, inside records and inside every feature
section, and with each feature section damaged. Every sample `perf script`
reads from such a file, ours reads too; fewer samples than the whole file
holds come with an OSError (raised after the samples before the damage were
delivered), and feature sections that cannot be read with a DataWarning."""

import collections
import re
import shutil
import struct
import subprocess
import warnings

import pytest

from perfdata.oracle import PERF

# (name, pipe mode)
RECORDINGS = [("sw", False), ("z", False), ("tp_a", False), ("callchain", False),
              ("pipe", True), ("zpipe", True)]
# Cuts at this many record boundaries (and as many inside records) a
# recording, spread evenly over its data.
BOUNDARIES = 10

PERF_RECORD_COMPRESSED = 81
PERF_RECORD_HEADER_TRACING_DATA = 66
FEATURES = {2: "BUILD_ID", 3: "HOSTNAME", 7: "NRCPUS", 11: "CMDLINE", 12: "EVENT_DESC",
            16: "PMU_MAPPINGS", 21: "SAMPLE_TIME"}


def records(b, pipe):
    """(offset, type, size) of each record of the data (little-endian)."""
    if pipe:
        off, end = 16, len(b)
    else:
        off, size = struct.unpack_from("<QQ", b, 40)
        end = off + size
    out = []
    while off + 8 <= end:
        type_, _, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            break
        out.append((off, type_, size))
        if type_ == PERF_RECORD_HEADER_TRACING_DATA:
            off += struct.unpack_from("<I", b, off + 8)[0]
        off += size
    return out


def feature_sections(b):
    """{feature bit: (offset of its table entry, offset, size)}."""
    off, size = struct.unpack_from("<QQ", b, 40)
    bits = int.from_bytes(b[72:104], "little")
    table = off + size
    present = [bit for bit in range(256) if bits >> bit & 1]
    return {bit: (table + 16 * i,) + struct.unpack_from("<QQ", b, table + 16 * i)
            for i, bit in enumerate(present)}


SAMPLE = re.compile(r"^\s*(-?\d+)\s+(\d+)\.(\d{9}):\s*$")


def perf_samples(path):
    """(tid, time) of every sample `perf script` prints, as a multiset; perf
    exits non-zero on some damage and prints the samples it read before."""
    p = subprocess.run([PERF, "script", "-i", str(path), "-F", "tid,time", "--ns"],
                       capture_output=True, text=True, timeout=120, errors="replace")
    out = collections.Counter()
    for line in p.stdout.splitlines():
        m = SAMPLE.match(line)
        if m:
            out[(int(m[1]), int(m[2] + m[3]))] += 1
    return out


def ours(perf, path):
    """Our samples as (tid, time) (a multiset), the OSError that stopped the
    reading, the DataWarnings given."""
    got = collections.Counter()
    error = None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            s = perf.session(perf.data(str(path)), sample=lambda e: got.update([(e.sample_tid, e.sample_time)]))
            s.process_events()
        except OSError as e:
            error = e
    return got, error, [w for w in caught if issubclass(w.category, perf.DataWarning)]


def cuts(b, pipe):
    """Where to cut: record boundaries and the middle of records, spread over
    the data; and, in file mode, inside the feature section table and inside
    every feature section."""
    recs = records(b, pipe)
    step = max(1, len(recs) // BOUNDARIES)
    out = set()
    for off, _, size in recs[::step] + recs[-1:]:
        out.update((off, off + size // 2))
    if not pipe:
        sections = list(feature_sections(b).values())
        out.add(sections[len(sections) // 2][0] + 8)       # inside the table
        out.update(off + 1 for _, off, _ in sections)       # inside each section
    return sorted(c for c in out if 0 < c < len(b))


@pytest.mark.parametrize("name,pipe", RECORDINGS, ids=[n for n, _ in RECORDINGS])
def test_a_cut_file_reads_every_sample_perf_reads(perf_ours, record, tmp_path, name, pipe):
    src = record(name)
    b = open(src, "rb").read()
    whole, error, _ = ours(perf_ours, src)
    assert error is None and sum(whole.values()) > 0
    boundaries = {off for off, _, _ in records(b, pipe)}
    data_end = len(b) if pipe else sum(struct.unpack_from("<QQ", b, 40))
    tried = 0
    for cut in cuts(b, pipe):
        path = tmp_path / "cut.data"
        path.write_bytes(b[:cut])
        want = perf_samples(path)
        got, error, warned = ours(perf_ours, path)
        where = f"{name} cut at {cut}: perf {sum(want.values())}, ours {sum(got.values())}, {error}"
        # Every sample perf reads (perf also reads a record cut short as a
        # sample of garbage, which the whole file does not have), and only
        # the file's samples.
        assert not (want & whole) - got, where
        assert not got - whole, where
        if got != whole:
            # Fewer samples: never in silence. A pipe cut at a record boundary
            # is a whole shorter stream: nothing tells perf or us it was cut.
            assert error is not None or (pipe and cut in boundaries), where
        if error is not None:
            assert error.errno == 22 and "at file offset 0x" in error.strerror, where
        if not pipe and cut >= data_end:
            assert error is None and got == whole and warned, where
        tried += 1
    assert tried >= BOUNDARIES


def test_a_cut_threads_directory_reads_every_sample_perf_reads(perf_ours, record, tmp_path):
    """A `perf record --threads` directory whose largest data.N file was cut:
    the same rule. Its data files have no header that gives their size, so a
    cut at a record boundary is, as for a pipe, a whole shorter file."""
    src = record("threads")
    whole, error, _ = ours(perf_ours, src)
    assert error is None and sum(whole.values()) > 0
    files = sorted(src.glob("data.*"), key=lambda f: f.stat().st_size)
    victim = files[-1]
    b = victim.read_bytes()
    recs = []
    off = 0
    while off + 8 <= len(b):
        type_, _, size = struct.unpack_from("<IHH", b, off)
        if size < 8:
            break
        recs.append((off, size))
        off += size
    step = max(1, len(recs) // BOUNDARIES)
    cut_at = sorted({c for off, size in recs[::step] for c in (off, off + size // 2)} - {0})
    boundaries = {off for off, _ in recs}
    copy = tmp_path / "threads.data"
    shutil.copytree(src, copy)
    for cut in cut_at:
        (copy / victim.name).write_bytes(b[:cut])
        want = perf_samples(copy)
        got, error, _ = ours(perf_ours, copy)
        where = f"{victim.name} cut at {cut}: perf {sum(want.values())}, ours {sum(got.values())}, {error}"
        assert not (want & whole) - got and not got - whole, where
        if got != whole:
            assert error is not None or cut in boundaries, where
    assert len(cut_at) >= BOUNDARIES


def test_damaged_feature_sections_are_warnings(perf_ours, record, tmp_path):
    """Each damaged feature section: every sample read, a DataWarning naming
    the section, data.header["unreadable_features"] saying why; perf reads at
    most as many."""
    src = record("sw")
    b = open(src, "rb").read()
    whole, _, _ = ours(perf_ours, src)
    sections = feature_sections(b)

    def at(bit, delta=0):
        return sections[bit][1] + delta

    cases = [
        (2, lambda d: struct.pack_into("<H", d, at(2, 6), 0)),            # BUILD_ID record size 0
        (2, lambda d: struct.pack_into("<H", d, at(2, 6), 65535)),        # ... 65535
        (3, lambda d: struct.pack_into("<I", d, at(3), 2**32 - 1)),       # HOSTNAME length
        (11, lambda d: struct.pack_into("<I", d, at(11), 2**32 - 1)),     # CMDLINE count
        (12, lambda d: struct.pack_into("<I", d, at(12, 4), 3)),          # EVENT_DESC attr size
        (12, lambda d: struct.pack_into("<I", d, at(12), 2**32 - 1)),     # EVENT_DESC count
        (16, lambda d: struct.pack_into("<I", d, at(16), 2**32 - 1)),     # PMU_MAPPINGS count
        (7, lambda d: struct.pack_into("<Q", d, sections[7][0] + 8, 4)),  # NRCPUS short
        (3, lambda d: struct.pack_into("<Q", d, sections[3][0], 0)),      # HOSTNAME on the header
        (3, lambda d: struct.pack_into("<Q", d, sections[3][0], 2**40)),  # HOSTNAME past the end
    ]
    if 21 in sections:
        cases.append((21, lambda d: struct.pack_into("<Q", d, sections[21][0] + 8, 8)))
    for bit, edit in cases:
        if bit not in sections:
            continue
        d = bytearray(b)
        edit(d)
        path = tmp_path / f"feature-{bit}.data"
        path.write_bytes(d)
        got, error, warned = ours(perf_ours, path)
        where = f"{FEATURES[bit]}: {error}"
        assert error is None and got == whole, where
        assert len(warned) == 1 and FEATURES[bit] in str(warned[0].message), where
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", perf_ours.DataWarning)
            header = perf_ours.data(str(path)).header
        assert list(header["unreadable_features"]) == [FEATURES[bit]], header["unreadable_features"]
        assert not (perf_samples(path) & whole) - got, where
    # All 256 feature bits set: the samples all the same.
    d = bytearray(b)
    d[72:104] = b"\xff" * 32
    path = tmp_path / "all-bits.data"
    path.write_bytes(d)
    got, error, warned = ours(perf_ours, path)
    assert error is None and got == whole and warned
    # A warnings filter makes the damage an error.
    with warnings.catch_warnings():
        warnings.simplefilter("error", perf_ours.DataWarning)
        with pytest.raises(perf_ours.DataWarning):
            perf_ours.session(perf_ours.data(str(path)))


def cut_compressed(b, which, k):
    """A -z file whose `which`-th COMPRESSED record lost its last k bytes."""
    b = bytearray(b)
    off, _, size = [r for r in records(b, False) if r[1] == PERF_RECORD_COMPRESSED][which]
    struct.pack_into("<H", b, off + 6, size - k)
    del b[off + size - k:off + size]
    data_offset, data_size = struct.unpack_from("<QQ", b, 40)
    struct.pack_into("<Q", b, 48, data_size - k)
    for entry, feat_off, _ in feature_sections(b).values():
        struct.pack_into("<Q", b, entry, feat_off - k)
    return bytes(b)


def test_a_cut_compressed_record_is_never_silent(perf_ours, record, tmp_path):
    """perf says "Couldn't decompress data" and reads nothing; ours reads
    what the records before it hold and raises."""
    src = record("z")
    b = open(src, "rb").read()
    whole, _, _ = ours(perf_ours, src)
    nr = len([r for r in records(b, False) if r[1] == PERF_RECORD_COMPRESSED])
    assert nr >= 1
    # The first and the last (one record holds all of a short recording).
    for which in sorted({0, nr - 1}):
        for k in (1, 100):
            path = tmp_path / "cut.data"
            path.write_bytes(cut_compressed(b, which, k))
            got, error, _ = ours(perf_ours, path)
            where = f"record {which} of {nr} less {k} bytes: {sum(got.values())} samples, {error}"
            assert error is not None and error.errno == 22, where
            assert not (perf_samples(path) & whole) - got and not got - whole, where
            if which == nr - 1:
                # What the whole blocks gave ends inside a record, or the
                # data ends inside a block.
                assert "compressed data" in str(error), where
            if which > 0:
                assert sum(got.values()) > 0, where


def test_columns_of_a_cut_file_come_with_the_error(perf_ours, record, tmp_path):
    """In columnar mode the batches before the damage are returned, and the
    error carries the columns of the records read in its batch."""
    src = record("sw")
    b = open(src, "rb").read()
    recs = records(b, False)
    cut = recs[len(recs) * 2 // 3][0] + 3
    path = tmp_path / "cut.data"
    path.write_bytes(b[:cut])
    got, error, _ = ours(perf_ours, path)
    assert error is not None and sum(got.values()) > 0
    s = perf_ours.session(perf_ours.data(str(path)))
    rows = []
    with pytest.raises(OSError) as e:
        while True:
            batch = s.read_columns(("sample_tid", "sample_time"), max_events=64)
            if not len(batch["sample_time"]):
                break
            rows += zip(batch["sample_tid"], batch["sample_time"])
    cols = e.value.columns
    rows += zip(cols["sample_tid"], cols["sample_time"])
    assert collections.Counter(rows) == got
    assert str(e.value) == str(error)
