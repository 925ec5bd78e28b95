# SPDX-License-Identifier: GPL-2.0-only
"""What benchmarks/perf_data_symbols.py times of ours besides the stack
collapser (tests/symbols/scripts/stackcollapse.py): one perf.session over a
perf.data file.

    symbols_workload.py FILE srccode   srccode() of every sample: the work
                                       of `perf script -F ip,srcline` on a
                                       file without call chains
    symbols_workload.py FILE columns   the stack collapser on the columnar
                                       path (session.read_columns); exits
                                       with status 3 and the reason on
                                       stderr when the module has none

srccode prints one JSON line {"samples": N, "with_line": M}; columns prints
the collapsed stacks as stackcollapse.py does.
"""

import array
import collections
import itertools
import json
import operator
import sys

import perf

NO_COLUMNS = 3


def srccode(path):
    n = with_line = 0

    def sample(s):
        nonlocal n, with_line
        n += 1
        if s.srccode() is not None:
            with_line += 1

    perf.session(perf.data(path), sample=sample).process_events()
    print(json.dumps({"samples": n, "with_line": with_line}))


def thread_comm(session, pid, tid):
    """The comm stackcollapse.py prints for a thread ("" when the file
    never named it)."""
    thread = session.find_thread(pid, tid)
    return (thread.comm() if thread is not None else "") or ""


def columns(path):
    """Collapsed stacks (comm;outer;...;leaf count) from columns: each
    sample's frames as a run of callchain_symbol (small ints into the
    session's names table, leaf first, between two callchain_offsets), its
    thread from sample_pid/sample_tid; nothing made per sample but the key
    of a counter. The same lines as stackcollapse.py (perf's and
    tests/symbols/scripts/stackcollapse.py): a chain perf could not resolve
    is an empty stack, as perf's script sees it.

    The comm is the one the thread has when its sample is delivered, as
    stackcollapse.py sees it: per batch, the comm of each thread of the
    batch after it; a thread whose comm may have changed within the batch
    (new, or another comm than after the previous batch: an exec, a
    prctl) gets each of its samples' comm from a second session that
    lags one batch behind, stepped to that sample, until the comm is the
    one after the batch (so two changes of one thread within one batch
    would be seen as one)."""
    session = perf.session(perf.data(path))
    if not hasattr(session, "read_columns"):
        print("perf.session has no read_columns()", file=sys.stderr)
        sys.exit(NO_COLUMNS)
    lag = perf.session(perf.data(path))
    counts = collections.Counter()
    names, sym = None, array.array("I")
    known = {}  # (pid, tid) -> comm after the previous batch
    while cols := session.read_columns(("sample_pid", "sample_tid", "callchain_symbol")):
        pids, tids = cols["sample_pid"], cols["sample_tid"]
        offsets, sym = cols["callchain_offsets"], cols["callchain_symbol"]
        threads = list(zip(pids, tids))
        after = {t: thread_comm(session, *t) for t in set(threads)}
        comm = list(map(after.__getitem__, threads))
        changed = {t for t, c in after.items() if known.get(t) != c}
        if changed:
            lag_comms(lag, threads, changed, after, comm)
        else:
            lag.read_columns((), max_events=len(threads))
        known.update(after)
        # Each sample's frames as the bytes of its run of the symbol
        # column, made and counted in C (map, slice, Counter.update).
        raw, ends = sym.tobytes(), list(map(operator.mul, offsets, itertools.repeat(sym.itemsize)))
        counts.update(zip(comm, map(raw.__getitem__, map(slice, ends, itertools.islice(ends, 1, None)))))
        names = cols.names
    tidy = [s.replace(";", ":") for s in names or ()]
    lines = collections.Counter()
    for (c, chain), n in counts.items():
        frames = array.array(sym.typecode, chain)
        lines[";".join([c.replace(" ", "_"), *(tidy[s] for s in reversed(frames))])] += n
    for key in sorted(lines):
        print("%s %d" % (key, lines[key]))


def lag_comms(lag, threads, changed, after, comm):
    """comm[i] for the samples of the `changed` threads of a batch, from
    the `lag` session (at the batch's start, left at its end): each such
    thread's samples in order until its comm is the one `after` the
    batch."""
    pending = [i for i, t in enumerate(threads) if t in changed]
    done = set()
    at = 0  # samples of the batch the lag session has read
    for i in pending:
        t = threads[i]
        if t in done:
            continue
        lag.read_columns((), max_events=i + 1 - at)
        at = i + 1
        comm[i] = c = thread_comm(lag, *t)
        if c == after[t]:
            done.add(t)
    if at < len(threads):
        lag.read_columns((), max_events=len(threads) - at)


def main():
    path, mode = sys.argv[1], sys.argv[2]
    {"srccode": srccode, "columns": columns}[mode](path)


if __name__ == "__main__":
    main()
