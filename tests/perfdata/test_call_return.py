# SPDX-License-Identifier: GPL-2.0-only
"""perf.session's call_return= and itrace= (the newer series' python.c).

Without AUX data perf's thread stacks see samples with no branch flags:
each thread's first sample is its stack's bottom, flushed (one
perf.call_return flagged NO_CALL | NO_RETURN) at the thread's first sample
after an exec and, for the stacks left, at the end of process_events()
(the C flushes those when the session is freed). The expected records are
derived here from the sample callback's own samples.
"""

import pytest

NO_CALL, NO_RETURN, NON_CALL = 1, 2, 4


def comm_of(session, pid, tid):
    thread = session.find_thread(pid, tid)
    return thread.comm() if thread is not None else f":{tid}"


def read(perf, path, with_samples=True):
    """[("s", sample facts) | ("cr", call_return facts)] in delivery order."""
    got = []
    session = None

    def sample(s):
        got.append(("s", dict(pid=s.sample_pid, tid=s.sample_tid, cpu=s.sample_cpu,
                              time=s.sample_time, ip=s.sample_ip, symbol=s.symbol,
                              comm=comm_of(session, s.sample_pid, s.sample_tid))))

    def call_return(cr):
        assert type(cr) is perf.call_return and repr(cr) == "{ type: call_return }"
        path = cr.call_path
        assert isinstance(path, perf.callchain)
        got.append(("cr", dict(db_id=cr.db_id, parent_id=cr.parent_id,
                               insn_count=cr.insn_count, cyc_count=cr.cyc_count,
                               comm=cr.comm, machine_pid=cr.machine_pid, pid=cr.pid,
                               tid=cr.tid, call_time=cr.call_time,
                               return_time=cr.return_time, branch_count=cr.branch_count,
                               call_ref=cr.call_ref, return_ref=cr.return_ref,
                               flags=cr.flags,
                               call_path=[(n.ip, n.symbol) for n in path])))
    session = perf.session(perf.data(path), sample=sample if with_samples else None,
                           call_return=call_return)
    session.process_events()
    return got


def expected(samples):
    """python.c's records for these samples: (records flushed before sample
    i, by i) and the records left for the end, by tid."""
    stacks, before, n = {}, {}, 0
    for i, s in enumerate(samples):
        n += 1
        key = (s["tid"], s["cpu"] if s["pid"] == 0 and s["tid"] == 0 else 0)
        st = stacks.get(key)
        placeholder = f":{s['tid']}"
        if st is not None and s["pid"] == s["tid"] and s["comm"] != st["comm"] \
                and st["comm"] != placeholder:
            before.setdefault(i, []).append(flushed(st))
            st = None
        if st is None:
            st = stacks[key] = dict(first=s, ref=n, count=0, comm=s["comm"])
        if st["comm"] == placeholder:
            # Naming a placeholder is no new comm: the stack's shows it.
            st["comm"] = s["comm"]
        st.update(count=st["count"] + 1, last=s["time"], pid=s["pid"])
    return before, [flushed(st) for _, st in sorted(stacks.items())]


def flushed(st):
    first = st["first"]
    symbol = first["symbol"]
    return dict(db_id=None, parent_id=0, insn_count=0, cyc_count=0, comm=st["comm"],
                machine_pid=-1, pid=st["pid"], tid=first["tid"], call_time=first["time"],
                return_time=st["last"], branch_count=st["count"], call_ref=st["ref"],
                return_ref=0, flags=NO_CALL | NO_RETURN,
                call_path=[(0, symbol) if symbol is not None else (first["ip"], "[unknown]")])


def test_exec_recording_gives_the_c_records(perf_ours, record):
    got = read(perf_ours, str(record("exec")))
    samples = [f for kind, f in got if kind == "s"]
    assert len({s["tid"] for s in samples}) >= 2, "several threads sampled"
    before, at_end = expected(samples)
    assert before, "a thread's comm changed between two of its samples (an exec)"
    crs = [f for kind, f in got if kind == "cr"]
    assert [c["db_id"] for c in crs] == list(range(1, len(crs) + 1))
    # Where each record came: after how many samples. Flushed by an exec:
    # just before the sample that follows it; the rest at the end, by tid.
    positions, seen = [], 0
    for kind, f in got:
        if kind == "s":
            seen += 1
        else:
            positions.append((seen, dict(f, db_id=None)))
    want = [(i, r) for i in sorted(before) for r in before[i]]
    want += [(len(samples), r) for r in at_end]
    assert positions == want
    assert sum(c["branch_count"] for c in crs) == len(samples)


def test_call_return_alone_gives_the_same_records(perf_ours, record):
    path = str(record("exec"))
    with_samples = [f for kind, f in read(perf_ours, path) if kind == "cr"]
    alone = [f for kind, f in read(perf_ours, path, with_samples=False)]
    assert alone == with_samples and alone


def test_call_return_error_propagates(perf_ours, record):
    def boom(cr):
        raise KeyError("boom")
    s = perf_ours.session(perf_ours.data(str(record("exec"))), call_return=boom)
    with pytest.raises(KeyError, match="boom"):
        s.process_events()


def test_call_return_must_be_callable(perf_ours, record):
    data = perf_ours.data(str(record("exec")))
    with pytest.raises(TypeError, match="^call_return must be callable$"):
        perf_ours.session(data, call_return=1)
    # The other callbacks are checked first, as python.c does.
    with pytest.raises(TypeError, match="^sample must be callable$"):
        perf_ours.session(data, sample=1, call_return=1)
    perf_ours.session(data, call_return=None).process_events()


def test_call_return_type_and_constants(perf_ours):
    assert (perf_ours.CALL_RETURN_NO_CALL, perf_ours.CALL_RETURN_NO_RETURN,
            perf_ours.CALL_RETURN_NON_CALL) == (NO_CALL, NO_RETURN, NON_CALL)
    with pytest.raises(TypeError):
        perf_ours.call_return()


GOOD = ["", "i", "ibxwpe", "iybxwpe", "ce", "cr", "i100ns", "i10us", "y1000t", "i 100 , i",
        "g", "g32", "G16384", "l", "L1024", "s5", "e+o-l", "d+a+e", "qqAZ", "fmtaMIo"]
BAD = ["z", "i100b", "i100,b", "i10n", "g0", "g16385", "l1025", "s", "sx", "e+", "e+A", "h"]


@pytest.mark.parametrize("itrace", BAD)
def test_bad_itrace_raises(perf_ours, record, itrace):
    data = perf_ours.data(str(record("exec")))
    with pytest.raises(ValueError, match="^Failed to parse itrace options$"):
        perf_ours.session(data, itrace=itrace)


def test_itrace_defaults_to_perf_itrace(perf_ours, record, monkeypatch):
    data = perf_ours.data(str(record("exec")))
    monkeypatch.setenv("PERF_ITRACE", "i100b")
    with pytest.raises(ValueError, match="^Failed to parse itrace options$"):
        perf_ours.session(data)
    perf_ours.session(data, itrace="ce")  # the keyword wins
    monkeypatch.setenv("PERF_ITRACE", "ce")
    perf_ours.session(data)


def test_good_itrace_changes_nothing_without_aux_data(perf_ours, record):
    path = str(record("exec"))

    def times(**kw):
        got = []
        perf_ours.session(perf_ours.data(path), sample=lambda s: got.append(
            (s.sample_tid, s.sample_time, s.sample_ip)), **kw).process_events()
        return got
    plain = times()
    assert plain
    for itrace in GOOD:
        assert times(itrace=itrace) == plain, itrace
