# SPDX-License-Identifier: GPL-2.0-only
"""session.read_columns()' batches through the Arrow PyCapsule interface:
the capsules' C structs read with ctypes (the protocol, with or without
pyarrow: formats, lengths, and the numeric buffers at the array.array's
own address), and every value pyarrow, polars and DuckDB read equal to what
the sample callback sees of the same recording (plain, -z, pipe, -g)."""

import array

import pytest

from perfdata import arrow_check as ac

FILES = ["sw", "z", "pipe", "zpipe", "callchain"]
NAMED = ("comm",)
FRAMES = ("callchain_ips", "callchain_dso", "callchain_symbol")


def columns_of(name):
    return ac.MEMBERS + ["evsel"] + list(NAMED) + (list(FRAMES) if name == "callchain" else [])


def test_capsules_describe_and_share_the_columns(perf_ours, record):
    """Without pyarrow: the schema's formats, the array's lengths, and each
    numeric child's data buffer is the array.array's memory (no copy)."""
    session = perf_ours.session(perf_ours.data(str(record("callchain"))))
    cols = session.read_columns(ac.MEMBERS + ["evsel", "comm", "symbol", "callchain_ips",
                                              "callchain_symbol"])
    assert len(cols) > 0
    schema_capsule = cols.__arrow_c_schema__()
    fmt = ac.formats(ac.unwrap(schema_capsule, b"arrow_schema", ac.ArrowSchema))
    assert fmt == {
        "sample_ip": "L", "sample_pid": "i", "sample_tid": "i", "sample_time": "L",
        "sample_period": "L", "sample_cpu": "I", "evsel": "I",
        "callchain_ips": "+L<L>", "symbol": "I:u", "callchain_symbol": "+L<I:u>",
        "comm": "I:u"}
    schema_capsule, array_capsule = cols.__arrow_c_array__()
    schema = ac.unwrap(schema_capsule, b"arrow_schema", ac.ArrowSchema)
    struct = ac.unwrap(array_capsule, b"arrow_array", ac.ArrowArray)
    assert schema.format == b"+s" and struct.length == len(cols) and struct.n_children == 11
    names = [schema.children[i].contents.name.decode() for i in range(schema.n_children)]
    for i, name in enumerate(names):
        child = struct.children[i].contents
        assert child.length == len(cols) and child.null_count == 0, name
        if name == "callchain_ips":
            offsets = cols["callchain_offsets"]
            assert child.buffers[1] == offsets.buffer_info()[0]
            assert child.children[0].contents.buffers[1] == cols[name].buffer_info()[0]
            assert child.children[0].contents.length == offsets[-1]
        elif name not in ("callchain_symbol",):
            # Data buffer (1) of a primitive, or the indices of a dictionary.
            assert child.buffers[1] == cols[name].buffer_info()[0], name
    # An exported column cannot move: resizing it is refused while the
    # Arrow array lives, and allowed again once it is released.
    with pytest.raises(BufferError):
        cols["sample_time"].append(0)
    del schema, struct, schema_capsule, array_capsule
    cols["sample_time"].append(0)
    with pytest.raises(ValueError, match=f"column sample_time has {len(cols) + 1} values"):
        cols.__arrow_c_stream__()
    cols["sample_time"].pop()
    capsule = cols.__arrow_c_stream__()
    stream = ac.unwrap(capsule, b"arrow_array_stream", ac.ArrowArrayStream)
    assert stream.release and stream.get_next


def test_an_empty_batch_is_an_empty_struct(perf_ours, record):
    session = perf_ours.session(perf_ours.data(str(record("sw"))))
    while session.read_columns(max_events=10**9):
        pass
    cols = session.read_columns(["sample_time", "comm", "callchain_ips", "callchain_offsets"])
    assert len(cols) == 0
    schema_capsule, array_capsule = cols.__arrow_c_array__()
    struct = ac.unwrap(array_capsule, b"arrow_array", ac.ArrowArray)
    assert struct.length == 0 and struct.n_children == 3


def test_ips_without_their_offsets_are_valueerror(perf_ours, record):
    session = perf_ours.session(perf_ours.data(str(record("callchain"))))
    cols = session.read_columns(["sample_time", "callchain_ips"])
    with pytest.raises(ValueError, match="callchain_ips is a list column in Arrow: read "
                                         "callchain_offsets with it"):
        cols.__arrow_c_schema__()


def arrow_rows(perf, path, columns, convert):
    """Every batch of a fresh session through `convert` (cols -> list of
    row dicts)."""
    session = perf.session(perf.data(str(path)))
    rows = []
    batches = 0
    while cols := session.read_columns(columns, max_events=700):
        names = cols.evsel_names
        for row in convert(cols):
            row["evsel"] = names[row["evsel"]]
            rows.append(row)
        batches += 1
    return rows, batches


def expected(perf, path, frames):
    rows = ac.callback_rows(perf, path, frames)
    for row in rows:
        if frames:
            row["callchain_ips"] = [ip for ip, _, _ in row["frames"]]
            row["callchain_dso"] = [d for _, d, _ in row["frames"]]
            row["callchain_symbol"] = [s for _, _, s in row["frames"]]
            del row["frames"]
    return rows


def with_pyarrow(cols):
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed")
    table = pa.table(cols)
    assert table.num_rows == len(cols)
    assert table.column("sample_time").chunk(0).buffers()[1].address == \
        cols["sample_time"].buffer_info()[0], "no copy"
    return table.to_pylist()


def with_polars(cols):
    pl = pytest.importorskip("polars", reason="polars is not installed")
    return pl.DataFrame(cols).to_dicts()


def with_duckdb(cols):
    duckdb = pytest.importorskip("duckdb", reason="duckdb is not installed")
    rel = duckdb.sql("SELECT * FROM cols")
    return [dict(zip(rel.columns, r)) for r in rel.fetchall()]


@pytest.mark.parametrize("consumer", [with_pyarrow, with_polars, with_duckdb],
                         ids=["pyarrow", "polars", "duckdb"])
@pytest.mark.parametrize("name", FILES)
def test_arrow_values_are_the_callbacks(perf_ours, record, name, consumer):
    path = record(name)
    frames = name == "callchain"
    theirs = expected(perf_ours, path, frames)
    assert theirs, "the recording has samples"
    ours, batches = arrow_rows(perf_ours, path, columns_of(name), consumer)
    assert batches > 1 or len(ours) < 700
    assert ours == theirs
    if frames:
        assert sum(len(r["callchain_ips"]) for r in ours) > len(ours), "call chains compared"


def test_changed_columns_are_checked_not_trusted(perf_ours, record):
    """The arrays are the caller's to change: an index past cols.names or
    an offset past the frames is ValueError, not memory read out of
    bounds."""
    session = perf_ours.session(perf_ours.data(str(record("callchain"))))
    cols = session.read_columns(["symbol", "callchain_offsets", "callchain_ips"])
    cols["symbol"][0] = len(cols.names)
    with pytest.raises(ValueError, match="out of bounds"):
        cols.__arrow_c_array__()
    cols["symbol"][0] = 0
    cols.__arrow_c_array__()
    cols["callchain_offsets"][1] = len(cols["callchain_ips"]) + 1
    with pytest.raises(ValueError, match="out of bounds"):
        cols.__arrow_c_stream__()
