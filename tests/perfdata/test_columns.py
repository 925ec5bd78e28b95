# SPDX-License-Identifier: GPL-2.0-only
"""session.read_columns(): a perf.data file's samples as array.array
columns, in batches, against what process_events() hands the sample
callback for the same file (which test_samples.py checks against perf
6.1), and against `perf script -F` directly: the members, the evsel names,
the call chains (raw ips, leaf first) and the resolved dso/symbol names of
each frame. Batches of any size concatenate to the same columns; bad
arguments are TypeError/ValueError; a corrupted file is OSError, as
process_events() raises it."""

import array
import os

import pytest

from perfdata import oracle

FILES = ["sw", "z", "pipe", "threads", "nt", "mem", "callchain", "tp_a"]
MEMBERS = ["sample_ip", "sample_pid", "sample_tid", "sample_time", "sample_addr", "sample_id",
           "sample_stream_id", "sample_cpu", "sample_period"]


def read_all(perf, path, columns=None, max_events=None):
    """Every batch of a fresh session, concatenated: (columns, evsel names,
    number of batches)."""
    session = perf.session(perf.data(str(path)))
    out = {}
    names = None
    batches = 0
    while True:
        cols = session.read_columns(columns, max_events)
        if not cols:
            assert len(cols) == 0 and all(len(cols[k]) == (k == "callchain_offsets") for k in cols)
            break
        batches += 1
        if max_events is not None:
            assert len(cols) <= max_events
        names = cols.evsel_names
        for k in cols:
            c = cols[k]
            assert isinstance(c, array.array)
            if k == "callchain_offsets":
                # Per batch: n + 1 offsets from 0; concatenated, rebased.
                assert len(c) == len(cols) + 1 and c[0] == 0
                base = out[k][-1] if k in out else 0
                c = array.array("Q", (base + x for x in (c if k not in out else c[1:])))
            out.setdefault(k, array.array(c.typecode)).extend(c)
    return out, names, batches


def callbacks(perf, path):
    """What the sample callback sees of the same members."""
    rows = []

    def sample(s):
        rows.append([getattr(s, m) for m in MEMBERS] + [str(s.evsel)[6:-1]])
    perf.session(perf.data(str(path)), sample=sample).process_events()
    return rows


@pytest.mark.parametrize("name", FILES)
def test_columns_are_what_process_events_delivers(perf_ours, record, name):
    path = record(name)
    cols, names, _ = read_all(perf_ours, path)
    rows = callbacks(perf_ours, path)
    assert rows, "the recording has samples"
    assert len(cols["sample_time"]) == len(rows)
    for i, m in enumerate(MEMBERS):
        assert list(cols[m]) == [r[i] for r in rows], m
    assert [names[e] for e in cols["evsel"]] == [r[-1] for r in rows]
    assert set(cols["type"]) == {9}
    # The order is process_events()'s (compared above), not a sort: a
    # system-wide file can have a record older than the last flushed one,
    # which perf (and ours) delivers late.


@pytest.mark.parametrize("name", ["sw", "z", "pipe", "zpipe", "threads", "tp_a", "rw", "big"])
def test_members_read_in_place_are_the_parsed_ones(perf_ours, record, name):
    """Sample members alone are read from each record in place (a fixed
    layout: these files' evsels); asking for `comm` as well makes every
    sample go through the record parser and the thread table. Both give the
    same members in the same order, in batches of any size: plain, -z, pipe
    and -z pipe, --threads, tracepoints, system-wide on every CPU (the
    ordering queue's rounds and HALF flushes, paused and resumed)."""
    path = record(name)
    members = ["type", "evsel"] + MEMBERS
    for size in (None, 1000, 7):
        fast, _, _ = read_all(perf_ours, path, members, max_events=size)
        parsed, _, _ = read_all(perf_ours, path, members + ["comm"], max_events=size)
        assert len(fast["sample_time"]) > 0
        del parsed["comm"]
        assert fast == parsed, size
    if name == "tp_a":
        assert len(set(fast["sample_cpu"])) > 1, "samples of several CPUs to order"


@pytest.mark.parametrize("name", ["sw", "callchain", "pipe"])
def test_batches_of_any_size_concatenate_to_the_same(perf_ours, record, name):
    path = record(name)
    whole, _, one = read_all(perf_ours, path, max_events=10**9)
    assert one == 1
    n = len(whole["sample_time"])
    for size in (1, 7, 1000, None):
        got, _, batches = read_all(perf_ours, path, max_events=size)
        assert got == whole, size
        if size:
            assert batches == -(-n // size), size


def frames_of_perf_script(path):
    """`perf script -F tid,time,ip,sym,dso --ns`: per sample, its frames as
    (ip as printed, sym, dso)."""
    out = oracle.perf_script(path, "-F", "tid,time,ip,sym,dso", "--ns")
    samples = []
    for block in out.split("\n\n"):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        frames = []
        for line in lines[1:]:
            ip, rest = line.split(None, 1)
            sym, dso = rest.rsplit(" (", 1)
            frames.append((int(ip, 16), sym, dso[:-1]))
        samples.append(frames)
    return samples


def test_call_chains_are_perf_scripts(perf_ours, record):
    path = record("callchain")
    cols, _, _ = read_all(perf_ours, path, ("sample_time", "callchain_ips", "callchain_offsets",
                                            "callchain_dso", "callchain_symbol", "dso", "symbol",
                                            "sample_ip"))
    session = perf_ours.session(perf_ours.data(str(path)))
    strings = session.read_columns(("callchain_symbol",), max_events=10**9).names
    theirs = frames_of_perf_script(path)
    offsets, ips = cols["callchain_offsets"], cols["callchain_ips"]
    assert len(theirs) == len(cols["sample_time"]) == len(offsets) - 1
    assert offsets[-1] == len(ips) == len(cols["callchain_symbol"])
    kernel = user = 0
    for i, frames in enumerate(theirs):
        ours = ips[offsets[i]:offsets[i + 1]]
        assert len(ours) == len(frames), (i, [hex(x) for x in ours], frames)
        for j, (ip, sym, dso) in enumerate(frames):
            k = offsets[i] + j
            assert strings[cols["callchain_symbol"][k]] == sym, (i, j)
            assert strings[cols["callchain_dso"][k]] == dso, (i, j)
            # perf prints a user frame's address within its DSO (map_ip);
            # kernel and unmapped addresses as they are.
            if dso == "[kernel.kallsyms]" or dso == "[unknown]":
                assert ours[j] == ip, (i, j)
            kernel += dso == "[kernel.kallsyms]"
            user += dso.startswith("/")
        # The sample's own ip is its chain's leaf.
        if ours:
            assert ours[0] == cols["sample_ip"][i]
            assert cols["symbol"][i] == cols["callchain_symbol"][offsets[i]]
    assert kernel and user, "both kinds of frames were compared"


def comm_of(session, pid, tid):
    """A sample's thread's comm as a sample callback sees it (perf's
    `:<tid>` for a thread the file never named)."""
    thread = session.find_thread(pid, tid)
    return thread.comm() if thread is not None else f":{tid}"


@pytest.mark.parametrize("name", ["exec", "comm", "callchain"])
def test_comm_is_the_threads_when_the_sample_is_delivered(perf_ours, record, name):
    """The comm column against find_thread(pid, tid).comm() in the sample
    callback (perf script's view): a shell that execs, a prctl rename, in
    batches of any size (the comm changes within a batch)."""
    path = str(record(name))
    theirs = []
    session = perf_ours.session(perf_ours.data(path), sample=lambda s: theirs.append(
        (s.sample_pid, s.sample_tid, comm_of(session, s.sample_pid, s.sample_tid))))
    session.process_events()
    for size in (None, 1000, 7):
        session = perf_ours.session(perf_ours.data(path))
        ours = []
        while cols := session.read_columns(("sample_pid", "sample_tid", "comm"), max_events=size):
            assert set(cols) == {"sample_pid", "sample_tid", "comm"}
            ours += [(p, t, cols.names[c])
                     for p, t, c in zip(cols["sample_pid"], cols["sample_tid"], cols["comm"])]
        assert ours == theirs, size
    comms = {}
    for pid, tid, comm in theirs:
        comms.setdefault(tid, []).append(comm)
    changed = {tid: c for tid, c in comms.items() if len(set(c)) > 1}
    if name != "callchain":
        assert changed, "a thread's comm changed between two of its samples"
    if name == "exec":
        # The shell's own thread, and its child, were sh, then the workload.
        assert sum(c[0] == "sh" and c[-1] == "workload" for c in changed.values()) >= 1, changed


@pytest.mark.parametrize("name", ["exec", "callchain", "twins"])
def test_callchain_names_each_samples_distinct_chain(perf_ours, record, name):
    """callchain (one int a sample) and cols.callchains (each distinct
    chain's dso and symbol indexes, leaf first) against the sample
    callback's call chain nodes (resolved frame by frame, without the
    columns' memo), in batches of any size; each distinct chain once."""
    path = str(record(name))
    theirs = []

    def sample(s):
        chain = s.callchain
        theirs.append([(n.dso, n.symbol) for n in chain] if chain is not None else [])
    perf_ours.session(perf_ours.data(path), sample=sample).process_events()
    assert sum(map(len, theirs)), "the samples have call chains"
    for size in (None, 1000, 7):
        session = perf_ours.session(perf_ours.data(path))
        ours = []
        wanted = ("callchain", "callchain_dso", "callchain_symbol")
        while cols := session.read_columns(wanted, max_events=size):
            names, chains = cols.names, cols.callchains
            offsets = cols["callchain_offsets"]
            for i, k in enumerate(cols["callchain"]):
                dsos, syms = chains[k]
                assert isinstance(dsos, array.array) and dsos.typecode == syms.typecode == "I"
                frames = slice(offsets[i], offsets[i + 1])
                assert list(dsos) == list(cols["callchain_dso"][frames]), (size, i)
                assert list(syms) == list(cols["callchain_symbol"][frames]), (size, i)
                ours.append([(names[d], names[s]) for d, s in zip(dsos, syms)])
        assert ours == theirs, size
        assert chains[0] == (array.array("I"), array.array("I"))
        distinct = {(tuple(d), tuple(s)) for d, s in chains}
        assert len(distinct) == len(chains), "each chain once"
        assert len(chains) < len(ours), "chains are shared by samples"
    if name == "twins":
        # The same raw chain resolved to both twins' symbols: what a memo
        # by raw chain alone, or one kept across an exec, would mix up.
        cols, _, _ = read_all(perf_ours, path, ("callchain_ips", "callchain_offsets"))
        offsets, ips = cols["callchain_offsets"], cols["callchain_ips"]
        spins = {}
        for i, frames in enumerate(theirs):
            spin = {sym for _, sym in frames if sym.endswith("_spin")}
            if spin:
                spins.setdefault(tuple(ips[offsets[i]:offsets[i + 1]]), set()).update(spin)
        assert {"alpha_spin", "gamma_spin"} in spins.values(), "twins share raw chains"


def test_pandas_example(perf_ours, record):
    """docs/perfdata.md's example: with pandas if it is here, else the
    same figures from the plain arrays."""
    path = str(record("callchain"))
    session = perf_ours.session(perf_ours.data(path))
    per_symbol = {}
    total = 0
    while cols := session.read_columns(("sample_period", "symbol")):
        for sym, period in zip(cols["symbol"], cols["sample_period"]):
            name = cols.names[sym]
            per_symbol[name] = per_symbol.get(name, 0) + period
            total += period
    assert total and per_symbol
    try:
        import pandas
    except ImportError:
        return
    session = perf_ours.session(perf_ours.data(path))
    frames = []
    while cols := session.read_columns(("sample_period", "symbol")):
        frames.append(pandas.DataFrame({
            "period": cols["sample_period"],
            "symbol": pandas.Categorical.from_codes(cols["symbol"], cols.names)}))
    df = pandas.concat(frames)
    by = df.groupby("symbol", observed=True)["period"].sum()
    assert by.to_dict() == per_symbol


def test_bad_arguments(perf_ours, record):
    session = perf_ours.session(perf_ours.data(str(record("sw"))))
    for columns, exc in [("sample_time", TypeError), (["nope"], ValueError), ([1], TypeError),
                         (5, TypeError), (["comm", "callchains"], ValueError),
                         (["comm", None], TypeError)]:
        with pytest.raises(exc):
            session.read_columns(columns)
    for max_events, exc in [(0, ValueError), (-1, ValueError), (2**70, ValueError),
                            ("10", TypeError), (1.5, TypeError)]:
        with pytest.raises(exc):
            session.read_columns(max_events=max_events)
    # Nothing was read by the failed calls.
    assert len(session.read_columns(max_events=10**9)) == len(callbacks(perf_ours, record("sw")))
    assert len(session.read_columns()) == 0


def test_a_corrupted_file_is_oserror_as_in_process_events(perf_ours, record, tmp_path):
    src = record("sw")
    bad = bytearray(open(src, "rb").read())
    data_offset = int.from_bytes(bad[40:48], "little")
    # The 40th record's size runs past the data.
    at = data_offset
    for _ in range(40):
        at += int.from_bytes(bad[at + 6:at + 8], "little")
    bad[at + 6:at + 8] = (0xfff8).to_bytes(2, "little")
    path = str(tmp_path / "bad.data")
    open(path, "wb").write(bad)
    with pytest.raises(OSError) as theirs:
        perf_ours.session(perf_ours.data(path), sample=lambda s: None).process_events()
    session = perf_ours.session(perf_ours.data(path))
    with pytest.raises(OSError) as e:
        while session.read_columns(max_events=5):
            pass
    assert type(e.value) is type(theirs.value) and e.value.errno == theirs.value.errno == 22
    assert str(e.value) == str(theirs.value)
    assert isinstance(e.value.columns, perf_ours.sample_columns)
    # The session stops there, as process_events does.
    assert len(session.read_columns()) == 0
    assert os.path.exists(path)
